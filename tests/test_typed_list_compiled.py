"""`ember.typed.List()`, `List(iterable)` and `List.empty_list(item_type)` inside compiled code
(Numba's spellings), compared with CPython running the same function on plain lists."""

from __future__ import annotations

import pytest

from ember import float64, njit, typed, types


def appended(n):
    xs = typed.List()
    for i in range(n):
        xs.append(i * 0.5)
    total = 0.0
    for x in xs:
        total += x
    return len(xs), total


def of_iterable(n):
    return list(typed.List(range(n))), list(typed.List([1.5, 2.5]))


def empty_of_type(n):
    xs = typed.List.empty_list(float64)
    ys = typed.List.empty_list(types.int64, 8)
    for i in range(n):
        xs.append(i / 2)
        ys.append(i)
    return list(xs), list(ys)


@pytest.mark.parametrize("func", [appended, of_iterable, empty_of_type])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_typed_list_in_compiled_code(func, n):
    expected = func(n)  # CPython runs typed.List as the Python list it is
    assert njit(func)(n) == expected
