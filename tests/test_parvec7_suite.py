"""parvec7: np.argmin / np.argmax of an array made in a parallel function (an item-wise
(value, index) reduction fused with the loop filling the array), @vectorize signatures naming
timedelta64 / datetime64 types, and prange reductions of several kinds, against NumPy and the
functions run by CPython."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit, prange, stencil, vectorize
from ember.errors import TypingError
from ember.parallel import lowering
from tests.oracle import assert_frees_all


@pytest.fixture(autouse=True)
def every_item_is_worth_a_thread(monkeypatch):
    """Small arrays run on every thread (NumPy-made loops below 16384 items per thread run on
    one), so partial results of several chunks get combined."""
    monkeypatch.setattr(lowering, "MIN_ITEMS_PER_CHUNK", 1)


def _report(dispatcher):
    (result,) = dispatcher.overloads.values()
    return result.parallel_report


# ---------------------------------------------------------------- argmin / argmax, fused


def arg_extremes_of_expression(x):
    a = x * 2
    return np.argmin(a), np.argmax(a), a.argmin(), a.argmax()


def arg_extremes_of_ones(n):
    a = np.ones(n)
    return np.argmin(a), np.argmax(a)


def _float_cases():
    rng = np.random.default_rng(7)
    nan, inf = np.nan, np.inf
    cases = [
        np.array([3.0]),
        np.array([nan]),
        np.array([inf, inf, inf]),  # every item equals argmin's start value
        np.array([-inf, -inf]),  # ... and argmax's
        np.array([1.0, nan, 0.0, nan]),
        np.array([nan, nan, nan]),
        np.array([2.0, -0.0, 0.0, -0.0]),  # -0.0 == 0.0: the first of them
        np.array([5.0, 1.0, 5.0, 1.0, 5.0]),
        np.full(1001, 4.0),  # ties across every chunk
        rng.integers(0, 3, 1001).astype(np.float64),  # many ties in every chunk
        rng.random(999),
        -rng.random(999),
    ]
    for position in (0, 1, 498, 500, 501, 998):  # NaNs only in the later chunks, or both
        late = rng.random(999)
        late[position] = nan
        late[-1] = nan
        cases.append(late)
    with_inf = rng.random(999)
    with_inf[[3, 700]] = inf
    with_inf[[10, 800]] = -inf
    cases.append(with_inf)
    return cases


def test_argmin_argmax_of_an_expression_match_numpy():
    parallel = njit(parallel=True)(arg_extremes_of_expression)
    cases = _float_cases()
    cases += [
        np.array([7, -3, 7, -3], np.int64),
        np.array([np.iinfo(np.int64).max] * 3 + [np.iinfo(np.int64).min // 2]),
        np.random.default_rng(3).integers(-5, 5, 1001),
        np.array([2**62, 3, 2**63 - 1, 3], np.uint64),  # above int64's largest when doubled
        np.array([np.inf, np.nan, -1.5, np.nan], np.float32),
    ]
    for x in cases:
        expected = tuple(int(v) for v in arg_extremes_of_expression(x))
        assert parallel(x) == expected, x


def test_argmin_argmax_fuse_with_the_loop_filling_the_array():
    parallel = njit(parallel=True)(arg_extremes_of_ones)
    for n in (1, 2, 3, 1000):
        assert parallel(n) == (0, 0)
    report = _report(parallel)
    assert report.parfor_count == 3 and len(report.fused) == 2  # np.ones, argmin, argmax: one
    fused_expression = njit(parallel=True)(arg_extremes_of_expression)
    fused_expression(np.arange(5.0))
    assert _report(fused_expression).count_parfors() == 1


def test_argmin_argmax_of_nothing_raise_numpys_error():
    parallel = njit(parallel=True)(arg_extremes_of_ones)
    for func in (parallel, arg_extremes_of_ones):
        with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
            func(0)

    def only_argmax(n):
        return np.argmax(np.zeros(n))

    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        njit(parallel=True)(only_argmax)(0)


def test_argmin_of_a_made_array_frees_it():
    parallel = njit(parallel=True)(arg_extremes_of_expression)
    assert_frees_all(parallel, lambda: np.arange(100.0), calls=50)


# ---------------------------------------------------------------- @vectorize of timedeltas


def scale(delta, k):
    return delta * k


def shift(when, delta):
    return when + delta


def test_vectorize_signature_of_timedeltas_runs_for_unitless_operands():
    # NumPy keeps no unit in a loop: the loop is 'm8' (as in Numba), so unitless operands
    # run it and operands with another unit find no loop
    ufunc = vectorize(["NPTimedelta('s')(NPTimedelta('s'), int64)"])(scale)
    assert ufunc.types == ["mq->m"] or ufunc.types == ["ml->m"]
    assert ufunc(np.timedelta64(2), 3) == np.timedelta64(6)
    deltas = np.array([1, -2, 0, 40], "m8")
    np.testing.assert_array_equal(ufunc(deltas, -3), deltas * -3)
    with pytest.raises(TypeError, match="not supported for the input types"):
        ufunc(np.timedelta64(2, "ms"), 3)
    shifted = vectorize(["NPDatetime('us')(NPDatetime('ms'), NPTimedelta('us'))"])(shift)
    assert shifted.types == ["Mm->M"]
    with pytest.raises(TypeError, match="not supported for the input types"):
        shifted(np.datetime64(1, "ms"), np.timedelta64(2, "us"))


# ---------------------------------------------------------------- prange reductions


def several_reductions(values, weights):
    total = 0.0
    product = 1.0
    smallest = np.inf
    largest = -np.inf
    count = 0
    histogram = np.zeros(4)
    for i in prange(values.shape[0]):
        v = values[i]
        total += v * weights[i]
        product *= 1.0 + v / 1000.0
        smallest = min(smallest, v)
        largest = max(v, largest)
        if v > 0:
            count += 1
        histogram += np.array([v, v * v, 1.0, weights[i]])
    return total, product, smallest, largest, count, histogram


_SERIAL = several_reductions
_PARALLEL = njit(parallel=True)(several_reductions)

_FINITE = st.floats(-1e3, 1e3, allow_nan=False)


@settings(deadline=None, max_examples=50)  # the first example compiles
@given(st.lists(st.tuples(_FINITE, _FINITE), min_size=0, max_size=60))
def test_prange_reductions_match_the_serial_function(pairs):
    values = np.array([p[0] for p in pairs], np.float64)
    weights = np.array([p[1] for p in pairs], np.float64)
    got = _PARALLEL(values, weights)
    expected = _SERIAL(values, weights)
    for g, e in zip(got[:5], expected[:5]):  # sums regroup: equal up to rounding
        assert g == pytest.approx(e, rel=1e-9, abs=1e-6), (got, expected)
    np.testing.assert_allclose(got[5], expected[5], rtol=1e-9, atol=1e-6)
    assert got[2] == expected[2] and got[3] == expected[3] and got[4] == expected[4]


# ---------------------------------------------------------------- stencils made in jitted code


def test_stencil_made_in_jitted_code_with_run_time_options_is_refused_clearly():
    from ember import stencil
    from ember.errors import UnsupportedError

    def neighborhood_argument(a, pairs):
        return stencil(lambda x: x[-1] + x[1], neighborhood=pairs)(a)

    def captures(a, w):
        def kernel(x):
            return x[-1] * w

        return stencil(kernel)(a)

    def constant_options(a):
        return stencil(lambda x: x[-1] + x[1], neighborhood=((-1, 1),), cval=-1.0)(a)

    with pytest.raises(UnsupportedError, match="neighborhood= is computed at run time"):
        njit(neighborhood_argument)(np.arange(6.0), ((-1, 1),))
    with pytest.raises(UnsupportedError, match=r"enclosing function's variables \(w\)"):
        njit(captures)(np.arange(6.0), 2.0)
    expected = np.array([-1.0, 2.0, 4.0, 6.0, 8.0, -1.0])  # x[i-1] + x[i+1]; cval at the ends
    np.testing.assert_array_equal(njit(constant_options)(np.arange(6.0)), expected)


def test_vectorize_signature_of_timedeltas_called_from_jitted_code_keeps_the_unit():
    # in compiled code the operand types name their unit: the loop declared for it is chosen
    ufunc = vectorize(["NPTimedelta('s')(NPTimedelta('s'), int64)"])(scale)

    def call(deltas):
        return ufunc(deltas, 3)

    jitted = njit(call)
    deltas = np.array([1, -2, 0, 40], "m8[s]")
    got = jitted(deltas)
    assert got.dtype == np.dtype("m8[s]")
    np.testing.assert_array_equal(got, deltas * 3)
    assert jitted(np.timedelta64(-7, "s")) == np.timedelta64(-21, "s")
    with pytest.raises(TypingError, match="not supported for the input types"):
        njit(call)(np.array([1], "m8[ms]"))  # no loop for milliseconds (as NumPy's answer)


def windowed_sums(a, w):
    return stencil(lambda x, w: x[-w] + x[w], neighborhood=((-w, w),))(a, w)


def windowed_sums_2d(a, w, h):
    def kernel(x, w, h):
        return x[-w, h] - x[0, 0]

    return stencil(kernel, neighborhood=((-w, 0), (0, h)), cval=-1)(a, w, h)


def test_stencil_made_in_jitted_code_with_a_neighborhood_of_variables():
    # the bounds are passed when it runs: the border they leave holds cval (0 by default)
    for parallel in (False, True):
        jitted = njit(parallel=parallel)(windowed_sums)
        a = np.arange(12.0) ** 2
        for w in (0, 1, 2, 5, 6, 20):
            expected = np.zeros(12)
            for i in range(w, 12 - w):
                expected[i] = a[i - w] + a[i + w]
            np.testing.assert_array_equal(jitted(a, w), expected)
    jitted_2d = njit(windowed_sums_2d)
    grid = np.arange(30).reshape(5, 6)
    for w, h in ((1, 2), (0, 0), (4, 5), (6, 1)):
        expected = np.full(grid.shape, -1)
        for i in range(w, 5):
            for j in range(0, 6 - h):
                expected[i, j] = grid[i - w, j + h] - grid[i, j]
        np.testing.assert_array_equal(jitted_2d(grid, w, h), expected)


def decorated_window(a, w):
    @stencil(neighborhood=((-w, w),), cval=-1.0)
    def kernel(x, w):
        return x[-w] * x[w]

    return kernel(a, w)


def test_stencil_decorator_inside_jitted_code_takes_a_neighborhood_of_variables():
    jitted = njit(decorated_window)
    a = np.arange(1.0, 10.0)
    for w in (0, 1, 3, 4, 5):
        expected = np.full(9, -1.0)
        for i in range(w, 9 - w):
            expected[i] = a[i - w] * a[i + w]
        np.testing.assert_array_equal(jitted(a, w), expected)
