"""Lists in nopython mode (ember/types/lists.py, ember/lowering/lists.py,
ember/library/containers/lists.py): every jitted function must give what its own `py_func` gives in
CPython, in value and type."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.runtime
from ember import njit
from ember.errors import TypingError


def same(got, expected) -> bool:
    """Equal values of the same Python types, through lists and tuples; arrays by dtype."""
    if isinstance(expected, np.ndarray):
        return (
            isinstance(got, np.ndarray)
            and got.dtype == expected.dtype
            and got.shape == expected.shape
            and np.array_equal(got, expected)
        )
    if type(got) is not type(expected):
        return False
    if isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(map(same, got, expected))
    return got == expected


def check(func, *args, same_message=True):
    """The jitted result equals CPython's, or both raise the same exception (and message:
    compiled code raises constant messages, so not where CPython's names the value)."""
    try:
        expected = func.py_func(*args)
    except Exception as error:  # noqa: BLE001 - compared with the jitted error below
        with pytest.raises(type(error)) as raised:
            func(*args)
        assert str(raised.value) == str(error) or not same_message
        return
    got = func(*args)
    assert same(got, expected), (got, expected)


# ---------------------------------------------------------------------------- building


@njit
def the_example(n):
    xs = []
    for i in range(n):
        if i % 3:
            xs.append(i * 0.5)
    total = 0.0
    for x in xs:
        total += x
    return np.array(xs), len(xs), total, xs[-1]


@pytest.mark.parametrize("n", [2, 3, 10, 100])
def test_empty_list_typed_by_append(n):
    check(the_example, n)


@njit
def displays(a, b):
    return [a, b], [a, b, 3.5, 4.5], [[a], [b, a]], [(a, b), (b, a)], [True, a > b]


@pytest.mark.parametrize(("a", "b"), [(1.5, 2.5), (-1.0, 0.0), (0.0, -0.0)])
def test_displays(a, b):
    check(displays, a, b)


@njit
def mixed_display(n):
    return [n, 2.5, True]


def test_display_items_unify_to_one_type():
    assert same(mixed_display(1), [1.0, 2.5, 1.0])


@njit
def from_iterables(n):
    made = list()
    made.append(n)
    return list(range(n)), list(range(n, 0, -2)), made, list([n, n])


@pytest.mark.parametrize("n", [0, 1, 5])
def test_list_constructor(n):
    check(from_iterables, n)


@njit
def from_array(a):
    return list(a)


def test_list_of_array():
    assert from_array(np.arange(4.0)) == [0.0, 1.0, 2.0, 3.0]
    assert from_array(np.arange(0)) == []


@njit
def refined_by_store(kind, value):
    xs = []
    if kind == 0:
        xs.append(value)
    elif kind == 1:
        xs.insert(0, value)
    else:
        xs.extend([value, value])
    return xs


@pytest.mark.parametrize("kind", [0, 1, 2])
def test_empty_list_typed_by_insert_and_extend(kind):
    check(refined_by_store, kind, 2.5)


# ---------------------------------------------------------------------------- items


@njit
def get(xs_len, index):
    xs = list(range(xs_len))
    return xs[index]


@pytest.mark.parametrize("index", [-5, -4, -1, 0, 3, 4, 100])
def test_getitem_negative_and_out_of_range(index):
    check(get, 4, index)


def test_index_error_message():
    with pytest.raises(IndexError, match="list index out of range"):
        get(0, 0)


@njit
def put(index, value):
    xs = [1.0, 2.0, 3.0]
    xs[index] = value
    return xs


@pytest.mark.parametrize("index", [-4, -3, -1, 0, 2, 3])
def test_setitem(index):
    check(put, index, 9.5)


@njit
def slices(n, a, b):
    xs = list(range(n))
    return xs[a:b], xs[::-1], xs[a::2], xs[:b], xs[a:b:-1], xs[:]


@given(st.integers(0, 8), st.integers(-10, 10), st.integers(-10, 10))
@settings(max_examples=60, deadline=None)
def test_slices_like_python(n, a, b):
    check(slices, n, a, b)


# ---------------------------------------------------------------------------- methods


@njit
def grow_and_shrink(n, position):
    xs = [1, 2, 3]
    xs.extend([4, 5])
    xs.insert(position, n)
    last = xs.pop()
    chosen = xs.pop(position if position < len(xs) else 0)
    xs.extend(xs)
    return xs, last, chosen, len(xs)


@pytest.mark.parametrize("position", [-10, -1, 0, 2, 10])
def test_append_extend_insert_pop(position):
    check(grow_and_shrink, 7, position)


@njit
def pop_all(n, index):
    xs = list(range(n))
    out = []
    for _ in range(n + 1):
        out.append(xs.pop(index))
    return out


@pytest.mark.parametrize(("n", "index"), [(0, -1), (3, -1), (3, 0), (3, 5)])
def test_pop_errors(n, index):
    check(pop_all, n, index)


