"""Case mappings (upper, lower, capitalize, title, swapcase, casefold) and character predicates
(isdigit, isalpha, isspace, isalnum, isupper, islower, isdecimal, isnumeric, isascii) of `str`
in compiled code, with CPython's rules for every code point (final sigma, multi-character
mappings such as 'ß' -> 'SS'); ASCII is computed directly, the rest read from the tables of
ember/library/strings/unicode.py.
"""

from __future__ import annotations

from ember import types
from ember.extending import overload_attribute, overload_method, register_jitable
from ember.library.strings.core import _get, _length, _new, _set, is_string
from ember.library.strings.methods import is_space
from ember.library.strings.unicode import (
    ALPHA,
    CASE_IGNORABLE,
    CASED,
    DECIMAL,
    DIGIT,
    EXPANDS,
    FLAGS,
    LOWER,
    NUMERIC,
    TITLE,
    UPPER,
    UPPER_MAP,
    expansion_of,
    unicode_property,
)

_UPPER_MODE, _LOWER_MODE, _SWAP_MODE, _TITLE_MODE, _CAPITALIZE_MODE, _FOLD_MODE = range(6)
_MODE_NAMES = ("upper", "lower", "swapcase", "title", "capitalize", "casefold")
# The mapping tables in the order of strings_unicode's record fields, from UPPER_MAP on.
_UPPER_TABLE, _LOWER_TABLE, _TITLE_TABLE, _FOLD_TABLE = range(4)
_CAPITAL_SIGMA, _SMALL_SIGMA, _FINAL_SIGMA = 0x3A3, 0x3C3, 0x3C2


@register_jitable
def _flags(code):
    if code < 128:
        if 65 <= code <= 90:
            return UPPER | CASED | ALPHA
        if 97 <= code <= 122:
            return LOWER | CASED | ALPHA
        if 48 <= code <= 57:
            return DECIMAL | DIGIT | NUMERIC
        if code == 39 or code == 46 or code == 58 or code == 94 or code == 96:
            return CASE_IGNORABLE
        return 0
    return unicode_property(code, FLAGS)


@register_jitable
def _final_sigma(s, index):
    """CPython's choice between 'σ' and 'ς' for a capital sigma at `index`."""
    j = index - 1
    while j >= 0 and _flags(_get(s, j)) & CASE_IGNORABLE:
        j -= 1
    final = j >= 0 and _flags(_get(s, j)) & CASED != 0
    if final:
        j = index + 1
        n = _length(s)
        while j < n and _flags(_get(s, j)) & CASE_IGNORABLE:
            j += 1
        final = j == n or _flags(_get(s, j)) & CASED == 0
    return _FINAL_SIGMA if final else _SMALL_SIGMA


@register_jitable
def _mapping(s, index, code, table):
    """The mapped code point of `code`, or -(k + 1) for expansion k, in `table` (upper, lower,
    title or casefold)."""
    if code < 128:
        if table != _LOWER_TABLE and table != _FOLD_TABLE and 97 <= code <= 122:
            return code - 32
        if (table == _LOWER_TABLE or table == _FOLD_TABLE) and 65 <= code <= 90:
            return code + 32
        return code
    if table == _LOWER_TABLE and code == _CAPITAL_SIGMA:
        return _final_sigma(s, index)
    delta = unicode_property(code, UPPER_MAP + table)
    if delta >= EXPANDS:
        return EXPANDS - delta - 1
    return code + delta


@register_jitable
def _table_for(s, index, code, mode, previous_cased):
    """The table that maps `code` in `mode`, or -1 to keep it."""
    if mode == _UPPER_MODE:
        return _UPPER_TABLE
    if mode == _LOWER_MODE:
        return _LOWER_TABLE
    if mode == _FOLD_MODE:
        return _FOLD_TABLE
    if mode == _SWAP_MODE:
        flags = _flags(code)
        if flags & UPPER:
            return _LOWER_TABLE
        if flags & LOWER:
            return _UPPER_TABLE
        return -1
    if mode == _TITLE_MODE:
        return _LOWER_TABLE if previous_cased else _TITLE_TABLE
    return _TITLE_TABLE if index == 0 else _LOWER_TABLE


