"""NumPy reductions, filled allocations and slice / mask assignments under parallel=True:
each function runs three ways (CPython, njit, njit(parallel=True)) with equal results and
repeated parallel calls; parfor counts per `parallel=` option; memory is freed."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit
from ember.parallel.api import reduction_prange

rng = np.random.default_rng(5)
VECTOR = rng.random(1001)
MATRIX = rng.random((31, 17))
INTS = rng.integers(-50, 50, 777).astype(np.int32)
REPEATS = 12
_SERIAL: dict = {}
_PARALLEL: dict = {}


@pytest.fixture(autouse=True)
def every_item_is_worth_a_thread(monkeypatch):
    """NumPy-made loops below 16384 items per thread run on one thread; these tests use small
    arrays, so they lower the bar to run (and race) on all threads."""
    from ember.parallel import lowering

    monkeypatch.setattr(lowering, "MIN_ITEMS_PER_CHUNK", 1)


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def same(got, expected, exact=False) -> None:
    """Equal values and kinds; floats and complex to 1e-12 unless `exact`; NaN equals NaN."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            same(g, e, exact)
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
        assert got.shape == expected.shape
        rtol = 0 if exact else 1e-12
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol, equal_nan=True)
        return
    expected = expected.item() if isinstance(expected, np.generic) else expected
    got = got.item() if isinstance(got, np.generic) else got
    assert type(got) is type(expected), (got, expected)
    if exact:
        assert got == expected or (got != got and expected != expected)
    else:
        assert np.isclose(got, expected, rtol=1e-12, atol=1e-12, equal_nan=True), (got, expected)


def check(fn, *args, exact=False, repeats=1):
    """CPython, serial njit and parallel njit agree (results and arrays written); the parallel
    call is repeated `repeats` times. Returns the parallel compilation's report."""
    expected_args = _copies(args)
    expected = fn(*expected_args)
    serial = _SERIAL.setdefault(fn, njit(fn))
    parallel = _PARALLEL.setdefault(fn, njit(parallel=True)(fn))
    for dispatcher in [serial] + [parallel] * repeats:
        run_args = _copies(args)
        same(dispatcher(*run_args), expected, exact)
        for got_arg, expected_arg in zip(run_args, expected_args):
            if isinstance(expected_arg, np.ndarray):
                same(got_arg, expected_arg, exact)
    return report(parallel, *args)


def report(dispatcher, *args):
    """The report of the specialization for `args` (the latest one when the dispatcher keyed
    it under a more general layout)."""
    found = dispatcher.overloads.get(tuple(ember.typeof(a) for a in args))
    return (found or list(dispatcher.overloads.values())[-1]).parallel_report


def compiled(fn, **options):
    return njit(parallel=options or True)(fn)


def origins(rep) -> dict:
    return rep.conversions()


# ---------------------------------------------------------------------------- reductions


def np_sum(a):
    return np.sum(a)


def method_sum(a):
    return a.sum()


def np_prod(a):
    return np.prod(a)


def method_prod(a):
    return a.prod()


def np_mean(a):
    return np.mean(a)


def method_mean(a):
    return a.mean()


def np_min(a):
    return np.min(a)


def np_max(a):
    return np.max(a)


def method_min(a):
    return a.min()


def method_max(a):
    return a.max()


def all_five(a):
    return np.sum(a), np.prod(a / 2 + 0.75), np.mean(a), np.min(a), np.max(a)


def dot(a, b):
    return np.dot(a, b)


ARRAYS = {
    "float64": VECTOR,
    "float32": rng.choice([0.5, 1.0, 2.0, 4.0], 60).astype(np.float32),  # exact sums
    "int32": INTS,
    "int64-2d": rng.integers(-9, 9, (23, 7)),
    "float-F": np.asfortranarray(MATRIX),
    "strided": VECTOR[::3],
}
CASES = [(fn, "float64") for fn in (method_sum, method_prod, method_mean, method_min, method_max)]
CASES += [(np_sum, name) for name in ("float64", "float32", "int64-2d", "float-F", "strided")]
CASES += [(np_prod, name) for name in ("float64", "int32", "int64-2d")]
CASES += [(np_mean, name) for name in ("float64", "float32", "float-F")]
MIN_MAX_ARRAYS = ("float64", "int32", "int64-2d")
CASES += [(fn, name) for fn in (np_min, np_max) for name in MIN_MAX_ARRAYS]
CASES += [(np_min, "strided")]


@pytest.mark.parametrize("fn, name", CASES, ids=lambda x: getattr(x, "__name__", x))
def test_reductions_three_ways(fn, name):
    a = ARRAYS[name]
    if fn in (np_prod, method_prod) and a.dtype == np.float64:
        a = a / 2 + 0.75  # products of a thousand numbers in (0, 1) underflow
    rep = check(fn, a, repeats=REPEATS if name == "float64" else 3)
    assert rep.parfor_count == 1


