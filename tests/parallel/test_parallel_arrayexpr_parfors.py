"""1-d array expressions as parfors under parallel=True, and their fusion with the parfors
around them: three ways (CPython with NumPy, njit, njit(parallel=True)) bit for bit, fusion
and parfor counts from the diagnostics, the run-time shape check that falls back to the
whole-array expression (broadcasting, errors), and the expressions left to the array loop."""

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


def polynomial(a, b, c):
    return 2 * a * b + c**2 - a / 3.0


def test_item_arithmetic_equals_the_array_loop_bit_for_bit():
    a, b, c = rng.random(N), rng.random(N), rng.random(N)
    parallel = three_ways(polynomial, a, b, c, exact=True)
    assert report(parallel).conversions() == {"array expression": 1}
    np.testing.assert_array_equal(parallel(a, b, c), njit(polynomial)(a, b, c))


def ratio(a, b):
    return a / b


def test_division_by_zero_gives_inf_and_nan_as_numpy():
    a = np.array([1.0, -1.0, 0.0, 2.0] * 50)
    b = np.array([0.0, 0.0, 0.0, 4.0] * 50)
    with np.errstate(divide="ignore", invalid="ignore"):
        three_ways(ratio, a, b, exact=True)


def test_unequal_shapes_take_the_whole_array_expression():
    a = rng.random(N)
    three_ways(ratio, a, np.array([2.0]), exact=True)  # broadcasting
    parallel = njit(parallel=True)(ratio)
    with pytest.raises(ValueError):
        parallel(a, a[:-1])
    assert report(parallel).conversions() == {"array expression": 1}


def compare(a, b):
    return (a > b) & (a < 0.75)


def test_boolean_results_and_integer_arrays():
    a, b = rng.random(N), rng.random(N)
    three_ways(compare, a, b, exact=True)

    def mixed(x, y):
        return (x * 3 - y) // y + x % y

    x, y = rng.integers(-1000, 1000, N), rng.integers(1, 50, N)
    parallel = three_ways(mixed, x, y, exact=True)
    assert report(parallel).conversions() == {"array expression": 1}


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
