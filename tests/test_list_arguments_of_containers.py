"""Python lists of NumPy arrays, of tuples and of strings passed to compiled code (Numba's
reflected lists, ember/dispatcher/reflected_lists.py): results and the caller's list afterwards
match CPython running the same function on a copy; writes through arrays reach the caller's
arrays; nothing leaks; lists that cannot pass are refused clearly."""

from __future__ import annotations

import copy
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from ember.errors import TypingError
from ember.runtime import stats


def _run_both(func, items, *args):
    """((result, list after), (result, list after)) of the compiled function and of CPython,
    each on its own deep copy of `items`."""
    compiled_items, python_items = copy.deepcopy(items), copy.deepcopy(items)
    return (func(compiled_items, *args), compiled_items), (
        func.py_func(python_items, *args),
        python_items,
    )


def _same(left, right) -> bool:
    """Equal values, arrays compared by dtype, shape and items, tuples and lists item-wise
    (a NumPy scalar is its Python number, as compiled code returns it)."""
    left, right = (x.item() if isinstance(x, np.generic) else x for x in (left, right))
    if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
        return (
            isinstance(left, np.ndarray)
            and isinstance(right, np.ndarray)
            and left.dtype == right.dtype
            and left.shape == right.shape
            and np.array_equal(left, right)
        )
    if isinstance(left, (list, tuple)):
        return (
            type(left) is type(right)
            and len(left) == len(right)
            and all(_same(a, b) for a, b in zip(left, right))
        )
    return type(left) is type(right) and left == right


def _assert_like_python(func, items, *args):
    compiled, expected = _run_both(func, items, *args)
    assert _same(compiled, expected), (compiled, expected)


def _live_blocks_after(func, make_args, calls: int = 50) -> int:
    """How many more runtime blocks are alive after `calls` more calls than after one."""
    func(*make_args())
    before = stats().live
    for _ in range(calls):
        func(*make_args())
    return stats().live - before


# ---------------------------------------------------------------------------- lists of arrays


@njit
def _sum_of_sums(arrays):
    total = 0.0
    for a in arrays:
        total += a.sum()
    return total


@njit
def _index_and_len(arrays, i):
    return arrays[i][0] + len(arrays) * arrays[-1][-1]


@njit
def _write_through(arrays, value):
    for a in arrays:
        a[0] = value
    arrays[1][1] = value * 2
    return len(arrays)


@njit
def _append_new(arrays):
    arrays.append(np.zeros(2) + len(arrays))
    return len(arrays)


@njit
def _replace_and_pop(arrays):
    arrays[0] = arrays[0] * 3.0
    last = arrays.pop()
    return last.sum()


@njit
def _grid_total(grids):
    total = 0
    for g in grids:
        for i in range(g.shape[0]):
            for j in range(g.shape[1]):
                total += g[i, j] * (i + 1)
    return total


def _arrays():
    return [np.arange(3.0), np.arange(4.0) + 0.5, np.ones(2)]


@pytest.mark.parametrize("func", [_sum_of_sums, _append_new, _replace_and_pop])
def test_arrays_like_python(func):
    _assert_like_python(func, _arrays())


def test_indexing_and_len():
    _assert_like_python(_index_and_len, _arrays(), 1)
    _assert_like_python(_index_and_len, _arrays(), -3)


def test_two_dimensional_int_arrays():
    grids = [np.arange(6).reshape(2, 3), np.arange(4).reshape(2, 2) - 7]
    _assert_like_python(_grid_total, grids)


def test_writes_reach_the_callers_arrays():
    arrays = _arrays()
    expected = copy.deepcopy(arrays)
    _write_through.py_func(expected, 9.0)
    originals = list(arrays)
    assert _write_through(arrays, 9.0) == 3
    assert all(a is b for a, b in zip(arrays, originals))  # the same objects, changed
    assert _same(arrays, expected)


def test_an_appended_array_is_seen_by_the_caller_and_owns_its_memory():
    arrays = _arrays()
    first = arrays[0]
    assert _append_new(arrays) == 4
    assert arrays[0] is first and len(arrays) == 4
    appended = arrays[3]
    assert _same(appended, np.zeros(2) + 3)
    appended += 1  # its memory is alive and writable after the call
    assert _same(appended, np.full(2, 4.0))


def test_returning_an_item_returns_that_array():
    @njit
    def second(arrays):
        return arrays[1]

    arrays = _arrays()
    assert second(arrays) is arrays[1]


