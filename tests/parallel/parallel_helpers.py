"""Runs a function three ways (CPython, njit, njit(parallel=True)) and compares the results."""

from __future__ import annotations

import numpy as np

import ember
from ember import njit


def assert_same(got, expected, exact: bool) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e, exact)
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
        if exact:
            np.testing.assert_array_equal(got, expected)
        else:
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
        return
    if isinstance(expected, np.generic):  # CPython on NumPy items gives NumPy scalars
        expected = expected.item()
    if isinstance(got, np.generic):
        got = got.item()
    assert type(got) is type(expected), (got, expected)
    if exact or not isinstance(expected, float):
        assert got == expected
    else:
        assert got == expected or abs(got - expected) <= 1e-12 * max(1.0, abs(expected))


_SHARED: dict = {}


def shared_dispatchers(fn, *args):
    """A serial and a parallel dispatcher of `fn` for the types of `args`, made once for the
    session: a later test with arguments of the same types reuses the compiled code (and a
    dispatcher does not regenerate its native entry over many specializations)."""
    key = (fn, tuple(ember.typeof(a) for a in args))
    if key not in _SHARED:
        _SHARED[key] = (njit(fn), njit(parallel=True)(fn))
    return _SHARED[key]


def three_ways(fn, *args, exact: bool = False, copy_args: bool = True, shared: bool = False):
    """Compare CPython, serial njit and parallel njit; returns the parallel dispatcher.

    Array arguments are copied for each run so functions that write into them compare too.
    `exact=False` allows the last bits of float sums to differ (a parallel sum adds in a
    different order). `shared=True` runs `shared_dispatchers(fn, *args)` instead of new ones."""
    fresh = (lambda: [a.copy() if isinstance(a, np.ndarray) else a for a in args]) if copy_args \
        else (lambda: list(args))  # fmt: skip
    expected_args = fresh()
    expected = fn(*expected_args)
    serial, parallel = (
        shared_dispatchers(fn, *args) if shared else (njit(fn), njit(parallel=True)(fn))
    )
    for dispatcher in (serial, parallel):
        run_args = fresh()
        assert_same(dispatcher(*run_args), expected, exact)
        for got_arg, expected_arg in zip(run_args, expected_args):
            if isinstance(expected_arg, np.ndarray):
                assert_same(got_arg, expected_arg, exact)
    return parallel


def report_of(dispatcher):
    (result,) = dispatcher.overloads.values()
    return result.parallel_report


def parfor_count(dispatcher) -> int:
    """How many prange loops became parfors (NumPy calls under parallel=True add parfors of
    their own: `report.conversions()` counts those by origin)."""
    return report_of(dispatcher).conversions().get("prange", 0)


def serial_reasons(dispatcher) -> list[str]:
    return [r.reason for r in report_of(dispatcher).loops if r.parfor_id is None]
