"""Container and string behaviours that Numba's own tests exercise and ember once missed (found
by running Numba's test modules against ember): each checked against CPython running the
same function, or against the exception Python raises."""

import pytest

from ember import njit, typed, types
from ember.errors import TypingError
from ember.typed import Dict, List, dictobject


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


@njit
def _same(items):
    return items


def test_python_side_rewrites_keep_a_shared_typed_list_shared():
    original = typed.List([5, 3, 9])
    alias = _same(original)  # a second typed List over the same native list
    original.sort(key=lambda x: -x)
    assert list(alias) == [9, 5, 3]
    original.clear()
    original.extend([1, 2])
    assert list(alias) == [1, 2]
    original[:] = [7]
    assert list(alias) == [7]


@njit
def _compare_all(a, b):
    return a < b, a <= b, a == b, a != b, a >= b, a > b


@pytest.mark.parametrize(
    ("left", "right"), [([], []), ([], [0]), ([1, 2], [1, 3]), ([2], [1, 5]), ([4], [4])]
)
def test_typed_list_comparisons_match_python_lists(left, right):
    def typed_list(items):
        made = typed.List.empty_list(types.int64)
        made.extend(items)
        return made

    expected = _compare_all.py_func(left, right)
    assert _compare_all.py_func(typed_list(left), typed_list(right)) == expected
    assert _compare_all(typed_list(left), typed_list(right)) == expected


def test_a_typed_list_compared_with_a_non_list_is_false_as_in_numba():
    items = typed.List([1, 2, 3])
    assert _compare_all.py_func(items, 1) == (False,) * 6
    assert _compare_all(items, 1) == (False,) * 6


def _typed_list_extended_by_tuple_and_set():
    first = List()
    first.extend((100, 200))
    second = List()
    second.extend({3})
    return first, second


def test_an_empty_typed_list_takes_its_type_from_extend():
    first, second = njit(_typed_list_extended_by_tuple_and_set)()
    expected_first, expected_second = _typed_list_extended_by_tuple_and_set()
    assert list(first) == list(expected_first) == [100, 200]
    assert list(second) == list(expected_second) == [3]


def _containers_typed_by_empty_instances():
    dicts = List.empty_list(Dict.empty(types.int64, types.int64))
    lists = Dict.empty(types.int64, List.empty_list(types.int64))
    inner = Dict.empty(types.int64, types.int64)
    inner[1] = 2
    dicts.append(inner)
    values = List.empty_list(types.int64)
    values.append(5)
    lists[3] = values
    return len(dicts), dicts[0][1], lists[3][0]


def test_empty_containers_stand_for_their_types():
    assert njit(_containers_typed_by_empty_instances)() == (1, 2, 5)


def test_typed_list_dtype_and_empty_repr():
    assert List.empty_list(types.int32)._dtype is types.int32
    with pytest.raises(RuntimeError, match="untyped list"):
        getattr(List(), "_dtype")  # noqa: B009 (the property raises)
    assert repr(List()) == "ListType[Undefined]([])"  # Numba's spelling


def test_calling_a_number_type_on_a_value_gives_the_numpy_scalar():
    import numpy as np

    assert types.uint32(10) == np.uint32(10) and type(types.uint32(10)) is np.uint32
    assert type(types.float32(1.5)) is np.float32
    assert type(types.boolean(1)) is np.bool_
    assert types.float64(types.int64).args == (types.int64,)  # a signature, as before


def _set_and_dict_identity(n):
    s = {n}
    t = s
    u = {n}
    d = {n: 1.5}
    e = {n: 1.5}
    return s is t, s is not t, s is u, d is e, d is not e


def test_set_and_dict_identity():
    assert njit(_set_and_dict_identity)(3) == _set_and_dict_identity(3)


def _loop_over_string_constants():
    made = List()
    for text in ("a", "ab", "abc"):
        made.append(text + "!")
    return len(made[0]) + len(made[2]), made[1]


def test_a_loop_over_a_tuple_of_string_constants():
    assert njit(_loop_over_string_constants)() == (6, "ab!")


def _affixes(text, affixes, start, end):
    return text.endswith(affixes, start, end), text.startswith(affixes, start, end)


