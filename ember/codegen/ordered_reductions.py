"""Whether a module optimized with ordered float reductions (-force-ordered-reductions, see
ember/codegen/jit) vectorized a float sum over gathered items: then its scalar loop is faster."""

from __future__ import annotations

import llvmlite.binding as llvm_binding

_ORDERED_SUM = "llvm.vector.reduce.fadd."
_GATHER = "llvm.masked.gather."

# A sum in order adds its items one at a time whether the loop is vectorized or not; the vector
# loop only wins when the work per item is worth doing in vector registers (sixth_power_sum:
# 0.40 -> 0.21 ms, kmeans_assign 0.62 -> 0.33 ms). Items fetched by a gather (x[col[k]], or an
# index LLVM cannot prove non-negative, so each lane wraps on its own) cost a gather per vector
# and a long vector body for short rows: csr_matvec 0.21 ms scalar vs 0.49 ms vectorized,
# convolve_1d 0.78 vs 1.16 ms (perf19, ember alone).


def sums_gathered_items(module: llvm_binding.ModuleRef) -> bool:
    """True when a block of `module` both gathers vectors and adds them to a float sum in
    order (an `llvm.vector.reduce.fadd` without `reassoc`): a loop vectorized at a loss."""
    declared = [f.name for f in module.functions if f.is_declaration]
    if not any(name.startswith(_ORDERED_SUM) for name in declared):
        return False
    if not any(name.startswith(_GATHER) for name in declared):
        return False
    return any(
        _gathers_into_ordered_sum(block)
        for function in module.functions
        if not function.is_declaration
        for block in function.blocks
    )


def _gathers_into_ordered_sum(block) -> bool:
    gathers = ordered_sum = False
    for instruction in block.instructions:
        if instruction.opcode != "call":
            continue
        callee = list(instruction.operands)[-1].name
        if callee.startswith(_GATHER):
            gathers = True
        elif callee.startswith(_ORDERED_SUM) and "reassoc" not in str(instruction):
            ordered_sum = True
    return gathers and ordered_sum
