"""A dict compared with a value of another kind (number, str, None, tuple, list, set) is
never equal, as in CPython, rather than a typing error."""

import pytest

from ember import njit


def _compare(n, other):
    table = {}
    for i in range(n):
        table[i] = float(i)
    return table == other, table != other, other == table, other != table


@pytest.mark.parametrize("other", [1, (1,), "x", None, 2.5, [1], {1}, True])
def test_dict_against_other_kinds_matches_cpython(other):
    assert njit(_compare)(3, other) == _compare(3, other)