def test_reference_counts_of_the_arrays_are_unchanged():
    arrays = _arrays()
    counts = [sys.getrefcount(a) for a in arrays]
    for _ in range(20):
        _sum_of_sums(arrays)
        _write_through(arrays, 1.0)
    assert [sys.getrefcount(a) for a in arrays] == counts
    first_three = list(arrays)
    _append_new(arrays)  # the list is rewritten: the arrays it kept are the same objects
    assert [a is b for a, b in zip(arrays, first_three)] == [True] * 3
    del first_three
    assert [sys.getrefcount(a) for a in arrays[:3]] == [count + 1 for count in counts]  # +slice


def test_lists_of_arrays_do_not_leak():
    assert _live_blocks_after(_sum_of_sums, lambda: (_arrays(),)) == 0
    assert _live_blocks_after(_replace_and_pop, lambda: (_arrays(),)) == 0
    _append_new(_arrays())
    before = stats().live
    kept = [_arrays() for _ in range(50)]
    for arrays in kept:
        _append_new(arrays)
    assert stats().live == before + 50  # each appended array lives on in its list
    kept.clear()
    del arrays
    assert stats().live == before


@pytest.mark.parametrize(
    ("arrays", "named"),
    [
        ([np.ones(3), np.ones(3, dtype=np.int64)], "item 1 is array(int64, 1d, C)"),
        ([np.ones(3), np.ones((2, 2))], "item 1 is array(float64, 2d, C)"),
        ([np.ones(3), np.ones(6)[::2]], "item 1 is array(float64, 1d, A)"),
    ],
)
def test_arrays_of_other_types_are_refused(arrays, named):
    with pytest.raises(TypeError, match="heterogeneous list: " + re.escape(named)):
        _sum_of_sums(arrays)


# ---------------------------------------------------------------------------- lists of tuples


@njit
def _dot_pairs(pairs):
    total = 0.0
    for x, y in pairs:
        total += x * y
    return total


@njit
def _edit_pairs(pairs, k):
    first = pairs[0]
    pairs[0] = (first[0] + k, first[1] * 2)
    pairs.append((k, first[1]))
    return len(pairs)


@njit
def _labels(rows):
    out = ""
    for name, count in rows:
        out += name * count
    rows.append(("z", 1))
    return out


@pytest.mark.parametrize(
    ("pairs", "k"),
    [([(1.0, 2.0), (3.0, 4.0)], 3.0), ([(1, 2.0), (3, 4.5), (-2, 0.25)], 3), ([(1, 2)], -4)],
)
def test_tuples_like_python(pairs, k):
    _assert_like_python(_dot_pairs, pairs)
    _assert_like_python(_edit_pairs, pairs, k)


def test_int_fields_stay_ints_and_unchanged_tuples_stay_the_same_objects():
    pairs = [(1, 2.0), (3, 4.5)]
    second = pairs[1]
    _edit_pairs(pairs, 5)
    assert pairs == [(6, 4.0), (3, 4.5), (5, 2.0)] and pairs[1] is second
    assert [type(x) for x in pairs[0]] == [int, float]


def test_tuples_holding_strings():
    _assert_like_python(_labels, [("ab", 2), ("c", 3)])


def test_tuples_of_other_types_are_refused_without_leaking():
    with pytest.raises(TypeError, match=r"item 1 is Tuple\(float64, int64\)"):
        _dot_pairs([(1, 2.0), (3.5, 4)])
    # the string of the refused item was copied, then released
    assert _live_blocks_after(_refused_labels, lambda: ()) == 0


def _refused_labels():
    with pytest.raises(TypeError, match="heterogeneous list"):
        _labels([("a", 1), ("b", 2.5)])


def test_tuple_lists_do_not_leak():
    assert _live_blocks_after(_labels, lambda: ([("ab", 2), ("c", 3)],)) == 0
    assert _live_blocks_after(_edit_pairs, lambda: ([(1, 2.0)], 1)) == 0


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False)),
        min_size=1,
        max_size=8,
    ),
    st.integers(-50, 50),
)
def test_tuples_like_python_for_any_pairs(pairs, k):
    _assert_like_python(_edit_pairs, pairs, k)
    _assert_like_python(_dot_pairs, pairs)


# ---------------------------------------------------------------------------- strings, numbers


@njit
def _shout_some(words):
    for i in range(0, len(words), 2):
        words[i] = words[i].upper()
    return len(words)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=5), min_size=1, max_size=6))
def test_strings_like_python(words):
    _assert_like_python(_shout_some, words)


