"""Array expressions under parallel=True: the fused loop runs in chunks on the threading layer
when the operands are large and of one shape and layout, with results equal to NumPy's bit for
bit (and to serial ember's); other shapes take the serial loop."""

import numpy as np
import pytest
from parallel_helpers import three_ways

import ember
from ember.parallel.arrayexpr import MIN_PARALLEL_ITEMS

rng = np.random.default_rng(5)
N = 3 * MIN_PARALLEL_ITEMS + 7


def polynomial(a, b, c):
    return 2 * a * b + c**2


def with_math(a, b, c):
    return np.sqrt(a) * np.exp(-b) - c / 3.0


def compare(a, b):
    return (a > b) & (a < 0.75)


@pytest.mark.parametrize("fn, exact", [(polynomial, True), (with_math, False)])
@pytest.mark.parametrize("n", [10, N])
def test_float_expressions_equal_numpy_and_serial_ember(fn, exact, n):
    a, b, c = rng.random(n), rng.random(n), rng.random(n)
    parallel = three_ways(fn, a, b, c, exact=exact)  # exp/sqrt: NumPy's last bits may differ
    np.testing.assert_array_equal(parallel(a, b, c), ember.njit(fn)(a, b, c))


def test_boolean_result_and_two_dimensional_operands():
    a, b = rng.random((400, 300)), rng.random((400, 300))
    three_ways(compare, a, b, exact=True)
    three_ways(polynomial, a, b, 1.5, exact=True)
    fortran = np.asfortranarray(a)
    three_ways(polynomial, fortran, np.asfortranarray(b), fortran, exact=True)


def test_broadcasting_and_mixed_layouts_take_the_serial_loop():
    a = rng.random((300, 200))
    three_ways(polynomial, a, a[0], 2.0, exact=True)
    three_ways(polynomial, a, a.T.copy().T, a[:, ::-1], exact=True)


def test_integer_expressions_and_memory():
    x = rng.integers(-1000, 1000, N)
    y = rng.integers(1, 50, N)

    def mixed(x, y):
        return (x * 3 - y) // y + x % y

    three_ways(mixed, x, y, exact=True)
    parallel = ember.njit(parallel=True)(mixed)
    parallel(x, y)
    before = ember.runtime.stats()
    for _ in range(5):
        parallel(x, y)
    assert ember.runtime.stats().live == before.live