@njit
def ordering(a, b, c):
    xs = [a, b, c, a]
    ys = xs.copy()
    ys.reverse()
    zs = xs.copy()
    zs.sort()
    zs.append(-1.0)
    return xs, ys, zs, xs == ys, xs == xs.copy(), xs.index(b), xs.count(a)


@given(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6), st.floats(-1e6, 1e6))
@settings(max_examples=50, deadline=None)
def test_copy_reverse_sort(a, b, c):
    check(ordering, a, b, c)


@njit
def clear_and_reuse(n):
    xs = [[1.0], [2.0]]
    xs.clear()
    xs.append([float(n)])
    return xs


def test_clear():
    check(clear_and_reuse, 3)


@njit
def find(xs_len, value):
    xs = list(range(xs_len))
    return value in xs, value not in xs, xs.index(value)


@pytest.mark.parametrize("value", [0, 2, 9])
def test_membership_and_index(value):
    check(find, 5, value, same_message=False)


@njit
def append_then_pop_front(values, pops):
    xs = []
    for v in values:
        xs.append(v)
    popped = []
    for _ in range(min(pops, len(xs))):
        popped.append(xs.pop(0))
    return xs, popped


@given(st.lists(st.integers(-(2**62), 2**62), max_size=30), st.integers(0, 40))
@settings(max_examples=60, deadline=None)
def test_append_then_pop_front_matches_python(items, pops):
    values = np.array(items, dtype=np.int64)
    expected = append_then_pop_front.py_func(list(items), pops)
    assert same(append_then_pop_front(values, pops), expected)


# ---------------------------------------------------------------------------- operators


@njit
def operators(n):
    xs = [1, 2, 3]
    ys = xs + [4]
    zs = xs * n
    ws = n * [0.5]
    alias = xs
    xs += [10]
    return ys, zs, ws, alias, sum(xs), min(xs), max(xs)


@pytest.mark.parametrize("n", [-1, 0, 1, 3])
def test_operators_and_reductions(n):
    check(operators, n)


@njit
def extreme_of_empty(which):
    xs = [1.0]
    xs.pop()
    return min(xs) if which else max(xs)


@pytest.mark.parametrize("which", [0, 1])
def test_min_max_of_empty(which):
    check(extreme_of_empty, which)


@njit
def iterate(n):
    xs = list(range(n))
    ys = [1.5] * n
    total = 0.0
    for i, x in enumerate(xs):
        total += i * x
    for a, b in zip(xs, ys):
        total += a * b
    for x in xs:  # the loop sees items appended while it runs, as in Python
        if x < n:
            xs.append(x + n)
    return total, xs


@pytest.mark.parametrize("n", [0, 1, 6])
def test_iteration(n):
    check(iterate, n)


# ---------------------------------------------------------------------------- nesting


@njit
def nested(n):
    rows = [[1, 2], [3]]
    rows[1].append(n)
    first = rows[0]
    first.append(9)  # the same list as rows[0]
    return rows, len(rows[0])


def test_lists_of_lists_share_their_items():
    check(nested, 4)


@njit
def list_of_arrays(n):
    arrays = [np.zeros(2), np.ones(2)]
    arrays.append(np.arange(2.0) * n)
    total = 0.0
    for a in arrays:
        total += a.sum()
    return total, len(arrays)


def test_list_of_arrays():
    assert list_of_arrays(3) == (5.0, 3)


@njit
def arrays_out(a):
    return [a * 2, a[:1]], (a + 1, [1.5, 2.5])


def test_returned_lists_of_arrays_and_arrays_beside_lists():
    before = ember.runtime.stats()
    got = arrays_out(np.arange(3.0))
    assert same(got, arrays_out.py_func(np.arange(3.0)))
    del got
    gc.collect()
    assert ember.runtime.stats().live == before.live


# ---------------------------------------------------------------------------- NumPy


@njit
def to_arrays(x):
    return (
        np.array([x, 2.0, 3.0]),
        np.asarray([1, 2, 3]),
        np.array([True, False]),
        np.array([1j, x]),
        np.array([[x, 2.0], [3.0, 4.0]]),
        np.array([1, 2], dtype=np.float32),
    )


def test_np_array_of_lists():
    got = to_arrays(1.5)
    expected = to_arrays.py_func(1.5)
    for g, e in zip(got, expected):
        assert same(g, e)


@njit
def ragged(n):
    return np.array([[1.0, 2.0], [3.0] * n])


def test_np_array_of_ragged_lists():
    assert same(ragged(2), ragged.py_func(2))
    with pytest.raises(ValueError, match="inhomogeneous"):
        ragged(1)


# ---------------------------------------------------------------------------- errors


@njit
def never_typed(n):
    xs = []
    return len(xs) + n


