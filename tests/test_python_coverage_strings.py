"""`str` methods and conversions Numba documents that ember gained: isprintable, isidentifier,
expandtabs, repr() of strings and numbers, str() of complex numbers; against CPython on text of
any code point."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from tests.strings_oracle import check, table_text

tab_text = st.text(st.sampled_from("ab\t\n\r é\x0b"), max_size=25)
quoting_text = st.text(
    st.one_of(
        st.sampled_from("'\"\\\t\n\r\x00\x7f\x85\xa0\u200b\u2028\U0001f600\U000e0001é"),
        st.characters(),
    ),
    max_size=20,
)


@njit
def predicates(s):
    return s.isprintable(), s.isidentifier()


@settings(max_examples=60, deadline=None)
@given(st.one_of(table_text, st.sampled_from(["", "_x1", "1x", "a b", "ĳ", "x·y", "\x7f", "℘"])))
def test_isprintable_and_isidentifier(s):
    check(predicates, s)


def test_predicates_of_every_code_point():
    """One string per code point of the BMP's first planes, answered as CPython does."""
    for code in range(0, 0x3400):
        ch = chr(code)
        assert predicates(ch) == predicates.py_func(ch), hex(code)


@njit
def expanded(s, tabsize):
    return s.expandtabs(), s.expandtabs(tabsize)


@settings(max_examples=50, deadline=None)
@given(tab_text, st.integers(-2, 9))
def test_expandtabs(s, tabsize):
    check(expanded, s, tabsize)


@njit
def string_repr(s):
    return repr(s)


@settings(max_examples=60, deadline=None)
@given(st.one_of(quoting_text, st.sampled_from(["", "'", '"', "'\"", "\ud800"])))
def test_repr_of_strings(s):
    check(string_repr, s)


@njit
def complex_texts(z):
    return str(z), repr(z)


@njit
def integer_texts(n, b):
    return repr(n), repr(b)


@pytest.mark.parametrize(
    "z",
    [
        1 + 2j,
        -0.5j,
        complex(-0.0, -0.0),
        complex(0.0, -0.0),
        complex(1e20, math.nan),
        complex(math.inf, -math.nan),
        1.5 + 0j,
        complex(1e16, 1e-5),
        complex(-3, math.inf),
    ],
)
def test_str_and_repr_of_complex(z):
    check(complex_texts, z)


@pytest.mark.parametrize("n, b", [(-7, True), (0, False), (2**63 - 1, True)])
def test_repr_of_integers_and_booleans(n, b):
    check(integer_texts, n, b)
