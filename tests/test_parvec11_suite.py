"""prange reductions beyond one scalar: tuples updated item by item (`r = (r[0] + x, max(r[1],
y))`, also through `s, c = r`), max()/min() with several arguments, updates whose operand is a
conditional expression, whole-array np.maximum / np.minimum reductions and slice accumulations
(`h[:] += v`) run in parallel with the serial loop's values; tuple items that leak a partial
result keep the loop serial. A body that may raise runs in parallel and raises the exception
the serial loop meets first."""

import warnings

import numpy as np

from ember import get_num_threads, get_thread_id, njit, prange
from tests.oracle import assert_frees_all

rng = np.random.default_rng(11)


def _prange_records(dispatcher):
    """The prange loops of every compiled signature."""
    results = dispatcher.overloads.values()
    return [r for res in results for r in res.parallel_report.loops if r.origin == "prange"]


def _runs_in_parallel(dispatcher) -> bool:
    records = _prange_records(dispatcher)
    return bool(records) and all(record.parfor_id is not None for record in records)


def _same(got, want) -> None:
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype or np.isscalar(w)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12)


def _check(function, inputs, parallel=True):
    """The jitted function returns the py_func's values on every input; runs in parallel (or
    serially when `parallel` is False)."""
    compiled = njit(parallel=True)(function)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in inputs:
            _same(compiled(*args), function(*args))
    assert _runs_in_parallel(compiled) == parallel
    return compiled


def _vectors():
    """Float vectors of several sizes (the empty one too), with NaN in one."""
    with_nan = rng.random(301)
    with_nan[[3, 150, 299]] = np.nan
    return [rng.random(n) for n in (0, 1, 7, 1000)] + [rng.standard_normal(999), with_nan]


# ---------------------------------------------------------------------------- tuple reductions


def sum_and_product(x, y):
    acc = (0.0, 1.0)
    for i in prange(x.size):
        acc = (acc[0] + x[i], acc[1] * y[i])
    return acc


def sum_count_max(x):
    acc = (0.0, 0, -np.inf)
    for i in prange(x.size):
        acc = acc[0] + x[i], acc[1] + 1, max(acc[2], x[i])
    return acc


def conditional_unpacked(x, threshold):
    acc = (0.5, 3)
    for i in prange(x.size):
        if x[i] > threshold:
            s, c = acc
            acc = (s + x[i], c + 1)
    return acc


def min_and_bits(k):
    acc = (10**9, 0, -1)
    for i in prange(k.size):
        acc = (min(k[i], acc[0]), acc[1] | k[i], acc[2] & (k[i] + 1023))
    return acc


def test_tuple_reductions_run_in_parallel_with_the_serial_values(capsys):
    vectors = _vectors()
    _check(sum_and_product, [(x, 1.0 + x * 1e-3) for x in vectors])
    compiled = _check(sum_count_max, [(x,) for x in vectors])
    compiled.parallel_diagnostics(level=2)
    assert "reduction: acc ((+, +, max))" in capsys.readouterr().out
    _check(conditional_unpacked, [(x, t) for x in vectors for t in (0.2, 2.0)])
    ints = [rng.integers(-(2**40), 2**40, n) for n in (0, 5, 2000)]
    _check(min_and_bits, [(k,) for k in ints])


def leaks_an_item(x):
    acc = (0.0, 0)
    for i in prange(x.size):
        s, c = acc
        acc = (s + x[i], c + 1)
    return acc, s


def reads_another_item(x):
    acc = (0.0, 0)
    for i in prange(x.size):
        acc = (acc[0] + x[i], acc[1] + (acc[0] > 1.0))
    return acc


def swaps_items(x):
    acc = (0.0, 0.0)
    for i in prange(x.size):
        acc = (acc[1] + x[i], acc[0] + 1.0)
    return acc


def test_tuple_items_read_elsewhere_keep_the_loop_serial():
    inputs = [(x,) for x in _vectors()[1:]]  # `s` is unbound after an empty loop
    for function in (leaks_an_item, reads_another_item, swaps_items):
        _check(function, inputs, parallel=False)


