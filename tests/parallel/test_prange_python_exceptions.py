"""Exceptions raised inside a prange body by Python-level code (a jitted function called through
a `types.FunctionType`, an objmode block) or carrying run-time values reach the caller of a
parallel=True function, whichever worker thread raised them, as the py_func's would."""

import numpy as np
import pytest

import ember
from ember import float64, njit, objmode, prange, types
from ember.lowering import function_pointers


@njit(float64(float64))
def doubled_below_six(x):
    if x > 5.0:
        raise ValueError("too big")
    return x * 2.0


def sum_through_pointer(fn, a):
    total = 0.0
    for i in prange(a.shape[0]):
        total += fn(a[i])
    return total


def sum_through_objmode(a):
    total = 0.0
    for i in prange(a.shape[0]):
        with objmode(y="float64"):
            if a[i] > 5:
                raise KeyError("objmode", int(a[i]))
            y = a[i] * 2
        total += y
    return total


def sum_raising_with_values(a):
    total = 0.0
    for i in prange(a.shape[0]):
        if a[i] > 5:
            raise IndexError("bad value", a[i] > 5, 6)
        total += a[i]
    return total


pointer_sig = float64(types.FunctionType(float64(float64)), float64[:])
jitted_pointer_sum = njit(pointer_sig, parallel=True)(sum_through_pointer)
jitted_objmode_sum = njit(parallel=True)(sum_through_objmode)
jitted_values_sum = njit(parallel=True)(sum_raising_with_values)


def outcome(function, *args):
    try:
        return "value", function(*args)
    except Exception as exc:  # the class and arguments are compared
        return type(exc), exc.args


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [4, 6, 7, 10, 31])
def test_first_class_callee_exception_reaches_caller(n, threads):
    a = np.arange(float(n))
    before = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        got = outcome(jitted_pointer_sum, doubled_below_six, a)
    finally:
        ember.set_num_threads(before)
    assert got == outcome(sum_through_pointer, doubled_below_six.py_func, a)
    assert function_pointers._failure_count.value == 0  # nothing left held for later calls
    assert jitted_pointer_sum(doubled_below_six, a[:6]) == sum(2.0 * x for x in a[:6])


@pytest.mark.parametrize("n", [4, 7, 10, 31])
def test_objmode_exception_in_worker_reaches_caller(n):
    a = np.arange(float(n))
    kind, detail = outcome(jitted_objmode_sum, a)
    expected_kind, expected_detail = outcome(sum_through_objmode, a)
    assert kind is expected_kind
    if kind is KeyError:  # which failing element wins depends on the threads' order
        assert detail[0] == "objmode" and 5 < detail[1] < n
    else:
        assert detail == expected_detail


@pytest.mark.parametrize("n", [4, 10, 31])
def test_runtime_exception_arguments_cross_threads(n):
    a = np.arange(float(n))
    assert outcome(jitted_values_sum, a) == outcome(sum_raising_with_values, a)
