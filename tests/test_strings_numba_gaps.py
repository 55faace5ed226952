"""str methods that Numba's own tests use and CPython accepts: strip/lstrip/rstrip with an
Optional str of characters (known only when the call runs) and splitlines with an int flag;
each answer is CPython's for the same function."""

import pytest

from ember import njit, types

STRIP_CASES = [
    (" ab  ", None),
    ("xxabx", "x"),
    ("\xe9 ab \xe9", "\xe9 "),
    ("", None),
    ("  ", ""),
    ("\t\u2029 text \x85", None),
    ("\u5927\u5904 x \u5927", "\u5927"),
]


def _strip_all(text, chars):
    return text.strip(chars), text.lstrip(chars), text.rstrip(chars)


def _splitlines(text, keepends):
    return text.splitlines(keepends)


def test_strip_with_optional_chars_matches_cpython():
    signature = types.UniTuple(types.unicode_type, 3)(
        types.unicode_type, types.Optional(types.unicode_type)
    )
    compiled = njit([signature])(_strip_all)
    for text, chars in STRIP_CASES:
        assert compiled(text, chars) == _strip_all(text, chars)


@pytest.mark.parametrize("keepends", [True, False, 0, 1, -1, 100])
def test_splitlines_takes_an_int_flag(keepends):
    compiled = njit(_splitlines)
    for text in ["a\nb\r\nc", "", "x\x85y\u2028z\r", "\n\r\na\x0b\x0cb"]:
        assert compiled(text, keepends) == _splitlines(text, keepends)


def _next_characters(text):
    chars = iter(text)
    return next(chars) + next(chars) + next(chars, "?") + next(chars, "!")


def _past_the_end(text):
    chars = iter(text)
    for _ in range(len(text) + 1):
        next(chars)


def _next_of_list(items):
    it = iter(items)
    first = next(it)
    return first + next(it, "-")


def test_next_on_string_and_list_iterators_matches_cpython_and_releases_items():
    from ember.runtime import nrt

    calls = [
        (njit(_next_characters), ("abcd",)),
        (njit(_next_characters), ("\u5927\u5904",)),
        (njit(_next_of_list), (["ab", "\xe9"],)),
    ]
    for compiled, args in calls:
        assert compiled(*args) == compiled.py_func(*args)
    past = njit(_past_the_end)
    with pytest.raises(StopIteration):
        past("x")
    before = nrt.stats()
    for compiled, args in calls:
        compiled(*args)
    with pytest.raises(StopIteration):
        past("\u5927\u5904\u7740\u773c")  # each next() made a one-character string
    after = nrt.stats()
    assert after.alloc - after.free == before.alloc - before.free


def _empty_str():
    return str() + "x", len(str())  # noqa: UP018 - str() itself is tested


def test_str_without_an_argument_is_empty():
    assert njit(_empty_str)() == _empty_str()
