"""Ordered float sums are vectorized per module (ember/codegen/ordered_reductions.py): a module
whose vectorized sum adds gathered items is optimized again with its sums scalar. Either way each
sum adds in Python's order, so it equals CPython's bit for bit."""

import llvmlite.binding as llvm_binding
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ember import njit
from ember.codegen.ordered_reductions import sums_gathered_items


def csr_matvec(indptr, indices, data, x):
    y = np.zeros(indptr.shape[0] - 1)
    for row in range(indptr.shape[0] - 1):
        acc = 0.0
        for k in range(indptr[row], indptr[row + 1]):
            acc += data[k] * x[indices[k]]
        y[row] = acc
    return y


def reversed_taps(x, h):
    k = h.shape[0]
    out = np.zeros(x.shape[0] - k + 1)
    for i in range(x.shape[0] - k + 1):
        acc = 0.0
        for j in range(k):
            acc += x[i + j] * h[k - 1 - j]
        out[i] = acc
    return out


def sum_of_cubes(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i] * a[i]
    return s


compiled_csr_matvec = njit(csr_matvec)
compiled_reversed_taps = njit(reversed_taps)
compiled_sum_of_cubes = njit(sum_of_cubes)
FLOATS = st.floats(-1e6, 1e6, allow_nan=False, width=64)


def csr(rows: int, columns: int, per_row: int, seed: int):
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, columns, size=rows * per_row).astype(np.int32)
    indptr = np.arange(0, rows * per_row + 1, per_row).astype(np.int32)
    return indptr, indices, rng.normal(size=rows * per_row) * 1e3, rng.normal(size=columns)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 40), st.integers(1, 50), st.integers(0, 2**32 - 1))
def test_gathered_sums_equal_cpythons(per_row, columns, seed):
    args = csr(7, columns, per_row, seed)
    expected = csr_matvec(*args)
    np.testing.assert_array_equal(compiled_csr_matvec(*args), expected)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.integers(40, 90), elements=FLOATS), st.integers(1, 39))
def test_reversed_taps_equal_cpythons(x, taps):
    h = np.linspace(-3.0, 5.0, taps) ** 3
    np.testing.assert_array_equal(compiled_reversed_taps(x, h), reversed_taps(x, h))


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.integers(0, 300), elements=FLOATS))
def test_contiguous_sums_equal_cpythons(a):
    assert compiled_sum_of_cubes(a) == sum_of_cubes(a)


def test_a_gathered_sum_is_left_scalar():
    compiled = compiled_csr_matvec
    compiled(*csr(4, 9, 3, 0))
    optimized = next(iter(compiled.inspect_llvm().values()))
    assert "llvm.vector.reduce.fadd" not in optimized
    assert "llvm.masked.gather" not in optimized


def test_a_contiguous_sum_stays_vectorized_in_order():
    compiled = compiled_sum_of_cubes
    compiled(np.ones(8))
    optimized = next(iter(compiled.inspect_llvm().values()))
    assert "call double @llvm.vector.reduce.fadd" in optimized  # no flags: in order


def module_summing(gathered: bool, flags: str = "", same_block: bool = True) -> str:
    """A block adding a vector to a float sum; its items `gathered` or loaded."""
    load = (
        "%v = call <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr> %ps, i32 8, "
        "<4 x i1> <i1 true, i1 true, i1 true, i1 true>, <4 x double> poison)"
        if gathered
        else "%v = load <4 x double>, ptr %p"
    )
    split = "br label %next\nnext:" if not same_block else ""
    return f"""
declare <4 x double> @llvm.masked.gather.v4f64.v4p0(<4 x ptr>, i32, <4 x i1>, <4 x double>)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
define double @f(ptr %p, <4 x ptr> %ps, double %s) {{
entry:
  {load}
  {split}
  %r = call {flags} double @llvm.vector.reduce.fadd.v4f64(double %s, <4 x double> %v)
  ret double %r
}}
"""


def test_the_detector_wants_a_gather_and_an_ordered_sum_in_one_block():
    def detected(text: str) -> bool:
        return sums_gathered_items(llvm_binding.parse_assembly(text))

    assert detected(module_summing(gathered=True))
    assert not detected(module_summing(gathered=False))
    assert not detected(module_summing(gathered=True, flags="reassoc"))
    assert not detected(module_summing(gathered=True, same_block=False))
