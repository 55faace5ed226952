"""nan_to_num, isposinf, isneginf, angle, real, imag, select, copyto, polyval, polyfit, gradient,
unravel_index, ravel_multi_index, tri, diagflat, partition, argpartition, item and tolist:
compiled results against NumPy's on the same inputs."""

import numpy as np
import pytest

from ember import njit
from tests.oracle import assert_arrays_close

SPECIAL = np.array([-1.5, 0.0, np.inf, np.nan, -np.inf, 2.0])
COMPLEX = np.array([1 + 1j, -1j, -2.0 + 0j])
XS = np.linspace(-2, 3, 9)
YS = 3 * XS**2 - XS + 0.5 + np.random.default_rng(4).normal(size=9) * 0.1
COEFFICIENTS = np.array([2.0, -1.0, 0.5])
VALUES = np.array([3.0, 1.0, 2.0, 5.0, 4.0])
MATRIX = np.arange(6.0).reshape(2, 3)


def _outcome(func, *args):
    try:
        return func(*args), None
    except (ValueError, TypeError) as error:
        return None, type(error)


CASES = {
    "nan_to_num": (lambda: np.nan_to_num(SPECIAL), 0),
    "nan_to_num given": (lambda: np.nan_to_num(SPECIAL, nan=-1.0, posinf=9.0), 0),
    "nan_to_num float32": (lambda: np.nan_to_num(SPECIAL.astype(np.float32)), 0),
    "isposinf": (lambda: (np.isposinf(SPECIAL), np.isneginf(SPECIAL)), 0),
    "isneginf scalar": (lambda: np.isneginf(SPECIAL[4]), 0),
    "angle": (lambda: (np.angle(COMPLEX), np.angle(COMPLEX, deg=True), np.angle(SPECIAL)), 0),
    "real imag": (lambda: (np.real(COMPLEX), np.imag(COMPLEX), np.real(SPECIAL)), 0),
    "select": (lambda: np.select([SPECIAL > 0, SPECIAL < -1], [SPECIAL, SPECIAL * 2]), 0),
    "select default": (lambda: np.select([VALUES > 2], [VALUES], 7.0), 0),
    "polyval": (lambda: (np.polyval(COEFFICIENTS, 2.0), np.polyval(COEFFICIENTS, XS)), 1e-14),
    "polyfit": (lambda: (np.polyfit(XS, YS, 0), np.polyfit(XS, YS, 1), np.polyfit(XS, YS, 2),
                         np.polyfit(XS, YS, 5)), 1e-9),
    "polyfit negative": (lambda: np.polyfit(XS, YS, -1), 0),
    "gradient": (lambda: (np.gradient(YS), np.gradient(YS, 0.5), np.gradient(np.arange(5))), 0),
    "gradient too short": (lambda: np.gradient(YS[:1]), 0),
    "unravel_index": (lambda: (np.unravel_index(5, (2, 3)), np.unravel_index(22, (2, 3, 4))), 0),
    "unravel_index bad": (lambda: np.unravel_index(24, (2, 3, 4)), 0),
    "ravel_multi_index": (lambda: np.ravel_multi_index((1, 2, 3), (2, 3, 4)), 0),
    "ravel_multi_index bad": (lambda: np.ravel_multi_index((3, 0), (3, 4)), 0),
    "tri": (lambda: (np.tri(3), np.tri(3, 5, 1), np.tri(4, 2, -1), np.tri(2, 3, k=-5)), 0),
    "tri dtype": (lambda: np.tri(3, dtype=np.int64), 0),
    "diagflat": (lambda: (np.diagflat(VALUES), np.diagflat(VALUES, 2), np.diagflat(MATRIX, -1)), 0),
    "item": (lambda: VALUES[1:2].item(), 0),
    "item of many": (lambda: VALUES.item(), 0),
    "tolist": (lambda: (VALUES.tolist(), MATRIX.tolist(), VALUES.astype(np.int64).tolist()), 0),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_matches_numpy(name):
    func, rtol = CASES[name]
    expected, expected_error = _outcome(func)
    compiled, compiled_error = _outcome(njit(func))
    assert compiled_error == expected_error
    if expected_error is None:
        assert_arrays_close(compiled, expected, rtol, rtol)


@njit
def _copied(a):
    b = np.zeros_like(a)
    np.copyto(b, a)
    c = np.zeros_like(a)
    np.copyto(c, 2.0)
    return b, c


def test_copyto_writes_into_its_destination():
    assert_arrays_close(_copied(SPECIAL), _copied.py_func(SPECIAL))


@pytest.mark.parametrize("kth", [0, 2, 4, -1, 5])
def test_partitions_put_the_kth_item_in_place(kth):
    @njit
    def partitions(values, kth):
        return np.partition(values, kth), np.argpartition(values, kth)

    expected, expected_error = _outcome(np.partition, VALUES, kth)
    compiled, compiled_error = _outcome(partitions, VALUES, kth)
    assert compiled_error == expected_error
    if expected_error is None:
        parted, order = compiled
        assert parted[kth] == expected[kth] == VALUES[order][kth]
        assert (parted[:kth] <= parted[kth]).all() and (parted[kth:] >= parted[kth]).all()
        assert sorted(order) == list(range(VALUES.size))
