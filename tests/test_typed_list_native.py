"""`ember.typed.List` owns a native list: the same operations as a Python list from Python,
lent to compiled code without copying (its changes are seen at once), and nothing leaked."""

from __future__ import annotations

import gc
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit, typed


def live_blocks() -> int:
    gc.collect()
    return ember.runtime.stats().live


def apply_operations(items, operations):
    """Run the same edits on any mutable sequence; the observable results, in order."""
    seen = []
    for name, argument in operations:
        if name == "append":
            items.append(argument)
        elif name == "insert":
            items.insert(argument, float(argument))
        elif name == "pop" and len(items):
            seen.append(items.pop(argument % len(items)))
        elif name == "set" and len(items):
            items[argument % len(items)] = argument * 0.5
        elif name == "del" and len(items):
            del items[-(argument % len(items)) - 1]
        elif name == "extend":
            items.extend([argument, argument + 0.25])
        elif name == "slice":
            seen.append(list(items[argument % 3 :: 2]))
        elif name == "setslice":
            items[1:3] = [argument * 1.0]
        elif name == "sort":
            items.sort()
        elif name == "reverse":
            items.reverse()
        seen.append(len(items))
    seen.append(list(items))
    return seen


operation = st.tuples(
    st.sampled_from(
        ["append", "insert", "pop", "set", "del", "extend", "slice", "setslice", "sort", "reverse"]
    ),
    st.integers(-6, 6),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), max_size=6), st.lists(operation, max_size=12))
def test_python_side_operations_match_a_python_list(start, operations):
    expected = apply_operations(list(start), operations)
    made = typed.List.empty_list(ember.float64)
    made.extend(start)
    assert apply_operations(made, operations) == expected


def test_reads_comparisons_and_representation():
    xs = typed.List([3, 1, 2])
    assert ember.typeof(xs) == ember.types.ListType(ember.int64)
    assert len(xs) == 3 and xs[0] == 3 and xs[-1] == 2 and list(xs) == [3, 1, 2]
    assert 1 in xs and 5 not in xs and xs.index(2) == 2 and xs.count(1) == 1
    assert xs == [3, 1, 2] and [3, 1, 2] == xs and xs != [3, 1]
    assert str(xs) == "[3, 1, 2]" and repr(xs) == "ListType[int64]([3, 1, 2])"
    assert typed.List([1, 2.5]) == [1.0, 2.5]  # one item type: the common one
    with pytest.raises(IndexError):
        xs[3]
    with pytest.raises(IndexError):
        typed.List().pop()
    assert pickle.loads(pickle.dumps(xs)) == xs


def test_strings_tuples_and_nested_lists():
    words = typed.List(["héllo", "wörld", "ok"])
    words.append("∑")
    assert list(words) == ["héllo", "wörld", "ok", "∑"] and words[1] == "wörld"
    pairs = typed.List()
    pairs.append((1, 2.5))
    pairs.append((3, -1.0))
    assert list(pairs) == [(1, 2.5), (3, -1.0)]
    nested = typed.List([typed.List([1.0]), typed.List([2.0, 3.0])])
    assert [list(inner) for inner in nested] == [[1.0], [2.0, 3.0]]


def grow_and_sum(xs, n):
    for i in range(n):
        xs.append(i * 0.5)
    xs[0] = -1.0
    total = 0.0
    for x in xs:
        total += x
    return total


def test_compiled_code_changes_the_callers_list_in_place():
    compiled = njit(grow_and_sum)
    xs, py_xs = typed.List([10.0, 20.0]), [10.0, 20.0]
    assert compiled(xs, 3) == grow_and_sum(py_xs, 3)
    assert list(xs) == py_xs
    xs.append(99.0)  # Python's edits are seen by the next call
    py_xs.append(99.0)
    assert compiled(xs, 1) == grow_and_sum(py_xs, 1)
    assert list(xs) == py_xs


def test_a_list_built_in_compiled_code_passes_back_in():
    @njit
    def build(n):
        out = typed.List.empty_list(ember.int64)
        for i in range(n):
            out.append(i * i)
        return out

    @njit
    def total(xs):
        return sum(xs)

    made = typed.List(build(5))  # returned as a Python list, as Numba returns reflected lists
    assert made == [0, 1, 4, 9, 16] and total(made) == 30


def test_numbers_in_bulk_round_trip_exactly():
    values = np.random.default_rng(0).standard_normal(10_000)
    xs = typed.List(values.tolist())
    assert np.array_equal(np.array(list(xs)), values)
    ints = typed.List(range(-5, 5))
    assert list(ints) == list(range(-5, 5))


def test_nothing_is_leaked():
    compiled = njit(grow_and_sum)
    compiled(typed.List([1.0]), 1)
    before = live_blocks()
    for _ in range(2000):
        xs = typed.List([1.0, 2.0])
        compiled(xs, 2)
        xs.pop()
        xs[0:1] = [5.0]
        words = typed.List(["a", "bc"])
        words.append("d")
        del xs, words
    assert live_blocks() == before


def test_typed_lists_returned_to_python_have_their_lengths_and_items():
    from ember import njit
    from ember.typed import List

    @njit
    def squares(n):
        out = List()
        for i in range(n):
            out.append(i * i)
        return out

    for n in (0, 1, 2, 7, 100):
        got = squares(n)
        assert type(got) is not list and len(got) == n
        assert list(got) == [i * i for i in range(n)]
