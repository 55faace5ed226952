"""Strings in nopython mode, beyond the basics (ember/library/strings/unicode.py, case.py,
format.py, bytes.py, more_methods.py): case mappings and predicates of every
code point, casefold, format()/str.format/f-string specs, encode, translate; each checked
against CPython running the same function."""

from __future__ import annotations

import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strings_oracle import any_text, assert_no_leak, check, table_text

from ember import njit
from ember.errors import UnsupportedError
from ember.library.strings import unicode as strings_unicode


@njit
def cases(s):
    return (s.upper(), s.lower(), s.title(), s.swapcase(), s.capitalize(), s.casefold())


@njit
def each_predicate(s):
    """The predicates of each character, as the bits of one int per character."""
    found = []
    for c in s:
        bits = (c.isalpha(), c.isdigit(), c.isdecimal(), c.isnumeric(), c.isalnum())
        more = (c.isupper(), c.islower(), c.istitle(), c.isspace(), c.isascii())
        code = 0
        for bit in bits + more:
            code = 2 * code + (1 if bit else 0)
        found.append(code)
    return found


@njit
def digits_value(s):
    return int(s)


_EVERY_CHARACTER = "".join(chr(c) for c in range(1, sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)


def test_case_mappings_of_every_code_point():
    step = 997  # in words, so title() and final sigma see neighbours
    for start in range(0, len(_EVERY_CHARACTER), step):
        check(cases, _EVERY_CHARACTER[start : start + step])


def test_predicates_of_every_code_point():
    step = 100_003
    for start in range(0, len(_EVERY_CHARACTER), step):
        check(each_predicate, _EVERY_CHARACTER[start : start + step])


def test_shipped_tables_match_this_python():
    shipped = strings_unicode.tables()
    rebuilt = strings_unicode.build_tables()
    assert {k: list(v) for k, v in shipped.items()} == {k: list(v) for k, v in rebuilt.items()}


@pytest.mark.parametrize(
    "text",
    ["ß", "ﬃ", "ΐ", "ᾳ", "ǅungla", "İstanbul", "ΟΔΟΣ ΟΔΟΣ.", "Ａ\uff07Σ", "\U00010400\U00010428"],
)
def test_special_mappings(text):
    check(cases, text)


@settings(max_examples=200, deadline=None)
@given(st.one_of(table_text, any_text))
def test_cases_of_any_text(s):
    check(cases, s)
    check(each_predicate, s)


@pytest.mark.parametrize("text", ["١٢٣", "߀߁", "०१२", "𝟏𝟐", " ４２ ", "１x"])
def test_int_of_unicode_digits(text):
    check(digits_value, text)


# ---------------------------------------------------------------------------- format specs

INT_SPECS = ["", "d", "5", "<6", "^7", "*>8", "+", " ", "=+8", "05", "010,", "_", ",", "x", "#X"]
INT_SPECS += ["#o", "b", "_b", "08_x", ".2f", "e", "%", "<05", "0=10,", "-^+9"]
FLOAT_SPECS = ["", ".2f", ".0f", "f", "F", "e", ".3E", "g", ".3g", "G", ".10g", "%", ".1%"]
FLOAT_SPECS += [".3", ".0", "10.4f", "<12.2e", "^+12.3", "012,.2f", ",", "_.1f", "#.0f", "#g"]
FLOAT_SPECS += ["+.2e", " .2f", "x>10"]
STR_SPECS = ["", "s", "5", ">6", "^7", "*<4", ".2", ">8.3", "05"]
# specs CPython refuses for some kind of value (ValueError), one function each
REFUSED = [(1.5, "d"), ("a", "+"), ("a", "=5"), (3, ".2"), (-1, "c"), (65, "+c"), (65, ",c")]


def _formatter(specs):
    """One jitted function returning `format(x, spec)` for each spec (one compilation)."""
    calls = ", ".join(f"format(x, {spec!r})" for spec in specs)
    namespace = {}
    exec(f"def format_all(x):\n    return ({calls},)\n", namespace)  # noqa: S102 - test source
    return njit(namespace["format_all"])


format_ints = _formatter(INT_SPECS)
format_floats = _formatter(FLOAT_SPECS)
format_strings = _formatter(STR_SPECS)
format_char = _formatter(["c", ">3c"])
special_floats = st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1e16, 1e-5, 0.5])


@settings(max_examples=60, deadline=None)
@given(st.integers(-(2**63), 2**63 - 1))
def test_format_ints(x):
    check(format_ints, x)
    check(format_char, abs(x) % 0x110000)


@pytest.mark.parametrize("x", [True, False])
def test_format_bools(x):
    check(_formatter(["", ">5", "d", "+"]), x)


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.floats(), special_floats))
def test_format_floats(x):
    check(format_floats, x)


