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


@njit
def checked(x):
    if x > 5:
        raise IndexError("bad value", x > 5, int(x))  # arguments known at run time
    return x


def sum_raising_with_values(a):
    total = 0.0
    for i in prange(a.shape[0]):  # the raise is in a callee: the loop stays parallel
        total += checked(a[i])
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
    kind, detail = outcome(jitted_values_sum, a)
    expected_kind, expected_detail = outcome(sum_raising_with_values, a)
    assert kind is expected_kind
    if kind is IndexError:  # which failing element wins depends on the threads' order
        assert detail[:2] == ("bad value", True) and 5 < detail[2] < n
    else:
        assert detail == expected_detail


def test_nogil_regions_from_several_threads_raise_without_deadlock():
    import threading

    nogil_sum = njit(pointer_sig, parallel=True, nogil=True)(sum_through_pointer)
    sizes = (4, 10, 31)
    results = {}

    def run(thread):
        for n in sizes:
            results[thread, n] = outcome(nogil_sum, doubled_below_six, np.arange(float(n)))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    for (_, n), got in results.items():
        a = np.arange(float(n))
        assert got == outcome(sum_through_pointer, doubled_below_six.py_func, a)
    assert len(results) == 9
    assert function_pointers._failure_count.value == 0
