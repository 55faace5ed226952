"""prange loops that write an array at places no analysis ties to one iteration (a scatter
through a permutation, `counts[i + 1]`, CSR fills, bucketed stores, callees given the whole
array) run in
parallel as Numba runs them, with the py_func's values when the program keeps iterations
apart; element accumulations (`h[k] += v`) become per-thread reductions; loops that provably
race (every iteration writes the same elements, or a shifted read of what another iteration
writes) stay serial with a warning; a disk-cache entry keeps which parameters its code
writes."""

import warnings

import numpy as np

import ember
from ember import njit, prange
from tests.oracle import assert_frees_all

rng = np.random.default_rng(9)


def _report(dispatcher):
    (result,) = dispatcher.overloads.values()
    return result.parallel_report


def _prange_records(dispatcher):
    return [r for r in _report(dispatcher).loops if r.origin == "prange"]


# ---------------------------------------------------------------------------- trusted writes


def invert_permutation(order):
    inverse = np.empty_like(order)
    for a in prange(order.shape[0]):
        inverse[order[a]] = a
    return inverse


def row_counts(rows):
    n = rows.shape[0]
    counts = np.zeros(n + 1, dtype=np.int64)
    for i in prange(n):
        c = 0
        for j in range(rows.shape[1]):
            if rows[i, j] >= 0:
                c += 1
        counts[i + 1] = c
    return counts


def csr_fill(rows, indptr):
    indices = np.empty(indptr[-1], dtype=np.int64)
    for i in prange(rows.shape[0]):
        pos = indptr[i]
        for j in range(rows.shape[1]):
            if rows[i, j] >= 0:
                indices[pos] = rows[i, j] * 10 + j
                pos += 1
    return indices


def last_positions(keys, n_buckets, width):
    last = np.full(n_buckets * width, -1, dtype=np.int64)
    for b in prange(n_buckets):  # bucket b owns last[b * width:(b + 1) * width]
        for k in range(keys.shape[0]):
            if keys[k] // width == b:
                last[keys[k]] = k
    return last


@njit
def _add_at(out, i, value):
    out[i] += value


def through_callee(a):
    out = np.zeros_like(a)
    for i in prange(a.shape[0]):
        _add_at(out, i, a[i] * 2.0)
    return out


def test_trusted_writes_run_in_parallel_with_the_programs_values():
    cases = [invert_permutation, row_counts, csr_fill, last_positions, through_callee]
    compiled = {fn: njit(parallel=True)(fn) for fn in cases}
    for n in (0, 1, 2, 7, 300):
        order = rng.permutation(n)
        np.testing.assert_array_equal(compiled[invert_permutation](order), np.argsort(order))
        rows = rng.integers(-3, 9, size=(n, 5))
        want_counts = row_counts(rows)
        np.testing.assert_array_equal(compiled[row_counts](rows), want_counts)
        indptr = np.cumsum(want_counts)
        np.testing.assert_array_equal(compiled[csr_fill](rows, indptr), csr_fill(rows, indptr))
        keys = rng.integers(0, 12, size=3 * n)
        want = np.full(12, -1)
        for k, key in enumerate(keys):
            want[key] = k
        np.testing.assert_array_equal(compiled[last_positions](keys, 4, 3), want)
        a = rng.random(n) - 0.5
        np.testing.assert_array_equal(compiled[through_callee](a), a * 2.0)
    for fn, dispatcher in compiled.items():
        (record,) = _prange_records(dispatcher)
        assert record.parfor_id is not None, (fn.__name__, record.reason)
        trusted = [d for d in record.details if "runs in parallel as written" in d]
        # `counts[i + 1]` reached only there is each iteration's own element: no note
        assert len(trusted) == (0 if fn is row_counts else 1), (fn.__name__, record.details)


def test_a_trusted_loop_spreads_over_the_threads():
    @njit(parallel=True)
    def owners(order):
        who = np.full(order.shape[0], -1, dtype=np.int64)
        for a in prange(order.shape[0]):
            who[order[a]] = ember.get_thread_id()
        return who

    order = rng.permutation(4000)
    who = owners(order)
    assert who.min() >= 0  # every element written once
    # a static schedule: the thread of iteration a wrote element order[a]
    by_iteration = who[order]
    assert np.all(np.diff(by_iteration) >= 0)
    if ember.get_num_threads() > 1:
        assert by_iteration[-1] > 0  # the last chunk ran on another thread


def test_diagnostics_name_the_trusted_write(capsys):
    dispatcher = njit(parallel=True)(invert_permutation)
    dispatcher(np.arange(3))
    dispatcher.parallel_diagnostics(level=2)
    text = capsys.readouterr().out
    assert "'inverse' is written at elements not tied to one iteration" in text
    assert "stays serial" not in text


# ---------------------------------------------------------------------------- proven races


def same_element(a):
    b = np.zeros(3)
    for i in prange(a.shape[0]):
        b[0] = a[i]
    return b


def whole_slice(x):
    y = np.zeros(4)
    for i in prange(x.shape[0]):
        y[:] = y[0] + x[i]
    return y


def running_total(a):
    b = a.copy()
    for i in prange(1, b.shape[0]):
        b[i] = b[i - 1] + a[i]
    return b


def read_ahead(a):
    b = a.copy()
    for i in prange(b.shape[0] - 1):
        b[i] = b[i + 1] * 2.0
    return b


@njit
def _bump_first(out, value):
    out[0] += value


def same_callee_arguments(a):
    out = np.zeros(2)
    for _i in prange(a.shape[0]):
        _bump_first(out, 1.5)
    return out


