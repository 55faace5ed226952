"""prange loops whose variables live on after the loop: a value assigned before any read in
an iteration keeps the last assigning iteration's value (OpenMP's lastprivate), and a running
extreme kept by a comparison (`if x < m: m = x; k = i`, argmin-style, or `m = x if x > m
else m`) runs in parallel with the serial loop's values; loops where the comparison decides
other work stay serial. `pndindex` loops run in parallel (a prange over the flat index)."""

import warnings

import numpy as np
import pytest

from ember import NumbaParallelSafetyWarning, njit, pndindex, prange
from tests.oracle import assert_frees_all

rng = np.random.default_rng(10)


def _prange_records(dispatcher):
    (result,) = dispatcher.overloads.values()
    return [r for r in result.parallel_report.loops if r.origin == "prange"]


def _runs_in_parallel(dispatcher) -> bool:
    return all(record.parfor_id is not None for record in _prange_records(dispatcher))


def _same(got, want) -> None:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


# ---------------------------------------------------------------------------- last values


def last_assigned(a):
    last = -1.0
    total = 0.0
    for i in prange(a.shape[0]):
        t = a[i] * 2.0
        total += t
        last = t
    return total, last


def last_over_threshold(a, threshold):
    found = -7.5  # kept when no iteration assigns it
    where = -1
    for i in prange(a.shape[0]):
        if a[i] > threshold:
            found = a[i]
        if a[i] < -threshold:
            where = i
    return found, where


def last_of_stepped_range(start, stop, step):
    k = -99
    for i in prange(start, stop, step):
        k = i * 3 - 1
    return k


def last_from_inner_loop(a2):
    best = -1
    c = 0.0
    for i in prange(a2.shape[0]):
        c = 0.0
        for j in range(a2.shape[1]):
            c += a2[i, j]
            if a2[i, j] > 0.8:
                best = i * 1000 + j
    return best, c


def last_row(a2):
    row = a2[0] * 0.0
    pair = (0, 0.0)
    for i in prange(a2.shape[0]):
        if a2[i, 0] > 0.5:
            row = a2[i] * 2.0  # a new array per assigning iteration
            pair = (i, a2[i, 1])
    return row, pair


def _quarters(*shape):
    """Values whose sums are exact in any order (parallel sums regroup)."""
    return rng.integers(-40, 40, size=shape) / 4.0


def test_last_values_match_the_serial_loop_in_parallel():
    kernels = [last_assigned, last_over_threshold, last_from_inner_loop, last_row]
    compiled = {fn: njit(parallel=True)(fn) for fn in kernels}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (0, 1, 2, 3, 5, 64, 1001):
            a = _quarters(n)
            _same(compiled[last_assigned](a), last_assigned(a))
            for threshold in (0.5, 7.5, 10.0):  # 10: no iteration assigns
                got = compiled[last_over_threshold](a, threshold)
                _same(got, last_over_threshold(a, threshold))
            a2 = _quarters(n, 4) / 10.0 + 0.5
            _same(compiled[last_from_inner_loop](a2), last_from_inner_loop(a2))
            if n:
                _same(compiled[last_row](a2), last_row(a2))
    for fn, dispatcher in compiled.items():
        assert _runs_in_parallel(dispatcher), (fn.__name__, _prange_records(dispatcher))
    named = sorted(
        str(w.message).split()[1] for w in caught if w.category is NumbaParallelSafetyWarning
    )
    assert named == ["best", "c", "found", "last", "pair", "row", "where"]
    assert all("holds the value of the last iteration" in str(w.message) for w in caught)


@pytest.mark.filterwarnings("ignore::ember.NumbaParallelSafetyWarning")
def test_last_value_of_stepped_and_reversed_ranges():
    compiled = njit(parallel=True)(last_of_stepped_range)
    for start, stop, step in [(0, 10, 1), (0, 100, 3), (1, 2, 5), (5, 5, 1), (100, 0, -3),
                              (10, -10, -1), (0, 10, -1), (-50, 77, 7)]:  # fmt: skip
        want = last_of_stepped_range(start, stop, step)
        assert compiled(start, stop, step) == want, (start, stop, step)
    assert _runs_in_parallel(compiled)


@pytest.mark.filterwarnings("ignore::ember.NumbaParallelSafetyWarning")
def test_last_value_arrays_are_freed():
    compiled = njit(parallel=True)(last_row)
    assert_frees_all(compiled, lambda: rng.random((40, 3)), calls=50)


