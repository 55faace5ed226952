"""Containers as Numba programs use them (third round, found by running Numba's test modules
against ember): sets of strings and tuples passed from Python, typed List internals, literal
lists and string-keyed dict displays. Checked against CPython running the same function (or the
exception it raises) and ember's runtime allocation counters."""

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit
from ember.errors import TypingError


def _assert_no_leaks_over_many_calls(func, *make_args, calls=200):
    """`func(*args)` with fresh arguments each call allocates nothing it does not free."""
    func(*(make() for make in make_args))
    gc.collect()
    before = ember.runtime.stats()
    for _ in range(calls):
        func(*(make() for make in make_args))
    gc.collect()
    after = ember.runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


# ---------------------------------------------------------------------------- sets from Python


def _set_ops(a, b, moved):
    b.discard(moved)
    a.add(moved)
    return a | b, a & b, a - b, a ^ b, a <= b, len(a)


_set_ops_jitted = njit(_set_ops)
_words = st.sets(st.text(alphabet="abcé", max_size=3), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(_words, _words)
def test_sets_of_strings_passed_from_python_match_cpython(a, b):
    # the callee's changes (add, discard) are written back into the caller's sets
    moved = min(b)
    want_a, want_b = set(a), set(b)
    want = _set_ops(want_a, want_b, moved)
    got = _set_ops_jitted(a, b, moved)
    assert got == want
    assert (a, b) == (want_a, want_b)


def _add_pair(pairs, pair):
    pairs.add(pair)
    return pair in pairs, len(pairs)


def test_sets_of_tuples_passed_from_python_are_written_back():
    pairs, want_pairs = {(1, 2.5), (3, 4.0)}, {(1, 2.5), (3, 4.0)}
    assert njit(_add_pair)(pairs, (5, 6.0)) == _add_pair(want_pairs, (5, 6.0))
    assert pairs == want_pairs
    named = {("a", 1), ("b", 2)}
    assert njit(_add_pair)(named, ("c", 3)) == (True, 3)
    assert named == {("a", 1), ("b", 2), ("c", 3)}


def test_sets_of_strings_of_another_item_type_keep_numbas_words():
    with pytest.raises(TypingError, match="All Sets must be of the same type"):
        njit(lambda a, b: a | b)({"a"}, {1})


def test_sets_of_strings_passed_from_python_leak_nothing():
    _assert_no_leaks_over_many_calls(njit(_add_pair), lambda: {"x", "yy" * 9}, lambda: "zz")
