"""Sets in compiled code, differential against CPython (set order is not compared: CPython's
depends on its hash table, ember's is insertion order), plus reflected sets and leak checks."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit
from ember.errors import TypingError

_dispatchers: dict = {}


def jitted(func):
    """`njit(func)`, made once."""
    if func not in _dispatchers:
        _dispatchers[func] = njit(func)
    return _dispatchers[func]


def _outcome(func, *args):
    try:
        return ("ok", func(*args))
    except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(error), error.args)


def basics(n):
    s = set()
    for i in range(n):
        s.add(i % 7)
    t = {1, 2, 3}
    u = {5, 6.5}
    s.discard(3)
    s.discard(100)
    return len(s), 3 in s, 4 in s, len(t), 6.5 in u, 1 not in t, bool(s), bool(set([1]))


def comprehension(n):
    s = {i * i % 10 for i in range(n)}
    total = 0
    for x in s:
        total += x
    return total, len(s)


def algebra():
    a = {1, 2, 3, 4}
    b = {3, 4, 5}
    return (
        a | b, a & b, a - b, a ^ b, b - a,
        a.union(b), a.intersection(b), a.difference(b), a.symmetric_difference(b),
        a.issubset(b), {3, 4}.issubset(a), a.issuperset({1, 2}), a.isdisjoint({9}),
        a == {4, 3, 2, 1}, a != b, {1} < a, a <= a, a > {1}, a >= b,
    )  # fmt: skip


def in_place():
    a = {1, 2, 3, 4}
    b = {3, 4, 5}
    c = a.copy()
    c |= b
    d = a.copy()
    d &= b
    e = a.copy()
    e -= b
    f = a.copy()
    f ^= b
    g = a.copy()
    g ^= g
    h = a.copy()
    h.update([7, 8])
    a.clear()
    return c, d, e, f, g, h, a


def from_array(a):
    return set(a)


def from_list():
    return set([1, 2, 2, 3])


def remove_missing(k):
    s = {1}
    s.remove(k)
    return s


def pop_all():
    s = {1, 2, 3}
    total = 0
    while s:
        total += s.pop()
    return total


def pop_empty():
    s = {1}
    s.pop()
    return s.pop()


def tuple_items():
    s = {(1, 2), (3, 4)}
    s.add((1, 2))
    return len(s), (3, 4) in s, (4, 3) in s


@pytest.mark.parametrize(
    "func, args",
    [
        (basics, (30,)),
        (comprehension, (20,)),
        (algebra, ()),
        (in_place, ()),
        (from_array, (np.array([1.0, 2.0, 2.0, 5.0]),)),
        (from_array, (np.array([3, 1, 3], dtype=np.int32),)),
        (from_list, ()),
        (remove_missing, (2,)),
        (remove_missing, (1,)),
        (pop_all, ()),
        (pop_empty, ()),
        (tuple_items, ()),
    ],
)
def test_set_operations_match_cpython(func, args):
    assert _outcome(jitted(func), *args) == _outcome(func, *args)
    if func in _LEAK_CHECKED:
        _assert_no_leaks_over_many_calls(jitted(func), *args)


# Checked for leaks by the case above that compiled them (a separate test could run in
# another xdist worker and compile them again).
_LEAK_CHECKED = (algebra, in_place, comprehension)


def _assert_no_leaks_over_many_calls(func, *args):
    func(*args)
    gc.collect()
    before = ember.runtime.stats()
    for _ in range(300):
        func(*args)
    gc.collect()
    after = ember.runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


def apply(kinds, items):
    s = {0}
    s.discard(0)
    out = []
    for i in range(len(kinds)):
        if kinds[i] == 0:
            s.add(items[i])
        elif kinds[i] == 1:
            s.discard(items[i])
        else:
            out.append(items[i] in s)
    return s, out


apply_jitted = njit(apply)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(-30, 30)), max_size=80))
def test_random_operation_sequences_match_cpython(ops):
    kinds = np.array([k for k, _ in ops], dtype=np.int64)
    items = np.array([v for _, v in ops], dtype=np.int64)
    assert apply_jitted(kinds, items) == apply(kinds, items)


def test_reflected_set_changes_are_visible():
    @njit
    def grow(s):
        s.add(10)
        s.discard(1)
        return len(s)

    items = {1, 2}
    assert grow(items) == 2
    assert items == {2, 10}


def test_empty_python_set_is_refused():
    @njit
    def f(s):
        return len(s)

    with pytest.raises(TypingError, match="empty set"):
        f(set())


def test_set_of_arrays_is_refused():
    def f(a):
        s = set()
        s.add(a)
        return len(s)

    with pytest.raises(TypingError, match="cannot be a dict key or set item"):
        njit(f)(np.ones(2))


def test_set_unpacking_display():  # a feature since pylang7 (tests/test_pylang7_suite.py)
    def f(n):
        a = {1, n}
        b = {*a, 3}
        return len(b)

    assert njit(f)(2) == f(2) and njit(f)(3) == f(3)
