"""Array expressions (1-d, and 2-d/3-d C arrays) as parfors under parallel=True, and their
fusion with the parfors around them: three ways (CPython with NumPy, njit, njit(parallel=True))
bit for bit, fusion and parfor counts from the diagnostics, and the expressions left to the
(parallel) array loop: arrays of shapes not proven equal (broadcasting, errors), views that
are not C-contiguous, float32 with a wider scalar."""

import numpy as np
import pytest
from parallel_helpers import three_ways

from ember import njit

rng = np.random.default_rng(8)
N = 5003


@pytest.fixture(autouse=True)
def every_item_is_worth_a_thread(monkeypatch):
    """Loops of one item per iteration below 16384 items per thread run on one thread; the
    arrays here are small, so the bar is lowered for them to run (and race) on all threads."""
    from ember.parallel import lowering

    monkeypatch.setattr(lowering, "MIN_ITEMS_PER_CHUNK", 1)


def report(dispatcher):
    (result,) = dispatcher.overloads.values()
    return result.parallel_report


def normalised_energy(a, b):
    centred = a - b.mean()  # np.mean, then an expression of one array
    return np.sum(centred * centred), np.sqrt(np.abs(centred)) * 2.0 - 1.0


def test_expressions_fuse_with_reductions_and_each_other():
    a, b = rng.random(N), rng.random(N)
    parallel = three_ways(normalised_energy, a, b)
    rep = report(parallel)
    counts = rep.conversions()
    assert counts["array expression"] == 3 and counts["a.mean() (as np.mean)"] == 1
    assert len(rep.fused) >= 2, rep.not_fused  # centred, its square and the sum in one loop


def polynomial(a):
    b = a * 0.5  # of a's length: the expressions below are proven of one length
    c = 1.0 - a
    return 2 * a * b + c**2 - a / 3.0


def test_item_arithmetic_equals_the_array_loop_bit_for_bit():
    a = rng.random(N)
    parallel = three_ways(polynomial, a, exact=True)
    rep = report(parallel)
    assert rep.conversions() == {"array expression": 3}
    assert len(rep.fused) == 2  # one loop
    np.testing.assert_array_equal(parallel(a), njit(polynomial)(a))


def ratio(a):
    b = a - 0.5
    return a / b, b / a


def test_division_by_zero_gives_inf_and_nan_as_numpy():
    a = np.array([0.5, 0.0, 1.5, 2.0] * 50)
    with np.errstate(divide="ignore", invalid="ignore"):
        parallel = three_ways(ratio, a, exact=True)
    assert report(parallel).conversions() == {"array expression": 3}


def two_arrays(a, b):
    return a / b


def test_arrays_of_unproven_lengths_stay_with_the_array_loop():
    a = rng.random(N)
    parallel = three_ways(two_arrays, a, np.array([2.0]), exact=True)  # broadcasting
    with pytest.raises(ValueError):
        parallel(a, a[:-1])
    three_ways(two_arrays, a, rng.random(N), exact=True)
    assert report(parallel).conversions() == {}


def compare(a):
    b = a * a
    return (a > b) & (a < 0.75)


def test_boolean_results_and_integer_arrays():
    three_ways(compare, rng.random(N), exact=True)

    def mixed(x):
        y = x % 7 + 1
        return (x * 3 - y) // y + x % y

    x = rng.integers(-1000, 1000, N)
    parallel = three_ways(mixed, x, exact=True)
    assert report(parallel).conversions() == {"array expression": 2}


def test_float32_with_a_wider_scalar_stays_with_the_array_loop():
    def scaled(a):
        return a * 0.1 + 1.0

    a = rng.random(N).astype(np.float32)
    parallel = three_ways(scaled, a, exact=True)
    assert report(parallel).conversions() == {}


def test_repeated_calls_agree_and_switch_off():
    a, b = rng.random(N), rng.random(N)
    parallel = njit(parallel=True)(normalised_energy)
    expected = normalised_energy(a, b)
    for _ in range(20):
        got = parallel(a, b)
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)
        np.testing.assert_allclose(
            got[1], expected[1], rtol=1e-12, atol=1e-12
        )  # the mean rounds apart
    off = njit(parallel={"numpy": False})(normalised_energy)
    np.testing.assert_allclose(off(a, b)[1], expected[1], rtol=1e-12, atol=1e-12)
    assert "array expression" not in report(off).conversions()


# ---------------------------------------------------------------------------- 2-d and 3-d


def surface(a):
    b = a * 2.0 + np.sqrt(a)  # of a's shape: the expression below is proven of one shape
    return b, np.abs(b - a) / 3.0


@pytest.mark.parametrize("shape", [(41, 37), (5, 9, 13), (1, 1, 1), (0, 4), (3, 0, 2)])
def test_expressions_over_2d_and_3d_arrays_bit_for_bit(shape):
    a = rng.random(shape)
    parallel = three_ways(surface, a, exact=True)
    assert report(parallel).conversions() == {"array expression": 2}
    for _ in range(10):  # repeated calls under all threads
        for got, want in zip(parallel(a), surface(a)):
            np.testing.assert_array_equal(got, want)


def integer_grid(x):
    y = x % 5 + 1
    return (x * 3 - y) // y


def test_integer_3d_expressions():
    x = rng.integers(-100, 100, (6, 7, 8))
    parallel = three_ways(integer_grid, x, exact=True)
    assert report(parallel).conversions() == {"array expression": 2}


def test_non_contiguous_and_unproven_2d_arrays_stay_with_the_array_loop():
    a = rng.random((30, 40))
    for view in (a.T, np.asfortranarray(a)):  # results of Fortran order too
        parallel = three_ways(surface, view, exact=True, copy_args=False)
        assert report(parallel).conversions() == {}
    # a strided view's own operations stay with the array loop; their C results may convert
    three_ways(surface, a[::2], exact=True, copy_args=False)
    parallel = three_ways(two_arrays, a, rng.random((30, 40)), exact=True)
    assert report(parallel).conversions() == {}
    three_ways(two_arrays, a, rng.random((1, 40)), exact=True)  # broadcasting
