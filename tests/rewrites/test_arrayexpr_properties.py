"""Property tests of array-expression fusion: random expression trees over arrays of mixed
dtypes and broadcastable shapes, with Python constants, give exactly NumPy's values and dtype
(negative floor division and modulo, integer overflow, NaN and inf included)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember.runtime as runtime
from ember import njit

OPERAND_NAMES = ("a", "b", "c")
BINARY = ("+", "-", "*", "/", "//", "%", "max", "min")
# Operations NumPy and ember both round exactly (IEEE): results must agree to the last bit.
UNARY = ("-", "abs", "sqrt", "floor")
DTYPES = (np.int64, np.int32, np.float64, np.float32)
# Shapes that broadcast together: a full 2-d shape, a row and a column.
SHAPES = ((3, 4), (4,), (3, 1))


def _expressions(depth: int):
    leaf = st.one_of(
        st.sampled_from(OPERAND_NAMES),
        st.integers(-3, 3).map(str),
        st.sampled_from(("0.5", "-1.25", "2.0")),
    )
    if depth == 0:
        return leaf
    inner = _expressions(depth - 1)
    binary = st.tuples(st.sampled_from(BINARY), inner, inner).map(_binary_source)
    unary = st.tuples(st.sampled_from(UNARY), inner).map(_unary_source)
    return st.one_of(leaf, binary, unary)


def _binary_source(parts) -> str:
    op, left, right = parts
    if op in ("max", "min") and (_uses_an_array(left) or _uses_an_array(right)):
        return f"np.{op}imum({left}, {right})"
    if op in ("max", "min"):
        op = "+"
    return f"({left} {op} {right})"


def _unary_source(parts) -> str:
    """A ufunc applies to subtrees holding an array: of constants alone NumPy makes a NumPy
    scalar, which promotes more strongly than ember's Python scalars (a README difference)."""
    op, operand = parts
    if op == "-" or not _uses_an_array(operand):
        return f"(-{operand})"
    if op == "sqrt":  # of a non-negative value, so that NaN stays rare and meaningful
        return f"np.sqrt(np.abs({operand}))"
    return f"np.{op}({operand})"


def _uses_an_array(source: str) -> bool:
    return re.search(r"\b[abc]\b", source) is not None


def _operand(dtype, shape, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-9, 10, shape).astype(dtype)
    values = rng.integers(-16, 17, shape) / 4.0
    return values.astype(dtype)


_compiled: dict[str, object] = {}


def _function(source: str):
    """The expression as a Python function of (a, b, c), built once per distinct source."""
    found = _compiled.get(source)
    if found is None:
        namespace = {"np": np}
        exec(f"def expression(a, b, c):\n    return {source}\n", namespace)
        found = _compiled[source] = namespace["expression"]
    return found


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(
    source=_expressions(3).filter(_uses_an_array),
    dtypes=st.tuples(*[st.sampled_from(DTYPES)] * 3),
    shapes=st.permutations(SHAPES),
    seed=st.integers(0, 2**16),
)
def test_random_expression_trees_match_numpy(source, dtypes, shapes, seed):
    arrays = [_operand(d, s, seed + k) for k, (d, s) in enumerate(zip(dtypes, shapes))]
    python = _function(source)
    compiled = njit(python)
    try:
        with np.errstate(all="ignore"):
            expected = np.asarray(python(*arrays))
    except ZeroDivisionError:  # `0 / 0` between Python constants raises in CPython
        with pytest.raises(ZeroDivisionError):
            compiled(*arrays)
        return
    got = compiled(*arrays)
    assert got.dtype == expected.dtype, (source, got.dtype, expected.dtype)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected, err_msg=source)


@pytest.mark.parametrize("ufunc", [np.sin, np.cos, np.exp, np.log1p, np.tanh])
def test_float32_transcendentals_are_correctly_rounded(ufunc):
    """float32 results are within the C library's error bound (2 units in the last place for
    glibc's tanhf, 1 for the others) of float64's result rounded; NumPy's own SIMD float32 loops
    have their own errors, so ember and NumPy may differ in the last bits here."""
    compiled = njit(lambda a: ufunc(a * 1.0))
    values = np.linspace(0.01, 4.0, 997, dtype=np.float32)
    truth = ufunc(values.astype(np.float64)).astype(np.float32)
    got = compiled(values)
    assert got.dtype == np.float32
    np.testing.assert_array_max_ulp(got, truth, maxulp=2 if ufunc is np.tanh else 1)


def test_integer_overflow_wraps_as_numpy():
    @njit
    def scaled(a, b):
        return a * b + a

    big = np.array([2**62, -(2**62), 2**63 - 1], dtype=np.int64)
    with np.errstate(all="ignore"):
        expected = big * np.int64(4) + big
    np.testing.assert_array_equal(scaled(big, np.int64(4)), expected)


def test_nan_and_inf_propagate_as_numpy():
    @njit
    def ratio(a, b):
        return np.sqrt(a) / b - a

    a = np.array([np.nan, np.inf, -1.0, 0.0, 4.0])
    b = np.array([1.0, np.inf, 2.0, 0.0, -0.0])
    with np.errstate(all="ignore"):
        expected = np.sqrt(a) / b - a
    np.testing.assert_array_equal(ratio(a, b), expected)


def test_random_trees_allocate_only_their_result():
    @njit
    def tree(a, b, c):
        return np.sqrt(np.abs(a * b - c)) // (b + 1.5) + np.maximum(a, c) % 3

    arrays = [_operand(np.float64, shape, k) for k, shape in enumerate(SHAPES)]
    tree(*arrays)
    before = runtime.stats()
    tree(*arrays)
    after = runtime.stats()
    assert after.alloc - before.alloc == 1