def test_unchanged_items_are_kept_and_a_nan_is_itself():
    words = ["ab", "CD", "ef"]
    kept = words[1]
    _shout_some(words)
    assert words == ["AB", "CD", "EF"] and words[1] is kept

    @njit
    def read(xs):
        return xs[0]

    floats = [float("nan"), 1.0]
    nan = floats[0]
    read(floats)
    assert floats[0] is nan


def test_string_lists_do_not_leak():
    assert _live_blocks_after(_shout_some, lambda: (["ab", "cd", "é"],)) == 0


# ---------------------------------------------------------------------------- refused lists


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([], "empty list"),
        ([np.ones(2), 1.0], "items of one type .*holds ndarray and float"),
        ([{1: 2}], "dict cannot be passed"),
    ],
)
def test_lists_that_cannot_pass(items, message):
    # (lists of lists: test_containers_suite2.py; lists of tuples holding lists pass: suite3)
    with pytest.raises((TypingError, TypeError), match=message):
        _sum_of_sums(items)


# ---------------------------------------------------------------------------- the native entry

_MANY = 40  # calls: beyond the count after which the dispatcher installs its native entry


@njit
def _total_and_grow(xs, k):
    total = xs[0] * 0
    for x in xs:
        total += x
    xs.append(xs[0] * k)
    return total


def test_many_calls_with_lists_of_several_types_like_python():
    cases = [[1, 2, 3], [0.5, 1.5], [True, 2], [1j, 2.0], ["ab", "c"]]
    for round_ in range(_MANY):
        for items in cases:
            _assert_like_python(_total_and_grow, items, 1 + round_ % 3)


def test_many_calls_with_ints_in_a_list_of_floats_keep_them():
    @njit
    def total(xs):
        return sum(xs)

    for _ in range(_MANY):  # the native entry leaves such lists to the Python path
        mixed = [1, 2.5]
        assert total(mixed) == 3.5 and type(mixed[0]) is int
        assert total([0.5, 2.5]) == 3.0


def test_many_calls_alternating_python_and_typed_lists():
    from ember import typed

    for round_ in range(_MANY):
        python_list = [1.0, float(round_)]
        typed_list = typed.List([1.0, float(round_)])
        assert _total_and_grow(python_list, 2) == 1.0 + round_
        assert python_list == [1.0, float(round_), 2.0]
        assert _total_and_grow(typed_list, 3) == 1.0 + round_
        assert list(typed_list) == [1.0, float(round_), 3.0]
    slow_calls = _total_and_grow._slow_calls
    for _ in range(10):
        _total_and_grow([2.0], 1)
        _total_and_grow(typed.List([2.0]), 1)
    assert _total_and_grow._slow_calls == slow_calls  # both took the native entry


@njit
def _two_lists(first, second, n):
    first.append(len(second[0]) * n)
    return len(first) + len(second)


def test_a_later_list_of_other_items_releases_the_earlier_copy():
    for _ in range(_MANY):  # the native entry knows (list(int64), list(array), int64)
        first = [1, 2]
        assert _two_lists(first, [np.ones(2)], 3) == 4 and first == [1, 2, 6]
    # an int array: the native entry copies `first`, then sees `second` is not its type
    assert (
        _live_blocks_after(lambda: _two_lists([1, 2], [np.arange(2)], 3), lambda: (), calls=_MANY)
        == 0
    )
    _assert_like_python(_two_lists, [1, 2], [np.arange(2)], 3)


@njit
def _append_then_raise(xs):
    xs.append(xs[0])
    raise ValueError("refused")


def test_an_exception_on_the_native_path_still_writes_back_and_releases():
    for _ in range(_MANY):
        words = ["a", "bc"]
        with pytest.raises(ValueError, match="refused"):
            _append_then_raise(words)
        assert words == ["a", "bc", "a"]
    assert _live_blocks_after(_refused_append, lambda: (), calls=_MANY) == 0


def _refused_append():
    with pytest.raises(ValueError):
        _append_then_raise(["a", "bc"])


def test_lists_without_the_gil():
    grow = njit(nogil=True)(_total_and_grow.py_func)
    for _ in range(_MANY):
        _assert_like_python(grow, [np.ones(2), np.arange(2.0)], 2.0)


@njit
def _grow_and_return(xs):
    xs.append(xs[0])
    return xs


def test_a_list_returned_is_the_callers_list_as_in_numba():
    for _ in range(_MANY):  # the Python path first, then the native entry
        arrays = _arrays()
        assert _grow_and_return(arrays) is arrays and len(arrays) == 4
        assert arrays[3] is arrays[0]  # the very array appended, as Numba boxes it
    assert _live_blocks_after(_grow_and_return, lambda: (["a", "b"],), calls=_MANY) == 0
