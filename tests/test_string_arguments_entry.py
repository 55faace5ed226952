"""`str` arguments and results take the native entry (copied in each kind, released after the
call): answers match CPython running the same function, nothing leaks, strings kept in a typed
dict outlive the call, and the call is fast enough for tests that make thousands of calls."""

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit, types
from ember.runtime import nrt
from ember.typed import Dict

SAMPLES = ["", "a", "hello", "caf\xe9", "\u20ac uro", "\U0001f600 emoji", "x" * 300]
WARM_UP = ember.config.CALLS_BEFORE_ENTRY + 2  # then the native entry takes the calls


def _endswith(text, suffix, start, end):
    return text.endswith(suffix, start, end)


def _shout(text, times):
    return text.upper() * times


def _same(text):
    return text


def _keep(table, key):
    table[key] = len(key)


def _index_of(text, sub):
    return text.find(sub), text[1:] + sub


def _warm(compiled, *args):
    for _ in range(WARM_UP):
        compiled(*args)


def test_results_match_cpython_in_each_kind():
    compiled = njit(_shout), njit(_same), njit(_index_of)
    for text in SAMPLES:
        _warm(compiled[0], text, 1)
        _warm(compiled[1], text)
        _warm(compiled[2], text, "a")
    for text in SAMPLES:
        assert compiled[0](text, 2) == _shout(text, 2)
        assert compiled[1](text) == text
        assert compiled[2](text, "\u20ac") == _index_of(text, "\u20ac")


def test_optional_int_arguments_use_one_entry_per_combination():
    compiled = njit(_endswith)
    bounds = [None, -3, 0, 2, 9]
    for text in SAMPLES:
        for suffix in ("", "o", "lo", text[1:]):
            for start in bounds:
                for end in bounds:
                    for _ in range(2):
                        assert compiled(text, suffix, start, end) == _endswith(
                            text, suffix, start, end
                        )
    assert len(compiled.signatures) == 4  # (int | None) x (int | None)


def test_string_calls_are_fast_and_do_not_leak():
    compiled = njit(_same)
    _warm(compiled, "abc")
    before = nrt.stats()
    started = time.perf_counter()
    for _ in range(20_000):
        compiled("caf\xe9")
    elapsed = time.perf_counter() - started
    after = nrt.stats()
    assert after.alloc - after.free == before.alloc - before.free
    assert elapsed < 1.0  # about 2 us a call natively; the Python path took 40-150 us


def test_keys_stored_in_a_typed_dict_outlive_the_call():
    compiled = njit(_keep)
    table = Dict.empty(types.unicode_type, types.int64)
    _warm(compiled, table, "warm")
    for text in SAMPLES:
        compiled(table, "k" + text)  # the argument dies here; the dict keeps its own copy
    expected = {"warm": 4, **{"k" + text: len(text) + 1 for text in SAMPLES}}
    assert dict(table) == expected


def test_other_types_after_strings_take_the_python_path():
    compiled = njit(_same)
    _warm(compiled, "abc")
    assert compiled(3) == 3
    assert compiled(("a", "\xe9")) == ("a", "\xe9")


@settings(max_examples=25, deadline=None)
@given(st.text(max_size=20), st.text(max_size=3), st.integers(-25, 25) | st.none())
def test_endswith_matches_cpython(text, suffix, start):
    compiled = _ENDSWITH
    assert compiled(text, suffix, start, None) == _endswith(text, suffix, start, None)


_ENDSWITH = njit(_endswith)


def test_tuples_of_strings_and_an_overflowing_int_release_their_copies():
    compiled = njit(_endswith)
    _warm(compiled, "hello", ("lo", "x"), 0, 5)
    before = nrt.stats()
    for text in SAMPLES:
        for suffixes in (("lo", text), ("\u20ac", "")):
            assert compiled(text, suffixes, -2, None) == _endswith(text, suffixes, -2, None)
    with pytest.raises(OverflowError):
        compiled("hello", ("lo", "x"), 1 << 70, 5)  # the copies are made after this check
    after = nrt.stats()
    assert after.alloc - after.free == before.alloc - before.free


def _prefix_or_none(text, count):
    if count > 0:
        return text[:count]
    return None


def _repeat_and_count(text, count):
    return text * count, count


def test_optional_and_tuple_string_results_box_as_cpython():
    optional, pair = njit(_prefix_or_none), njit(_repeat_and_count)
    _warm(optional, "warm", 1)
    _warm(optional, "warm", 0)
    _warm(pair, "warm", 1)
    before = nrt.stats()
    for text in SAMPLES:
        for count in (0, 1, 3):
            assert optional(text, count) == _prefix_or_none(text, count)
            assert pair(text, count) == _repeat_and_count(text, count)
    after = nrt.stats()
    assert after.alloc - after.free == before.alloc - before.free
