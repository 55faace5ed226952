"""Integer range analysis (ember/lowering/int_ranges.py): int64 arithmetic proven unable to
wrap gets `nsw`, so index arithmetic on loop variables skips the negative-index fix-up, while
results stay CPython's and arithmetic that can overflow still wraps like int64."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember


def optimized_ir(dispatcher) -> str:
    return "\n".join(dispatcher.inspect_llvm().values())


def wrap_int64(value: int) -> int:
    return (value + (1 << 63)) % (1 << 64) - (1 << 63)


def forward_difference(x):
    out = np.empty(x.shape[0] - 1)
    for i in range(x.shape[0] - 1):
        out[i] = x[i + 1] - x[i]
    return out


def convolve(x, h):
    n, k = x.shape[0], h.shape[0]
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        acc = 0.0
        for j in range(k):
            acc += x[i + j] * h[k - 1 - j]
        out[i] = acc
    return out


def backward_difference(x):
    """x[i - 1] at i = 0 is x[-1]: the fix-up must stay for an index that can be negative."""
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] - x[i - 1]
    return out


def strided_pairs(m):
    total = 0.0
    for i in range(0, m.shape[0] - 1, 2):
        for j in range(m.shape[1]):
            total += m[i + 1, j] * (j % 3) - m[i, (j * 2) % m.shape[1]]
    return total


def countdown_sum(x):
    total = 0.0
    for i in range(x.shape[0] - 1, -1, -1):
        total += x[i] * (i + 1)
    return total


def offset_sum(n, offset):
    total = 0
    for i in range(n):
        total += offset + i
    return total


def scaled_index_sum(n, scale):
    total = 0
    for i in range(n):
        total += i * scale + (i - n) * 3
    return total


# compiled once for the hypothesis tests below (each example calls the same specialization)
offset_sum_compiled = ember.njit(offset_sum)
scaled_index_sum_compiled = ember.njit(scaled_index_sum)


@pytest.mark.parametrize(
    "kernel, args",
    [
        (forward_difference, (np.linspace(0.0, 3.0, 17) ** 2,)),
        (convolve, (np.arange(20.0) * 0.5, np.array([1.0, -2.0, 0.25]))),
        (backward_difference, (np.arange(9.0) ** 2,)),
        (strided_pairs, (np.arange(35.0).reshape(7, 5),)),
        (countdown_sum, (np.arange(11.0),)),
    ],
)
def test_index_arithmetic_equals_python(kernel, args):
    np.testing.assert_array_equal(ember.njit(kernel)(*args), kernel(*args))


def has_index_fix_up(code: str) -> bool:
    """A `select` between 64-bit integers (scalar or vector): `i < 0 ? i + n : i` left in
    the code (the vectorizer's own selects of i1 flags do not count)."""
    return re.search(r"= select (i1|<\d+ x i1>) [^,]+, (i64|<\d+ x i64>) ", code) is not None


def test_loop_index_plus_one_has_no_fix_up_and_vectorizes():
    compiled = ember.njit(forward_difference)
    compiled(np.arange(4.0))
    code = optimized_ir(compiled)
    assert not has_index_fix_up(code)
    assert "<4 x double>" in code or "<8 x double>" in code


def window_sums(x, k):
    out = np.zeros(x.shape[0] - k + 1)
    for i in range(x.shape[0] - k + 1):
        for j in range(k):
            out[i] += x[i + j]
    return out


def test_sum_of_two_loop_indices_has_no_fix_up():
    compiled = ember.njit(window_sums)
    x = np.arange(12.0) ** 2
    np.testing.assert_array_equal(compiled(x, 3), window_sums(x, 3))
    assert not has_index_fix_up(optimized_ir(compiled))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 40), offset=st.integers(-(1 << 63), (1 << 63) - 1))
def test_arithmetic_that_can_overflow_still_wraps(n, offset):
    """`offset + i` is not proven to fit: it keeps wrapping like int64, as before."""
    expected = wrap_int64(sum(wrap_int64(offset + i) for i in range(n)))
    assert offset_sum_compiled(n, offset) == expected


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 40), scale=st.integers(-(1 << 63), (1 << 63) - 1))
def test_products_of_loop_indices_wrap(n, scale):
    expected = wrap_int64(sum(wrap_int64(wrap_int64(i * scale) + (i - n) * 3) for i in range(n)))
    assert scaled_index_sum_compiled(n, scale) == expected


def test_loop_counter_at_the_int64_edge():
    """range(2**63 - 3, 2**63 - 1): `i + 1` reaches the largest int64 without wrapping."""

    def last_successors(start, stop):
        total = 0
        for i in range(start, stop):
            total = i + 1
        return total

    top = (1 << 63) - 1
    assert ember.njit(last_successors)(top - 2, top) == last_successors(top - 2, top)


def mixed_index_math(start, stop, step, c):
    total = 0
    for i in range(start, stop, step):
        total += (i + c) * 3 - i % 7 + (i // 4) - min(i, c) + (i & 5) - (-i)
    return total


mixed_index_math_compiled = ember.njit(mixed_index_math)


@settings(max_examples=25, deadline=None)
@given(
    start=st.integers(-50, 50),
    stop=st.integers(-50, 50),
    step=st.integers(-7, 7).filter(bool),
    c=st.integers(-1000, 1000),
)
def test_range_loop_arithmetic_equals_python(start, stop, step, c):
    assert mixed_index_math_compiled(start, stop, step, c) == mixed_index_math(start, stop, step, c)