def test_untyped_empty_list_is_a_typing_error():
    with pytest.raises(TypingError, match="Cannot infer the item type of the empty list 'xs'"):
        never_typed(1)


@njit
def wrong_item(n):
    xs = [1, 2]
    xs.append(n * 0.5)
    return xs


def test_storing_a_wider_item_widens_the_display_as_numba_does():
    result = wrong_item(1)
    assert result == wrong_item.py_func(1)
    assert all(isinstance(item, float) for item in result)


@njit
def comprehension(n):
    return [i for i in range(n)]


def test_list_comprehension_builds_the_list():
    assert comprehension(3) == comprehension.py_func(3) == [0, 1, 2]


@njit
def identity(xs):
    return xs


def test_python_lists_are_passed_in():
    assert identity([1, 2]) == [1, 2]


# ---------------------------------------------------------------------------- memory


@njit
def churn(n):
    xs = []
    for i in range(n):
        xs.append(i * 1.5)
    head = xs[: n // 2]
    head.extend(xs)
    head.insert(0, -1.0)
    head.pop()
    nested = [head, xs[1:], [0.5]]
    nested[2] = head.copy()
    doubled = xs + xs
    for row in nested:
        doubled += row
    return np.array(doubled).sum() + np.array([[1.0, 2.0], [3.0, 4.0]]).sum() + len(nested)


def test_lists_leave_no_live_allocations():
    churn(5)  # compile first
    gc.collect()
    before = ember.runtime.stats()
    for i in range(12_000):
        churn(i % 40)
    after = ember.runtime.stats()
    assert after.alloc - before.alloc > 12_000
    assert after.live == before.live


def test_returned_and_raising_lists_are_freed():
    before = ember.runtime.stats()
    for n in range(200):
        the_example(n + 2)
        with pytest.raises(IndexError):
            get(n % 3, 5)
        with pytest.raises(ValueError):
            ragged(1)
    assert ember.runtime.stats().live == before.live


def _arrays_appended_to_an_empty_list(n):
    parts = []  # its item type comes from the appends below
    for k in range(n):
        parts.append(np.full(k + 1, k * 1.0))
    total = 0.0
    for part in parts:
        total += part.sum()
    return total, len(parts)


def _arrays_inserted_and_extended(n):
    first = []
    first.insert(0, np.ones(n))
    second = list()
    second.extend(first)
    second.append(np.zeros(n))
    return len(second), second[0].sum() + second[1].sum()


@pytest.mark.parametrize("func", [_arrays_appended_to_an_empty_list, _arrays_inserted_and_extended])
def test_arrays_stored_into_an_untyped_empty_list_are_released(func):
    """`[]` gets its item type after it is made: its items must still be released with it."""
    jitted = njit(func)
    assert jitted(6) == func(6)
    before = ember.runtime.stats().live
    for _ in range(200):
        jitted(6)
    assert ember.runtime.stats().live == before


@njit
def grow_across_storage_kinds(n):
    """Short storage is a small block, 4 KiB or more an aligned one: growth moves the items
    from one kind to the other; inner lists stay small."""
    values = []
    rows = []
    for i in range(n):
        values.append(i * 0.5)
        rows.append([i, -i])
    values.insert(3, -1.0)
    last = values.pop()
    total = 0.0
    for v in values:
        total += v
    for r in rows:
        total += r[0] + r[1] * 2
    return total, last, len(values), values[n // 2]


@pytest.mark.parametrize("n", [1, 7, 511, 512, 513, 3000])
def test_items_survive_growth_across_storage_kinds_and_are_freed(n):
    expected = grow_across_storage_kinds.py_func(n)
    gc.collect()
    before = ember.runtime.stats()
    assert grow_across_storage_kinds(n) == expected
    gc.collect()
    assert ember.runtime.stats().live == before.live


@njit
def numbers_of_every_kind(n):
    return (
        [i * 0.5 for i in range(n)],
        [i - n for i in range(n)],
        [i % 3 == 0 for i in range(n)],
        [np.uint8(i) for i in range(n)],
        [np.float32(i) / np.float32(3) for i in range(n)],
    )


@pytest.mark.parametrize("n", [0, 1, 300, 5000])
def test_returned_lists_of_numbers_box_as_python_numbers(n):
    # Lists of numbers box in one read of their storage (ember/dispatcher/pycall.py).
    floats, ints, flags, small, singles = numbers_of_every_kind(n)
    assert floats == [i * 0.5 for i in range(n)] and all(type(v) is float for v in floats)
    assert ints == [i - n for i in range(n)] and all(type(v) is int for v in ints)
    assert flags == [i % 3 == 0 for i in range(n)] and all(type(v) is bool for v in flags)
    assert small == [i % 256 for i in range(n)] and all(type(v) is int for v in small)
    assert singles == [float(np.float32(i) / np.float32(3)) for i in range(n)]
