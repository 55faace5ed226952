"""Deferred Python-error checks, the lowering: consumes a loop's DeferralPlan
(ember/lowering/deferral_plan.py) while lowering it; records the first failure and raises it
where the loop exits, or (a loop that can run again from its entry state) only flags that
something failed and, if so, runs the loop again with its checks in place, which raises exactly
as Python does; a loop storing into arrays the caller sees does the latter block by block,
checking each block before it stores.
"""

from __future__ import annotations

from dataclasses import dataclass

from llvmlite import ir as llvm

from ember.ir import nodes as ir
from ember.library.builtins.ranges import keep_items, remaining_items
from ember.lowering.arrays import ArrayFields, store_in_entry, unpack
from ember.lowering.arrays_kernels import may_overlap
from ember.lowering.callconv import alloca_in_entry
from ember.lowering.deferral_plan import SHORT, Blockwise, DeferralPlan
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.models import model_of

i64 = llvm.IntType(64)
f64 = llvm.DoubleType()
_NO_FAILURE = (1 << 63) - 1
_SITE_BITS, _KIND_BITS = 8, 8  # a failure's stamp: iteration << 16 | site << 8 | kind
_BEYOND_INT64_SQUARED = 2.0**126  # a sum of squares this large: some |x| may be >= 2**63
i1 = llvm.IntType(1)
_PAGE = 4096  # what a load's address is compared with earlier stores' modulo
_AHEAD = 64  # bytes (to 127) a buffer's items sit past the array items stored from them, mod _PAGE
_ALIGNED = 64  # a buffer's start: a cache line's
_PLACED_FROM = 4  # bytes per item from which a buffer's page offset is chosen (_place_buffers)


@dataclass
class _PendingSite:
    """A check site whose min-reduction is not emitted yet: more checks of its kind in its
    block may still or their conditions into it."""

    kind: tuple
    slot: llvm.Value
    tag: int
    condition: llvm.Value
    block: llvm.Block