@settings(max_examples=60, deadline=None)
@given(any_text)
def test_format_strings(s):
    check(format_strings, s)


@pytest.mark.parametrize(("value", "spec"), REFUSED)
def test_specs_cpython_refuses(value, spec):
    check(_formatter([spec]), value)


def test_format_with_a_spec_known_when_running():
    @njit
    def variable(x, spec):
        return format(x, spec)

    assert variable(1.0, ".2f") == format(1.0, ".2f")
    with pytest.raises(ValueError, match="Unknown format code 'q'"):
        variable(1.0, "q")


@njit
def positional(name, x, n):
    return "{}: {:>8.3f} [{:^5}] {!s}{}".format(name, x, n, n, "!")


@njit
def numbered(name, x, n):
    return "{1:.2e}|{0}|{1}|{2:+d}|{{literal}}".format(name, x, n)  # noqa: UP032


@njit
def keywords(name, x, n):
    return "{who:<6}{0:,} {value:.1%}".format(n, value=x, who=name)  # noqa: UP032


@njit
def fstrings(name, x, n):
    return f"{name!s:>10}|{x:.4g}|{n:08_d}|{x}|{n:#x}"


@settings(max_examples=80, deadline=None)
@given(any_text, st.floats(allow_nan=False, width=64), st.integers(-(10**12), 10**12))
def test_str_format_and_fstrings(name, x, n):
    for func in (positional, numbered, keywords, fstrings):
        check(func, name, x, n)


def test_str_format_errors_as_cpython():
    @njit
    def missing(x):
        return "{} {}".format(x)  # noqa: F524 - CPython's IndexError is the point

    @njit
    def bad_spec(x):
        return "{:d}".format(x)  # noqa: UP032

    check(missing, 1)
    check(bad_spec, 1.5)


def test_str_format_of_a_variable_format_is_refused():
    @njit
    def variable(fmt, x):
        return fmt.format(x)

    with pytest.raises(UnsupportedError, match="constant format string"):
        variable("{}", 1)


# ---------------------------------------------------------------------------- encode, translate


@njit
def encodings(s):
    return s.encode(), s.encode("utf-8"), s.encode("UTF8", "replace")


@njit
def encode_ascii(s):
    return s.encode("ascii")


@njit
def encode_latin1(s):
    return s.encode("latin-1")


@njit
def encode_lenient(s):
    return s.encode("ascii", "ignore"), s.encode("latin_1", "replace")


@njit
def bytes_ops(s):
    b = s.encode()
    total = 0
    for byte in b:
        total += byte
    first = b[0] if len(b) else -1
    abc = "abc".encode()  # noqa: UP012 - the compiled encode
    return len(b), first, b[1:4], total, b == abc, b != b[:1]


@settings(max_examples=150, deadline=None)
@given(st.one_of(any_text, st.text(st.characters(max_codepoint=0x1FF))))
def test_encode(s):
    for func in (encodings, encode_ascii, encode_latin1, encode_lenient, bytes_ops):
        check(func, s)


@pytest.mark.parametrize("text", ["a\ud800b", "\udfff"])
def test_encode_lone_surrogates(text):
    check(encodings, text)
    check(encode_lenient, text)


def test_unknown_encoding_is_refused():
    @njit
    def utf16(s):
        return s.encode("utf-16")

    with pytest.raises(UnsupportedError, match="utf-16"):
        utf16("x")


@njit
def translate_to_text(s):
    return s.translate({97: "AA", 0x3A3: "", 0x1F600: "☺"})


@njit
def translate_to_codes(s):
    return s.translate({98: 66, 0x20: 0x5F})


@njit
def translate_deleting(s):
    return s.translate({ord("e"): None, ord("x"): None})


@njit
def translate_with(s, table):
    return s.translate(table)


@settings(max_examples=100, deadline=None)
@given(st.one_of(any_text, st.text(st.sampled_from("abe xΣ\U0001f600"))))
def test_translate(s):
    for func in (translate_to_text, translate_to_codes, translate_deleting):
        check(func, s)


def test_translate_with_a_dict_made_in_python():
    from ember import typed, types

    table = typed.Dict.empty(types.int64, types.unicode_type)
    table[ord("a")] = "<a>"
    assert translate_with("banana", table) == "banana".translate(dict(table))


@pytest.mark.parametrize(
    ("func", "args"),
    [
        (cases, ("ΟΔΟΣ straße ǅ漢",)),
        (positional, ("name", 2.5, 7)),
        (fstrings, ("é", -1e300, -5)),
        (encodings, ("aé漢\U0001f600",)),
        (bytes_ops, ("abcdef",)),
        (translate_to_text, ("a Σ b",)),
    ],
)
def test_no_leaks(func, args):
    assert_no_leak(func, *args, calls=500)
