"""LLVM's options are global to the process: ember turns its own (ordered float reductions,
runtime unrolling of multi-exit loops) on for its pipeline only, so another llvmlite compiler in
the same process (Numba) optimizes as it would without ember."""

import llvmlite.binding as llvm_binding
import numpy as np

import ember
from ember.codegen.jit import engine

# s = 0.0; for i in range(n): s += x[i] * x[i]  -- a strict (in-order) float sum
SUM_OF_SQUARES = """
define double @sum_of_squares(ptr noalias %x, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %sum, %loop ]
  %at = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %at
  %square = fmul double %v, %v
  %sum = fadd double %s, %square
  %next = add nsw i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  %result = phi double [ 0.0, %entry ], [ %sum, %loop ]
  ret double %result
}
"""


def sum_of_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s


def optimized_by_plain_llvmlite(jit) -> str:
    """The loop through llvmlite's O3 pipeline for ember's target, as another compiler runs it."""
    module = llvm_binding.parse_assembly(SUM_OF_SQUARES)
    module.triple, module.data_layout = jit.triple, jit.data_layout
    tuning = llvm_binding.create_pipeline_tuning_options(3)
    builder = llvm_binding.create_pass_builder(jit.target_machine, tuning)
    builder.getModulePassManager().run(module, builder)
    return str(module)


def optimized_by_ember(jit) -> str:
    module = llvm_binding.parse_assembly(SUM_OF_SQUARES)
    module.triple, module.data_layout = jit.triple, jit.data_layout
    jit.optimize(module)
    return str(module)


def test_ember_vectorizes_its_ordered_sum_and_leaves_others_alone():
    compiled = ember.njit(sum_of_squares)
    x = np.linspace(-2.0, 3.0, 101)
    assert compiled(x) == sum_of_squares(x)  # (in order: the same rounding as CPython)
    assert "x double>" in "\n".join(compiled.inspect_llvm().values())
    jit = engine()
    assert "x double>" in optimized_by_ember(jit)
    assert "x double>" not in optimized_by_plain_llvmlite(jit)
    assert "x double>" in optimized_by_ember(jit)  # (and back on for ember's next module)