class DeferredChecks:
    """The lowering side. A loop that can run again (`plan.replays`) folds its checks into
    flags of its own (an or of conditions, a sum of squares for conversions to int64:
    reductions LLVM vectorizes as cheaply as the loop's own arithmetic); where it exits or
    raises, a set flag restores its entry state (saved on every entry) and runs its second
    copy, lowered with the checks in place (`lower.py`). Any other loop records per check
    site its first failure's stamp (a separate min-reduction each), raised where it exits:
    the tests are filled in by `finish`, once every site is known.

    A loop storing into arrays the caller sees (`plan.blockwise`) cannot take back the stores
    of the iterations after a failure, so it runs a block of iterations (`Blockwise.block`) at a
    time, in three copies (`lower.py`): a check pass, which flags failures and computes the
    items stored into arrays of numbers into buffers of a block's items (one per store),
    storing nothing; if nothing failed, the body with no checks, storing the buffered items
    (both vectorize, and the inputs are read once); else, from the block's entry state, the
    body with its checks in place, which raises where CPython does with the same stores done
    before."""

    def __init__(self, plan: DeferralPlan, builder: llvm.IRBuilder, variable_slot, enclosing=None):
        self.plan = plan
        self.variable_slot = variable_slot  # name -> (stack slot, its type), or None: no slot
        self.enclosing = enclosing  # the DeferredChecks of a function this one interrupted
        self.function = builder.function
        self.iteration = alloca_in_entry(builder, i64, name="deferred.iteration")
        store_in_entry(builder, llvm.Constant(i64, 0), self.iteration)
        self.raise_block = builder.function.append_basic_block("deferred.raise")
        self.tests: list[tuple[llvm.Block, llvm.Block]] = []  # (test block, where it goes on)
        self.sites: list[llvm.Value] = []  # each site's first failure stamp (a slot)
        self.kinds: list[tuple[type, tuple]] = []
        self.flags: dict[int, tuple] = {}  # per loop that runs again: (any failed, squares)
        self.run_again: dict[int, llvm.Block] = {}  # ... and the block restoring its state
        for header in plan.replays:
            failed = alloca_in_entry(builder, i1, name=f"deferred.failed{header}")
            squares = alloca_in_entry(builder, f64, name=f"deferred.squares{header}")
            self.flags[header] = (failed, squares)
            self._clear_flags(builder, header, in_entry=True)
            self.run_again[header] = self.function.append_basic_block(f"deferred.again{header}")
        self.saved: dict[int, tuple[list, list]] = {}  # per loop: (variables, range states)
        self.recording = False  # lowering a statement whose checks are deferred
        self.loop: int | None = None  # the header of the deferring loop being lowered
        self.copy: str | None = None  # the blockwise loop's copy: "check", "unchecked"
        self.remaining = {  # per blockwise loop: its iterator's count before the block
            header: alloca_in_entry(
                builder,
                self._iterator_state_type(blockwise).elements[1],
                name=f"blockwise.remaining{header}",
            )
            for header, blockwise in plan.blockwise.items()
        }
        self.pending: _PendingSite | None = None  # the last site, its reduction not emitted
        self.position = alloca_in_entry(builder, i64, name="blockwise.position")
        self.buffers_of: dict[int, tuple] = {}  # per buffered store: (space, start slot, placed)

    def deferring(self, builder: llvm.IRBuilder) -> bool:
        """Whether checks emitted now are deferred (not in a function compiled meanwhile)."""
        return self.recording and builder.function is self.function

    def flags_failures(self, builder: llvm.IRBuilder) -> bool:
        """Whether checks emitted now only flag a failure (the loop runs again if one did)."""
        return self.deferring(builder) and self.loop in self.plan.replays

    def raises_first(self, builder: llvm.IRBuilder) -> bool:
        """Whether a raise emitted now must first raise a deferred failure."""
        return self.loop is not None and builder.function is self.function

    def lowered_in_blocks(self, label: int) -> bool:
        """Whether block `label` belongs to a blockwise loop (lowered by `lower.py` in copies
        only, the first pass leaving its header's block for `run_in_blocks`)."""
        return self.plan.loop_of(label) in self.plan.blockwise

    def enter_copy(self, header: int, copy: str) -> None:
        """Before lowering a copy of the loop of `header`: "checked" (checks in place),
        "check" (a blockwise loop's check pass: checks flag, stores are left out) or
        "unchecked" (its body where the check pass flagged nothing: no deferred check)."""
        self.checks_in_place()
        if copy != "checked":
            self.loop, self.copy = header, copy

    def lowers(self, stmt: ir.Stmt) -> bool:
        """Whether a copy lowers `stmt` as usual, and with its checks deferred or not: not a
        store in the check pass (left out, or buffered: `buffers`), nor one the unchecked body
        copies from its buffer."""
        self.recording = self.loop is not None and id(stmt) in self.plan.deferred
        if not isinstance(stmt, ir.SetItem) or self.copy not in ("check", "unchecked"):
            return True
        return self.copy == "unchecked" and not self.buffers(stmt)

    def buffers(self, stmt: ir.SetItem) -> bool:
        """Whether the copy being lowered passes the item `stmt` stores through its buffer (the
        check pass computes it, the unchecked body only stores it: the inputs are read once),
        else the check pass leaves the store out and the unchecked body computes it again."""
        return id(stmt) in self.plan.blockwise[self.loop].buffered

    def buffer_slot(self, builder: llvm.IRBuilder, stmt: ir.SetItem, item_type: llvm.Type):
        """The address, in the buffer of store `stmt`, of the current iteration's item."""
        if id(stmt) not in self.buffers_of:
            itemsize = self.plan.blockwise[self.loop].buffered[id(stmt)][1]
            placed = itemsize >= _PLACED_FROM
            block = self.plan.blockwise[self.loop].block
            space = llvm.ArrayType(llvm.IntType(8), block * itemsize + (_PAGE if placed else 0))
            buffer = alloca_in_entry(builder, space, name="blockwise.items")
            buffer.align = _ALIGNED
            start = alloca_in_entry(builder, llvm.PointerType(), name="blockwise.start")
            if not placed:  # (it stays at the buffer's start)
                store_in_entry(builder, buffer, start)
            self.buffers_of[id(stmt)] = buffer, start, placed
        _, start, _ = self.buffers_of[id(stmt)]
        items = builder.load(start, typ=llvm.PointerType())
        position = builder.load(self.position, typ=i64)
        return builder.gep(items, [position], inbounds=True, source_etype=item_type)

    def _place_buffers(self, builder: llvm.IRBuilder, blockwise: Blockwise) -> None:
        """Before each block, start each store's buffer of items of 4 bytes or more at a page
        offset just past that of the block's first item in the array it stores into (at
        `first` along the range): the unchecked body's loads of the buffer then run ahead of
        its stores into the array, never on the heels of them. (With the two streams a little
        apart in the other direction, a load whose address matches an earlier store's in its
        low 12 bits waits for it: sqrt_into 1.5x-1.7x Numba on one run in eight, 1.1x else.
        Narrower items move through a page in few blocks, so a bad start costs little.)"""
        first_type = self._iterator_state_type(blockwise).elements[0]
        first = builder.load(self._iterator_field(builder, blockwise, 0), typ=first_type)
        first = builder.sext(first, i64) if first_type != i64 else first
        for stmt_id, (array_name, itemsize) in blockwise.buffered.items():
            buffer, start, placed = self.buffers_of.get(stmt_id, (None, None, False))
            if not placed:  # (narrow, or a store the copies never reach)
                continue
            fields = self._array_fields(builder, array_name)
            buffer_address = builder.ptrtoint(buffer, i64)
            target = builder.ptrtoint(fields.data, i64) if fields is not None else buffer_address
            target = builder.add(target, builder.mul(first, _constant(itemsize)))
            ahead = builder.sub(builder.add(target, _constant(_AHEAD)), buffer_address)
            offset = builder.and_(ahead, _constant(_PAGE - _ALIGNED))  # (and 64-byte aligned)
            items = builder.gep(buffer, [offset], inbounds=True, source_etype=llvm.IntType(8))
            builder.store(items, start)

    def enter_copy_header(self, builder: llvm.IRBuilder) -> None:
        """At the top of a blockwise loop's check pass or unchecked body's header: count the
        iteration within the block (its items' position in the buffers)."""
        if self.copy in ("check", "unchecked") and self.loop in self.plan.blockwise:
            count = builder.load(self.position, typ=i64)
            builder.store(builder.add(count, llvm.Constant(i64, 1), flags=("nsw",)), self.position)

    def enter_block(self, builder: llvm.IRBuilder, label: int) -> None:
        """At the top of each block: raise at loop exits, count iterations in headers."""
        self.flush()
        self.loop = self.plan.loop_of(label)
        exited = self.plan.exited_to(label)
        if exited:
            self.raise_pending(builder, exited)
        if label in self.plan.loops and label not in self.plan.replays:
            count = builder.load(self.iteration, typ=i64)
            builder.store(builder.add(count, llvm.Constant(i64, 1), flags=("nsw",)), self.iteration)

    def checks_in_place(self) -> None:
        """From now on checks raise where they are (the second copies of loops)."""
        self.flush()
        self.loop = self.copy = None
        self.recording = False

    # ------------------------------------------------------------------ loops that run again

    def before_jump(self, builder: llvm.IRBuilder, label: int, targets: list[int]) -> None:
        """Before block `label` jumps into a loop that runs again: save its entry state."""
        for header in targets:
            if header in self.plan.blockwise:  # (saved before each block: `run_in_blocks`)
                continue
            if header in self.plan.replays and label not in self.plan.loops[header]:
                self._save_state(builder, header)

    def _save_state(self, builder: llvm.IRBuilder, header: int) -> None:
        variables, states = self._saved_state(builder, header)
        for slot, saved, typ in variables:
            builder.store(builder.load(slot, typ=typ), saved)
        for slot, saved, typ in states:
            state = builder.load(slot, typ=llvm.PointerType())
            builder.store(builder.load(state, typ=typ), saved)

    def _restore_state(self, builder: llvm.IRBuilder, header: int) -> None:
        variables, states = self._saved_state(builder, header)
        for slot, saved, typ in variables:
            builder.store(builder.load(saved, typ=typ), slot)
        for slot, saved, typ in states:
            state = builder.load(slot, typ=llvm.PointerType())
            builder.store(builder.load(saved, typ=typ), state)

    def _saved_state(self, builder: llvm.IRBuilder, header: int) -> tuple[list, list]:
        """(slot, saved copy, type) of the loop's variables and of its range iterators' state."""
        if header not in self.saved:
            replay = self.plan.replays[header]
            variables, states = [], []
            for name in sorted(replay.assigned):
                found = self.variable_slot(name)
                if found is not None:
                    slot, value_type = found
                    typ = model_of(value_type).value_type
                    variables.append((slot, alloca_in_entry(builder, typ, name=f"{name}.0"), typ))
            for name in sorted(replay.range_iterators):
                slot, iterator_type = self.variable_slot(name)
                typ = model_of(iterator_type).state_type
                states.append((slot, alloca_in_entry(builder, typ, name=f"{name}.0"), typ))
            self.saved[header] = variables, states
        return self.saved[header]

    def flag_beyond_int64(self, builder: llvm.IRBuilder, value: llvm.Value) -> None:
        """Flag a failure in the loop being lowered when the float `value` is NaN, infinite or
        at least 2**63 in magnitude, in one instruction (a fused multiply-add): the flag is
        the sum of the squares seen, which such a value makes NaN or at least 2**126 (every
        term is >= 0, so in any order the sum is >= its largest term). Values all below 2**63
        whose squares still add up that far (~1e16 and more each) only cost a second run."""
        if self.copy == "unchecked":
            return
        if value.type != f64:
            value = builder.fpext(value, f64)
        slot = self.flags[self.loop][1]
        so_far = builder.load(slot, typ=f64)
        squares = call_intrinsic(builder, "llvm.fmuladd", [value, value, so_far])
        squares.fastmath.add("reassoc")  # a reduction LLVM vectorizes (any order will do)
        builder.store(squares, slot)

    def run_checked_copy_if(self, builder: llvm.IRBuilder, condition: llvm.Value) -> None:
        """Leave the loop being lowered for its checked copy where `condition` holds (one that
        does not change in the loop: LLVM then tests it once, before the loop, which keeps the
        loop free of the branch)."""
        following = builder.append_basic_block(f"{builder.block.name}.stays")
        branch = builder.cbranch(condition, self.run_again[self.loop], following)
        branch.set_weights([1, 2000])
        builder.position_at_end(following)

    def _leave_for_checked_copy(self, builder: llvm.IRBuilder) -> None:
        """Go to the checked copy of the loop being lowered (what follows is unreachable)."""
        builder.branch(self.run_again[self.loop])
        builder.position_at_end(builder.append_basic_block(f"{builder.block.name}.left"))

    def _clear_flags(self, builder: llvm.IRBuilder, header: int, in_entry: bool = False) -> None:
        failed, squares = self.flags[header]
        for value, slot in ((llvm.Constant(i1, 0), failed), (llvm.Constant(f64, 0.0), squares)):
            if in_entry:
                store_in_entry(builder, value, slot)
            else:
                builder.store(value, slot)

    def _flagged(self, builder: llvm.IRBuilder, header: int) -> llvm.Value:
        """Whether the loop's checks failed, or a conversion met a value beyond int64."""
        failed, squares = self.flags[header]
        sum_of_squares = builder.load(squares, typ=f64)
        limit = llvm.Constant(f64, _BEYOND_INT64_SQUARED)
        beyond = builder.fcmp_unordered(">=", sum_of_squares, limit)  # (or NaN)
        return builder.or_(builder.load(failed, typ=i1), beyond)

    def block_ends(self, header: int) -> tuple[llvm.Block, llvm.Block]:
        """The blocks a blockwise loop's check pass, and then its bodies, exit to."""
        append = self.function.append_basic_block
        return append(f"blockwise.decide{header}"), append(f"blockwise.done{header}")

    def run_in_blocks(
        self,
        header: int,
        start: llvm.Block,
        ends: tuple[llvm.Block, llvm.Block],
        copies: dict[str, llvm.Block],
        exit_to: llvm.Block,
    ) -> None:
        """Fill the blocks that run the blockwise loop of `header` a block at a time:
        `start`, where it is entered, cuts its range iterator to the block's items, saves
        its state and runs the check pass (or the checked copy, when an array it stores into
        may overlap one it reads, or fewer than SHORT iterations are left: then its last); where
        the check pass ends, a flag runs the checked copy, else the unchecked one, from the saved
        state; after either, the next block starts, or the loop goes on to `exit_to` (its
        iterator left as a whole run would). `ends`: from `block_ends`; `copies`: each
        copy's entry."""
        decide, done = ends
        blockwise = self.plan.blockwise[header]
        checked = self.run_again[header]
        self.restore_and_run_again(header, copies["checked"])
        state_type = self._iterator_state_type(blockwise)
        count_type = state_type.elements[1]
        block_count = llvm.Constant(count_type, blockwise.block)

        builder = llvm.IRBuilder(start)
        iterator_type, state = self._iterator(builder, blockwise)
        count = remaining_items(builder, iterator_type, state)
        builder.store(count, self.remaining[header])
        long = builder.append_basic_block(f"blockwise.long{header}")
        short = builder.icmp_unsigned("<", count, llvm.Constant(count_type, SHORT))
        builder.cbranch(short, copies["checked"], long)  # (it then goes on to `exit_to`)
        builder.position_at_end(long)
        within = builder.icmp_unsigned("<", count, block_count)
        keep_items(builder, iterator_type, state, builder.select(within, count, block_count))
        self._save_state(builder, header)
        self._clear_flags(builder, header)
        builder.store(llvm.Constant(i64, -1), self.position)  # (its header counts from 0)
        self._place_buffers(builder, blockwise)
        overlap = self._may_overlap(builder, blockwise)
        builder.cbranch(overlap, checked, copies["check"]).set_weights([1, 2000])

        builder = llvm.IRBuilder(decide)
        unchecked = builder.append_basic_block(f"blockwise.unchecked{header}")
        builder.cbranch(self._flagged(builder, header), checked, unchecked).set_weights([1, 2000])
        builder.position_at_end(unchecked)
        self._restore_state(builder, header)
        builder.store(llvm.Constant(i64, -1), self.position)
        builder.branch(copies["unchecked"])

        builder = llvm.IRBuilder(done)
        remaining = builder.load(self.remaining[header], typ=count_type)
        following = builder.append_basic_block(f"blockwise.next{header}")
        builder.cbranch(builder.icmp_unsigned("<=", remaining, block_count), exit_to, following)
        builder.position_at_end(following)
        ((_, saved, _),) = self._saved_state(builder, header)[1]  # (its one range's state)
        first, step = (
            builder.load(builder.gep(saved, [_i32(0), _i32(k)]), typ=count_type) for k in (0, 2)
        )
        following_first = builder.add(first, builder.mul(step, block_count))
        builder.store(following_first, self._iterator_field(builder, blockwise, 0))
        iterator_type, state = self._iterator(builder, blockwise)
        keep_items(builder, iterator_type, state, builder.sub(remaining, block_count))
        builder.branch(start)

    def _iterator_state_type(self, blockwise: Blockwise) -> llvm.Type:
        return model_of(self.variable_slot(blockwise.iterator)[1]).state_type

    def _iterator(self, builder: llvm.IRBuilder, blockwise: Blockwise):
        """(type, state pointer) of the blockwise loop's range iterator."""
        slot, iterator_type = self.variable_slot(blockwise.iterator)
        return iterator_type, builder.load(slot, typ=llvm.PointerType())

    def _iterator_field(self, builder: llvm.IRBuilder, blockwise: Blockwise, index: int):
        """A pointer to the range iterator's next value (0), stop (1) or step (2)."""
        _, state = self._iterator(builder, blockwise)
        state_type = self._iterator_state_type(blockwise)
        return builder.gep(state, [_i32(0), _i32(index)], source_etype=state_type)

    def _may_overlap(self, builder: llvm.IRBuilder, blockwise: Blockwise) -> llvm.Value:
        """Whether an array the loop stores into may share memory with one it reads."""
        overlap = llvm.Constant(i1, 0)
        for stored in sorted(blockwise.stored):
            for read in sorted(blockwise.read):
                fields = self._array_fields(builder, stored), self._array_fields(builder, read)
                if None in fields:
                    return llvm.Constant(i1, 1)
                overlap = builder.or_(overlap, may_overlap(builder, *fields))
        return overlap

    def _array_fields(self, builder: llvm.IRBuilder, name: str) -> ArrayFields | None:
        found = self.variable_slot(name)
        if found is None:
            return None
        slot, array_type = found
        return unpack(builder, array_type, builder.load(slot, typ=model_of(array_type).value_type))

    def restore_and_run_again(self, header: int, second_copy: llvm.Block) -> None:
        """Fill the block a set flag goes to: clear the flag, put back the loop's entry state
        and run its second copy."""
        builder = llvm.IRBuilder(self.run_again[header])
        self._clear_flags(builder, header)
        self._restore_state(builder, header)
        builder.branch(second_copy)

    # ------------------------------------------------------------------ both kinds

    def record(self, builder: llvm.IRBuilder, condition, exc_class: type, exc_args: tuple) -> bool:
        """Note that `condition` failed: in the loop's flag, or folded into a site's first
        failure, a min-reduction of its own (one per site: separate reductions vectorize, a
        chain into one does not); False if it cannot be deferred (too many sites or kinds:
        the caller branches as usual). Checks of one kind in a row in one block share a site:
        their conditions are or-ed (which of them failed first within an iteration does not
        matter), and the reduction is emitted once, at `flush`."""
        if self.flags_failures(builder):
            if self.copy == "unchecked":  # (the check pass found that it holds nowhere)
                return True
            slot = self.flags[self.loop][0]
            builder.store(builder.or_(builder.load(slot, typ=i1), condition), slot)
            return True
        kind = (exc_class, exc_args)
        if kind not in self.kinds:
            if len(self.kinds) >= 1 << _KIND_BITS:
                return False
            self.kinds.append(kind)
        pending = self.pending
        if pending is not None and pending.kind == kind and pending.block is builder.block:
            pending.condition = builder.or_(pending.condition, condition)
            return True
        if len(self.sites) >= 1 << _SITE_BITS:
            return False
        self.flush()
        slot = alloca_in_entry(builder, i64, name="deferred.site")
        store_in_entry(builder, _constant(_NO_FAILURE), slot)
        tag = len(self.sites) << _KIND_BITS | self.kinds.index(kind)
        self.sites.append(slot)
        self.pending = _PendingSite(kind, slot, tag, condition, builder.block)
        return True

    def flush(self) -> None:
        """Emit the pending site's min-reduction at the end of its block."""
        pending, self.pending = self.pending, None
        if pending is None:
            return
        builder = llvm.IRBuilder(pending.block)
        if pending.block.is_terminated:
            builder.position_before(pending.block.terminator)
        iteration = builder.load(self.iteration, typ=i64)
        shifted = builder.shl(iteration, _constant(_SITE_BITS + _KIND_BITS))
        stamp = builder.or_(shifted, _constant(pending.tag))
        candidate = builder.select(pending.condition, stamp, _constant(_NO_FAILURE))
        first = builder.load(pending.slot, typ=i64)
        builder.store(call_intrinsic(builder, "llvm.smin", [first, candidate]), pending.slot)

    def raise_pending(self, builder: llvm.IRBuilder, headers: list[int] | None = None) -> None:
        """Where the loops `headers` (by default the one being lowered) exit, or before a raise
        in one: run a loop whose flag is set again, raise a recorded failure."""
        self.flush()
        if headers is None and self.loop in self.plan.blockwise:
            if self.copy == "check":  # (its checked copy raises this, after the stores before)
                self._leave_for_checked_copy(builder)
            return
        headers = [self.loop] if headers is None else headers
        for header in headers:
            if header in self.plan.blockwise:  # (it exits only once every block ran)
                continue
            if header in self.plan.replays:
                failed = self._flagged(builder, header)
                following = builder.append_basic_block(f"{builder.block.name}.unflagged")
                branch = builder.cbranch(failed, self.run_again[header], following)
                branch.set_weights([1, 2000])
                builder.position_at_end(following)
        if all(header in self.plan.replays for header in headers):
            return
        test = builder.append_basic_block(f"{builder.block.name}.deferred")
        following = builder.append_basic_block(f"{builder.block.name}.no_deferred")
        builder.branch(test)
        self.tests.append((test, following))
        builder.position_at_end(following)

    def finish(self, raise_error) -> None:
        """Fill the tests and the raising block: the exception of the first failure's kind
        (`raise_error(builder, exc, *args)`)."""
        self.checks_in_place()
        for test, following in self.tests:
            builder = llvm.IRBuilder(test)
            failed = builder.icmp_signed("!=", self._first(builder), _constant(_NO_FAILURE))
            builder.cbranch(failed, self.raise_block, following).set_weights([1, 2000])
        builder = llvm.IRBuilder(self.raise_block)
        kind = builder.and_(self._first(builder), _constant((1 << _KIND_BITS) - 1))
        for index, (exc_class, exc_args) in enumerate(self.kinds[:-1]):
            with builder.if_then(builder.icmp_signed("==", kind, _constant(index))):
                raise_error(builder, exc_class, *exc_args)
        if self.kinds:
            exc_class, exc_args = self.kinds[-1]
            raise_error(builder, exc_class, *exc_args)
        else:
            builder.unreachable()

    def _first(self, builder: llvm.IRBuilder) -> llvm.Value:
        """The earliest stamp of all sites (no site: no failure)."""
        first = _constant(_NO_FAILURE)
        for slot in self.sites:
            first = call_intrinsic(builder, "llvm.smin", [first, builder.load(slot, typ=i64)])
        return first


def _constant(value: int) -> llvm.Constant:
    return llvm.Constant(i64, value)


def _i32(value: int) -> llvm.Constant:
    return llvm.Constant(llvm.IntType(32), value)
