"""`a.flat` (C-contiguous arrays), `np.ndenumerate` and `np.*_like` of scalars, compared with
NumPy running the same Python functions."""

from __future__ import annotations

import numpy as np
import pytest
from test_arrays_support import LAYOUTS, assert_same, live_allocations, sample

from ember import njit

# ---------------------------------------------------------------------------- a.flat


def flat_items(a):
    f = a.flat
    out = np.empty(a.size, a.dtype)
    for i in range(a.size):
        out[i] = f[i]
    return out, a.flat[-1]


def flat_assign(a):
    res = np.empty_like(a)
    rf, af = res.flat, a.flat
    for i in range(a.size):
        rf[i] = af[i] * 2
    return res


def flat_of_new_array(n):
    f = np.arange(n * 2).reshape(n, 2).flat
    return f[n], f[-1]


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_flat_getitem_and_setitem(shape, dtype):
    a = sample(dtype, shape)
    assert_same(njit(flat_items)(a), flat_items(a))
    assert_same(njit(flat_assign)(a), flat_assign(a))


def test_flat_writes_through_and_keeps_arrays_alive():
    def zero_second(a):
        a.flat[1] = 0

    a = np.arange(6.0).reshape(2, 3)
    njit(zero_second)(a)
    assert a[0, 1] == 0
    compiled = njit(flat_of_new_array)
    with live_allocations():
        for _ in range(5):
            assert compiled(4) == flat_of_new_array(4)


def test_flat_of_a_zero_d_array():
    def first(a):
        return a.flat[0]

    assert njit(first)(np.array(2.5)) == 2.5


def test_flat_of_non_contiguous_arrays_reads_in_c_order():
    def first_and_third(a):
        return a.flat[0] + 10 * a.flat[2]

    a = np.arange(12.0).reshape(3, 4)[:, ::2]
    assert njit(first_and_third)(a) == first_and_third(a)


# ---------------------------------------------------------------------------- np.ndenumerate


def ndenumerate_sum(a):
    total = 0.0
    count = 0
    for idx, v in np.ndenumerate(a):
        total += v * (1 + idx[0] * 3 + idx[-1] * 7)
        count += 1
    return total, count


def ndenumerate_copy(a):
    res = np.zeros_like(a)
    for idx, v in np.ndenumerate(a):
        res[idx] = v
    return res


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (0, 3)])
def test_ndenumerate_matches_numpy(layout, shape):
    a = sample(np.float64, shape, layout)
    with live_allocations():
        assert_same(njit(ndenumerate_sum)(a), ndenumerate_sum(a))
        assert_same(njit(ndenumerate_copy)(a), ndenumerate_copy(a))


def test_ndenumerate_of_a_zero_d_array():
    def items(a):
        count = 0
        found = -1.0
        for idx, v in np.ndenumerate(a):
            count += 1 + len(idx)
            found = v
        return count, found

    a = np.array(4.5)
    assert njit(items)(a) == items(a)


def test_ndenumerate_yields_index_tuples():
    def last(a):
        result = (0, 0)
        for idx, _v in np.ndenumerate(a):
            result = idx
        return result

    a = np.zeros((3, 5), np.int16)
    assert njit(last)(a) == (2, 4)


# ---------------------------------------------------------------------------- *_like of scalars


@pytest.mark.parametrize(
    "prototype, fill", [(3.5, 2), (np.int32(3), 7.9), (True, 0), (5, 2.5), (np.float32(1), 3)]
)
def test_like_functions_of_scalars_give_zero_d_arrays(prototype, fill):
    def likes(p, v):
        return np.full_like(p, v), np.zeros_like(p), np.ones_like(p), np.empty_like(p).shape

    assert_same(njit(likes)(prototype, fill), likes(prototype, fill))