# ---------------------------------------------------------------------------- running extremes


def running_max(a):
    m = -np.inf
    for i in prange(a.shape[0]):
        if a[i] > m:
            m = a[i]
    return m


def running_min_reversed_test(a):
    m = np.inf
    for i in prange(a.shape[0]):
        x = a[i] * 0.5
        if m > x:  # m on the left
            m = x
    return m


def chosen_max(a):
    m = -np.inf
    for i in prange(a.shape[0]):
        v = a[i] * 3.0
        m = v if v > m else m  # Python's max(m, v)
    return m


def chosen_min(a):
    m = np.inf
    for i in prange(a.shape[0]):
        m = a[i] if m > a[i] else m
    return m


def first_argmin(a):
    m = np.inf
    k = -1
    for i in prange(a.shape[0]):
        if a[i] < m:
            m = a[i]
            k = i
    return m, k


def last_argmax(a):
    m = -np.inf
    k = -1
    for i in prange(a.shape[0]):
        if a[i] >= m:
            m = a[i]
            k = i
    return m, k


def int_argmax_from(a, start):
    m = start
    k = -1
    for i in prange(a.shape[0]):
        if a[i] > m:
            m = a[i]
            k = i
    return m, k


def argmin_2d(a2):
    m = np.inf
    bi = -1
    bj = -1
    for i in prange(a2.shape[0]):
        for j in range(a2.shape[1]):
            v = a2[i, j] * 2.0
            if v < m:
                m = v
                bi = i
                bj = j
    return m, bi, bj


def test_running_extremes_match_the_serial_loop_in_parallel():
    kernels = [running_max, running_min_reversed_test, first_argmin, last_argmax]
    kernels += [chosen_max, chosen_min]
    compiled = {fn: njit(parallel=True)(fn) for fn in kernels}
    inputs = [
        np.empty(0),
        np.array([np.nan]),
        np.array([2.0, 2.0, 2.0]),
        np.array([np.inf, -np.inf, np.inf, -np.inf]),
        np.array([1.0, 3, 3, 2, 3, np.nan, 0, 3]),
        np.array([np.nan, np.nan, 1.0]),
    ]
    inputs += [rng.integers(0, 5, size=n).astype(np.float64) for n in (1, 2, 7, 100, 999)]
    inputs += [np.where(rng.random(500) < 0.1, np.nan, rng.standard_normal(500))]
    for a in inputs:
        for fn, dispatcher in compiled.items():
            _same(dispatcher(a), fn(a))
    for fn, dispatcher in compiled.items():
        assert _runs_in_parallel(dispatcher), (fn.__name__, _prange_records(dispatcher))


def test_integer_argmax_and_nested_argmin():
    int_version = njit(parallel=True)(int_argmax_from)
    nested = njit(parallel=True)(argmin_2d)
    for n in (0, 1, 2, 9, 300):
        a = rng.integers(-5, 5, size=n)
        for start in (-(2**63), -3, 0, 4, 2**63 - 1):
            _same(int_version(a, start), int_argmax_from(a, start))
        a2 = rng.integers(0, 4, size=(n, 5)).astype(np.float64)
        _same(nested(a2), argmin_2d(a2))
    assert _runs_in_parallel(int_version) and _runs_in_parallel(nested)


# ---------------------------------------------------------------------------- still serial


def counts_new_minimums(a):
    m = np.inf
    c = 0
    for i in prange(a.shape[0]):
        if a[i] < m:
            m = a[i]
            c += 1  # how often the serial running minimum drops: not per chunk
    return m, c


def marks_new_minimums(a):
    m = np.inf
    out = np.zeros(a.shape[0])
    for i in prange(a.shape[0]):
        if a[i] < m:
            m = a[i]
            out[i] = 1.0
    return m, out


def reads_running_index(a):
    m = -1
    k = -1
    out = np.zeros(a.shape[0], np.int64)
    for i in prange(a.shape[0]):
        if a[i] > m:
            m = a[i]
            k = i
        out[i] = k  # reads the previous iteration's k
    return m, k, out


def chosen_and_counted(a):
    m = 0.0
    c = 0
    for i in prange(a.shape[0]):
        if a[i] >= m:
            t = a[i]
            c += 1  # counts the serial loop's new maximums: not per chunk
        else:
            t = m
        m = t
    return m, c


