"""arrays4: records returned between compiled functions, and NumPy functions checked against
NumPy on many inputs (dtypes, C/F/strided layouts, empty arrays, NaN)."""

import numpy as np

from ember import njit
from tests.oracle import assert_frees_all

POINT = np.dtype([("a", np.int64), ("b", np.float64)])


# ---------------------------------------------------------------- records returned between jits


@njit
def _local_point(n):
    points = np.zeros(n, POINT)
    for i in range(n):
        points[i].a = i * 7
        points[i].b = i * 0.5
    return points[n - 1]


@njit
def _point_of(points, i):
    return points[i]


def test_record_of_a_local_array_survives_its_return_to_a_compiled_caller():
    @njit
    def caller(n):
        r = _local_point(n)
        reuse = np.full(3 * n, 99)  # would take the freed array's memory
        more = np.ones(1000)
        return r.a, r.b, reuse.sum() + more.sum()

    for n in (1, 2, 5, 40):
        assert caller(n) == ((n - 1) * 7, (n - 1) * 0.5, 99 * 3 * n + 1000.0)


def test_record_returned_through_two_compiled_callers():
    @njit
    def middle(n):
        return _local_point(n)

    @njit
    def outer(n):
        r = middle(n)
        junk = np.full(8, -1)
        return r.a + junk[0] + 1, r.b

    assert outer(4) == (21, 1.5)
    assert middle(4).a == 21  # to Python: a copy of the bytes the callee kept


def test_record_of_an_argument_still_writes_through_to_it():
    @njit
    def set_through(points, i, value):
        r = _point_of(points, i)
        r.a = value

    points = np.zeros(4, POINT)
    set_through(points, 2, 17)
    assert points["a"].tolist() == [0, 0, 17, 0]
    reversed_points = np.zeros(4, POINT)[::-1]  # negative strides: still the argument's bytes
    set_through(reversed_points, 0, 5)
    assert reversed_points["a"].tolist() == [5, 0, 0, 0]


def test_record_of_a_record_argument_writes_through():
    @njit
    def same(r):
        return r

    @njit
    def set_via_same(points):
        same(points[1]).b = 2.5

    points = np.zeros(3, POINT)
    set_via_same(points)
    assert points["b"].tolist() == [0.0, 2.5, 0.0]


def test_record_returns_in_a_loop_free_their_arrays():
    @njit
    def total(n):
        s = 0
        for k in range(1, n):
            s += _local_point(k).a
        return s

    assert total(6) == sum((k - 1) * 7 for k in range(1, 6))
    assert_frees_all(total, lambda: 6)
