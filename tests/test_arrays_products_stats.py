"""vdot, inner, kron, convolve, correlate, ptp, average, cov, corrcoef, sinc, heaviside, isin,
array_equal and logspace: compiled results against NumPy's on the same inputs."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ember import njit
from tests.oracle import assert_arrays_close

RNG = np.random.default_rng(11)
LONG = RNG.normal(size=7)
SHORT = RNG.normal(size=4)
INTS = np.arange(5)
MATRIX = RNG.normal(size=(3, 6))
SMALL_INTS = np.arange(4).reshape(2, 2)
SPECIAL = np.array([-1.5, 0.0, 0.25, np.nan, 2.0, 1e-30])


def _outcome(func, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return func(*args), None
        except (ValueError, ZeroDivisionError, IndexError) as error:
            return None, type(error)


def _check(func, *args, rtol=1e-12):
    expected, expected_error = _outcome(func, *args)
    compiled, compiled_error = _outcome(njit(func), *args)
    assert compiled_error == expected_error
    if expected_error is None:
        assert_arrays_close(compiled, expected, rtol, 1e-14)


PAIRS = [(LONG, SHORT), (SHORT, LONG), (INTS, SHORT), (INTS, INTS), (LONG[:1], SHORT)]


@pytest.mark.parametrize("mode", [None, "full", "same", "valid"])
@pytest.mark.parametrize("pair", range(len(PAIRS)))
def test_convolve_and_correlate_every_mode(mode, pair):
    a, v = PAIRS[pair]
    if mode is None:
        _check(lambda a, v: (np.convolve(a, v), np.correlate(a, v)), a, v)
    else:
        _check(lambda a, v: np.convolve(a, v, mode), a, v)
        _check(lambda a, v: np.correlate(a, v, mode), a, v)


def test_empty_kernel_raises_as_numpy():
    _check(lambda a, v: np.convolve(a, v[:0]), LONG, SHORT)


@pytest.mark.parametrize("pair", range(len(PAIRS)))
def test_vdot_inner_kron(pair):
    a, v = PAIRS[pair]
    _check(lambda a, v: (np.vdot(a, a), np.inner(v, v)), a, v)
    _check(lambda a, v: np.kron(a, v), a, v)


def test_kron_of_matrices_and_vdot_of_a_matrix():
    _check(lambda a, b: np.kron(a, b), MATRIX, SMALL_INTS)
    _check(lambda a: np.vdot(a, a), MATRIX)


CASES = {
    "ptp": (lambda a: np.ptp(a), MATRIX),
    "ptp ints": (lambda a: np.ptp(a), SMALL_INTS),
    "average": (lambda a: np.average(a), MATRIX),
    "average weighted": (lambda a: np.average(a, weights=a * a), MATRIX),
    "average zero weights": (lambda a: np.average(a, weights=a * 0), MATRIX),
    "cov": (lambda a: np.cov(a), MATRIX),
    "cov ints": (lambda a: np.cov(a), SMALL_INTS),
    "cov pair": (lambda a: np.cov(a[0], a[1]), MATRIX),
    "corrcoef": (lambda a: np.corrcoef(a), MATRIX),
    "corrcoef pair": (lambda a: np.corrcoef(a[0], a[0] * 2), MATRIX),
    "sinc": (lambda a: np.sinc(a), SPECIAL),
    "sinc scalar": (lambda a: (np.sinc(a[1]), np.sinc(a[2])), SPECIAL),
    "sinc ints": (lambda a: np.sinc(a), INTS),
    "heaviside": (lambda a: np.heaviside(a, 0.5), SPECIAL),
    "heaviside arrays": (lambda a: np.heaviside(a, a), SPECIAL),
    "heaviside scalar": (lambda a: (np.heaviside(a[1], 0.5), np.heaviside(a[3], 0.5)), SPECIAL),
    "isin": (lambda a: np.isin(a, a[2:4]), SPECIAL),
    "isin ints 2-d": (lambda a: np.isin(a.reshape((5, 1)), np.array([1, 5])), INTS),
    "isin nothing": (lambda a: np.isin(a, a[:0]), INTS),
    "array_equal": (lambda a: (np.array_equal(a, a), np.array_equal(a, a[:3])), INTS),
    "array_equal nan": (lambda a: np.array_equal(a, a), SPECIAL),
    "logspace": (lambda a: (np.logspace(0, 2, 5), np.logspace(1, -1)), INTS),
    "logspace base": (lambda a: np.logspace(0.0, 1.0, 4, False, 2.0), INTS),
}


@pytest.mark.parametrize("name", list(CASES))
def test_statistics_and_elementwise_match_numpy(name):
    func, arg = CASES[name]
    _check(func, arg, rtol=1e-15 if name.startswith("logspace") else 1e-12)


@njit
def _filters(a, v):
    return np.convolve(a, v), np.correlate(a, v, "same"), np.cov(a[: v.shape[0]], v)


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(2, 12), elements=st.floats(-1e3, 1e3)),
    hnp.arrays(np.float64, st.integers(2, 12), elements=st.floats(-1e3, 1e3)),
)
def test_hypothesis_filters(a, v):
    if a.shape[0] < v.shape[0]:
        a, v = v, a
    expected = _filters.py_func(a, v)
    for compiled, wanted in zip(_filters(a, v), expected):
        np.testing.assert_allclose(compiled, wanted, rtol=1e-9, atol=1e-9)
