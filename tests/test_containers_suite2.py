"""Containers as Numba programs use them (second round, found by running Numba's test modules
against ember): tuples indexed by literal arguments, namedtuple classes from instances, lists
passed twice, lists of lists, tuple argument checks. Checked against CPython running the same
function (or the exception it raises) and ember's runtime allocation counters."""

from collections import namedtuple

import numpy as np
import pytest

import ember
from ember import njit, objmode, types
from ember.errors import TypingError, UnsupportedError
from tests.oracle import assert_frees_all

Point = namedtuple("Point", "x y z")


# ---------------------------------------------------------------------------- tuples


@njit
def _member(tup, i):
    return tup[i]


def _members_by_constant(tup):
    return _member(tup, 0), _member(tup, 1), _member(tup, -1)


def test_heterogeneous_tuple_indexed_by_a_constant_argument():
    # the callee is typed with the index as Literal[int] (plain int64 cannot type it)
    tup = (3, "ab", np.arange(3.0))
    got = njit(_members_by_constant)(tup)
    want = (tup[0], tup[1], tup[-1])  # (from Python, `_member(tup, 1)` has no literal index)
    assert got[:2] == want[:2]
    np.testing.assert_array_equal(got[2], want[2])


def test_tuple_indexed_by_a_constant_argument_leaks_nothing():
    jitted = njit(_members_by_constant)
    assert_frees_all(jitted, lambda: (1, "xy" * 3, np.ones(4)))


def _member_out_of_range(tup):
    return _member(tup, 5)


def test_constant_index_beyond_the_tuple_is_refused():
    with pytest.raises((TypingError, IndexError)):
        njit(_member_out_of_range)((1, "a"))


def _rebuilt(point, *members):
    return type(point)(*members)


@pytest.mark.parametrize("members", [(4, 5, 6), (4, 5.5, 6j)])
@pytest.mark.parametrize("point", [Point(1, 2, 3), Point(1.5, "s", 2)])
def test_type_of_a_namedtuple_builds_one(point, members):
    got = njit(_rebuilt)(point, *members)
    want = _rebuilt(point, *members)
    assert type(got) is type(want) is Point
    assert got == want


def test_type_of_a_namedtuple_by_keywords():
    def swapped(point):
        return type(point)(z=point.x, y=point.y, x=point.z)

    assert njit(swapped)(Point(1, 2, 3)) == swapped(Point(1, 2, 3))


def _first(tup):
    return tup[0]


def test_entry_point_checks_the_tuple_size():
    jitted = njit((types.UniTuple(types.int32, 2),))(_first)
    entry = jitted.overloads[jitted.signatures[0]].entry_point
    assert entry((4, 5)) == 4
    with pytest.raises(ValueError, match="expected 2 element"):
        entry((4, 5, 6))
    with pytest.raises(ValueError, match="expected 2 element"):
        entry((4,))


def test_tuple_argument_over_1000_members_is_unsupported():
    with pytest.raises(UnsupportedError, match="'tup' length must be smaller than 1000"):
        njit(lambda tup: len(tup))(tuple(range(1001)))


@pytest.mark.parametrize(
    "make", [lambda: types.Tuple(types.uint32), lambda: types.NamedTuple(types.uint32, Point)]
)
def test_tuple_type_of_one_type_is_a_typing_error(make):
    with pytest.raises(TypingError, match="'types' is not iterable"):
        make()


# ---------------------------------------------------------------------------- lists


def _move_last(first, second):
    first.append(second.pop())
    return first is second


@pytest.mark.parametrize("items", [[1, 2, 3], [1.5, -2.0], ["a", "bc"]])
def test_the_same_list_passed_twice_is_one_list(items):
    jitted = njit(_move_last)
    for _ in range(3):  # the first call compiles (Python path), later ones the native entry
        expected, got = list(items), list(items)
        assert jitted(got, got) == _move_last(expected, expected)
        assert got == expected


def test_two_different_lists_stay_two_lists():
    jitted = njit(_move_last)
    for _ in range(2):
        a, b, c, d = [1, 2], [5, 7], [1, 2], [5, 7]
        assert jitted(a, b) == _move_last(c, d)
        assert (a, b) == (c, d)


def test_the_same_list_passed_twice_leaks_nothing():
    jitted = njit(_move_last)

    def call_with_one_list():
        items = [1, 2, 3]
        return jitted(items, items)

    assert_frees_all(call_with_one_list)


