"""`ember.typed.Set` owns a native set: the same results as a Python set from Python (edits
checked against CPython sets), lent to compiled code without copying (changes seen on both
sides), returned from compiled code as a typed Set sharing the native set, and nothing leaked."""

from __future__ import annotations

import gc
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import config, njit, typed, types
from ember.errors import TypingError
from ember.typed.typedset import Set, class_for


def live_blocks() -> int:
    gc.collect()
    return ember.runtime.stats().live


def ints(*items: int) -> Set:
    made = typed.Set.empty(types.int64)
    for item in items:
        made.add(item)
    return made


@njit
def discard_one(s, item):
    s.discard(item)


@njit
def add_range(s, n):
    for i in range(n):
        s.add(i)
    return len(s)


@njit
def same(s):
    return s


@njit
def edit(s, adds, discards):
    for item in adds:
        s.add(item)
    for item in discards:
        s.discard(item)
    return len(s)


def apply_operations(items, operations):
    """Run the same edits on any mutable set; the observable results, in order."""
    seen = []
    for name, argument in operations:
        if name == "add":
            items.add(argument)
        elif name == "discard":
            items.discard(argument)
        elif name == "remove":
            try:
                items.remove(argument)
                seen.append("removed")
            except KeyError:
                seen.append("missing")
        elif name == "in":
            seen.append(argument in items)
        elif name == "len":
            seen.append(len(items))
        elif name == "update":
            items.update([argument, argument + 1, argument])
    return seen


operation = st.tuples(
    st.sampled_from(["add", "discard", "remove", "in", "len", "update"]),
    st.integers(-6, 6),
)


@settings(max_examples=25, deadline=None)
@given(st.lists(operation, max_size=40))
def test_edits_from_python_match_cpython_sets(operations):
    typed_set, plain = ints(), set()
    assert apply_operations(typed_set, operations) == apply_operations(plain, operations)
    assert set(typed_set) == plain and len(typed_set) == len(plain)
    assert typed_set == plain and sorted(typed_set.copy()) == sorted(plain)


@settings(max_examples=25, deadline=None)
@given(st.lists(operation, max_size=40))
def test_edits_in_compiled_code_match_cpython_sets(operations):
    adds = np.array([a for name, a in operations if name != "discard"], dtype=np.int64)
    discards = np.array([a for name, a in operations if name == "discard"], dtype=np.int64)
    typed_set, plain = ints(), set()
    assert edit(typed_set, adds, discards) == edit.py_func(plain, adds.tolist(), discards)
    assert set(typed_set) == plain


def test_numba_documentation_example():
    s = typed.Set.empty(types.unicode_type)
    for word in ("One", "Two", "Three"):
        s.add(word)
    assert len(s) == 3
    discard_one(s, "Three")
    assert len(s) == 2 and set(s) == {"One", "Two"}


def test_changes_are_shared_between_python_and_compiled_code():
    s = ints(10)
    assert add_range(s, 3) == 4  # 10 and 0, 1, 2
    assert set(s) == {0, 1, 2, 10}
    returned = same(s)
    assert type(returned) is type(s) and returned._meminfo == s._meminfo
    returned.add(99)  # one native set behind both objects
    assert 99 in s
    s.discard(0)
    assert 0 not in returned


def test_constructors_and_item_types():
    empty = typed.Set()
    assert not empty._typed and len(empty) == 0 and 1 not in empty
    empty.add(2.5)
    assert ember.typeof(empty) == types.SetType(types.float64)
    words = typed.Set(["b", "a", "b"])
    assert ember.typeof(words) == types.SetType(types.unicode_type) and set(words) == {"a", "b"}
    pairs = typed.Set([(1, 2.0), (1, 2.0), (3, 4.0)])
    assert set(pairs) == {(1, 2.0), (3, 4.0)}
    from_numpy = typed.Set.empty(np.int32)
    from_numpy.update(np.array([3, 3, 4], dtype=np.int32))
    assert ember.typeof(from_numpy) == types.SetType(types.int32) and set(from_numpy) == {3, 4}


def test_spellings_are_numbas():
    assert str(types.SetType(types.int64)) == "SetType[int64]<iv=None>"
    assert repr(types.SetType(types.int64)) == "SetType[int64]<iv=None>"
    assert ember.core.types.SetType is types.SetType
    assert types.SetType(types.int64) is not types.Set(types.int64)
    s = ints(3, 1)
    in_cpythons_order = ", ".join(str(item) for item in {3, 1})  # a set iterates as CPython's
    assert str(s) == "{" + in_cpythons_order + "}"
    assert repr(s) == "SetType[int64]<iv=None>({" + in_cpythons_order + "})"
    assert repr(typed.Set()) == "UntypedSet({})" and str(typed.Set()) == "{}"
    assert str(typed.Set(["a"])) == "{a}"
    assert type(s).__name__ == "Set" and isinstance(s, Set)


