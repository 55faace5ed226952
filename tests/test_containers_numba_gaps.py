"""Container and string behaviours that Numba's own tests exercise and ember once missed (found
by running Numba's test modules against ember): each checked against CPython running the
same function, or against the exception Python raises."""

import pytest

from ember import njit


def _repeat(n, times):
    return list(range(n)) * times


def _repeat_in_place(n, times):
    items = list(range(n))
    items *= times
    return items


@pytest.mark.parametrize("repeat", [_repeat, _repeat_in_place])
def test_list_repeat_matches_python(repeat):
    for n, times in [(3, 2), (0, 5), (2, -1), (4, 0)]:
        assert njit(repeat)(n, times) == repeat(n, times)


@pytest.mark.parametrize("repeat", [_repeat, _repeat_in_place])
@pytest.mark.parametrize("times", [2**58, 2**62])
def test_list_repeat_too_big_raises_memory_error(repeat, times):
    # CPython raises MemoryError (or OverflowError) before allocating; so must compiled code
    with pytest.raises(MemoryError):
        njit(repeat)(1, times)


def _add_lists_of_two_item_types():
    ints, floats = [1, 5], [2.5]
    both, other_way = ints + floats, floats + ints
    ints.append(3)  # the sums are new lists
    return ints, floats, both, other_way


def test_adding_lists_of_different_numbers_gives_the_common_type():
    got = njit(_add_lists_of_two_item_types)()
    assert got == _add_lists_of_two_item_types()
    assert all(isinstance(item, float) for item in got[2] + got[3])


def _identity_and_inequality(n):
    a = list(range(n))
    b = a
    c = list(range(n))
    return a is b, a is not b, a is c, a is not c, a != c, a != [n + 1]


@pytest.mark.parametrize("n", [0, 3])
def test_list_identity_and_inequality(n):
    assert njit(_identity_and_inequality)(n) == _identity_and_inequality(n)


def _extend_empty_from_iterables(n):
    items = []
    items.extend(range(n))
    items.extend(items[:-1])
    items.extend(range(n, 0, -1))
    return items


def test_an_empty_list_takes_its_type_from_extend_with_any_iterable():
    assert njit(_extend_empty_from_iterables)(4) == _extend_empty_from_iterables(4)


def _reflected_plus_display(xs):
    return xs + [1, 2], xs != [1]


def test_a_reflected_list_meets_a_display():
    given = [5, 6]
    assert njit(_reflected_plus_display)(given) == _reflected_plus_display([5, 6])
    assert given == [5, 6]


@njit
def _append_to_member(pair):
    first, items = pair
    items.append(first)
    return first + sum(items)


def test_a_list_inside_a_tuple_argument_is_reflected():
    items = [2, 3, 4]
    expected_items = list(items)
    expected = _append_to_member.py_func((1, expected_items))
    assert _append_to_member((1, items)) == expected
    assert items == expected_items == [2, 3, 4, 1]


@njit
def _add_to_member_set(pair):
    pair[1].add(pair[0])
    return len(pair[1])


def test_a_set_inside_a_tuple_argument_is_reflected():
    members = {1, 2}
    assert _add_to_member_set((5, members)) == 3
    assert members == {1, 2, 5}