def _second(xs):
    return xs[1]


@pytest.mark.parametrize("nested", [[[1, 2], [3]], [[np.zeros(2)], [np.ones(1)]], [{1}, {2}]])
def test_a_list_of_lists_from_python_is_refused_with_a_type_error(nested):
    # Numba types it, then raises TypeError("cannot reflect element of reflected container")
    assert str(ember.typeof(nested)).startswith("reflected list(reflected ")
    jitted = njit(_second)
    for _ in range(2):
        with pytest.raises(TypeError, match="cannot reflect element of reflected container"):
            jitted(nested)


def _store_an_int(nested):
    nested[0] = 1


def _append_itself(nested):
    nested.append(nested)


@pytest.mark.parametrize(
    "func, message",
    [
        (_store_an_int, "invalid setitem with value of int64 to element of reflected list"),
        (_append_itself, "Invalid use of BoundFunction\\(list.append"),
    ],
)
def test_a_list_of_lists_is_typed_before_it_is_refused(func, message):
    # Numba's typing errors come first: the function is compiled before the list is passed
    with pytest.raises(TypingError, match=message):
        njit(func)([[np.arange(3)]])


@pytest.mark.parametrize(
    "items", [[(1, 2.0), (3, 4.5)], [np.arange(3.0), np.ones(2)], [(np.arange(2), "a")]]
)
def test_lists_of_tuples_and_arrays_pass_and_write_back(items):
    def swap_ends(xs):
        xs[0], xs[-1] = xs[-1], xs[0]
        return len(xs)

    expected = list(items)
    got = list(items)
    assert njit(swap_ends)(got) == swap_ends(expected)
    assert repr(got) == repr(expected)
    arrays = [(a, b) for a, b in zip(got, expected) if isinstance(a, np.ndarray)]
    assert all(a is b for a, b in arrays)  # the caller's arrays themselves, moved


def _empty_list_returned():
    return list()


def test_an_untypable_empty_list_keeps_numbas_words():
    with pytest.raises(TypingError) as raised:
        njit(_empty_list_returned)()
    message = str(raised.value)
    assert "Cannot infer the type of variable" in message
    assert "list(undefined)" in message


def _index_between(n, value, start, stop):
    return list(range(n)).index(value, start, stop)


@pytest.mark.parametrize("start, stop", [(0, 5), (-8, -1), (2, 100)])
def test_list_index_with_bounds_matches_python(start, stop):
    assert njit(_index_between)(10, 3, start, stop) == _index_between(10, 3, start, stop)


@pytest.mark.parametrize("bounds, name", [(("x", 5), "start"), ((0, "x"), "stop")])
def test_list_index_bounds_must_be_integers(bounds, name):
    with pytest.raises(TypingError, match=f'arg "{name}" must be an Integer'):
        njit(_index_between)(10, 3, *bounds)


# ---------------------------------------------------------------------------- typed List()


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((23,), {}, "List\\(\\) argument must be iterable"),
        (((0, 1), (2, 3)), {}, "expected at most 1 argument, got 2"),
        (((0, 1),), {"allocated": 3}, "takes no keyword arguments"),
    ],
)
def test_typed_list_constructor_checks_its_arguments_from_python(args, kwargs, message):
    with pytest.raises(TypeError, match=message):
        ember.typed.List(*args, **kwargs)
    with pytest.raises(TypeError, match="iterable"):  # as list() itself
        list(23)


def _typed_list_of_too_many():
    return ember.typed.List((0, 1, 2), (3, 4, 5))


def _typed_list_of_an_int():
    return ember.typed.List(23)


@pytest.mark.parametrize(
    "func, message",
    [
        (_typed_list_of_too_many, "expected at most 1 argument, got 2"),
        (_typed_list_of_an_int, "must be iterable"),
    ],
)
def test_typed_list_constructor_checks_its_arguments_in_compiled_code(func, message):
    with pytest.raises(TypingError, match=message):
        njit(func)()


def _typed_list_of(values):
    return ember.typed.List(values)


