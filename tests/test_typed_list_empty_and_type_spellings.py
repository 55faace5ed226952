"""`List.empty_list(item_type)` and array type spellings (`types.float64[:]`) inside jitted
code, as Numba programs write them."""

import numpy as np

from ember import njit, types
from ember.typed import Dict, List


@njit
def halves(n):
    out = List.empty_list(types.float64)
    for i in range(n):
        out.append(i * 0.5)
    return out


@njit
def ragged(n):
    rows = List.empty_list(types.float64[:], n)
    for i in range(n):
        rows.append(np.arange(float(i)))
    blocks = List.empty_list(types.int32[:, ::1])
    blocks.append(np.ones((2, 3), np.int32))
    table = Dict.empty(key_type=types.int64, value_type=types.float64[:])
    for i in range(n):
        table[i] = rows[i] * 2
    total = 0.0
    for row in rows:
        total += row.sum()
    return len(rows), total, blocks[0].sum(), table[n - 1].sum()


def test_empty_list_of_a_scalar_type():
    assert list(halves(4)) == [0.0, 0.5, 1.0, 1.5]
    assert list(halves(0)) == []


def test_array_item_types_spelled_inside():
    n = 5
    expected_total = sum(np.arange(float(i)).sum() for i in range(n))
    assert ragged(n) == (n, expected_total, 6, np.arange(float(n - 1)).sum() * 2)