# ---------------------------------------------------------------------------- max/min of many


def max_of_three(x):
    m = -np.inf
    for i in prange(x.size):
        m = max(m, x[i], 2.0 * x[i] - 1.0)
    return m


def min_in_the_middle(k):
    m = 10**12
    for i in prange(k.size):
        m = min(k[i] * 3, m, i + 5, k[i] - 7)
    return m


def test_max_and_min_of_several_arguments_are_reductions():
    _check(max_of_three, [(x,) for x in _vectors()])
    _check(min_in_the_middle, [(rng.integers(-50, 10**6, n),) for n in (0, 3, 1500)])


# ---------------------------------------------------------------------------- conditional operands


def count_signed(x):
    s = 0
    for i in prange(x.size):
        s += 1 if x[i] > 0.5 else -2
    return s


def sum_of_chosen(x):
    s = 0.0
    for i in prange(x.size):
        s = s + (x[i] if x[i] > 0.5 else 0.25)
    return s


def max_of_chosen(x):
    m = -1.0
    for i in prange(x.size):
        m = max(m, x[i] if i % 2 else -x[i])
    return m


def ternary_reads_the_sum(x):
    s = 0.0
    for i in prange(x.size):
        s += x[i] if x[i] > 0.5 else s
    return s


def test_updates_with_a_conditional_expression_operand_are_reductions():
    # `s += a if c else b` hands s to the join through both branches (stack copies)
    inputs = [(x,) for x in _vectors()]
    for function in (count_signed, sum_of_chosen, max_of_chosen):
        _check(function, inputs)
    _check(ternary_reads_the_sum, inputs, parallel=False)


def any_above(x, threshold):
    found = False
    for i in prange(x.size):
        found = found or x[i] > threshold
    return found


def all_in_range(x, low, count):
    ok = True
    for i in prange(x.size):
        ok = ok and x[i] >= low
        count += 1
    return ok, count


def any_ratio_above(x, y):
    found = False
    for i in prange(x.size):
        found = found or x[i] / y[i] > 2.0  # may raise where the serial loop skips it
    return found


def test_short_circuit_or_and_and_are_boolean_reductions():
    vectors = _vectors()
    _check(any_above, [(x, t) for x in vectors for t in (-1.0, 0.5, 0.999, 5.0)])
    _check(all_in_range, [(x, low, 3) for x in vectors for low in (-5.0, 0.0, 0.001)])
    x = rng.random(500)
    _check(any_ratio_above, [(x, x + 0.1), (x, x * 0.1)], parallel=False)


# ---------------------------------------------------------------------------- array reductions


def running_elementwise_max(rows):
    acc = np.zeros(rows.shape[1], dtype=rows.dtype)
    for i in prange(rows.shape[0]):
        acc = np.maximum(acc, rows[i])
    return acc


def running_elementwise_min(rows, start):
    acc = np.full(rows.shape[1], start)
    for i in prange(rows.shape[0]):
        acc = np.minimum(rows[i] * 2, acc)
    return acc


def test_np_maximum_and_minimum_array_reductions():
    floats = [rng.standard_normal((n, 5)) for n in (0, 3, 400)]
    nan_rows = rng.standard_normal((300, 4))
    nan_rows[17, 2] = np.nan  # np.maximum propagates it, in any order
    ints = [rng.integers(-(2**50), 2**50, (n, 3)) for n in (1, 500)]
    compiled = _check(running_elementwise_max, [(r,) for r in floats + [nan_rows] + ints])
    assert_frees_all(compiled, lambda: rng.random((64, 5)), calls=50)
    unsigned = rng.integers(0, 2**63, (300, 2), dtype=np.uint64)
    _check(
        running_elementwise_min,
        [(r, 1.5) for r in floats] + [(unsigned, np.uint64(2**64 - 1))],
    )


def histogram_rows(x, bins):
    hist = np.zeros(bins)
    for i in prange(x.size):
        one_hot = np.zeros(bins)
        one_hot[int(x[i] * bins)] = 1.0
        hist[:] += one_hot
    return hist


