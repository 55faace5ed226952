"""Numba's three list types: a reflected list (a Python list argument), a list made in compiled
code (`[...]`, `list()`), and a typed list (`ember.typed.List`, `ListType`): their spellings,
what each comes back to Python as, and that nothing they allocate is left behind."""

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit, typed, typeof, types
from ember.typed import List


def test_spellings_are_numbas():
    # Numba 0.68 spells them so (str of the type, then repr)
    assert str(typeof([1.0])) == "reflected list(float64)<iv=None>"
    assert repr(typeof([1.0])) == "List(float64, True)"
    assert str(types.List(types.float64)) == "list(float64)<iv=None>"
    assert repr(types.List(types.float64)) == "List(float64, False)"
    assert str(typeof(typed.List([1.0]))) == "ListType[float64]"
    assert repr(typeof(typed.List([1.0]))) == "ListType(float64)"
    assert str(types.DictType(types.int64, types.float64)) == "DictType[int64,float64]<iv=None>"
    assert types.ListType(types.int64).item_type is types.int64


def test_the_three_kinds_are_distinct_types():
    reflected = types.List(types.int64, reflected=True)
    assert reflected.reflected and not types.List(types.int64).reflected
    kinds = {reflected, types.List(types.int64), types.ListType(types.int64)}
    assert len(kinds) == 3
    assert typeof([1, 2]) is reflected
    assert typeof(typed.List([1, 2])) is types.ListType(types.int64)


def _typed_squares(n):
    out = typed.List.empty_list(types.int64)
    for i in range(n):
        out.append(i * i)
    return out


def _untyped_then_filled(n):
    out = typed.List()
    for i in range(n):
        out.append(i + 0.5)
    return out


def _typed_from_iterable(n):
    return typed.List(range(n))


def _display(n):
    return [i * 3 for i in range(n)]


def _list_call(n):
    return list(range(n))


@pytest.mark.parametrize("make", [_typed_squares, _untyped_then_filled, _typed_from_iterable])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_typed_lists_made_in_jit_come_back_typed(make, n):
    got = njit(make)(n)
    assert isinstance(got, typed.List)
    assert list(got) == list(make(n))  # CPython runs it with Python-side typed Lists


@pytest.mark.parametrize("make", [_display, _list_call])
@pytest.mark.parametrize("n", [0, 4])
def test_lists_made_with_displays_come_back_as_python_lists(make, n):
    got = njit(make)(n)
    assert type(got) is list and got == make(n)


@njit
def _append_twice(xs, value):
    xs.append(value)
    xs.append(value)


def test_a_returned_typed_list_shares_its_storage_with_later_calls():
    made = njit(_typed_squares)(3)
    _append_twice(made, 10)
    assert list(made) == [0, 1, 4, 10, 10]
    assert typeof(made) == types.ListType(types.int64)
    assert made._numba_type_ == types.ListType(types.int64)


def test_python_list_arguments_stay_reflected():
    given_list = [1, 2]
    _append_twice(given_list, 5)
    assert given_list == [1, 2, 5, 5]
    signatures = {str(sig[0]) for sig in _append_twice.signatures}
    assert "reflected list(int64)<iv=None>" in signatures


@njit
def _identity(xs):
    return xs


def test_returning_an_argument_gives_the_same_kind_back():
    given_list = [1.5, 2.5]
    assert _identity(given_list) is given_list
    typed_list = typed.List([1.5, 2.5])
    back = _identity(typed_list)
    assert isinstance(back, typed.List) and list(back) == [1.5, 2.5]
    back.append(3.5)  # one native list behind both
    assert list(typed_list) == [1.5, 2.5, 3.5]


def _lists_of_typed_lists(n):
    outer = typed.List()
    for i in range(n):
        inner = typed.List()
        for j in range(i):
            inner.append(j)
        outer.append(inner)
    return outer


def test_typed_lists_of_typed_lists():
    got = njit(_lists_of_typed_lists)(4)
    expected = [list(range(i)) for i in range(4)]
    assert [list(inner) for inner in got] == expected
    assert str(typeof(got)) == "ListType[ListType[int64]]"
    got[2].append(99)  # an inner list is shared, as Numba does
    assert list(got[2]) == [0, 1, 99]


def _mixed_unify(flag, xs):
    ys = [1, 2, 3] if flag else xs
    ys.append(4)
    return len(ys)


