"""Whole-array folds (sum, prod, mean) of an array whose layout is only known at run time
("A": a variable that holds a C array on one path and its transpose on another) take the same
order as a statically Fortran array: memory order when it is Fortran-contiguous, as NumPy."""

import math

import numpy as np
import pytest

import ember


def _sequential_sum(values):
    total = 0.0
    for v in values:
        total += float(v)
    return total


def _fold_order(a):
    fortran = a.flags.f_contiguous and not a.flags.c_contiguous
    return a.ravel(order="F" if fortran else "C")


@ember.njit
def _reductions_after_transpose(p, transpose):
    if transpose:
        p = p.T
    return p.sum(), p.prod(), np.sum(p), p.mean()


# Cancellation makes the order visible: summed in C order of the transpose, the result is
# -4.0; in memory order it is 1e-300.
_CANCELLING = np.array([[16.7, -17.0, -3.0, -4.0], [3.65, 1e308, -1e308, 1e-300]])


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize(
    "matrix", [_CANCELLING, np.arange(1.0, 13.0).reshape(3, 4) * 1.1, np.ones((1, 5))]
)
def test_fold_order_of_runtime_layouts(matrix, transpose):
    seen = matrix.T if transpose else matrix
    order = _fold_order(seen)
    expected_sum = _sequential_sum(order)
    expected_prod = math.prod(float(v) for v in order)
    total, product, np_total, mean = _reductions_after_transpose(matrix, transpose)
    assert total == expected_sum and np_total == expected_sum
    assert product == expected_prod or (math.isnan(product) and math.isnan(expected_prod))
    assert mean == expected_sum / matrix.size


def test_cancelling_case_matches_the_hand_worked_value():
    assert _reductions_after_transpose(_CANCELLING, True)[0] == 1e-300


def test_strided_views_fold_in_c_order():
    base = np.arange(24.0).reshape(4, 6) * 0.1
    view = base[::2, ::3]  # neither C- nor Fortran-contiguous
    total = _reductions_after_transpose(view, True)[0]
    assert total == _sequential_sum(view.T.ravel(order="C"))
