"""Numba's prange bugs as regression tests (each run three ways), and repeated calls from
several Python threads giving the same answer every time (no races)."""

import threading

import numpy as np
import pytest
from parallel_helpers import parfor_count, serial_reasons, three_ways

from ember import njit, prange


def test_numba_4922_reduction_inside_and_outside_a_condition():
    def udt(n):
        c = 0
        for i in prange(n):
            c += 1
            if i > 10:
                c += 1
        return c

    for n in (0, 5, 10, 11, 12, 100):
        parallel = three_ways(udt, n, exact=True)
    assert parfor_count(parallel) == 1


def test_numba_7344_conditional_reduction_with_a_non_identity_start():
    def prange_test(a, cond, start):
        s = start
        for i in prange(a.shape[0]):
            if cond[i]:
                s += 1
        return s

    rng = np.random.default_rng(7344)
    a = rng.integers(0, 10, 100)
    cond = rng.integers(0, 2, len(a)).astype(np.bool_)
    for start in (0, 1, 2, -5):
        parallel = three_ways(prange_test, a, cond, start, exact=True)
        assert parallel(a, cond, start) == start + int(cond.sum())
    assert parfor_count(parallel) == 1


def test_numba_8515_consecutive_pranges_are_not_merged():
    def counted_differences(n):
        results = np.zeros(n, dtype=np.int64)
        counters = np.zeros(n, dtype=np.int64)
        for i in prange(n):
            for _j in range(i):
                counters[i] += 1
        for i in prange(n):
            if i == 0:
                continue
            results[i] = counters[i] - counters[i - 1]
        return results[1:]

    parallel = three_ways(counted_differences, 16, exact=True)
    np.testing.assert_array_equal(parallel(16), np.ones(15, dtype=np.int64))
    assert parfor_count(parallel) == 2  # separate regions: the second reads the first's writes


def test_numba_9829_scattered_writes_run_in_parallel_and_a_read_reduction_stays_serial():
    def fill_gaps(index, values, max_id):
        missing = 4294967295  # np.iinfo(np.uint32).max
        array = np.ones(max_id + 1, dtype=np.uint32) * missing
        for i in prange(len(index)):
            array[index[i]] = values[i]
        max_scc = values.max()
        for i in prange(len(array)):
            if array[i] == missing:
                array[i] = max_scc + 1
                max_scc += 1
        return array

    index, values = np.array([9, 11, 12, 15, 19]), np.array([0, 1, 2, 3, 4])
    parallel = three_ways(fill_gaps, index, values, 20, exact=True)
    # the scatter trusts the program (as Numba): its indices are distinct
    assert parfor_count(parallel) == 1
    (reason,) = serial_reasons(parallel)
    assert "also reads it" in reason


def test_numba_9518_subtraction_written_out_after_a_serial_loop():
    def bug(test, pre, err1, err2):
        for k in range(0, 100):
            pre = pre + test[k, 0]
        for k in prange(0, 100):
            err1 = err1 + test[k, 0]
            err2 = err2 - test[k, 0]
        return err1, err2

    test = np.arange(10000).reshape((100, 100))
    parallel = three_ways(bug, test, 0, 0, 0, exact=True)
    assert parallel(test, 0, 0, 0) == (495000, -495000)


def test_repeated_calls_from_two_python_threads_agree():
    @njit(parallel=True, nogil=True)
    def weighted(a):
        s = 0
        for i in prange(len(a)):
            s += a[i] * (i % 7)
        return s

    a = np.arange(20_000, dtype=np.int64)
    expected = weighted.py_func(a)
    results = []

    def run():
        results.extend(weighted(a) for _ in range(200))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 400 and set(results) == {expected}


def test_parallel_function_called_inside_a_parfor_nests_safely():
    @njit(parallel=True)
    def row_total(row):
        s = 0.0
        for i in prange(len(row)):
            s += row[i]
        return s

    def totals(m):
        out = np.zeros(m.shape[0])
        for i in prange(m.shape[0]):
            out[i] = row_total(m[i])
        return out

    m = np.arange(600.0).reshape(20, 30)
    parallel = three_ways(totals, m, exact=True)
    np.testing.assert_array_equal(parallel(m), m.sum(axis=1))


def _divide_in_try(a, n):
    try:
        for i in prange(n):
            a[i] = 12 // (i - 3)
    except ZeroDivisionError:
        return -1
    return 0


def _sum_in_try_finally(a, n):
    s = 0
    try:
        for i in prange(n):
            s += a[i]
    finally:
        a[0] = 99
    return s


@pytest.mark.parametrize("n", [3, 4, 50])
def test_prange_inside_a_try_statement_matches_python(n):
    """A try around a prange loop (as `with parallel_chunksize(...)` becomes) keeps the loop
    parallel; an exception from its body reaches the handler."""
    got, expected = np.zeros(n, np.int64), np.zeros(n, np.int64)
    assert njit(parallel=True)(_divide_in_try)(got, n) == _divide_in_try(expected, n)
    if n <= 3:  # (no ZeroDivisionError: every item written)
        np.testing.assert_array_equal(got, expected)
    got, expected = np.arange(n), np.arange(n)
    assert njit(parallel=True)(_sum_in_try_finally)(got, n) == _sum_in_try_finally(expected, n)
    np.testing.assert_array_equal(got, expected)
