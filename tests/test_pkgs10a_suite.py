"""Patterns from third-party Numba packages (time-series distance libraries) under ember: a
prange loop that assigns a variable only under a branch on a loop-invariant value (a matrix made
once before the loop or once per pair) runs in parallel, and each result equals the py_func's."""

import warnings

import numpy as np
from oracle import assert_frees_all

from ember import njit, prange
from ember.errors import EmberPerformanceWarning


@njit
def _band(n, m):
    return np.ones((n, m)) * (n + 2 * m)


@njit(parallel=True)
def _pairwise(X, unequal):
    n = len(X)
    out = np.zeros((n, n))
    if not unequal:
        band = _band(X.shape[1], X.shape[1])
    for i in prange(n):
        for j in range(i + 1, n):
            if unequal:
                band = _band(i + 1, j + 2)
            out[i, j] = band.sum() + X[i].sum() - X[j].sum()
            out[j, i] = out[i, j]
    return out


@njit(parallel=True)
def _derived_flag(X, limit):
    n = len(X)
    out = np.zeros(n)
    scale = 1.0
    for i in prange(n):
        wide = limit > 3  # computed in the body, the same in every iteration
        if wide:
            scale = float(limit) * 0.5
        out[i] = X[i].sum() * scale
    return out


@njit(parallel=True)
def _varying_guard(X):
    n = len(X)
    out = np.zeros(n)
    last = 0.0
    for i in prange(n):
        if X[i, 0] > 0.5:  # differs per iteration: `last` carries over, the loop stays serial
            last = X[i, 1]
        out[i] = last
    return out


@njit(parallel=True)
def _read_before_assign(X, flag):
    n = len(X)
    out = np.zeros(n)
    prev = -1.0
    for i in prange(n):
        out[i] = prev  # reads the previous iteration's value when flag holds
        if flag:
            prev = X[i, 0]
    return out


def _prange_parfors(dispatcher, *args) -> list[int]:
    """How many prange loops became parfors in each compiled signature."""
    return [
        result.parallel_report.conversions().get("prange", 0)
        for result in dispatcher.overloads.values()
    ]


def test_assignment_under_invariant_branch_runs_in_parallel():
    rng = np.random.default_rng(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EmberPerformanceWarning)
        for n, m in [(0, 3), (1, 3), (2, 1), (7, 4), (13, 6)]:
            X = rng.standard_normal((n, m))
            for unequal in (False, True):
                np.testing.assert_allclose(_pairwise(X, unequal), _pairwise.py_func(X, unequal))
            for limit in (-2, 3, 4, 10):
                np.testing.assert_allclose(_derived_flag(X, limit), _derived_flag.py_func(X, limit))
    assert _prange_parfors(_pairwise) == [1]
    assert _prange_parfors(_derived_flag) == [1]
    X = rng.standard_normal((9, 5))
    assert_frees_all(_pairwise, lambda: X, lambda: True, calls=50)
    assert_frees_all(_pairwise, lambda: X, lambda: False, calls=50)


def test_value_carried_between_iterations_stays_serial_and_exact():
    rng = np.random.default_rng(6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", EmberPerformanceWarning)
        for n in (0, 1, 5, 40):
            X = rng.random((n, 2))
            np.testing.assert_array_equal(_varying_guard(X), _varying_guard.py_func(X))
            for flag in (False, True):
                np.testing.assert_array_equal(
                    _read_before_assign(X, flag), _read_before_assign.py_func(X, flag)
                )
    assert _prange_parfors(_varying_guard) == [0]
    assert _prange_parfors(_read_before_assign) == [0]
    reasons = [str(w.message) for w in caught if issubclass(w.category, EmberPerformanceWarning)]
    assert any("'last'" in r for r in reasons) and any("'prev'" in r for r in reasons)
