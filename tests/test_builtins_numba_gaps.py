"""isinstance() and hasattr() decided while compiling give CPython's answers for the values
Numba's own tests pass: NumPy scalars are not Python ints or floats, a typed List is not a
list, a list or dict of mixed item types still is one, and every object has `__hash__`."""

import numpy as np
import pytest

from ember import njit, typed, types
from ember.errors import TypingError

CLASSES = (int, float, complex, str, list, tuple, bytes, set, range, np.int8, np.float32)


def _instances():
    return (
        1,
        2.3,
        4j,
        "5",
        [6],
        (7,),
        b"8",
        {9},
        None,
        (10, 11, 12),
        (13, "a", 14j),
        np.array([15, 16, 17]),
        np.int8(18),
        np.float32(19),
        typed.Dict.empty(types.unicode_type, types.float64),
        typed.List.empty_list(types.complex128),
    )


def _checker(cls):
    def is_instance(x):
        return isinstance(x, cls)

    return is_instance


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_isinstance_of_arguments_matches_cpython(cls):
    compiled = njit(_checker(cls))
    for value in _instances():
        assert compiled(value) == compiled.py_func(value), (cls, value)


def _mixed_containers():
    numbers = {1: 2, 3: 4}
    mixed = {"a": 10, "b": np.zeros(3)}
    items = [1, "x"]
    return (
        isinstance(numbers, dict),
        isinstance(mixed, dict),
        isinstance(mixed, tuple),
        isinstance(items, list),
        isinstance(items, tuple),
        isinstance((1, "x"), tuple),
    )


def test_lists_and_dicts_of_mixed_items_are_lists_and_dicts():
    assert njit(_mixed_containers)() == _mixed_containers()


def _has_hash(x):
    return hasattr(x, "__hash__"), hasattr(x, "__str__"), hasattr(x, "__not_an_attr__")


def test_hasattr_of_attributes_every_object_has():
    compiled = njit(_has_hash)
    for value in (1, 2.34, (5, 6, 7), np.ones(4), "ABC", typed.List.empty_list(types.int64)):
        assert compiled(value) == _has_hash(value)


def _zip_leaves_the_rest(n):
    rest = iter(range(7))
    front = list(zip(range(n), rest))
    return front, list(rest)


def _zip_strings(items):
    rest = iter(items)
    front = list(zip("ab", rest))
    return front, list(rest)


def test_zip_stops_at_the_first_exhausted_iterator_without_advancing_the_others():
    compiled = njit(_zip_leaves_the_rest)
    for n in (0, 3, 7, 9):
        assert compiled(n) == _zip_leaves_the_rest(n)
    strings = njit(_zip_strings)
    for items in (["p", "q", "r"], ["p"]):
        assert strings(list(items)) == _zip_strings(list(items))


def _tuple_extremes(pairs):
    return min(pairs), max(pairs), min(iter(pairs)), max((3, 1), (2, 9)), min((2, "b"), (2, "a"))


def _mixed_tuple_extremes():
    return max([(3, "b"), (3, "c"), (1, "z")]), min({(2, 1), (1, 5)})


def test_min_and_max_of_tuples_order_them_as_cpython():
    pairs = [(3, 4), (1, 2), (1, 1), (1, 2)]
    assert njit(_tuple_extremes)(pairs) == _tuple_extremes(pairs)
    assert njit(_mixed_tuple_extremes)() == _mixed_tuple_extremes()


def _empty_zip():
    count = 0
    for _ in zip():
        count += 1
    return count, len(list(zip()))


def test_zip_of_nothing_is_empty():
    assert njit(_empty_zip)() == _empty_zip()


def _tuple_sums(values, start):
    return sum(values, start), sum(values, start=start), sum(values)


@pytest.mark.parametrize(
    "values, start", [((1, 2, 3j), 0), ((1, 2, 3), 10), ((1.5, 2), 1), ((1, True), 2.5), ((), 4)]
)
def test_sum_of_a_tuple_from_a_start_matches_cpython(values, start):
    assert njit(_tuple_sums)(values, start) == _tuple_sums(values, start)


def _rows_sum(rows, start):
    return sum(rows, start=start), sum(rows, start)


def test_sum_of_array_rows_from_an_array_start_matches_cpython():
    rows = np.arange(12.0).reshape(4, 3)
    start = np.array([10.0, np.inf, -1.0])
    got, expected = njit(_rows_sum)(rows, start), _rows_sum(rows, start)
    for mine, theirs in zip(got, expected):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(start, [10.0, np.inf, -1.0])  # left as it was


def test_min_max_of_an_empty_tuple_and_of_numbers_with_datetimes_are_typing_errors():
    for builtin in (min, max):
        empty = rf"{builtin.__name__}\(\) argument is an empty tuple"
        with pytest.raises(TypingError, match=empty):
            njit(lambda: builtin(()))()
        with pytest.raises(TypingError, match=r"cannot be unified: \[bool, datetime64\[Y\]\]"):
            njit(lambda a, b: builtin(a, b))(np.bool_(True), np.datetime64("2020", "Y"))
    later = njit(lambda a, b: max(a, b))
    assert later(np.datetime64("2020", "Y"), np.datetime64("2021", "Y")) == np.datetime64("2021")
