"""ext7: overload signatures that keep omitted arguments apart from passed ones
(`types.Omitted`), and the extension-API fixes of this round.

Values are checked against CPython running the same functions (`py_func`), NumPy, or worked by
hand.
"""

import math

import numpy as np
import pytest

import ember
from ember import types
from ember.extending import overload, overload_method

# ------------------------------------------------------------------ omitted vs passed arguments


def clipped_norm(v, limit=math.inf):
    """Euclidean norm of `v`, capped at `limit` (none by default) (pure Python: the reference)."""
    return min(math.sqrt(sum(x * x for x in v)), limit)


@overload(clipped_norm)
def _clipped_norm(v, limit=math.inf):
    if not isinstance(limit, types.Type):  # omitted: no cap to apply

        def uncapped(v, limit=math.inf):
            total = 0.0
            for x in v:
                total += x * x
            return math.sqrt(total)

        return uncapped

    def capped(v, limit=math.inf):
        total = 0.0
        for x in v:
            total += x * x
        return min(math.sqrt(total), limit)

    return capped


def test_an_overload_may_choose_by_whether_an_argument_was_passed():
    """A passed float `limit` and the omitted float default type alike; the overload chooses a
    different implementation for each, and both calls work in one process."""

    @ember.njit
    def passed(v, cap):
        return clipped_norm(v, cap)

    @ember.njit
    def by_keyword(v, cap):
        return clipped_norm(v, limit=cap)

    @ember.njit
    def omitted(v):
        return clipped_norm(v)

    vectors = [np.array([3.0, 4.0]), np.array([]), np.array([1e200, 1e200]), np.ones(7) * -2.0]
    for v in vectors:
        assert omitted(v) == clipped_norm(v.tolist())
        for cap in (0.5, 5.0, 1e300, math.inf, -1.0):
            assert passed(v, cap) == clipped_norm(v.tolist(), cap)
            assert by_keyword(v, cap) == clipped_norm(v.tolist(), cap)


class _Counter:
    pass


class _CounterType(types.Type):
    def __init__(self):
        super().__init__(name="ext7Counter")


def test_an_overload_method_may_choose_by_whether_an_argument_was_passed():
    """`start.step(n)` / `start.step()` on a number: the omitted `n` means 'by one' and is
    lowered as a different implementation from a passed int."""

    @overload_method(types.Integer, "ext7_step")
    def _step(self, n=1):
        if not isinstance(n, types.Type):
            return lambda self, n=1: self + 1
        return lambda self, n=1: self + n * 10  # passed: steps of ten

    @ember.njit
    def both(x, n):
        return x.ext7_step(), x.ext7_step(n), x.ext7_step(n=n)

    for x, n in [(0, 1), (-7, 3), (2**62, 0), (5, -2)]:
        assert both(x, n) == (x + 1, x + n * 10, x + n * 10)


def test_ufunc_reduce_with_and_without_where_in_one_process():
    """The reported case: np.add.reduce with a run-time `where` flag, then without it."""

    @ember.njit
    def masked(a, flag):
        return np.add.reduce(a, axis=(0, 2), keepdims=True, where=flag)

    @ember.njit
    def plain(a):
        return np.add.reduce(a, axis=(0, 2), keepdims=True)

    a = np.arange(24.0).reshape(2, 3, 4)
    for flag in (True, False):
        expected = np.add.reduce(a, axis=(0, 2), keepdims=True, where=flag)
        np.testing.assert_array_equal(masked(a, flag), expected)
    np.testing.assert_array_equal(plain(a), np.add.reduce(a, axis=(0, 2), keepdims=True))
    assert plain(a).shape == (1, 3, 1)


def test_omitted_types_are_distinct_per_default_value():
    assert types.Omitted(1) is types.Omitted(1)
    assert types.Omitted(1) is not types.Omitted(1.0)
    assert types.Omitted(None) is not types.Omitted(False)
    shared = [1, 2]
    assert types.Omitted(shared) is types.Omitted(shared)  # an unhashable default: by identity
    assert types.Omitted(shared) is not types.Omitted([1, 2])


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
