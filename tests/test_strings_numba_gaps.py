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