@register_jitable
def _map_case(s, mode):
    """`s` mapped by `mode` (upper, lower, swapcase, title, capitalize): one pass to size the
    result, one to fill it."""
    n = _length(s)
    total = 0
    largest = 0
    previous_cased = False
    for index in range(n):
        code = _get(s, index)
        table = _table_for(s, index, code, mode, previous_cased)
        mapped = code if table < 0 else _mapping(s, index, code, table)
        if mapped >= 0:
            total += 1
            largest = max(largest, mapped)
        else:
            for k in range(3):
                extra = expansion_of(3 * (-mapped - 1) + k)
                if extra != 0:
                    total += 1
                    largest = max(largest, extra)
        if mode == _TITLE_MODE:
            previous_cased = _flags(code) & CASED != 0
    out = _new(1 if largest < 0x100 else (2 if largest < 0x10000 else 4), total)
    position = 0
    previous_cased = False
    for index in range(n):
        code = _get(s, index)
        table = _table_for(s, index, code, mode, previous_cased)
        mapped = code if table < 0 else _mapping(s, index, code, table)
        if mapped >= 0:
            _set(out, position, mapped)
            position += 1
        else:
            for k in range(3):
                extra = expansion_of(3 * (-mapped - 1) + k)
                if extra != 0:
                    _set(out, position, extra)
                    position += 1
        if mode == _TITLE_MODE:
            previous_cased = _flags(code) & CASED != 0
    return out


def _case_method(mode: int):
    def overload_function(s):
        if is_string(s):
            return lambda s: _map_case(s, mode)
        return None

    overload_method(types.UnicodeType, _MODE_NAMES[mode])(overload_function)


for _mode in range(len(_MODE_NAMES)):
    _case_method(_mode)


# ---------------------------------------------------------------------------- predicates


def _all_method(name: str, wanted: int):
    """`s.isX()`: non-empty and every character has one of the `wanted` flags."""

    def overload_function(s):
        if not is_string(s):
            return None

        def impl(s):
            n = _length(s)
            if n == 0:
                return False
            for index in range(n):
                if _flags(_get(s, index)) & wanted == 0:
                    return False
            return True

        return impl

    overload_method(types.UnicodeType, name)(overload_function)


_all_method("isalpha", ALPHA)
_all_method("isdecimal", DECIMAL)
_all_method("isdigit", DIGIT)
_all_method("isnumeric", NUMERIC)
_all_method("isalnum", ALPHA | DECIMAL | DIGIT | NUMERIC)


@overload_method(types.UnicodeType, "isspace")
def string_isspace(s):
    if is_string(s):

        def isspace(s):
            n = _length(s)
            for index in range(n):
                if not is_space(_get(s, index)):
                    return False
            return n > 0

        return isspace


@overload_method(types.UnicodeType, "isascii")
def string_isascii(s):
    if is_string(s):

        def isascii(s):
            for index in range(_length(s)):
                if _get(s, index) >= 128:
                    return False
            return True

        return isascii


@overload_attribute(types.UnicodeType, "_is_ascii")
def string_is_ascii_flag(s):
    """Numba's `_is_ascii` flag of a string: 1 when every code point is ASCII, else 0."""
    return lambda s: 1 if s.isascii() else 0


def _cased_method(name: str, wanted: int, unwanted: int):
    """isupper/islower: some cased character, and none of the other case (nor titlecase)."""

    def overload_function(s):
        if not is_string(s):
            return None

        def impl(s):
            cased = False
            for index in range(_length(s)):
                flags = _flags(_get(s, index))
                if flags & unwanted:
                    return False
                if flags & wanted:
                    cased = True
            return cased

        return impl

    overload_method(types.UnicodeType, name)(overload_function)


_cased_method("isupper", UPPER, LOWER | TITLE)
_cased_method("islower", LOWER, UPPER | TITLE)
