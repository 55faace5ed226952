"""NumPy arrays passed in from Python and stored in typed containers, lists and dicts outlive
the call: the container holds a reference to the ndarray (released with the container), and
reads see the same memory."""

import gc
import sys

import numpy as np

import ember
from ember import runtime, types
from ember.typed import Dict, List


def _live() -> int:
    stats = runtime.stats()
    return stats.alloc - stats.free


def _scribble() -> list:
    """Allocations that would reuse a freed array's memory."""
    return [np.full(8, -1.0) for _ in range(200)]


def test_typed_dict_from_python_keeps_the_array():
    d = Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])
    d["a"] = np.arange(5.0)
    gc.collect()
    _scribble()
    np.testing.assert_array_equal(d["a"], np.arange(5.0))


@ember.njit
def _put(d, key, a):
    d[key] = a


@ember.njit
def _get(d, key):
    return d[key]


def test_dict_filled_in_compiled_code_shares_memory_and_releases_it():
    a = np.arange(6.0)
    base_refs = sys.getrefcount(a)
    live = _live()
    d = Dict.empty(key_type=types.int64, value_type=types.float64[:])
    _put(d, 1, a)
    _put(d, 2, a)
    assert sys.getrefcount(a) == base_refs + 2  # one per stored value
    a[0] = 42.0  # the dict holds the same memory, not a copy
    assert _get(d, 1)[0] == 42.0 and d[2][0] == 42.0
    _put(d, 1, np.zeros(2))  # replacing a value releases the old one
    assert sys.getrefcount(a) == base_refs + 1
    del d
    gc.collect()
    assert sys.getrefcount(a) == base_refs
    assert _live() == live


@ember.njit
def _append_all(xs, arrays):
    for a in arrays:
        xs.append(a)
    xs.append(arrays[0])


def test_typed_list_of_arrays_outlives_the_originals():
    xs = List.empty_list(types.float64[:])
    xs.append(np.linspace(0.0, 1.0, 3))
    _append_all(xs, (np.arange(2.0), np.arange(3.0) * 2))
    gc.collect()
    _scribble()
    expected = [np.linspace(0.0, 1.0, 3), np.arange(2.0), np.arange(3.0) * 2, np.arange(2.0)]
    assert len(xs) == len(expected)
    for got, want in zip(xs, expected):
        np.testing.assert_array_equal(got, want)


@ember.njit
def _store_display(d, a, b):
    d[0] = [a, b, a]


def test_list_display_of_arguments_stored_in_a_dict():
    d = Dict.empty(key_type=types.int64, value_type=types.List(types.float64[::1]))
    a, b = np.arange(3.0), np.ones(2)
    base_a, base_b = sys.getrefcount(a), sys.getrefcount(b)
    _store_display(d, a, b)
    assert (sys.getrefcount(a), sys.getrefcount(b)) == (base_a + 2, base_b + 1)
    del a, b
    gc.collect()
    _scribble()
    got = d[0]
    np.testing.assert_array_equal(got[0], np.arange(3.0))
    np.testing.assert_array_equal(got[1], np.ones(2))
    np.testing.assert_array_equal(got[2], np.arange(3.0))


def test_arrays_created_in_compiled_code_are_not_adopted_twice():
    live = _live()

    @ember.njit
    def fill(d, n):
        for k in range(n):
            d[k] = np.arange(float(k))

    d = Dict.empty(key_type=types.int64, value_type=types.float64[:])
    fill(d, 5)
    for k in range(5):
        np.testing.assert_array_equal(d[k], np.arange(float(k)))
    del d
    gc.collect()
    assert _live() == live