def test_startswith_endswith_of_a_tuple_with_optional_bounds():
    compiled = njit(_affixes)
    for text in ["hello", "helloworld", ""]:
        for start in [None, -3, 1]:
            for end in [None, 4, -1]:
                affixes = ("lo", "he")
                assert compiled(text, affixes, start, end) == _affixes(text, affixes, start, end)


def _equal_and_unequal(a, b):
    return a == b, a != b


@pytest.mark.parametrize(("a", "b"), [("a", 1), (2.5, "a"), ("a", None), ("a", (1, 2)), ("", 0)])
def test_a_string_never_equals_a_value_of_another_type(a, b):
    assert njit(_equal_and_unequal)(a, b) == _equal_and_unequal(a, b)


@njit
def _new_dict_filled(n):
    made = dictobject.new_dict(types.int64, types.float64)
    for i in range(n):
        made[i] = i / 2
    return made


def test_dictobject_new_dict_is_an_empty_typed_dict():
    got = _new_dict_filled(3)
    assert isinstance(got, Dict) and dict(got) == {0: 0.0, 1: 0.5, 2: 1.0}
    from_python = dictobject.new_dict(types.int64, types.float64)
    assert isinstance(from_python, Dict) and len(from_python) == 0


def _dict_of_pairs(keys, values):
    return Dict(zip(keys, values))


def test_typed_dict_from_an_iterable_of_pairs_in_jit():
    got = njit(_dict_of_pairs)((1, 2, 3), "abc")
    assert isinstance(got, Dict)
    assert dict(got) == dict(_dict_of_pairs((1, 2, 3), "abc")) == {1: "a", 2: "b", 3: "c"}


_PAIR_OF_UINT32 = types.UniTuple(types.uint32, 2)


@njit
def _tuple_keys_of_narrower_ints():
    counts = Dict.empty(_PAIR_OF_UINT32, types.int64)
    counts[(1, 2)] = 5
    counts[(1, 2)] += 1
    return counts[(1, 2)], (1, 2) in counts


def test_tuple_keys_of_narrower_ints_take_int_literals():
    from ember.errors import NumbaTypeSafetyWarning

    with pytest.warns(NumbaTypeSafetyWarning):  # int64 members into uint32 ones, as Numba
        assert _tuple_keys_of_narrower_ints() == (6, True)


def test_typed_containers_say_whether_they_are_typed():
    made_dict, made_list = Dict(), List()
    assert not made_dict._typed and not made_list._typed
    made_dict[1] = 2.0
    made_list.append(1)
    assert made_dict._typed and made_list._typed
    assert types.DictType(types.int64, types.int64).initial_value is None


def _empty_and_copied_tuples(pair):
    return tuple(), tuple(pair)


def test_tuple_with_no_argument_is_the_empty_tuple():
    assert njit(_empty_and_copied_tuples)((1, 2.5)) == _empty_and_copied_tuples((1, 2.5))


def _same(value):
    return value


def test_a_declared_tuple_return_converts_member_by_member():
    pair = types.UniTuple(types.int32, 2)
    as_floats = njit(types.UniTuple(types.float32, 2)(pair))(_same)
    assert as_floats((4, 5)) == (4.0, 5.0) and isinstance(as_floats((4, 5))[0], float)
    with pytest.raises(TypingError, match="No conversion from UniTuple"):
        njit(types.Tuple((types.float32,))(pair))(_same)


def test_array_types_spelled_with_constant_slices_keep_their_layout():
    # a constant slice(None, None, 1) marks the contiguous axis, as the literal `::1` does
    contiguous, anything = slice(None, None, 1), slice(None)
    spellings = [
        contiguous, anything, (anything, contiguous), (contiguous, anything),
        (anything, anything, contiguous),
    ]  # fmt: skip
    expected_layouts = ["C", "A", "C", "F", "C"]
    for spelling, layout in zip(spellings, expected_layouts):
        made = njit(lambda: typed.List.empty_list(types.uint8[spelling]))()
        assert made._dtype == types.Array(types.uint8, made._dtype.ndim, layout)
        assert made._dtype.ndim == (len(spelling) if isinstance(spelling, tuple) else 1)
