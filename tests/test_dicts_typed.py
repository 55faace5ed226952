"""`ember.typed.Dict` from Python and across calls: made in Python or returned by compiled
code, mutated on either side, compared with plain dicts (the oracle)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import ember
from ember import njit, typed, types


def test_empty_with_types_behaves_as_a_dict():
    d = typed.Dict.empty(key_type=types.int64, value_type=types.float64)
    oracle = {}
    for k in (3, 1, 2, 3, -5):
        d[k] = k * 1.5
        oracle[k] = k * 1.5
    del d[1]
    del oracle[1]
    assert len(d) == len(oracle)
    assert list(d) == list(oracle)
    assert list(d.items()) == list(oracle.items())
    assert d == oracle and 2 in d and 1 not in d and "x" not in d
    assert d.get(2) == 3.0 and d.get(99) is None and d.get(99, 7) == 7
    assert d.pop(2) == 3.0 and d.pop(2, "gone") == "gone"
    assert str(d) == str({3: 4.5, -5: -7.5})
    assert repr(d) == f"{ember.typeof(d)}({{3: 4.5, -5: -7.5}})"  # Numba's repr
    with pytest.raises(KeyError):
        d[100]
    with pytest.raises(KeyError):
        del d[100]


def test_untyped_dict_takes_the_types_of_its_first_item():
    d = typed.Dict()
    assert len(d) == 0 and 1 not in d
    d[1.5] = 2
    assert d._ember_type_ == types.DictType(types.float64, types.int64)
    assert d[1.5] == 2


@njit
def add_and_remove(d, k):
    d[k] = 100.0
    del d[1]
    return len(d)


def test_changes_in_compiled_code_are_visible():
    d = typed.Dict.empty(types.int64, types.float64)
    d[1] = 1.0
    d[2] = 2.0
    assert add_and_remove(d, 7) == 2
    assert dict(d.items()) == {2: 2.0, 7: 100.0}


@njit
def squares(n):
    d = {}
    for i in range(n):
        d[i] = i * i
    return d


def test_returned_dict_is_a_typed_dict():
    d = squares(5)
    assert isinstance(d, typed.Dict)
    assert d == {i: i * i for i in range(5)}
    d[9] = 81  # still usable from Python, then in compiled code again
    assert total_of(d) == sum(i * i for i in range(5)) + 81


@njit
def total_of(d):
    total = 0
    for _, v in d.items():
        total += v
    return total


@njit
def made_inside():
    d = typed.Dict.empty(key_type=types.int64, value_type=types.float64)
    d[1] = 2
    e = typed.Dict()
    e[3] = 4.5
    return d, e


def test_typed_dict_inside_compiled_code():
    d, e = made_inside()
    assert d == {1: 2.0} and isinstance(d[1], float)
    assert e == {3: 4.5}


@njit
def of_arrays(n):
    d = {}
    for i in range(n):
        d[i] = np.full(3, i * 1.0)
    return d


def test_dict_of_arrays_round_trip_and_no_leaks():
    d = of_arrays(4)
    np.testing.assert_array_equal(d[2], np.full(3, 2.0))
    del d
    gc.collect()
    before = ember.runtime.stats()
    for _ in range(200):
        d = of_arrays(5)
        values = list(d.values())
        assert float(values[4].sum()) == 12.0
        del d, values
    gc.collect()
    after = ember.runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


def test_python_side_no_leaks():
    gc.collect()
    before = ember.runtime.stats()
    for _ in range(100):
        d = typed.Dict.empty(types.int64, types.float64)
        for k in range(50):
            d[k] = 0.5
        for k in range(0, 50, 3):
            del d[k]
        del d
    gc.collect()
    after = ember.runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


def test_int_out_of_range_key_is_refused():
    d = typed.Dict.empty(types.int64, types.float64)
    with pytest.raises(OverflowError):
        d[2**70] = 1.0


def test_untyped_empty_dict_cannot_be_passed():
    with pytest.raises(TypeError, match="Dict.empty"):
        add_and_remove(typed.Dict(), 1)


def test_pickles_by_value():
    import pickle

    d = typed.Dict.empty(types.int64, types.float64)
    d[3] = 1.5
    copy = pickle.loads(pickle.dumps(d))
    assert isinstance(copy, typed.Dict) and copy == {3: 1.5}
    copy[4] = 2.0
    assert 4 not in d
