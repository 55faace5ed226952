"""Dict merging in compiled code: `{**a}`, `{**a, k: v}`, `{k: v, **a, **b}`, `dict(a)` and
`d.update(other)`, over dicts made in compiled code and typed.Dicts made in Python; CPython
running the same function is the oracle, and nothing leaks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit, typed, types

small_dicts = st.dictionaries(st.integers(-5, 5), st.floats(-10, 10, allow_nan=False), max_size=6)
word_dicts = st.dictionaries(st.text(max_size=3), st.integers(-9, 9), max_size=5)


@njit
def _typed_from_pairs(keys, values):
    d = {keys[0]: values[0]}
    d.clear()
    for k, v in zip(keys, values):
        d[k] = v
    return d


def as_typed(d, key_type, value_type):
    made = typed.Dict.empty(key_type, value_type)
    for k, v in d.items():
        made[k] = v
    return made


def merges(a, b):
    copied = {**a}
    extended = {**a, 100: -1.0}
    both = {0: 0.5, **a, **b, 3: 9.0}
    converted = dict(b)
    updated = dict(a)
    updated.update(b)
    copied[200] = 2.0  # the copy is its own dict
    return (
        list(copied.items()),
        list(extended.items()),
        list(both.items()),
        list(converted.items()),
        list(updated.items()),
        len(a),
    )


def word_merges(a, b):
    both = {**a, "new": 7, **b}
    both["new"] += 1
    return list(both.items()), len(a), len(b)


jitted_merges = njit(merges)
jitted_word_merges = njit(word_merges)


@settings(max_examples=60, deadline=None)
@given(small_dicts, small_dicts)
def test_merging_number_dicts(a, b):
    expected = merges(a, b)
    got = jitted_merges(
        as_typed(a, types.int64, types.float64), as_typed(b, types.int64, types.float64)
    )
    assert got == expected


@settings(max_examples=40, deadline=None)
@given(word_dicts, word_dicts)
def test_merging_string_dicts(a, b):
    expected = word_merges(a, b)
    args = (as_typed(d, types.unicode_type, types.int64) for d in (a, b))
    assert jitted_word_merges(*args) == expected


@njit
def display_of_local_dicts(n):
    first = {k: k * 0.5 for k in range(n)}
    second = {"a": n}
    return {**first, n: -1.0}, {**second, "b": 2}, {**{n: 1}}


def test_displays_of_dicts_made_in_compiled_code():
    for n in (0, 1, 5):
        got = display_of_local_dicts(n)
        expected = display_of_local_dicts.py_func(n)
        assert [dict(d) for d in got] == list(expected)


def test_merging_leaks_nothing():
    a = as_typed({1: 2.0, 3: 4.0}, types.int64, types.float64)
    b = as_typed({3: 5.0}, types.int64, types.float64)
    jitted_merges(a, b)
    display_of_local_dicts(3)
    before = ember.runtime.stats().live
    for _ in range(500):
        jitted_merges(a, b)
        display_of_local_dicts(3)
    assert ember.runtime.stats().live == before
