"""Whether a module optimized with ordered float reductions (-force-ordered-reductions, see
ember/codegen/jit) vectorized a float sum over gathered items or over the results of math calls
that have no vector form: then its scalar loop is faster."""

from __future__ import annotations

import llvmlite.binding as llvm_binding

_ORDERED_SUM = "llvm.vector.reduce.fadd."
_GATHER = "llvm.masked.gather."
# Float intrinsics the x86 code generator computes in vector registers; any other on a vector
# (llvm.sin.v8f64, llvm.exp.v16f32: ember links no vector math library) becomes a call to the
# scalar libm function per lane, each call clobbering every vector register. Measured, that
# loses on float64 lanes and wins on float32 ones (a log-sum-exp of float32 rows, whose sum of
# `math.exp` adds float64s: 0.89-0.93x Numba vectorized, 1.00x scalar), so only float64 counts.
_VECTOR_NATIVE = frozenset(
    ("sqrt", "fabs", "floor", "ceil", "trunc", "rint", "nearbyint", "roundeven", "fma",
     "fmuladd", "minnum", "maxnum", "minimum", "maximum", "copysign", "round")
)  # fmt: skip

# A sum in order adds its items one at a time whether the loop is vectorized or not; the vector
# loop only wins when the work per item is worth doing in vector registers (sixth_power_sum:
# 0.40 -> 0.21 ms, kmeans_assign 0.62 -> 0.33 ms). Items fetched by a gather (x[col[k]], or an
# index LLVM cannot prove non-negative, so each lane wraps on its own) cost a gather per vector
# and a long vector body for short rows: csr_matvec 0.21 ms scalar vs 0.49 ms vectorized,
# convolve_1d 0.78 vs 1.16 ms (perf19, ember alone). So do sums of math calls scalarized lane by
# lane: trapezoid_sin (`s += math.sin(i * h)`) vectorized 64 wide, spilling the vectors around
# each of 64 calls, 1.08-1.14x Numba's time, scalar 1.02-1.04x (perf21).


def sums_gathered_items(module: llvm_binding.ModuleRef) -> bool:
    """True when a block of `module` both adds vectors to a float sum in order (an
    `llvm.vector.reduce.fadd` without `reassoc`) and gathers vectors or calls a math function
    lane by lane: a loop vectorized at a loss."""
    declared = [f.name for f in module.functions if f.is_declaration]
    if not any(name.startswith(_ORDERED_SUM) for name in declared):
        return False
    if not any(_costly_in_vectors(name) for name in declared):
        return False
    return any(
        _costly_items_into_ordered_sum(block)
        for function in module.functions
        if not function.is_declaration
        for block in function.blocks
    )


def _costly_in_vectors(callee: str) -> bool:
    """A gather, or a float64 math intrinsic on a vector that is computed lane by lane."""
    if callee.startswith(_GATHER):
        return True
    parts = callee.split(".")  # llvm.sin.v8f64
    return (
        len(parts) == 3
        and parts[0] == "llvm"
        and parts[1] not in _VECTOR_NATIVE
        and parts[2].startswith("v")
        and parts[2].endswith("f64")
    )


def _costly_items_into_ordered_sum(block) -> bool:
    costly = ordered_sum = False
    for instruction in block.instructions:
        if instruction.opcode != "call":
            continue
        callee = list(instruction.operands)[-1].name
        if _costly_in_vectors(callee):
            costly = True
        elif callee.startswith(_ORDERED_SUM) and "reassoc" not in str(instruction):
            ordered_sum = True
    return costly and ordered_sum
