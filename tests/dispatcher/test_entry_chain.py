"""The native entry built in links (ember/dispatcher/fast_entry.py): many specializations each
reach their own machine code, each new one adds a link instead of rebuilding the entry over
all of them, and keyword, default, tp_call and raising calls behave as the Python path."""

from __future__ import annotations

import ctypes
import itertools
import math

import numpy as np
import pytest

import ember
from ember.dispatcher import fast_entry

# Argument values of distinct native-entry kinds: every pair is its own specialization.
VALUES = [3, -2.5, True, 1.5 - 2j, np.float32(0.75), np.int32(-7), np.uint8(200), np.int16(9)]
# CPython / NumPy arithmetic may pick other result types than Numba's rules: compare values.
PAIRS = list(itertools.product(VALUES[:5], VALUES))[:30]


def mix(a, b):
    return a * 2 + b


def _same_value(got, expected) -> bool:
    return complex(got) == pytest.approx(complex(expected), rel=1e-6)


def _native_calls_only(dispatcher, calls) -> None:
    """Run `calls()` and check no call went through the Python path."""
    before = dispatcher._slow_calls
    calls()
    assert dispatcher._slow_calls == before


def test_many_specializations_each_dispatch_to_their_own_code():
    f = ember.njit(mix)
    for a, b in PAIRS:  # one new specialization after another, each called twice
        assert _same_value(f(a, b), mix(a, b))
        assert _same_value(f(a, b), mix(a, b))
    assert len(f.overloads) == len(PAIRS)

    def every_pair_again():
        for a, b in reversed(PAIRS):
            assert _same_value(f(a, b), mix(a, b)), (a, b)

    _native_calls_only(f, every_pair_again)


def test_each_new_specialization_emits_itself_and_merges_stay_logarithmic():
    f = ember.njit(mix)
    emitted = []
    for count, (a, b) in enumerate(PAIRS, start=1):
        f(a, b)
        f(a, b)  # builds the link of this specialization
        chain = f._entry_chain
        emitted.append(chain.emitted)
        levels = math.ceil(math.log(count, fast_entry.MERGE_WIDTH)) if count > 1 else 0
        assert len(chain.links) <= (fast_entry.MERGE_WIDTH - 1) * (levels + 1)
        assert sum(len(link.specializations) for link in chain.links) == count
    added = [later - earlier for earlier, later in zip([0, *emitted], emitted)]
    # Outside merges a specialization costs one emission: its own.
    assert added.count(1) >= len(PAIRS) * (fast_entry.MERGE_WIDTH - 1) // fast_entry.MERGE_WIDTH
    n = len(PAIRS)
    assert emitted[-1] <= n * (1 + math.ceil(math.log(n, fast_entry.MERGE_WIDTH)))


def test_specialization_compiled_twice_as_many_kinds_is_matched_once():
    """An overload replaced (loaded from the disk cache, then recompiled) is not chained
    twice; the link that has it keeps it."""
    f = ember.njit(mix)
    f(1, 2)
    f(1, 2)
    links = len(f._entry_chain.links)
    f._entry_stale = True
    assert f(1, 2) == 4
    assert len(f._entry_chain.links) == links


def add_scaled(a, b=2, scale=1.0):
    return (a + b) * scale


def test_keywords_and_defaults_through_the_chain():
    f = ember.njit(add_scaled)
    calls = [((1,), {}), ((1, 5), {}), ((1.5,), {}), ((2, 3, 0.5), {}), ((1j,), {})]
    for args, kwargs in calls:
        for _ in range(2):
            assert f(*args, **kwargs) == add_scaled(*args, **kwargs)
    keyword_calls = [
        ((1,), {"b": 4}),
        ((), {"a": 2.5, "scale": 2.0}),
        ((1j,), {"scale": 3.0, "b": 1}),
        ((1,), {"b": 5}),
    ]
    for args, kwargs in keyword_calls:  # the first one builds the keyword entry
        assert f(*args, **kwargs) == add_scaled(*args, **kwargs)
    assert f._entry_chain.cells[1]

    def keyword_calls_again():
        for args, kwargs in keyword_calls:
            assert f(*args, **kwargs) == add_scaled(*args, **kwargs)

    _native_calls_only(f, keyword_calls_again)
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        f(1, c=2)
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        f(1, a=2)


_PyObject_Call = ctypes.pythonapi.PyObject_Call
_PyObject_Call.restype = ctypes.py_object
_PyObject_Call.argtypes = [ctypes.py_object, ctypes.py_object, ctypes.py_object]


def test_tp_call_slot_reaches_every_link():
    """`PyObject_Call` (a tuple and a dict) uses the class's tp_call, not the vectorcall."""
    f = ember.njit(add_scaled)
    for a in (1, 2.5, 1j):
        f(a)
        f(a)
    for a in (1, 2.5, 1j):
        assert _PyObject_Call(f, (a,), None) == add_scaled(a)
        assert _PyObject_Call(f, (a,), {"scale": 2.0}) == add_scaled(a, scale=2.0)


def checked_root(x):
    if x < 0:
        raise ValueError("negative")
    return x**0.5


def test_exceptions_raised_by_a_lower_link():
    f = ember.njit(checked_root)
    for x in (4, 2.25, np.float32(6.25)):  # three links: four would merge into one
        assert f(x) == pytest.approx(checked_root(x))
        assert f(x) == pytest.approx(checked_root(x))
    assert len(f._entry_chain.links) > 1
    for x in (-4, -2.25, np.float32(-1)):
        with pytest.raises(ValueError, match="negative"):
            f(x)


def test_arrays_in_several_links_keep_their_results():
    @ember.njit
    def scaled(x, k):
        return x * k

    inputs = [(np.arange(4.0), 2), (np.arange(3), 1.5), (np.ones((2, 2), np.float32), 3)]
    for x, k in inputs:
        scaled(x, k)
        scaled(x, k)

    def again():
        for x, k in inputs:
            np.testing.assert_allclose(scaled(x, k), x * k)

    _native_calls_only(scaled, again)


def test_functions_of_one_shape_share_the_entry_text_but_keep_their_own_objects():
    """The second function of a shape reuses the first one's IR text: its own code, defaults
    and Python fallback must still be the ones embedded."""
    from ember.dispatcher import entry_templates

    def shift_up(a, b=10):
        return a + b

    def shift_down(a, b=-10):
        return a - b * 2

    first, second = ember.njit(shift_up), ember.njit(shift_down)
    first(1)
    first(1)  # the link of (int64,) with one default: a new shape, or a known one
    shapes = len(entry_templates._templates)
    second(1)
    second(1)
    assert len(entry_templates._templates) == shapes  # same shape: text reused
    for value in (5, -3):
        assert first(value) == shift_up(value)
        assert second(value) == shift_down(value)
        assert first(value, 4) == shift_up(value, 4)
        assert second(value, 4) == shift_down(value, 4)
    # Arguments no link takes reach each function's own Python path.
    assert first(2.5) == shift_up(2.5)
    assert second(2.5) == shift_down(2.5)
