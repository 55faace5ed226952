"""ember.typed.Dict arguments on the native call path: each key/value type has its own class,
which the native entry matches exactly, lending the dict to compiled code without Python code
running. Mutations are visible to the caller, returned dicts come back as typed.Dicts, a dict
of other types selects (or compiles) its own specialization, and nothing leaks."""

from __future__ import annotations

import gc
import pickle

import pytest

import ember
from ember import njit, typed, types
from ember.typed.typeddict import Dict, class_for


@njit
def store(d, key, value):
    d[key] = value
    return len(d)


@njit
def same(d):
    return d


@njit
def total(d, scale=1.0):
    result = 0.0
    for value in d.values():
        result += value * scale
    return result


def floats(items):
    made = typed.Dict.empty(types.int64, types.float64)
    for key, value in items:
        made[key] = value
    return made


def test_mutations_are_visible_and_results_match_cpython():
    d = floats([(1, 0.5)])
    plain = {1: 0.5}
    for key, value in [(2, 1.5), (1, -3.0), (7, 2.25)]:
        assert store(d, key, value) == store.py_func(plain, key, value)
    assert dict(d) == plain
    assert total(d) == total.py_func(plain)
    assert total(d, scale=2.0) == total.py_func(plain, 2.0)


def test_each_key_and_value_type_has_its_own_class():
    a = floats([(1, 1.0)])
    words = typed.Dict.empty(types.unicode_type, types.int64)
    words["x"] = 1
    untyped = typed.Dict()
    assert type(a) is class_for(types.DictType(types.int64, types.float64))
    assert type(words) is not type(a) and type(untyped) is Dict
    untyped["k"] = 2.5  # the first insert picks the types, and the class
    assert type(untyped) is class_for(types.DictType(types.unicode_type, types.float64))
    assert all(isinstance(d, Dict) and type(d).__name__ == "Dict" for d in (a, words, untyped))
    assert store(words, "y", 2) == 2 and dict(words) == {"x": 1, "y": 2}


def test_returned_dicts_are_typed_dicts_over_the_same_memory():
    d = floats([(1, 1.0)])
    back = same(d)
    assert isinstance(back, Dict) and dict(back) == {1: 1.0}
    back[5] = 5.0
    assert d[5] == 5.0


def test_a_dict_of_other_types_is_refused_as_cpython_types_would_differ():
    d = floats([(1, 1.0)])
    with pytest.raises(ember.errors.TypingError):
        store(d, "not an int", 1.0)


def test_pickling_and_copies_keep_working():
    d = floats([(1, 1.0), (2, 2.0)])
    assert pickle.loads(pickle.dumps(d)) == d
    assert type(d.copy()) is type(d) and d.copy() == d


def test_fast_path_calls_leak_nothing():
    d = floats([(i, float(i)) for i in range(5)])
    store(d, 1, 1.0)
    same(d)
    gc.collect()
    before = ember.runtime.stats().live
    for _ in range(3000):
        store(d, 1, 1.0)
        same(d)
        total(d)
    gc.collect()
    assert ember.runtime.stats().live == before
