"""Keyword placement of the native entry: consumes a call's positional and keyword arguments,
produces one positional argument array with omitted parameters at their defaults."""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from ember.dispatcher.entry_builder import EntryBuilder
from ember.dispatcher.object_layout import (
    _I64,
    _PTR,
    _PTR_SIZE,
    _SSIZE,
    _object_constant,
)


class KeywordPlacement(EntryBuilder):
    """Places keyword arguments by name and reads arguments or their defaults."""

    def emit_keyword_folding(self, param_names: Sequence[str]) -> None:
        """With keyword arguments, place them at their parameters' positions in a local array
        (matching names by identity: identifiers are interned) and fill omitted parameters
        with their defaults; anything unusual goes to the fallback."""
        b = self.builder
        count = len(param_names)
        null = ir.Constant(_PTR, None)
        self.alloca_builder.position_at_start(self._entry)
        folded = self.alloca_builder.alloca(_PTR, size=max(count, 1), name="folded")
        has_keywords = b.icmp_unsigned("!=", self.kwnames_arg, null)
        fold_block = self.new_block("kw.fold")
        done = self.new_block("kw.done")
        origin = b.block
        b.cbranch(has_keywords, fold_block, done)
        b.position_at_end(fold_block)
        too_many = b.icmp_signed(">", self.raw_nargs, ir.Constant(_SSIZE, count))
        self.continue_if(b.not_(too_many), self.fallback_block, "kw.count_ok")
        slots = [
            b.gep(folded, [ir.Constant(_I64, position)], source_etype=_PTR)
            for position in range(count)
        ]
        for position, slot in enumerate(slots):
            given = b.icmp_signed(">", self.raw_nargs, ir.Constant(_SSIZE, position))
            raw = b.gep(self.raw_args, [ir.Constant(_I64, position)], source_etype=_PTR)
            safe = b.select(given, raw, slots[position])  # never read past the raw arguments
            b.store(b.select(given, b.load(safe, typ=_PTR), null), slot)
        kw_count = self.load_field(self.kwnames_arg, self.layout.var_size_offset, _SSIZE, 8)
        for keyword in range(count):  # at most one keyword per parameter
            present = b.icmp_signed(">", kw_count, ir.Constant(_SSIZE, keyword))
            next_keyword = self.new_block(f"kw{keyword}.next")
            place = self.new_block(f"kw{keyword}.place")
            b.cbranch(present, place, next_keyword)
            b.position_at_end(place)
            name = self.tuple_item(self.kwnames_arg, keyword)
            index = b.add(self.raw_nargs, ir.Constant(_SSIZE, keyword))
            value = b.load(b.gep(self.raw_args, [index], source_etype=_PTR), typ=_PTR)
            placed = ir.Constant(ir.IntType(1), 0)
            for position, param in enumerate(param_names):
                matches = b.icmp_unsigned("==", name, _object_constant(param))
                free = b.icmp_unsigned("==", b.load(slots[position], typ=_PTR), null)
                take = b.and_(matches, free)
                b.store(b.select(take, value, b.load(slots[position], typ=_PTR)), slots[position])
                placed = b.or_(placed, take)
            self.continue_if(placed, self.fallback_block, f"kw{keyword}.placed")
            b.branch(next_keyword)
            b.position_at_end(next_keyword)
        too_many_keywords = b.icmp_signed(">", kw_count, ir.Constant(_SSIZE, count))
        self.continue_if(b.not_(too_many_keywords), self.fallback_block, "kw.all_placed")
        required = count - min(len(self.defaults), count)
        for position, slot in enumerate(slots):
            current = b.load(slot, typ=_PTR)
            missing = b.icmp_unsigned("==", current, null)
            if position < required:
                self.continue_if(b.not_(missing), self.fallback_block, f"kw.has{position}")
            else:
                default = _object_constant(self.defaults[position - required])
                b.store(b.select(missing, default, current), slot)
        folded_end = b.block
        b.branch(done)
        b.position_at_end(done)
        args = b.phi(_PTR, name="call.args")
        args.add_incoming(self.raw_args, origin)
        args.add_incoming(folded, folded_end)
        nargs = b.phi(_SSIZE, name="call.nargs")
        nargs.add_incoming(self.raw_nargs, origin)
        nargs.add_incoming(ir.Constant(_SSIZE, count), folded_end)
        self.args_arg, self.nargs_arg = args, nargs

    def argument_or_default(self, position: int, required: int) -> ir.Value:
        """args[position], or the parameter's default object when the call omitted it."""
        b = self.builder
        slot = b.gep(self.args_arg, [ir.Constant(_I64, position)], source_etype=_PTR)
        if position < required:
            return b.load(slot, typ=_PTR, align=_PTR_SIZE)
        default = _object_constant(self.defaults[position - required])
        given = self.new_block(f"arg{position}.given")
        join = self.new_block(f"arg{position}.join")
        origin = b.block
        passed = b.icmp_signed(">", self.nargs_arg, ir.Constant(_SSIZE, position))
        b.cbranch(passed, given, join)
        b.position_at_end(given)
        loaded = b.load(slot, typ=_PTR, align=_PTR_SIZE)
        b.branch(join)
        b.position_at_end(join)
        value = b.phi(_PTR, name=f"arg{position}")
        value.add_incoming(loaded, given)
        value.add_incoming(default, origin)
        return value
