"""Differential checks for the string tests: a jitted function gives what its `py_func` gives in
CPython (same types through lists and tuples), or raises the same exception class."""

from __future__ import annotations

import math

import pytest
from hypothesis import strategies as st

import ember.runtime

# Text of any code point (hypothesis leaves out surrogates), and text for the case mappings and
# predicates, with ASCII, whitespace and special cases made likely.
any_text = st.text(max_size=40)
table_text = st.text(
    st.one_of(
        st.characters(max_codepoint=0x7F),
        st.characters(max_codepoint=0x7FF),
        st.characters(),
        st.sampled_from(" \t\nßΣσςİıŉǅǰΐﬃᾳ\uff07"),
    ),
    max_size=30,
)
ascii_words = st.text(st.sampled_from("ab c,-_\t"), max_size=30)


def same(got, expected) -> bool:
    if type(got) is not type(expected):
        return False
    if isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(map(same, got, expected))
    if isinstance(expected, float) and math.isnan(expected):
        return math.isnan(got)
    return got == expected


def check(func, *args):
    """The jitted `func` agrees with CPython on `args` (values or the exception class)."""
    try:
        expected = func.py_func(*args)
    except Exception as error:  # noqa: BLE001 - the jitted call must raise the same class
        with pytest.raises(type(error)):
            func(*args)
        return
    got = func(*args)
    assert same(got, expected), (args, got, expected)


def assert_no_leak(func, *args, calls: int = 2000):
    """Many calls allocate and free the same number of runtime blocks."""
    func(*args)
    before = ember.runtime.stats().live
    for _ in range(calls):
        func(*args)
    assert ember.runtime.stats().live == before
