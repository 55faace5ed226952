"""parallel=True behaviour beside the results: a prange loop that must run serially says why
(Numba's NumbaPerformanceWarning) and still computes the py_func's values; the chunk-size hint
is per thread (Numba's is thread-local); a lazy @vectorize with target='parallel' compiles
loops on demand (Numba 0.68 builds an empty ufunc there)."""

import threading
import warnings

import numpy as np
import pytest

import ember
from ember import njit, prange, vectorize


def running_count(n):
    a = np.zeros(n)
    for i in prange(1, n):
        a[i] = a[i - 1] + 1  # each iteration reads the previous one's element
    return a


def bounded_sum(n):
    total = 0
    for i in prange(n):
        if i > 1000:
            raise ValueError("too far")
        total += i
    return total


def carried_value(n):
    k = 0
    for i in prange(n):
        k = k * 2 + i  # reads the previous iteration's k: not a reduction
    return k


def squares(n):
    a = np.zeros(n)
    for i in prange(n):
        a[i] = i * i
    return a


def compile_and_run(function, n):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = njit(parallel=True)(function)(n)
    return result, [w for w in caught if issubclass(w.category, ember.NumbaPerformanceWarning)]


@pytest.mark.parametrize(
    ("function", "why"),
    [
        (running_count, "cross-iteration dependence"),
        # Numba's NumbaParallelSafetyWarning words (Numba runs it in parallel, racing)
        (carried_value, "Variable k used in parallel loop may be written to simultaneously"),
    ],
)
def test_serial_prange_warns_and_computes(function, why):
    result, caught = compile_and_run(function, 9)
    np.testing.assert_array_equal(result, function(9))
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "will not be executed in parallel" in message and why in message
    assert caught[0].filename == function.__code__.co_filename


def test_parallel_prange_does_not_warn():
    for function in (squares, bounded_sum):  # a body that may raise runs in parallel too
        result, caught = compile_and_run(function, 9)
        np.testing.assert_array_equal(result, function(9))
        assert caught == []


@njit
def hint_seen_by_jitted_code():
    return ember.get_parallel_chunksize()


def test_chunksize_hint_is_per_thread():
    previous = ember.set_parallel_chunksize(5)
    try:
        seen = {}

        def other_thread():
            seen["start"] = ember.get_parallel_chunksize()
            seen["previous"] = ember.set_parallel_chunksize(9)
            seen["jitted"] = hint_seen_by_jitted_code()

        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        assert seen == {"start": 0, "previous": 0, "jitted": 9}
        assert ember.get_parallel_chunksize() == 5  # this thread's hint is untouched
        assert hint_seen_by_jitted_code() == 5
    finally:
        ember.set_parallel_chunksize(previous)


def test_lazy_parallel_vectorize_compiles_on_demand():
    def scaled_sum(a, b):
        return a + 2 * b

    ufunc = vectorize(target="parallel")(scaled_sum)
    x = np.arange(5.0)
    np.testing.assert_array_equal(ufunc(x, 1.5), x + 3.0)
    ints = np.arange(4)
    got = njit(lambda a: ufunc(a, a))(ints)
    np.testing.assert_array_equal(got, ints * 3)
    assert got.dtype == np.int64  # a loop for exactly these dtypes (Numba's jit behaviour)
