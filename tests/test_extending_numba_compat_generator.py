"""Issue 17: `np.random.Generator` objects passed to compiled code (Numba's support): draws
come from the Generator's own bit generator, so a compiled function gives exactly what NumPy's
methods give on an identically seeded Generator, and the stream continues in Python. Also:
arrays crossing the boxing wrapper that user types need. Expected values come from NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit, runtime
from ember.errors import TypingError


@njit
def scalars(g, low, high):
    return g.random(), g.uniform(low, high), g.integers(low, high), g.integers(high - low)


@njit
def arrays(g, n):
    return g.random(n), g.random((2, n)), g.uniform(-1.0, 3.0, n), g.integers(-7, 7, size=n)


@njit
def integer_edges(g, low, high):
    return (g.integers(low, high, endpoint=True), g.integers(low, low + 1),
            g.integers(0, 2**32), g.integers(0, 2**32 - 1), g.integers(-(2**62), 2**62),
            g.integers(-(2**63), 2**63 - 1, endpoint=True))  # fmt: skip


def _numpy_scalars(g, low, high):
    return g.random(), g.uniform(low, high), g.integers(low, high), g.integers(high - low)


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 2**32), st.integers(-(2**40), 2**40), st.integers(1, 2**40))
def test_scalar_draws_equal_numpys(seed, low, span):
    high = low + span
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    assert scalars(ours, low, high) == _numpy_scalars(theirs, low, high)
    assert ours.random() == theirs.random()  # the stream continues where compiled code left it


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_array_draws_equal_numpys(seed):
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    result = arrays(ours, 5)
    expected = (theirs.random(5), theirs.random((2, 5)), theirs.uniform(-1.0, 3.0, 5),
                theirs.integers(-7, 7, size=5))  # fmt: skip
    for got, want in zip(result, expected):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_integer_ranges_cross_32_and_64_bits(seed):
    ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    expected = (theirs.integers(-3, 9, endpoint=True), theirs.integers(-3, -2),
                theirs.integers(0, 2**32), theirs.integers(0, 2**32 - 1),
                theirs.integers(-(2**62), 2**62),
                theirs.integers(-(2**63), 2**63 - 1, endpoint=True))  # fmt: skip
    assert integer_edges(ours, -3, 9) == tuple(int(v) for v in expected)


def test_numpys_errors():
    g = np.random.default_rng(0)
    for call in (lambda: scalars(g, 5, 5), lambda: scalars(g, 1, 0)):
        with pytest.raises(ValueError) as ours:
            call()
        with pytest.raises(ValueError) as theirs:
            np.random.default_rng(0).integers(5, 3)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(OverflowError, match="range exceeds valid bounds"):
        njit(lambda g: g.uniform(0.0, np.inf))(g)


def test_unsupported_uses_are_clear_errors():
    with pytest.raises(TypingError, match="create the Generator in Python"):
        njit(lambda s: np.random.default_rng(s).random())(1)
    with pytest.raises(TypingError, match="normal.. is not supported in compiled code yet"):
        njit(lambda g: g.normal())(np.random.default_rng(0))


@njit
def pick_and_view(g, a):
    i = g.integers(0, a.size)
    return a[i], a[1:], a, a * 2.0


def test_arrays_cross_the_boxing_wrapper():
    a = np.arange(6.0)
    expected_doubled = a * 2.0
    item, view, same, doubled = pick_and_view(np.random.default_rng(9), a)
    assert item == a[np.random.default_rng(9).integers(0, 6)]
    assert same is a and view.base is not None and np.shares_memory(view, a)
    view[0] = 100.0
    assert a[1] == 100.0
    np.testing.assert_array_equal(doubled, expected_doubled)
    before = runtime.stats()
    for _ in range(10):
        pick_and_view(np.random.default_rng(9), a)
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 10
