"""Whole-array reductions of Fortran-ordered arrays run in memory order (as NumPy's do) and
give NumPy's answers: exact for min, max, all, any, `in` and integer sums; float sums, means
and variances to rounding."""

import numpy as np
import pytest
from oracle import for_types

from ember import njit


@njit
def order_free_reductions(a, x):
    return a.min(), a.max(), np.min(a), np.max(a), (a > 0).all(), (a > 0).any(), x in a


@njit
def float_reductions(a):
    return a.sum(), a.mean(), a.var(), a.std(), np.sum(a), np.mean(a)


def _fortran_arrays(dtype):
    rng = np.random.default_rng(4)
    for shape in ((1, 1), (3, 5), (17, 4), (2, 3, 4)):
        data = rng.integers(-50, 50, shape).astype(dtype)
        yield np.asfortranarray(data)
        yield np.ascontiguousarray(data).T  # a Fortran-ordered view


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int16, np.uint8])
def test_order_free_reductions_equal_numpys(dtype):
    for a in _fortran_arrays(dtype):
        for x in (a.flat[0], a.flat[a.size // 2], 1000):
            expected = (a.min(), a.max(), np.min(a), np.max(a), (a > 0).all(), (a > 0).any(),
                        x in a)  # fmt: skip
            assert for_types(order_free_reductions, a, x)(a, x) == expected


def test_nan_propagates_from_anywhere_in_memory_order():
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    for position in range(a.size):
        b = a.copy(order="F")
        b[np.unravel_index(position, b.shape, order="F")] = np.nan
        mine = order_free_reductions(b, 1.0)
        assert np.isnan(mine[0]) and np.isnan(mine[1])


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.int8])
def test_sums_means_and_variances(dtype):
    for a in _fortran_arrays(dtype):
        expected = (a.sum(), a.mean(), a.var(), a.std(), np.sum(a), np.mean(a))
        reductions = for_types(float_reductions, a)
        np.testing.assert_allclose(reductions(a), expected, rtol=1e-12)
        if np.issubdtype(dtype, np.integer):
            assert reductions(a)[0] == a.sum()