def test_reductions_of_bool_and_complex():
    assert check(np_sum, VECTOR > 0.3, exact=True).parfor_count == 1
    values = VECTOR[:100] + 1j * VECTOR[100:200]
    for fn in (np_sum, np_mean):
        assert check(fn, values).parfor_count == 1


def test_origins_are_named():
    counts = origins(check(all_five, VECTOR))
    for name in ("np.sum", "np.prod", "np.mean", "np.min", "np.max"):
        assert counts.get(name) == 1, counts
    assert origins(check(method_sum, VECTOR)) == {"a.sum() (as np.sum)": 1}


def test_min_max_propagate_nan():
    for position in (0, 500, 1000):
        a = VECTOR.copy()
        a[position] = np.nan
        for fn in (np_min, np_max, method_min):
            check(fn, a)
            assert np.isnan(_PARALLEL[fn](a))


def test_empty_arrays():
    empty = np.empty(0)
    for fn in (np_min, np_max):
        for dispatcher in (njit(fn), compiled(fn)):
            with pytest.raises(ValueError, match="zero-size array"):
                dispatcher(empty)
    check(np_sum, empty)
    check(np_prod, empty)
    with pytest.warns(RuntimeWarning):
        check(np_mean, empty)
    check(np_sum, np.empty((0, 4)))
    with pytest.raises(ValueError, match="zero-size array"):
        compiled(np_min)(np.empty((3, 0)))


def test_integer_min_max_extremes():
    a = np.array([np.iinfo(np.int64).max, 5, np.iinfo(np.int64).min + 1])
    for fn in (np_min, np_max):
        check(fn, a, exact=True)


def test_dot_of_vectors():
    b = rng.random(1001)
    assert origins(check(dot, VECTOR, b, repeats=5)) == {"np.dot": 1}
    ints = INTS.astype(np.int64)
    check(dot, ints, ints, exact=True)
    with pytest.raises(ValueError):
        _PARALLEL[dot](VECTOR, b[:10])


@pytest.mark.parametrize(
    "options, count",
    # five reductions, and `a / 2 + 0.75` as an array-expression parfor (switch 'numpy')
    [({}, 6), ({"reduction": False}, 1), ({"numpy": False}, 5), ({"prange": False}, 6)],
)
def test_reduction_option_flag(options, count):
    dispatcher = compiled(all_five, **options)
    same(dispatcher(VECTOR), all_five(VECTOR))
    assert report(dispatcher, VECTOR).parfor_count == count


def row_sums(m):
    out = np.empty(m.shape[0])
    for i in ember.prange(m.shape[0]):
        out[i] = np.sum(m[i])
    return out


def test_reduction_inside_prange_stays_in_the_outer_loop():
    assert origins(check(row_sums, MATRIX)) == {"prange": 1}


int_arrays = st.lists(st.integers(-(2**20), 2**20), min_size=1, max_size=60)


@settings(max_examples=30, deadline=None)
@given(int_arrays)
def test_integer_reductions_property(values):
    a = np.array(values, dtype=np.int64)
    check(all_ints, a, exact=True)


def all_ints(a):
    return np.sum(a), np.min(a), np.max(a), a.prod() % 1000


# ---------------------------------------------------------------------------- allocation


def allocations(n):
    return (np.zeros(n), np.ones((n, 3), np.float32), np.full(n, 2.5), np.arange(n),
            np.zeros(n, dtype=np.int32), np.full((2, n), 7, np.int64))  # fmt: skip


def arange_of(n):
    return np.arange(n)


def test_allocations_three_ways():
    for n in (0, 1, 5, 1000):
        rep = check(allocations, n, exact=True, repeats=5)
    assert origins(rep) == {"np.zeros": 2, "np.ones": 1, "np.full": 2, "np.arange": 1}
    serial_alloc = compiled(allocations, numpy=False)
    serial_alloc(3)
    assert report(serial_alloc, 3).parfor_count == 0
    check(arange_of, -3, exact=True)
    with pytest.raises(ValueError):
        _PARALLEL[allocations](-3)


# ---------------------------------------------------------------------------- setitem


def fill_all(a, v):
    a[:] = v
    return a


def fill_part(a, v):
    a[3:-2] = v
    return a


def copy_part(a, b):
    a[2:9] = b[:7]
    return a


def shift_overlapping(a):
    a[1:] = a[:-1]
    return a


def broadcast_row(a, b):
    a[1:4] = b[:1]
    return a


def masked(a, m, v):
    a[m] = v
    return a


def every_setitem(a, b, m):
    a[:] = 2.0
    a[1:20] = b[:19]
    a[m] = -1.0
    a[::7] = 0.5
    return a


@pytest.mark.parametrize("a", [VECTOR, MATRIX, INTS], ids=["1d", "2d", "int"])
def test_slice_fill(a):
    for fn in (fill_all, fill_part):
        assert origins(check(fn, a, 3, repeats=5)) == {"a[slice] = scalar": 1}


