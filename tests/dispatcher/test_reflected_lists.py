"""Python lists of numbers passed to compiled code: read, changed and appended to, with the
changes visible in the caller's list afterwards (Numba's reflected lists); nothing leaks."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import TypingError, njit
from ember.runtime import stats


@njit
def _edit(xs, k):
    total = 0
    for x in xs:
        total += x
    xs[0] = k
    xs.append(k * 2)
    return total


@njit
def _read(xs):
    best = xs[0]
    for x in xs:
        if x > best:
            best = x
    return best, len(xs)


@njit
def _shrink(xs):
    return xs.pop()


def _run_both(func, items, *args):
    """(result, list after) under CPython and under ember, on separate copies."""
    compiled_items, python_items = list(items), list(items)
    return (func(compiled_items, *args), compiled_items), (
        func.py_func(python_items, *args),
        python_items,
    )


@pytest.mark.parametrize(
    "items, k",
    [([1, 2, 3], 7), ([-5], 0), ([1.5, -2.25, 3.0], 0.5), ([2**62, -(2**62)], 2**61)],
)
def test_changes_are_written_back(items, k):
    compiled, expected = _run_both(_edit, items, k)
    assert compiled == expected
    assert [type(x) for x in compiled[1]] == [type(x) for x in expected[1]]


def test_reads_and_pops():
    assert _run_both(_read, [3, 9, -2])[0] == _run_both(_read, [3, 9, -2])[1]
    compiled, expected = _run_both(_shrink, [1.0, 2.0, 4.0])
    assert compiled == expected


def test_an_unchanged_list_keeps_its_objects():
    items = [1.5, 2]  # typed as floats; the int must stay an int when nothing changed
    assert _read(items) == (2, 2)
    assert items == [1.5, 2] and type(items[1]) is int


@pytest.mark.parametrize("bad, message", [([], "empty list"), ([1, "a"], "items of one type")])
def test_lists_that_cannot_pass(bad, message):
    with pytest.raises(TypingError, match=message):
        _read(bad)


def test_no_leak_over_many_calls():
    _edit([1, 2, 3], 4)
    before = stats()
    for _ in range(500):
        _edit([1, 2, 3], 4)
    after = stats()
    assert after.alloc - before.alloc == after.free - before.free


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**57), 2**57), min_size=1, max_size=20), st.integers(-100, 100))
def test_hypothesis_integer_lists(items, k):
    compiled, expected = _run_both(_edit, items, k)
    assert compiled == expected