def rows_and_tails(x, bins):
    table = np.zeros((3, bins))
    for i in prange(x.size):
        row = np.zeros(bins)
        row[int(x[i] * bins)] = x[i]
        table[i % 3, :] += row
        table[(i + 1) % 3, 1:] = table[(i + 1) % 3, 1:] + row[1:]
    return table


def scaled_slices(factors):
    prod = np.ones(4)
    for i in prange(factors.shape[0]):
        prod[:] *= factors[i]
    return prod


def test_slice_accumulations_are_per_thread_array_reductions():
    fractions = [rng.random(n) for n in (0, 1, 7, 1000)]  # bin indices in range
    compiled = _check(histogram_rows, [(x, 7) for x in fractions])
    assert_frees_all(compiled, lambda: rng.random(64), lambda: 5, calls=50)
    _check(rows_and_tails, [(x, 5) for x in fractions])
    _check(scaled_slices, [(1.0 + rng.random((n, 4)) * 1e-3,) for n in (0, 2, 900)])


def per_thread_bins(x, bins):
    local = np.zeros((get_num_threads(), bins), dtype=np.int64)
    for i in prange(x.size):
        local[get_thread_id(), int(x[i] * bins)] += 1
    return local.sum(axis=0)


def test_explicit_per_thread_bins_are_not_privatized_again():
    # rows picked by get_thread_id() belong to the running thread: no private copy per chunk
    compiled = _check(per_thread_bins, [(rng.random(n), 6) for n in (0, 5, 3000)])
    (result,) = compiled.overloads.values()
    (record,) = [r for r in result.parallel_report.loops if r.origin == "prange"]
    assert not any("reduction" in detail for detail in record.details)


def accumulates_and_overwrites(rows):
    acc = np.zeros(3)
    for i in prange(rows.shape[0]):
        acc[:] += rows[i]
        acc[1] = 1.0
    return acc


def test_a_slice_accumulation_also_written_plainly_stays_serial():
    _check(accumulates_and_overwrites, [(rng.random((n, 3)),) for n in (1, 50)], parallel=False)


# ---------------------------------------------------------------------------- exceptions


def checked_sqrt_sum(x):
    s = 0.0
    for i in prange(x.size):
        if x[i] < 0:
            raise ValueError("negative input at", i)
        s += np.sqrt(x[i])
    return s


def checked_rows(a):
    out = np.empty_like(a)
    for i in prange(a.shape[0]):
        scratch = np.ones(a.shape[1])
        for j in range(a.shape[1]):
            if not np.isfinite(a[i, j]):
                raise IndexError("non-finite value in row", i)
            out[i, j] = a[i, j] * scratch[j]
    return out


def _raised(function, *args):
    try:
        function(*args)
    except Exception as error:  # the exception is the value compared
        return type(error), error.args
    return None


def test_a_body_that_may_raise_runs_in_parallel_and_raises_the_serial_first_exception():
    compiled = _check(checked_sqrt_sum, [(x,) for x in _vectors()[:4]])
    for bad in ([3, 600, 998], [999], [0, 1]):  # several chunks fail: the lowest one's
        x = rng.random(1000)
        x[bad] = -1.0
        assert (
            _raised(compiled, x)
            == _raised(checked_sqrt_sum, x)
            == (
                ValueError,
                ("negative input at", bad[0]),
            )
        )
    rows = njit(parallel=True)(checked_rows)
    a = rng.random((64, 5))
    np.testing.assert_array_equal(rows(a), checked_rows(a))
    a[[50, 9], [1, 3]] = [np.nan, np.inf]
    assert (
        _raised(rows, a)
        == _raised(checked_rows, a)
        == (
            IndexError,
            ("non-finite value in row", 9),
        )
    )
    assert _runs_in_parallel(rows)
    # the failing chunks' arrays and exception payloads are freed too
    assert_frees_all(lambda arr: _raised(rows, arr), lambda: a.copy(), calls=50)