def test_slice_copy_overlap_and_broadcast():
    b = rng.random(50)
    assert origins(check(copy_part, VECTOR, b, repeats=5)) == {"a[slice] = array": 1}
    check(shift_overlapping, VECTOR)  # overlapping: the serial copy runs
    check(shift_overlapping, MATRIX)
    check(broadcast_row, VECTOR, b)  # broadcasting: the serial assignment runs
    for dispatcher in (_SERIAL[copy_part], _PARALLEL[copy_part]):
        with pytest.raises(ValueError):
            dispatcher(VECTOR.copy(), b[:3])


def test_mask_assignment():
    mask = VECTOR > 0.5
    assert origins(check(masked, VECTOR, mask, 7.0, repeats=REPEATS)) == {"a[mask] = scalar": 1}
    check(masked, MATRIX, MATRIX > 0.4, -3.0)
    check(masked, INTS, INTS > 3, 9)
    for dispatcher in (_SERIAL[masked], _PARALLEL[masked]):
        with pytest.raises(IndexError):
            dispatcher(VECTOR.copy(), mask[:10], 1.0)


@pytest.mark.parametrize("options, count", [({}, 4), ({"setitem": False}, 0)])
def test_setitem_option_flag(options, count):
    b, m = rng.random(40), VECTOR > 0.7
    dispatcher = compiled(every_setitem, **options)
    expected = every_setitem(VECTOR.copy(), b, m)
    same(dispatcher(VECTOR.copy(), b, m), expected, exact=True)
    assert report(dispatcher, VECTOR, b, m).parfor_count == count


# ---------------------------------------------------------------------------- memory


def test_memory_is_freed():
    b, m = rng.random(40), VECTOR > 0.7
    calls = [(all_five, (VECTOR,)), (every_setitem, (VECTOR, b, m))]
    for fn, args in calls:
        check(fn, *args)
    before = ember.runtime.stats()
    for fn, args in calls:
        _PARALLEL[fn](*_copies(args))
    after = ember.runtime.stats()
    assert after.live == before.live


# ---------------------------------------------------------------------------- one threading layer


def test_parallel_vectorize_uses_the_parfor_threads():
    from ember import vectorize

    @vectorize(["int64(float64)"], target="parallel")
    def thread_of(x):
        return ember.get_thread_id()

    data = np.zeros(100_000)
    assert set(np.unique(thread_of(data))) == set(range(ember.config.NUM_THREADS))
    try:
        ember.set_num_threads(1)
        assert set(np.unique(thread_of(data))) == {0}
    finally:
        ember.set_num_threads(ember.config.NUM_THREADS)


def broken_prod(a, T, init):
    acc = T(init)
    for i in reduction_prange(len(a)):
        acc *= a[i]
    return acc + "not a number"  # fails to type


def sum_and_prod(a):
    total = np.sum(a)
    product = np.prod(a)
    return total, product


def test_a_template_that_fails_to_type_leaves_its_call_serial(monkeypatch):
    from ember.parallel import numpy_to_parfor

    monkeypatch.setitem(numpy_to_parfor._TEMPLATES, "prod", (broken_prod, broken_prod))
    dispatcher = compiled(sum_and_prod)
    a = VECTOR[:20] + 0.5
    same(dispatcher(a), sum_and_prod(a))
    rep = report(dispatcher, a)
    assert rep.conversions() == {"np.sum": 1}
    assert any("np.prod kept serial" in note for note in rep.notes)


def test_min_max_over_many_blocks():
    big = rng.random(4096 * 3 + 5)
    for position in (4095, 4096, 4096 * 3 + 4):
        a = big.copy()
        a[position] = -1.0
        check(np_min, a, exact=True, repeats=4)
        a[position] = 2.0
        check(np_max, a, exact=True, repeats=4)
        a[position] = np.nan
        check(np_min, a, exact=True)
        check(np_max, a, exact=True)


def test_small_numpy_loops_run_on_one_thread(monkeypatch):
    from ember.ir.parfor import Parfor
    from ember.parallel import lowering

    monkeypatch.setattr(lowering, "MIN_ITEMS_PER_CHUNK", 16384)

    def zeros_then_prange(n):
        a = np.zeros(n)
        b = np.empty(n)
        for i in ember.prange(n):
            b[i] = i
        return a, b

    dispatcher = compiled(zeros_then_prange, fusion=False)
    same(dispatcher(40_000), zeros_then_prange(40_000), exact=True)
    func_ir = list(dispatcher.overloads.values())[0].func_ir
    found = [
        s.lowering.get("min_items", 1) for _, s in func_ir.statements() if isinstance(s, Parfor)
    ]
    assert sorted(found) == [1, 16384]  # the prange loop's iterations may be heavy: no bar