@pytest.mark.parametrize("values", [np.array(7), np.array(2.5), np.arange(4)])
def test_typed_list_of_an_array_holds_its_items(values):
    # a 0-d array gives its one item (NumPy's .item()), as Numba's typed List does
    want = [values.item()] if values.ndim == 0 else values.tolist()
    assert list(njit(_typed_list_of)(values)) == want
    assert list(ember.typed.List(values)) == want


# ---------------------------------------------------------------------------- objmode blocks

_INT_LIST = types.ListType(types.int64)
_FLOAT_LIST = types.List(types.float64)
_INT_SET = types.Set(types.int64)


@njit
def _containers_through_objmode(n):
    shared = ember.typed.List()
    for i in range(n):
        shared.append(i)
    copied = [i * 2 for i in range(n)]
    members = {1, 2, n}
    table = ember.typed.Dict.empty(types.int64, types.float64)
    table[1] = 2.0
    with objmode(total="int64", out=_FLOAT_LIST, grown=_INT_SET, made=_INT_LIST):
        shared.append(100)  # a typed List is shared with the block
        copied.append(7)  # a list crosses as a copy, written back after the block
        table[5] = 1.0
        total = sum(shared) + sum(copied) + len(members) + len(table)
        out = [float(v) for v in copied]
        grown = members | {99}
        made = ember.typed.List([1, 2])
    return shared, copied, total, out, grown, made, table


def test_containers_cross_an_objmode_block():
    shared, copied, total, out, grown, made, table = _containers_through_objmode(3)
    # worked by hand: shared [0, 1, 2] + [100]; `copied` gained the 7, as in Python
    assert list(shared) == [0, 1, 2, 100]
    assert copied == [0, 2, 4, 7]
    assert total == (0 + 1 + 2 + 100) + (0 + 2 + 4 + 7) + 3 + 2
    assert out == [0.0, 2.0, 4.0, 7.0] and all(type(v) is float for v in out)
    assert grown == {1, 2, 3, 99}
    assert isinstance(made, ember.typed.List) and list(made) == [1, 2]
    assert dict(table) == {1: 2.0, 5: 1.0}


def test_containers_crossing_an_objmode_block_leak_nothing():
    assert_frees_all(_containers_through_objmode, lambda: 3, calls=100)


def _declared_list_out(make):
    @njit
    def run():
        with objmode(out=types.List(types.int64)):
            out = make()
        out.append(3)
        return out

    return run


def test_an_empty_list_out_of_objmode_takes_the_declared_type():
    assert _declared_list_out(list)() == [3]


@pytest.mark.parametrize(
    "make, message",
    [(lambda: {1}, "expected a list"), (lambda: [1, "a"], "heterogeneous list")],
)
def test_a_wrong_container_out_of_objmode_is_a_type_error(make, message):
    with pytest.raises(TypeError, match=message):
        _declared_list_out(make)()


@njit
def _tuple_with_a_string_into_objmode(n):
    pair = (n, "a")
    with objmode(text="unicode_type"):
        text = repr(pair)
    return text


def test_a_tuple_holding_a_string_constant_crosses_objmode():
    assert _tuple_with_a_string_into_objmode(4) == repr((4, "a"))


# ---------------------------------------------------------------------------- more tuples


def test_a_tuple_type_of_one_member_type_is_a_unituple():
    assert types.Tuple((types.float32, types.float32)) is types.UniTuple(types.float32, 2)
    assert types.Tuple(()) is not types.UniTuple(types.int32, 0)
    assert isinstance(types.Tuple((types.int8, types.int16)), types.Tuple)


def test_declared_tuple_conversions():
    def identity(tup):
        return tup

    declared = njit(types.Tuple((types.float32, types.float32))(types.UniTuple(types.int32, 2)))
    got = declared(identity)((4, 5))
    assert got == (4.0, 5.0) and all(type(v) is float for v in got)
    with pytest.raises(TypingError, match="No conversion from UniTuple\\(int32 x 2\\)"):
        njit(types.Tuple((types.float32,))(types.UniTuple(types.int32, 2)))(identity)


@pytest.mark.parametrize("count", [3, 33])
def test_many_positional_arguments_around_spread_tuples(count):
    # from about 30 arguments CPython appends them one by one to the list it spreads
    @ember.jit
    def gather(*args):
        return args

    namespace = {"gather": gather}
    exec(f"def call(t, x):\n    return gather({', '.join(['x'] * count)}, *t, x, *t)\n", namespace)
    call = namespace["call"]
    for tup in [(4, 5), (4, 5.5)]:
        assert njit(call)(tup, 1) == call(tup, 1)