def test_provable_races_stay_serial_warn_and_compute_the_serial_values():
    cases = {
        same_element: "is the same in every iteration",
        whole_slice: "is the same in every iteration",
        running_total: "cross-iteration dependence",
        read_ahead: "cross-iteration dependence",
        same_callee_arguments: "is the same in every iteration",
    }
    for fn, why in cases.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            dispatcher = njit(parallel=True)(fn)
            for n in (0, 1, 5, 64):
                data = rng.random(n)
                np.testing.assert_array_equal(dispatcher(data), fn(data))
        (record,) = _prange_records(dispatcher)
        assert record.parfor_id is None and why in record.reason, (fn.__name__, record.reason)
        warned = [w for w in caught if issubclass(w.category, ember.NumbaPerformanceWarning)]
        assert len(warned) == 1 and "will not be executed in parallel" in str(warned[0].message)


def test_a_write_guarded_by_the_iteration_is_trusted_not_a_proven_race():
    @njit(parallel=True)
    def first_negative_flag(a):
        flag = np.zeros(1, dtype=np.int64)
        for i in prange(a.shape[0]):
            if a[i] < 0:
                flag[0] = 1  # every writer stores the same value
        return flag[0]

    assert first_negative_flag(np.array([1.0, 2.0, -3.0, 4.0])) == 1
    assert first_negative_flag(np.arange(50.0)) == 0
    assert first_negative_flag(np.empty(0)) == 0
    (record,) = _prange_records(first_negative_flag)
    assert record.parfor_id is not None


# ---------------------------------------------------------------------------- accumulations


def histogram(x, weights):
    h = np.zeros(10)
    signed = np.zeros((2, 10), dtype=np.int64)
    for i in prange(x.shape[0]):
        h[x[i] % 10] += weights[i]
        signed[0, x[i] % 10] = signed[0, x[i] % 10] + 1  # spelled out
        signed[1, x[i] % 10] -= 1
    return h, signed


def column_sums(m):
    y = np.zeros(m.shape[1])
    for i in prange(m.shape[0]):
        for j in range(m.shape[1]):
            y[j] += m[i, j]
    return y


def count_into(counts, keys):
    for i in prange(keys.shape[0]):
        counts[keys[i]] += 1
    return counts


def doublings(x):
    p = np.ones(3, dtype=np.int64)
    for i in prange(x.shape[0]):
        p[x[i] % 3] *= 2
    return p


def test_element_accumulations_become_per_thread_reductions():
    """`h[k] += v` at indices iterations share: each thread fills a private zeroed copy,
    added into the array after the loop (Numba runs these racing and loses updates)."""
    compiled = {fn: njit(parallel=True)(fn) for fn in (histogram, column_sums, count_into,
                                                       doublings)}  # fmt: skip
    for n in (0, 1, 9, 20000):
        x = rng.integers(-50, 50, n)  # negative keys: Python's modulo, as the py_func
        weights = rng.random(n)
        h, signed = compiled[histogram](x, weights)
        np.testing.assert_allclose(h, np.bincount(x % 10, weights, minlength=10), rtol=1e-12)
        counts = np.bincount(x % 10, minlength=10)
        np.testing.assert_array_equal(signed, np.stack([counts, -counts]))
        m = rng.random((n, 3))
        np.testing.assert_allclose(compiled[column_sums](m), m.sum(axis=0), rtol=1e-12)
        start = np.full(7, 5)
        keys = rng.integers(0, 7, n)
        got = compiled[count_into](start, keys)
        assert got is start  # the caller's array, updated in place
        np.testing.assert_array_equal(start, 5 + np.bincount(keys, minlength=7))
        small = x[:40]
        np.testing.assert_array_equal(compiled[doublings](small), doublings(small))
    for fn, dispatcher in compiled.items():
        (record,) = _prange_records(dispatcher)
        assert record.parfor_id is not None, (fn.__name__, record.reason)
        assert any(d.startswith("reduction: ") for d in record.details), fn.__name__
    (record,) = _prange_records(compiled[histogram])
    assert {"reduction: h (+)", "reduction: signed (+)"} <= set(record.details)
    # the per-thread copies are freed (the caller's array is the one kept)
    assert_frees_all(compiled[count_into], lambda: np.zeros(7, np.int64), lambda: keys, calls=50)
    assert_frees_all(compiled[histogram], lambda: x, lambda: weights, calls=50)


def test_accumulations_read_elsewhere_are_not_reductions():
    @njit(parallel=True)
    def capped(x):
        h = np.zeros(4)
        for i in prange(x.shape[0]):
            if h[x[i]] < 1000.0:  # reads a partial count: not a reduction
                h[x[i]] += 1.0
        return h

    x = np.arange(8) % 4
    np.testing.assert_array_equal(capped(x), np.full(4, 2.0))
    (record,) = _prange_records(capped)
    assert not any(d.startswith("reduction: ") for d in record.details)


# ---------------------------------------------------------------------------- cache entries


def test_a_cache_entry_keeps_the_written_parameters():
    from ember.caching import entries
    from ember.parallel.array_hazards import result_written_parameters

    @njit
    def copy_into(src, dst, i):
        view = dst[i:]
        view[0] = src[i]

    copy_into(np.ones(3), np.zeros(3), 1)
    (result,) = copy_into.overloads.values()
    assert result_written_parameters(result) == {1}
    entry = entries.read_payload(entries.dump(result, {}, "key"), copy_into.py_func)
    assert entry["written"] == frozenset({1})