def carried_value(a):
    t = 0.0
    for i in prange(a.shape[0]):
        t = t * 0.5 + a[i]
    return t


def test_dependent_running_values_stay_serial_with_the_serial_values():
    cases = [(counts_new_minimums, "running minimum"), (marks_new_minimums, "running minimum"),
             (reads_running_index, "Variable k used in parallel loop"),
             (carried_value, "is not a reduction"),
             (chosen_and_counted, "is not a reduction")]  # fmt: skip
    a = rng.standard_normal(700)
    for fn, why in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dispatcher = njit(parallel=True)(fn)
            data = (a * 100).astype(np.int64) if fn is reads_running_index else a
            _same(dispatcher(data), fn(data))
        messages = [str(w.message) for w in caught if "will not be executed" in str(w.message)]
        assert len(messages) == 1 and why in messages[0], (fn.__name__, messages)
        assert not _runs_in_parallel(dispatcher)


# ---------------------------------------------------------------------------- pndindex


def pndindex_tuple_shape(a2):
    out = np.empty_like(a2)
    total = 0.0
    for i, j in pndindex(a2.shape):
        v = a2[i, j] * 2.0 - i + j
        out[i, j] = v
        total += v
    return total, out


def pndindex_integer_shape(a3):
    out = np.zeros(a3.shape)
    for idx in pndindex(a3.shape[0], a3.shape[1], a3.shape[2]):
        out[idx] = a3[idx] + idx[0] * 100 - idx[2]
    return out


def pndindex_small_shapes(n):
    c = 0
    for idx in pndindex(()):  # one empty index tuple
        c += 1 + len(idx)
    for idx in pndindex(n):
        c += idx[0] * 3
    last = -1
    for i, j in pndindex(n, 4):
        last = i * 10 + j
    return c, last


def pndindex_negative(n):
    c = 0
    for _i, _j in pndindex(n, -n):
        c += 1
    return c


def test_pndindex_loops_run_in_parallel_in_c_order():
    compiled = {
        fn: njit(parallel=True)(fn)
        for fn in (pndindex_tuple_shape, pndindex_integer_shape, pndindex_small_shapes)
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaParallelSafetyWarning)  # `last`: a last value
        for n in (0, 1, 2, 5, 33):
            a2 = _quarters(n, 7)
            _same(compiled[pndindex_tuple_shape](a2), pndindex_tuple_shape(a2))
            a3 = _quarters(n, 3, 4)
            _same(compiled[pndindex_integer_shape](a3), pndindex_integer_shape(a3))
            _same(compiled[pndindex_small_shapes](n), pndindex_small_shapes(n))
    for fn, dispatcher in compiled.items():
        assert _prange_records(dispatcher), fn.__name__
        assert _runs_in_parallel(dispatcher), (fn.__name__, _prange_records(dispatcher))


def test_pndindex_negative_dimension_raises_numpys_error():
    compiled = njit(parallel=True)(pndindex_negative)
    assert compiled(0) == pndindex_negative(0) == 0
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        pndindex_negative(2)
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        compiled(2)


def argmin_and_last(a):
    m = np.inf
    k = -1
    last = 0.0
    for i in prange(a.shape[0]):
        if a[i] < m:
            m = a[i]
            k = i
        last = a[i]
    return m, k, last


@pytest.mark.filterwarnings("ignore::ember.NumbaParallelSafetyWarning")
def test_diagnostics_name_last_values_and_running_extremes(capsys):
    dispatcher = njit(parallel=True)(argmin_and_last)
    a = np.array([3.0, 1.0, 2.0, 1.0, 5.0])
    _same(dispatcher(a), argmin_and_last(a))
    dispatcher.parallel_diagnostics(level=2)
    text = capsys.readouterr().out
    assert "reduction: m (running extreme: kept when `x < m`)" in text
    assert "last value: k (follows the running extreme m)" in text
    assert "last value: last (the last iteration assigning it" in text
    assert "assigned" not in text  # the per-chunk flags are an implementation detail


def test_numba_thread_count_query():
    from ember import config
    from ember.np.ufunc.parallel import get_num_threads, get_thread_count

    assert get_thread_count() == config.NUM_THREADS == config.NUMBA_NUM_THREADS
    assert 1 <= get_num_threads() <= get_thread_count()  # the per-thread setting is capped
