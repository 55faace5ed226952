"""Stencils made inside jitted code from an inner `def`, a lambda or `@stencil` on an inner
function; kernels returning a 0-d array; kernels Numba refuses (no relative index, a
standard-indexed first argument, a store into an input) raise a ValueError that is also a
TypingError, from Python and from jitted code. Results are checked against plain loops."""

import numpy as np
import pytest

import ember
from ember import njit, stencil
from ember.errors import StencilError, TypingError


def four_point_loop(a):
    out = np.zeros(a.shape)
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = 0.25 * (a[i, j + 1] + a[i + 1, j] + a[i, j - 1] + a[i - 1, j])
    return out


def lambda_into_out(n):
    a = np.arange(n * n).reshape((n, n))
    b = np.zeros((n, n))
    ember.stencil(lambda x: 0.25 * (x[0, 1] + x[1, 0] + x[0, -1] + x[-1, 0]))(a, out=b)
    return b


def inner_def(n):
    a = np.arange(n * n).reshape((n, n))

    def four_point(x):
        return 0.25 * (x[0, 1] + x[1, 0] + x[0, -1] + x[-1, 0])

    return stencil(four_point)(a)


def decorated_inner_def(a):
    @stencil
    def previous(x):
        c = 2
        return x[-c + 1]

    return previous(a)


def decorated_with_options(a):
    @stencil(cval=-1.0, neighborhood=((-2, 0),))
    def trailing_sum(x):
        total = 0.0
        for k in range(-2, 1):
            total += x[k]
        return total

    return trailing_sum(a)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("maker", [lambda_into_out, inner_def])
def test_inner_kernel_2d(maker, parallel):
    n = 6
    got = njit(parallel=parallel)(maker)(n)
    np.testing.assert_allclose(got, four_point_loop(np.arange(n * n).reshape((n, n))))
    np.testing.assert_allclose(got, maker(n))  # the same function run by CPython


@pytest.mark.parametrize("parallel", [False, True])
def test_decorated_inner_kernels(parallel):
    a = np.arange(9)
    shifted = np.zeros(9, dtype=np.int64)
    shifted[1:] = a[:-1]
    np.testing.assert_array_equal(njit(parallel=parallel)(decorated_inner_def)(a), shifted)
    x = np.arange(7.0)
    expected = np.full(7, -1.0)
    for i in range(2, 7):
        expected[i] = x[i - 2] + x[i - 1] + x[i]
    np.testing.assert_allclose(njit(parallel=parallel)(decorated_with_options)(x), expected)
    np.testing.assert_allclose(decorated_with_options(x), expected)


@stencil
def plus_zero_dim_one(a):
    return a[0, 0] + np.array(1)


def test_kernel_returning_a_zero_dim_array():
    a = np.arange(12.0).reshape(3, 4)
    expected = a + 1  # a 0-d result is the output element (Numba)
    np.testing.assert_allclose(plus_zero_dim_one(a), expected)
    np.testing.assert_allclose(njit(lambda x: plus_zero_dim_one(x))(a), expected)


@stencil
def constant_kernel(a):
    return 1.0


@stencil(standard_indexing=("a",))
def first_standard(a, b):
    return a[0, 1] + b[1, 1]


@stencil
def writes_input(a, b):
    a[0, 1] = 12
    return a[0, 1] + b[1, 0]


@pytest.mark.parametrize(
    ("kernel", "message"),
    [
        (constant_kernel, "no accesses to relatively indexed arrays"),
        (first_standard, "must use relative indexing"),
        (writes_input, "Assignments to arrays passed to stencil kernels"),
    ],
)
def test_refused_kernels_raise_value_and_typing_errors(kernel, message):
    a = np.arange(12.0).reshape(3, 4)
    args = (a,) if kernel is constant_kernel else (a, a.copy())
    for call in (kernel, njit(lambda *xs: kernel(*xs))):
        with pytest.raises(StencilError, match=message) as caught:
            call(*args)
        assert isinstance(caught.value, ValueError) and isinstance(caught.value, TypingError)


def constant_offset_argument(n):
    a = np.arange(n)
    b = np.zeros(n)
    d = 1
    c = 2
    # c and d are constants here: the relative indices a[d - c], a[c - d] are known (Numba)
    ember.stencil(lambda x, c, d: 0.3 * (x[d - c] + x[0] + x[c - d]))(a, c, d, out=b)
    return b


@pytest.mark.parametrize("parallel", [False, True])
def test_constant_arguments_fix_the_neighborhood(parallel):
    n = 8
    a = np.arange(n)
    expected = np.zeros(n)
    for i in range(1, n - 1):
        expected[i] = 0.3 * (a[i - 1] + a[i] + a[i + 1])
    np.testing.assert_allclose(njit(parallel=parallel)(constant_offset_argument)(n), expected)