@pytest.mark.parametrize("flag", [True, False])
def test_a_display_and_a_reflected_argument_unify(flag):
    args = [7]
    assert njit(_mixed_unify)(flag, list(args)) == _mixed_unify(flag, list(args))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-(2**40), 2**40), max_size=8))
def test_typed_from_iterable_matches_python(items):
    @njit
    def build(xs):
        return typed.List(xs)

    got = build(typed.List(items) if items else typed.List.empty_list(types.int64))
    assert isinstance(got, typed.List) and list(got) == items


def test_lists_made_and_dropped_are_freed():
    typed_squares, untyped, display = (
        njit(_typed_squares),
        njit(_untyped_then_filled),
        njit(_display),
    )
    nested = njit(_lists_of_typed_lists)
    for warm in (typed_squares, untyped, display, nested):
        warm(2)
    gc.collect()
    before = ember.runtime.stats().live
    for n in range(5):
        typed_squares(n)
        untyped(n)
        display(n)
        kept = nested(n)
        _append_twice(kept, typed.List.empty_list(types.int64))
        del kept
    gc.collect()
    assert ember.runtime.stats().live == before


def test_sets_from_python_are_reflected_sets():
    assert str(typeof({1, 2})) == "reflected set(int64)"
    assert repr(typeof({1, 2})) == "Set(int64, True)"
    assert str(types.Set(types.int64)) == "set(int64)"


@njit
def _add_and_return(members):
    members.add(9)
    return members


def test_a_returned_set_argument_is_the_callers_set():
    members = {1, 2}
    assert _add_and_return(members) is members
    assert members == {1, 2, 9}


def _union_with_display(members):
    return members | {5}, len(members & {1, 5})


def test_a_reflected_set_meets_a_set_display():
    assert njit(_union_with_display)({1, 2}) == _union_with_display({1, 2})


@njit
def _pop_and_return_in_tuple(items, extra):
    last = items.pop()
    items.extend(extra)
    return items, last


@njit
def _maybe_replaced(items, replace):
    if replace:
        items = [7.0, 8.0]
    items.append(1.0)
    return items, len(items)


@njit
def _set_in_tuple(members):
    members.add(4)
    return members, len(members)


def test_arguments_returned_inside_tuples_are_the_callers_objects():
    # the first calls take the Python path, the later ones the generated native entry
    for _ in range(24):
        given = [1.0, 2.0, 3.0]
        back, last = _pop_and_return_in_tuple(given, [9.0])
        assert back is given and given == [1.0, 2.0, 9.0] and last == 3.0
        given = [1.0]
        back, size = _maybe_replaced(given, True)
        assert back is not given and back == [7.0, 8.0, 1.0] and given == [1.0]
        members = {1}
        back_set, size = _set_in_tuple(members)
        assert back_set is members and members == {1, 4} and size == 2
    gc.collect()
    before = ember.runtime.stats().live
    for _ in range(5):
        _pop_and_return_in_tuple([1.0, 2.0], [3.0])
        _maybe_replaced([1.0], False)
        _maybe_replaced([1.0], True)
        _set_in_tuple({2, 3})
    gc.collect()
    assert ember.runtime.stats().live == before


@njit
def _append_while_iterating(items):
    seen = 0
    for _ in items:
        if seen > 1:
            items.append(2.0)
        seen += 1
    return seen


def test_a_typed_list_changed_while_iterated_raises_as_numba():
    with pytest.raises(RuntimeError, match="list was mutated during iteration"):
        _append_while_iterating(typed.List([1.0, 1.0, 1.0]))
    # unchanged while iterated: fine; a Python list follows Python (here: no change either)
    assert _append_while_iterating(typed.List([1.0, 1.0])) == 2
    assert _append_while_iterating([1.0, 1.0]) == 2


@njit
def _two_lists_from_the_imported_class():
    ints, floats = List(), List()
    ints.append(1)
    floats.append(1.5)
    return ints, floats


def test_list_called_by_its_imported_name_is_typed_too():
    ints, floats = _two_lists_from_the_imported_class()
    assert isinstance(ints, typed.List) and isinstance(floats, typed.List)
    assert list(ints) == [1] and list(floats) == [1.5]
    assert typeof(floats) == types.ListType(types.float64)
