"""`str` methods in nopython mode (ember/library/strings/methods.py, case.py,
unicode.py): each checked against CPython running the same function, on hypothesis
text with non-ASCII characters and empty strings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strings_oracle import any_text, ascii_words, assert_no_leak, check, table_text

from ember import njit
from ember.library.strings.unicode import SPACES

small_ints = st.integers(-12, 12)
separators = st.sampled_from([",", ", ", "ab", "é", "\U0001f600", "--", "a"])
word_text = st.one_of(ascii_words, any_text, st.sampled_from(["", " ", "a,,b,", "é,é", "  x  "]))


@njit
def split_whitespace(s, n):
    return s.split(), s.split(None, n), s.split(maxsplit=n)


@njit
def split_separator(s, sep, n):
    return s.split(sep), s.split(sep, n)


@njit
def join(sep, s):
    parts = s.split()
    return sep.join(parts), "-".join(parts), sep.join(("x", s, "y")), "".join([s, s])


@njit
def strips(s, chars):
    return s.strip(), s.lstrip(), s.rstrip(), s.strip(chars), s.lstrip(chars), s.rstrip(chars)


@njit
def affixes(s, a, start, end):
    return (
        s.startswith(a),
        s.endswith(a),
        s.startswith(a, start),
        s.endswith(a, start, end),
        s.startswith((a, "x"), start, end),
        s.endswith(("é", a)),
    )


@njit
def searches(s, sub, start, end):
    return (
        s.find(sub),
        s.rfind(sub),
        s.count(sub),
        s.find(sub, start),
        s.rfind(sub, start, end),
        s.count(sub, start, end),
        s.find(sub, start, end),
    )


@njit
def index_of(s, sub):
    return s.index(sub), s.rindex(sub)


@njit
def replaced(s, old, new, n):
    return s.replace(old, new), s.replace(old, new, n)


@njit
def cases(s):
    return s.upper(), s.lower(), s.capitalize(), s.title(), s.swapcase()


@njit
def predicates(s):
    return (
        s.isdigit(),
        s.isalpha(),
        s.isspace(),
        s.isalnum(),
        s.isupper(),
        s.islower(),
        s.isdecimal(),
        s.isnumeric(),
        s.isascii(),
    )


@njit
def padded(s, width, fill):
    return (
        s.zfill(width),
        s.center(width),
        s.ljust(width),
        s.rjust(width, fill),
        s.center(width, fill),
    )


@settings(max_examples=150, deadline=None)
@given(word_text, st.integers(-1, 4))
def test_split_whitespace(s, n):
    check(split_whitespace, s, n)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(word_text, st.sampled_from(["a,b,,c", "é,,é", ",", "abab"])),
    separators,
    st.integers(-1, 4),
)
def test_split_separator(s, sep, n):
    check(split_separator, s, sep, n)


def test_split_empty_separator():
    check(split_separator, "abc", "", 1)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["", ",", "é", " - ", "\U0001f600"]), word_text)
def test_join(sep, s):
    check(join, sep, s)


@settings(max_examples=150, deadline=None)
@given(word_text, st.sampled_from(["", "a", "xa ", "é,", " \t"]))
def test_strip(s, chars):
    check(strips, s, chars)


def test_strip_knows_every_whitespace_character():
    every = "".join(chr(code) for code in range(0x110000) if chr(code).isspace())
    assert every == "".join(map(chr, SPACES))
    check(strips, every + "x" + every, "")


@settings(max_examples=150, deadline=None)
@given(word_text, st.sampled_from(["", "a", "b ", "é", "ab"]), small_ints, small_ints)
def test_startswith_endswith(s, affix, start, end):
    check(affixes, s, affix, start, end)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(word_text, st.sampled_from(["abcabc", "ééé", "a\U0001f600a"])),
    st.sampled_from(["", "a", "b", "ab", "é", "\U0001f600", "abc", "c,"]),
    small_ints,
    small_ints,
)
def test_find_rfind_count(s, sub, start, end):
    check(searches, s, sub, start, end)


@pytest.mark.parametrize("s, sub", [("abcabc", "bc"), ("abc", "x"), ("", ""), ("é", "é")])
def test_index_and_rindex(s, sub):
    check(index_of, s, sub)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(word_text, st.sampled_from(["aaa", "€a€"])),
    st.sampled_from(["", "a", "ab", "€", " "]),
    st.sampled_from(["", "X", "€€", "\U0001f600", "ab"]),
    st.integers(-1, 3),
)
def test_replace(s, old, new, n):
    check(replaced, s, old, new, n)


@settings(max_examples=300, deadline=None)
@given(table_text)
def test_case_mappings(s):
    check(cases, s)


@settings(max_examples=300, deadline=None)
@given(table_text)
def test_predicates(s):
    check(predicates, s)


def test_every_character_below_u0800_maps_as_in_cpython():
    text = "".join(chr(code) for code in range(1, 0x800))
    for start in range(0, len(text), 97):  # in words, so title() and sigma see neighbours
        check(cases, text[start : start + 97])
        for ch in text[start : start + 97]:
            check(predicates, ch)


@pytest.mark.parametrize("text", ["ΑΣ", "ΑΣ.", "Σ", "ΑΣΑ", "'Σ", "A'Σ'", "ß", "ŉ", "ǅa", "İx"])
def test_special_cases(text):
    check(cases, text)


@pytest.mark.parametrize("method", [cases, predicates])
@pytest.mark.parametrize("text", ["漢字", "ǅ漢Σ", "\U00010400\U00010428", "Ａ\uff07Σ"])
def test_characters_from_u0800_on(method, text):
    check(method, text)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(word_text, st.sampled_from(["-42", "+7", "-", ""])),
    small_ints,
    st.sampled_from(["*", "é", "\U0001f600"]),
)
def test_padding(s, width, fill):
    check(padded, s, width, fill)


def test_fill_character_must_be_one_character():
    check(padded, "ab", 5, "xy")


def test_methods_do_not_leak():
    assert_no_leak(split_whitespace, " a bé  c ", 1)
    assert_no_leak(split_separator, "a,b,,c", ",", 1)
    assert_no_leak(join, "é", "a b c")
    assert_no_leak(strips, "  xaé ", "x ")
    assert_no_leak(replaced, "aaé", "a", "€", 1)
    assert_no_leak(cases, "straße ΣΑΣ")
    assert_no_leak(padded, "-4", 7, "é")


@njit
def right_splits(s, sep, n):
    return s.rsplit(), s.rsplit(None, n), s.rsplit(sep), s.rsplit(sep, n)


@njit
def lines(s):
    return s.splitlines(), s.splitlines(True)


@njit
def partitions(s, sep):
    return s.partition(sep), s.rpartition(sep), s.removeprefix(sep), s.removesuffix(sep)


@njit
def title_test(s):
    return s.istitle()


@settings(max_examples=150, deadline=None)
@given(st.one_of(word_text, st.sampled_from(["a,b,,c", " a b "])), separators, st.integers(-1, 4))
def test_rsplit(s, sep, n):
    check(right_splits, s, sep, n)


@settings(max_examples=150, deadline=None)
@given(st.text(st.sampled_from("ab \n\r\x0b\x0c\x1c\x85\u2028é"), max_size=20))
def test_splitlines(s):
    check(lines, s)


@settings(max_examples=150, deadline=None)
@given(word_text, st.sampled_from(["", ",", "a", "é", "ab"]))
def test_partition_and_remove_affixes(s, sep):
    check(partitions, s, sep)


@settings(max_examples=200, deadline=None)
@given(st.one_of(table_text, st.sampled_from(["Hello World", "Hello world", "ǅa", "A1B", ""])))
def test_istitle(s):
    check(title_test, s)


def test_methods_not_compiled_name_themselves():
    @njit
    def table(s):
        return s.format_map({"a": 1})

    with pytest.raises(Exception, match=r"str\.format_map\(\) is not supported"):
        table("x")
