"""Lowering of loops whose Python-error checks are deferred: the statement loop's second
copies (checked, blockwise) and buffered stores, mixed into FunctionLowerer.
Consumes the deferral plan (ember/lowering/deferral_plan.py); produces the loops' LLVM blocks."""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.ir import nodes as ir
from ember.lowering.deferral_plan import plan_deferral
from ember.lowering.deferred_checks import DeferredChecks
from ember.lowering.loop_metadata import loop_properties
from ember.lowering.models import model_of
from ember.typing.signature import Signature


class DeferredLoopLowering:
    """FunctionLowerer's part that lowers the loops of a deferral plan more than once."""

    def _deferred_checks(self) -> DeferredChecks | None:
        """The loops that defer their Python-error checks (ember/lowering/deferred_checks.py),
        made known to the context's guards while this function is lowered."""
        if self.context.options.error_model != "python" or self.statement_locations is not None:
            return None
        plan = plan_deferral(self.func_ir, self.typemap)
        if plan is None:
            return None
        deferred = DeferredChecks(
            plan, self.builder, self._variable_slot, enclosing=self.context.deferred_checks
        )
        self.context.deferred_checks = deferred
        return deferred

    def _variable_slot(self, name: str) -> tuple[llvm.Value, types.Type] | None:
        """A variable's stack slot and type (None: a constant or block-local value)."""
        if name in self.constants or name in self.block_locals:
            return None
        return self._slot(name), self.typemap[name]

    def _lower_second_copies(self, deferred: DeferredChecks) -> None:
        """Each loop that runs again when its deferred checks flag a failure, lowered a second
        time with its checks in place (its exits lead where the first copy's do); a blockwise
        loop, in its three copies (ember/lowering/deferred_checks.py)."""
        for header in deferred.plan.replays:
            if header not in deferred.plan.blockwise:
                second_header = self._lower_loop_copy(deferred, header, "checked")
                deferred.restore_and_run_again(header, second_header)
                continue
            (exit_label,) = deferred.plan.exits[header]
            ends = deferred.block_ends(header)
            copies = {
                "check": self._lower_loop_copy(deferred, header, "check", ends[0]),
                "unchecked": self._lower_loop_copy(deferred, header, "unchecked", ends[1]),
                # (run only for a failure, overlapping arrays or a short tail: not worth
                # unrolling)
                "checked": self._lower_loop_copy(deferred, header, "checked", ends[1], False),
            }
            start, exit_to = self.llvm_blocks[header], self.llvm_blocks[exit_label]
            deferred.run_in_blocks(header, start, ends, copies, exit_to)
            for label in deferred.plan.loops[header] - {header}:  # (left empty: not entered)
                self.function.blocks.remove(self.llvm_blocks[label])
        deferred.checks_in_place()

    def _lower_loop_copy(
        self,
        deferred: DeferredChecks,
        header: int,
        copy: str,
        exit_to: llvm.Block | None = None,
        unrolled: bool = True,
    ) -> llvm.Block:
        """The loop of `header` lowered once more into new blocks, as `copy` (see
        DeferredChecks.enter_copy), leaving to `exit_to` (else where the first copy does),
        left to LLVM to unroll or not; returns its header's block."""
        body = sorted(deferred.plan.loops[header])
        first_copies = dict(self.llvm_blocks)
        for label in body:
            self.llvm_blocks[label] = self.function.append_basic_block(f"B{label}.{copy}")
        if exit_to is not None:
            self.llvm_blocks.update(dict.fromkeys(deferred.plan.exits[header], exit_to))
        deferred.enter_copy(header, copy)
        first_new_block = len(self.function.blocks) - len(body)
        for label in body:
            self.builder.position_at_end(self.llvm_blocks[label])
            if label == header:
                deferred.enter_copy_header(self.builder)
            block = self.func_ir.blocks[label]
            for stmt in block.body:
                if not deferred.lowers(stmt):
                    if deferred.buffers(stmt):
                        self._lower_buffered_store(deferred, stmt)
                    continue
                if isinstance(stmt, ir.Jump | ir.Branch):  # (into another such loop)
                    deferred.before_jump(self.builder, label, block.successors())
                self._lower_statement(stmt)
        copy_header = self.llvm_blocks[header]
        self.llvm_blocks = first_copies
        if not unrolled:
            for block in self.function.blocks[first_new_block:]:
                if block.is_terminated and copy_header in block.terminator.operands:
                    loop_properties(self.module, block.terminator, ["llvm.loop.unroll.disable"])
        return copy_header

    def _lower_buffered_store(self, deferred: DeferredChecks, stmt: ir.SetItem) -> None:
        """A blockwise loop's store `a[i] = v`: its check pass puts `v`, converted to the
        array's dtype, into the store's buffer; its unchecked body stores that item at `i`."""
        array_type, index_type, value_type = self.calltypes[stmt].args
        dtype = array_type.dtype
        item_type = model_of(dtype).value_type
        if deferred.copy == "check":
            from ember.library.builtins.int_scalars import cast_stored  # imports NumPy: lazily

            value = self.load_as(stmt.value, value_type)
            item = cast_stored(self.context, self.builder, value, value_type, dtype)
            self.builder.store(item, deferred.buffer_slot(self.builder, stmt, item_type))
            return
        item = self.builder.load(deferred.buffer_slot(self.builder, stmt, item_type), typ=item_type)
        target, index = self.load_as(stmt.target, array_type), self.load_as(stmt.index, index_type)
        sig = Signature(types.none, (array_type, index_type, dtype))
        self.context.call_implementation(self.builder, operator.setitem, sig, [target, index, item])
