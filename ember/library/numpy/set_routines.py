"""Sorted-unique set routines in compiled code: np.unique, np.union1d, np.intersect1d,
np.setdiff1d and np.setxor1d of real arrays (sorted unique values, as NumPy returns them)."""

from __future__ import annotations

import numpy as np

from ember import types
from ember.decorators import njit
from ember.extending import overload
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    is_array,
)


def _unique(a):
    values = np.sort(a.ravel())
    n = values.shape[0]
    if n == 0:
        return values
    keep = 1
    for i in range(1, n):
        if values[i] != values[keep - 1] and not (
            values[i] != values[i] and values[keep - 1] != values[keep - 1]
        ):
            values[keep] = values[i]
            keep += 1
    return values[:keep].copy()


@overload(np.unique, jit_options=NUMPY_ERRORS)
def _select_unique(ar):
    if is_array(ar) and not isinstance(ar.dtype, types.Complex):
        return _unique
    return None


_unique_jit = njit(**NUMPY_ERRORS)(_unique)


def _both_uniques_sorted(ar1, ar2):
    return np.sort(np.concatenate((_unique_jit(ar1), _unique_jit(ar2))))


_both_uniques_sorted_jit = njit(**NUMPY_ERRORS)(_both_uniques_sorted)


def _union1d(ar1, ar2):
    return _unique_jit(np.concatenate((ar1.ravel(), ar2.ravel())))


def _intersect1d(ar1, ar2):
    both = _both_uniques_sorted_jit(ar1, ar2)  # a value in both appears twice, side by side
    return both[1:][both[1:] == both[:-1]]


def _setdiff1d(ar1, ar2):
    values = _unique_jit(ar1)
    return values[~np.isin(values, ar2)]


def _setxor1d(ar1, ar2):
    both = _both_uniques_sorted_jit(ar1, ar2)
    n = both.shape[0]
    alone = np.ones(n, np.bool_)  # in one array only: equal to neither neighbour
    for i in range(1, n):
        if both[i] == both[i - 1]:
            alone[i] = False
            alone[i - 1] = False
    return both[alone]


def _register_set_routine(function, impl) -> None:
    """np.union1d and kin over real arrays: sorted unique values, as NumPy returns them."""

    def select(ar1, ar2):
        if (
            is_array(ar1)
            and is_array(ar2)
            and not any(isinstance(a.dtype, types.Complex) for a in (ar1, ar2))
        ):
            return impl
        return None

    overload(function, jit_options=NUMPY_ERRORS)(select)


for _function, _impl in (
    (np.union1d, _union1d),
    (np.intersect1d, _intersect1d),
    (np.setdiff1d, _setdiff1d),
    (np.setxor1d, _setxor1d),
):
    _register_set_routine(_function, _impl)