def _move_one(first, second):
    first.add(second.pop())
    return first is second


def test_the_same_set_passed_twice_is_one_set():
    jitted = njit(_move_one)
    for _ in range(3):
        expected, got = {1, 2, 3}, {1, 2, 3}
        assert jitted(got, got) == _move_one(expected, expected)
        assert got == expected


def test_the_same_set_passed_twice_leaks_nothing():
    jitted = njit(_move_one)

    def call_with_one_set():
        items = {1, 2, 3}
        return jitted(items, items)

    assert_frees_all(call_with_one_set)


# ---------------------------------------------------------------------------- literal_unroll


def _running_sum(idx, z):
    a = (12, 12.7, 3j, 4, z, 2 * z)
    acc = 0
    for i in range(len(ember.literal_unroll(a))):
        acc += a[i]
        if acc.real < 26:
            acc -= 1
        else:
            break
    return acc


def _weighted(t):
    out = 0.0
    for i in range(len(ember.literal_unroll(t))):
        out += t[i] * (i + 1)
    return out, i  # the index after the loop: its last value


def _lengths_but_one(t):
    n = 0
    for i in range(len(ember.literal_unroll(t))):
        if i == 1:
            continue
        n += len(t[i])
    return n


@pytest.mark.parametrize(
    "func, args",
    [
        (_running_sum, (2, 9)),
        (_weighted, ((1, 2.5, True),)),
        (_lengths_but_one, (("ab", np.arange(3), "xyz"),)),
    ],
)
def test_indexed_loop_over_literal_unroll_gives_constant_indexes(func, args):
    # `for i in range(len(literal_unroll(t)))` is unrolled as Numba does: t[i] of each copy
    # has a constant index, so the members may differ in type
    assert njit(func)(*args) == func(*args)


def _letter(value):
    return {1000: "a", 2000: "b", 3000: "c"}[value]


@ember.extending.overload(_letter)
def _letter_of_a_literal(value):
    # accepts only literals: the unrolled loop must give the constants themselves
    if isinstance(value, types.IntegerLiteral):
        letter = {1000: "a", 2000: "b", 3000: "c"}[value.literal_value]
        return lambda value: letter
    return None


def _letters_of_a_slice():
    x = (1000, 2000, 3000, 4000)
    y = x
    acc = ""
    for a in ember.literal_unroll(y[1:3]):
        acc += _letter(a)
    return acc


def test_literal_unroll_of_a_constant_tuple_slice_gives_literals():
    assert njit(_letters_of_a_slice)() == _letters_of_a_slice() == "bc"


def test_unpacking_a_list_into_a_tuple_is_a_typing_error():
    # a tuple's length is part of its type; Numba refuses `(*a_list,)` the same way
    with pytest.raises(TypingError, match="No implementation of function tuple\\(reflected list"):
        njit(lambda xs: (*xs,))([4, 5])
    assert njit(lambda xs: (*xs,))((4, 5.5)) == (4, 5.5)


def _containers_of_constant_tuples(n):
    pairs = [("a", 1), ("bb", 2)]
    pairs.append(("c" * n, n))
    members = {(3, "c")}
    members.add((n, "d"))
    table = {(1, "x"): 2}
    table[(n, "y")] = 3
    found = (3, "c") in members, (n, "d") in members, len(members)
    return pairs, found, table[(1, "x")] + table[(n, "y")], len(table)


def test_constant_tuples_of_strings_fill_lists_sets_and_dicts():
    # the constants' members are literals; the containers hold plain strings, as in Numba
    assert njit(_containers_of_constant_tuples)(2) == _containers_of_constant_tuples(2)


def _spread_of_a_conditional():
    a = (1,)
    b = (3, 2, 4)
    return (*(b if a[0] else (5, 6)),)


def test_spreading_a_conditional_tuple_is_numbas_unsupported_bytecode_error():
    # the spread starts a new block (Numba: "op_LIST_EXTEND at the start of a block")
    with pytest.raises(ember.errors.UnsupportedBytecodeError, match="at the start of a block"):
        njit(_spread_of_a_conditional)()
    with pytest.raises(UnsupportedError):  # ember's own kind
        njit(_spread_of_a_conditional)()
