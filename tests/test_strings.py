"""Strings in nopython mode (ember/types/strings.py, ember/lowering/strings.py,
ember/library/strings/core.py): str arguments and results, indexing, slicing, iteration, `in`,
comparisons, `+`, `*`, `hash`, `ord`/`chr`, lists and tuples of strings, constants, f-strings,
print; each checked against CPython running the same function."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strings_oracle import any_text, assert_no_leak, check

import ember
from ember import njit, types

SAMPLES = ["", "a", "hello", "héllo wörld", "a€b", "\U0001f600 emoji", "ÿ" * 3, "\x00x\x00"]


@njit
def identity(s):
    return s


@njit
def length(s):
    return len(s)


@njit
def item(s, i):
    return s[i]


@njit
def pieces(s, a, b, c):
    return s[a:b], s[a:], s[:b], s[::c], s[a:b:c]


@njit
def characters(s):
    out = []
    for ch in s:
        out.append(ch)
    return out


@njit
def compare(a, b):
    return a == b, a != b, a < b, a <= b, a > b, a >= b


@njit
def contains(a, b):
    return a in b, b in a


@njit
def concatenate(a, b, n):
    return a + b, a * n, n * b


@njit
def string_hash(s):
    return hash(s)


@njit
def code_points(s):
    total = 0
    for ch in s:
        total = (total * 31 + ord(ch)) % 1000003
    return total


@njit
def from_code_point(code):
    return chr(code)


def test_types_are_numbas_spellings():
    assert types.unicode_type is types.string
    assert types.literal("x") is types.StringLiteral("x")
    assert types.literal("x").literal_type is types.unicode_type
    assert ember.typeof("abc") is types.unicode_type


@pytest.mark.parametrize("text", SAMPLES)
def test_round_trip_and_length(text):
    assert identity(text) == text and type(identity(text)) is str
    check(length, text)


@settings(max_examples=150, deadline=None)
@given(any_text)
def test_round_trip_any_text(text):
    assert identity(text) == text
    check(length, text)


def test_round_trip_keeps_cpython_kind():
    for text in SAMPLES:
        returned = identity(text)
        assert returned == text and returned.isascii() == text.isascii()


@settings(max_examples=150, deadline=None)
@given(any_text, st.integers(-45, 45))
def test_indexing(text, index):
    check(item, text, index)


@settings(max_examples=150, deadline=None)
@given(any_text, st.integers(-45, 45), st.integers(-45, 45), st.integers(-5, 5))
def test_slices(text, a, b, step):
    check(pieces, text, a, b, step)


@settings(max_examples=100, deadline=None)
@given(any_text)
def test_iteration(text):
    check(characters, text)
    check(code_points, text)


@settings(max_examples=200, deadline=None)
@given(st.one_of(any_text, st.sampled_from(SAMPLES)), st.one_of(any_text, st.sampled_from(SAMPLES)))
def test_comparisons_and_membership(a, b):
    check(compare, a, b)
    check(contains, a, b)
    check(compare, a, a[: len(a) // 2])


@settings(max_examples=100, deadline=None)
@given(any_text, any_text, st.integers(-2, 4))
def test_concatenation_and_repetition(a, b, n):
    check(concatenate, a, b, n)


@settings(max_examples=200, deadline=None)
@given(st.one_of(any_text, st.sampled_from(SAMPLES)))
def test_hash_equals_cpythons_in_this_process(text):
    assert sys.hash_info.algorithm == "siphash13"
    assert string_hash(text) == hash(text)


@njit
def narrowed_hash(s):
    return hash(s[1:]), s[1:] == "abc"


def test_hash_of_a_narrowed_slice():
    # "€abc"[1:] is ASCII again: stored in the narrow kind, so equal and hashed as CPython does
    assert narrowed_hash("€abc") == (hash("abc"), True)


@settings(max_examples=100, deadline=None)
@given(st.integers(-5, 0x110005))
def test_chr_and_ord(code):
    if 0xD800 <= code <= 0xDFFF:
        return  # a lone surrogate is not valid text to hand back (CPython allows it)
    check(from_code_point, code)


@njit
def ord_of(s):
    return ord(s)


@pytest.mark.parametrize("text", ["", "ab", "é"])
def test_ord_wants_one_character(text):
    check(ord_of, text)


@pytest.mark.parametrize("index", [5, -6, 100])
def test_index_out_of_range(index):
    with pytest.raises(IndexError, match="string index out of range"):
        item("hello", index)


@njit
def slice_step_zero(s):
    return s[::0]


def test_slice_step_zero():
    with pytest.raises(ValueError):
        slice_step_zero("abc")


# ---------------------------------------------------------------------------- values in code

GREETING = "héllo"
WORDS = ("alpha", "beta")


@njit
def constants():
    return GREETING + "!", WORDS[1], "" + "x" * 3


def test_constants_and_globals():
    assert constants() == constants.py_func()


@njit
def list_of_strings(n):
    out = []
    for i in range(n):
        out.append("x" * i)
    out.append("é")
    out.insert(0, "first")
    last = out.pop()
    return out, last, "xx" in out, out.index("xx"), out[1:3], out + ["end"], sorted(["b", "a"])


def test_lists_of_strings():
    pytest.importorskip("hypothesis")
    got = list_of_strings(4)
    assert got == list_of_strings.py_func(4)


@njit
def tuples_of_strings(t, s):
    return (s, t[0]), t[1] + s, s in t, t == (s, s), (t[0], 1) < (t[1], 0)


@pytest.mark.parametrize("s", ["a", "b", "é"])
def test_tuples_of_strings(s):
    check(tuples_of_strings, ("a", "b"), s)


@njit
def maybe(s, flag):
    if flag:
        return s
    return None


def test_optional_string():
    assert maybe("q", True) == "q" and maybe("q", False) is None


@njit
def formatted(s, n, x):
    return f"{s}: {n} ({x}) {s!s}", f"{n}"


@pytest.mark.parametrize("args", [("a", 1, 2.5), ("é", -7, 1e20), ("", 0, -0.0)])
def test_f_strings(args):
    check(formatted, *args)


def test_f_string_format_spec():
    @njit
    def spec(x):
        return f"{x:5d}|{x:<+4}"

    check(spec, 3)
    check(spec, -12345)


@njit
def shout(s):
    print(s, len(s), s + "!")


def test_print(capsys):
    shout("héllo")
    assert capsys.readouterr().out == "héllo 5 héllo!\n"


@njit
def passthrough(s, xs):
    return s, xs[0]


def test_strings_with_arrays():
    np = pytest.importorskip("numpy")
    assert passthrough("x", np.arange(3.0)) == ("x", 0.0)


def test_no_leaks():
    assert_no_leak(pieces, "héllo wörld", 1, 8, 2)
    assert_no_leak(concatenate, "ab", "€", 3)
    assert_no_leak(list_of_strings, 5)
    assert_no_leak(tuples_of_strings, ("a", "b"), "é")
    assert_no_leak(characters, "a€\U0001f600")
    assert_no_leak(formatted, "a", 1, 2.5)
    assert_no_leak(identity, "x" * 100)


@njit
def shout_all(xs):
    for i in range(len(xs)):
        xs[i] = xs[i].upper() + "!"
    xs.append("end")
    return " ".join(xs)


@njit
def read_only(xs):
    return len(xs), xs[0]


def test_lists_of_strings_passed_in_are_reflected():
    words = ["a", "bé", "ö"]
    expected = list(words)
    assert shout_all(words) == shout_all.py_func(expected)
    assert words == expected
    kept = ["x", "y"]
    first = kept[0]
    assert read_only(kept) == (2, "x") and kept[0] is first  # unchanged: the same objects
    assert_no_leak(shout_all, ["a", "bé"], calls=200)  # the list grows by one item per call


def test_typed_list_of_strings():
    from ember.typed import List

    words = List.empty_list(types.unicode_type)
    assert shout_all(words) == "end" and list(words) == ["end"]


def test_a_list_mixing_strings_and_numbers_is_refused():
    with pytest.raises(ember.errors.TypingError, match="items of one type .*holds str and int"):
        read_only(["a", 1])
