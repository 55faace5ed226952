"""List arguments in the native entry: a Python list is copied into a native list by its list
type's generated `unbox_exact` and written back by `reflect` after the call
(ember/dispatcher/reflected_lists.py); a typed list of that type is lent as it is."""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir

from ember.dispatcher.entry_builder import EntryBuilder
from ember.dispatcher.object_layout import (
    _I32,
    _PTR,
    ReflectedListKind,
    _FunctionPointer,
    _object_constant,
)

_NULL = ir.Constant(_PTR, None)
_UNBOX = ir.FunctionType(_PTR, [_PTR])
_REFLECT = ir.FunctionType(_I32, [_PTR, _PTR])
_RELEASE = ir.FunctionType(ir.VoidType(), [_PTR])


@dataclass
class UnboxedList:
    """A list argument of the call being emitted: its object, meminfo, the kind, and whether
    it was copied from a Python list (i1: reflect and release it after the call)."""

    obj: ir.Value
    meminfo: ir.Value
    kind: ReflectedListKind
    copied: ir.Value


class ListArgumentCodegen(EntryBuilder):
    """Matches, unboxes and writes back list arguments for the entry's code generator."""

    def emit_match_list(self, obj: ir.Value, kind: ReflectedListKind, fail: ir.Block) -> None:
        """A Python list (its items are checked as it is copied), or a typed list of the
        type."""
        is_list = self._is_python_list(obj)
        if kind.typed is None:
            self.continue_if(is_list, fail, "list_ok")
            return
        matched = self.new_block("list_matched")
        typed = self.new_block("typed_list")
        self.builder.cbranch(is_list, matched, typed)
        self.builder.position_at_end(typed)
        self.emit_match(obj, kind.typed, fail)
        self.builder.branch(matched)
        self.builder.position_at_end(matched)

    def emit_unbox_list(
        self, obj: ir.Value, kind: ReflectedListKind, unboxed: list, other_items: ir.Block
    ) -> list[ir.Value]:
        """The meminfo of a list argument. A Python list whose items are not of the list type
        goes to `other_items` (the next specialization) after the lists in `unboxed`, copied
        before it, are released; this one joins them."""
        b = self.builder
        is_list = self._is_python_list(obj)
        copy_block = self.new_block("list_copy")
        joined = self.new_block("list_unboxed")
        if kind.typed is None:
            b.branch(copy_block)
        else:
            typed = self.new_block("typed_list_lent")
            b.cbranch(is_list, copy_block, typed)
            b.position_at_end(typed)
            lent = self.emit_unbox(obj, kind.typed, self.fallback_block)[0]
            lent_end = b.block
            b.branch(joined)
        b.position_at_end(copy_block)
        copied = b.call(_FunctionPointer(_UNBOX, kind.unbox), [obj])
        refused = self.new_block("list_items_differ")
        b.cbranch(b.icmp_unsigned("!=", copied, _NULL), joined, refused)
        copy_end = b.block
        with b.goto_block(refused):
            self._release(unboxed)
            b.branch(other_items)
        b.position_at_end(joined)
        meminfo = b.phi(_PTR, "list_meminfo")
        meminfo.add_incoming(copied, copy_end)
        was_copied = b.phi(ir.IntType(1), "list_copied")
        was_copied.add_incoming(ir.Constant(ir.IntType(1), 1), copy_end)
        if kind.typed is not None:
            meminfo.add_incoming(lent, lent_end)
            was_copied.add_incoming(ir.Constant(ir.IntType(1), 0), lent_end)
        unboxed.append(UnboxedList(obj, meminfo, kind, was_copied))
        return [meminfo]

    def emit_reflect_lists(self, unboxed: list) -> None:
        """Write the copied lists back (releasing them) after the call; return NULL with the
        exception set if one cannot be (out of memory: the call's result is then lost)."""
        if not unboxed:
            return
        b = self.builder
        failed = self.alloca(ir.IntType(1), "reflect_failed")
        b.store(ir.Constant(ir.IntType(1), 0), failed)
        for entry in unboxed:
            with b.if_then(entry.copied):
                reflect = _FunctionPointer(_REFLECT, entry.kind.reflect)
                status = b.call(reflect, [entry.obj, entry.meminfo])
                with b.if_then(b.icmp_signed("!=", status, _I32(0)), likely=False):
                    b.store(ir.Constant(ir.IntType(1), 1), failed)
        with b.if_then(b.load(failed), likely=False):
            b.ret(_NULL)

    def emit_return_copied_list(self, unboxed: list, ret_slot: ir.Value) -> None:
        """A function returning a list it was given returns the caller's list itself, as
        Numba does (written back already; the reference to the native copy is dropped)."""
        b = self.builder
        returned = b.load(ret_slot, typ=_PTR)
        for entry in unboxed:
            same = b.and_(entry.copied, b.icmp_unsigned("==", returned, entry.meminfo))
            with b.if_then(same):
                b.call(_FunctionPointer(_RELEASE, entry.kind.release), [returned])
                self.incref_object(entry.obj)
                b.ret(entry.obj)

    def _release(self, unboxed: list) -> None:
        b = self.builder
        for entry in unboxed:
            release = _FunctionPointer(_RELEASE, entry.kind.release)
            b.call(release, [b.select(entry.copied, entry.meminfo, _NULL)])

    def _is_python_list(self, obj: ir.Value) -> ir.Value:
        return self.builder.icmp_unsigned("==", self.ob_type(obj), _object_constant(list))