def test_python_set_methods():
    s = ints(1, 2, 3)
    assert s.pop() in {1, 2, 3} and len(s) == 2
    with pytest.raises(KeyError):
        s.remove(42)
    union = s | {7}
    assert isinstance(union, Set) and set(union) == set(s) | {7}
    assert set(s & {1, 2}) == set(s) & {1, 2}
    assert s.isdisjoint({100}) and not s.isdisjoint(set(s))
    s.clear()
    assert len(s) == 0 and list(s) == []
    with pytest.raises(KeyError):
        s.pop()
    assert "text" not in ints(1)  # an item of another type is in no such set


def test_set_empty_and_set_in_compiled_code():
    @njit
    def made_inside(n):
        evens = typed.Set.empty(types.int64)
        typed_by_use = typed.Set()
        for i in range(n):
            evens.add(2 * i)
            typed_by_use.add(i * 0.5)
        return evens, typed_by_use, typed.Set(np.arange(n) % 3)

    evens, halves, residues = made_inside(5)
    assert all(isinstance(made, Set) for made in (evens, halves, residues))
    assert set(evens) == {0, 2, 4, 6, 8} and set(halves) == {i * 0.5 for i in range(5)}
    assert set(residues) == {0, 1, 2}
    assert ember.typeof(evens) == types.SetType(types.int64)


FLOAT_SET = types.SetType(types.float64)


def test_set_type_call_and_new_set_in_compiled_code():
    from ember.typed import setobject

    @njit
    def made(n):
        called, made_new = FLOAT_SET(), setobject.new_set(types.int64)
        for i in range(n):
            called.add(i / 4)
            made_new.add(i % 2)
        return called, made_new

    called, made_new = made(6)
    assert ember.typeof(called) == FLOAT_SET and set(called) == {i / 4 for i in range(6)}
    assert ember.typeof(made_new) == types.SetType(types.int64) and set(made_new) == {0, 1}


def test_set_operations_in_compiled_code_match_cpython():
    @njit
    def operations(a, b):
        union = a | b
        common = a & b
        only_a = a - b
        either = a ^ b
        a.update(b)
        return union, common, only_a, either, a <= union, a == union, 3 in a, sorted(a)

    a, b = ints(1, 2, 3), ints(3, 4)
    got = operations(a, b)
    expected = operations.py_func({1, 2, 3}, {3, 4})
    assert [set(x) for x in got[:4]] == list(expected[:4])
    assert got[4:] == expected[4:]


def test_bad_uses_raise_clear_errors():
    with pytest.raises(TypingError):
        ints(1).add(2.5)  # as Numba: a float does not safely cast to int64
    with pytest.raises(TypeError, match="no item type yet"):
        same(typed.Set())
    with pytest.raises(TypeError, match="no hash"):
        typed.Set.empty(types.List(types.int64))


def test_set_operations_take_sets_only():
    @njit
    def intersect(a, b):
        return a & b

    with pytest.raises(TypingError, match="All arguments must be Sets"):
        intersect(ints(1, 2), (1, 2, 3))
    with pytest.raises(TypingError, match="All Sets must be of the same type"):
        intersect(ints(1, 2), typed.Set(["a"]))


def test_pickle_round_trip():
    s = typed.Set(["x", "y"])
    again = pickle.loads(pickle.dumps(s))
    assert isinstance(again, Set) and set(again) == {"x", "y"}
    assert ember.typeof(again) == ember.typeof(s)


def test_each_item_type_has_its_own_class():
    assert type(ints(1)) is class_for(types.SetType(types.int64))
    assert type(typed.Set(["a"])) is not type(ints(1)) and type(typed.Set()) is Set


def test_disabled_jit_makes_plain_sets(monkeypatch):
    monkeypatch.setattr(config, "DISABLE_JIT", True)
    assert typed.Set() == set() and type(typed.Set()) is set
    assert type(typed.Set([1, 2])) is set and typed.Set([1, 2]) == {1, 2}
    assert type(typed.Set.empty(types.int64)) is set


def test_nothing_is_leaked():
    @njit
    def churn(s, n):
        copy = typed.Set.empty(types.int64)
        for i in range(n):
            s.add(i)
            copy.add(-i)
        return copy | s

    churn(ints(1), 2)
    same(typed.Set(["a"]))
    before = live_blocks()
    for _ in range(300):
        s = ints(1, 2)
        combined = churn(s, 4)
        s.discard(1)
        words = typed.Set(["a", "bc"])
        words.add("d")
        same(words).pop()
        del s, combined, words
    assert live_blocks() == before
