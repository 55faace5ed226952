"""Containers and strings as programs use them (fourth round, found by running Numba's test
modules against ember): `listobject.new_list`, str.format with fields nested in a spec,
containers crossing into and out of functions that also take a datetime64 or an enum member,
and datetime64/timedelta64 items in lists. Checked against CPython running the same function
(or the exception it raises) and ember's runtime allocation counters."""

import enum

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import int32, njit, types
from ember.typed import Dict, List, listobject
from ember.types.functions import _header_lead
from tests.oracle import assert_frees_all


def _outcome(func, *args):
    """What `func(*args)` returns, or the type and text of what it raises."""
    try:
        return func(*args)
    except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
        return type(error), str(error)


# ---------------------------------------------------------------------------- listobject


def _new_list_filled(n, allocated):
    made = listobject.new_list(int32, allocated)
    for i in range(n):
        made.append(i * 3)
    return made, len(made)


def test_new_list_in_compiled_code_is_an_empty_typed_list():
    got, size = njit(_new_list_filled)(5, 2)
    assert list(got) == [0, 3, 6, 9, 12] and size == 5
    assert got._list_type == types.ListType(types.int32)


def test_new_list_from_python_is_an_empty_typed_list_of_that_item_type():
    made = listobject.new_list(types.float64)
    made.append(2)
    assert list(made) == [2.0] and isinstance(made[0], float)


def test_new_list_refuses_a_negative_allocation_with_numbas_words():
    with pytest.raises(RuntimeError, match=r"expecting \*allocated\* to be >= 0"):
        njit(_new_list_filled)(1, -1)
    with pytest.raises(RuntimeError, match=r"expecting \*allocated\* to be >= 0"):
        List.empty_list(types.int64, -3)


def test_new_list_frees_what_it_allocates():
    assert_frees_all(njit(_new_list_filled), lambda: 7, lambda: 3)


def test_failed_call_reports_open_with_numbas_header():
    with pytest.raises(Exception, match=_header_lead):
        njit(lambda s: abs(s))("ab")


# ---------------------------------------------------------------------------- str.format


_NESTED_FORMATS = [
    "'{:>{w}}'.format(x, w=w)",
    "'{:{}}'.format(x, w)",
    "'{0:{1}}|{1}'.format(x, w)",
    "'{:*^{}}!'.format(x, w)",
    "'{!r:{}}'.format(x, w)",
    "'{:{}}{}'.format(x, w, x)",
    "'{x:<{w}}|'.format(x=x, w=w)",
    # CPython's refusals: numbering switched inside a spec, a missing field, recursion
    "'{0:{}}'.format(x, w)",
    "'{:{0}}'.format(x, w)",
    "'{:{w}}'.format(x, w)",
    "'{:{}}'.format(x)",
    "'{:{:{}}}'.format(x, w, w)",
]


def _compiled_pair(source):
    namespace = {}
    exec(f"def f(x, w):\n    return {source}\n", namespace)  # noqa: S102 - test source
    return namespace["f"], njit(namespace["f"])


@pytest.mark.parametrize("source", _NESTED_FORMATS)
def test_format_with_nested_fields_matches_cpython(source):
    py_func, jitted = _compiled_pair(source)
    for x in ["", "ab", "héllo", 7, -12]:
        for width in (0, 3, 8):
            assert _outcome(jitted, x, width) == _outcome(py_func, x, width)


def _float_fields(x, width, digits):
    return "[{:>{}.{}f}] [{:^{w}.{p}e}]".format(x, width, digits, x, w=width, p=digits)


_float_fields_jitted = njit(_float_fields)


@settings(max_examples=30, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True), st.integers(0, 12), st.integers(0, 6))
def test_format_of_floats_with_nested_width_and_precision_matches_cpython(x, width, digits):
    assert _float_fields_jitted(x, width, digits) == _float_fields(x, width, digits)


# ------------------------------------------------ containers beside a datetime or enum argument


class Mode(enum.Enum):
    FAST = 1
    SLOW = 2


_DAY = np.datetime64("2021-03-04")


def _containers_made(tag):
    return [1, 2], {1: 2.5}, {3, 4}, ("a", [5])


@pytest.mark.parametrize("tag", [_DAY, np.timedelta64(3, "h"), Mode.SLOW])
def test_containers_return_beside_an_argument_boxed_by_its_own_boxer(tag):
    got = njit(_containers_made)(tag)
    want = _containers_made(tag)
    assert got[0] == want[0] and dict(got[1]) == want[1] and got[2] == want[2]
    assert got[3] == want[3]


def _grow_all(tag, xs, s, typed_list, typed_dict):
    xs.append(len(xs))
    s.add(99)
    typed_list.append(-1)
    typed_dict["new"] = 0.5
    return len(xs) + len(s)


@pytest.mark.parametrize("tag", [_DAY, Mode.FAST])
def test_changes_to_containers_passed_beside_such_an_argument_are_seen_by_the_caller(tag):
    want_args = ([1, 2], {3}, [4], {"k": 1.0})
    got_args = ([1, 2], {3}, List([4]), Dict())
    got_args[3]["k"] = 1.0
    want = _grow_all(tag, *want_args)
    assert njit(_grow_all)(tag, *got_args) == want
    assert got_args[0] == want_args[0] and got_args[1] == want_args[1]
    assert list(got_args[2]) == want_args[2] and dict(got_args[3]) == want_args[3]


def test_containers_beside_an_enum_argument_free_what_they_allocate():
    jitted = njit(_grow_all)
    assert_frees_all(
        lambda *args: jitted(Mode.FAST, *args),
        lambda: [1, 2],
        lambda: {3},
        lambda: List([4]),
        lambda: Dict.empty(types.unicode_type, types.float64),
    )
    assert_frees_all(njit(_containers_made), lambda: _DAY)


def test_a_list_of_lists_beside_an_enum_argument_keeps_its_clear_refusal():
    with pytest.raises(TypeError, match="cannot reflect element of reflected container"):
        njit(lambda tag, xs: len(xs))(Mode.FAST, [[1], [2]])


def test_typed_containers_of_enum_members_and_datetimes_box_their_items():
    members = njit(lambda m: List([m, m]))(Mode.SLOW)
    assert list(members) == [Mode.SLOW, Mode.SLOW] and members[0] is Mode.SLOW
    table = njit(lambda d, t: {d: t, d + 1: t * 2})(_DAY, np.timedelta64(5, "h"))
    assert dict(table) == {_DAY: np.timedelta64(5, "h"), _DAY + 1: np.timedelta64(10, "h")}


# ---------------------------------------------------------------------------- lists of datetimes


_days = st.lists(
    st.integers(-(10**5), 10**5).map(lambda n: np.datetime64(n, "D")), min_size=1, max_size=8
)


def _list_stats(xs):
    xs.append(min(xs))
    return sorted(xs), max(xs), xs[0] in xs, sorted(xs, reverse=True)[0]


@settings(max_examples=25, deadline=None)
@given(_days)
def test_lists_of_datetimes_passed_from_python_match_cpython(days):
    want_list, got_list = list(days), list(days)
    want = _list_stats(want_list)
    got = njit(_list_stats)(got_list)
    assert got == want
    assert got_list == want_list  # the appended item is written back
    assert all(type(x) is np.datetime64 and np.datetime_data(x.dtype)[0] == "D" for x in got[0])


def _timedelta_list(unit_count):
    xs = [unit_count, unit_count * 3, unit_count - unit_count]
    xs.sort()
    return xs, min(xs), max(xs)


@pytest.mark.parametrize("delta", [np.timedelta64(5, "h"), np.timedelta64(-7, "s")])
def test_lists_of_timedeltas_built_in_compiled_code_match_cpython(delta):
    assert njit(_timedelta_list)(delta) == _timedelta_list(delta)


def test_a_list_of_timedeltas_from_python_is_not_taken_for_numbers():
    hours = [np.timedelta64(2, "h"), np.timedelta64(1, "h")]
    got = njit(lambda xs: (max(xs), xs))(hours)
    assert got == (np.timedelta64(2, "h"), hours)
    assert np.datetime_data(got[0].dtype) == ("h", 1)


def test_a_list_of_datetimes_of_two_units_is_refused_clearly():
    mixed = [np.datetime64("2020-01-01"), np.datetime64("2020-01-01T10:00")]
    with pytest.raises(TypeError, match="heterogeneous"):
        njit(lambda xs: len(xs))(mixed)


def test_lists_of_datetimes_free_what_they_allocate():
    assert_frees_all(
        njit(_list_stats), lambda: [np.datetime64(3, "D"), np.datetime64(-2, "D")], calls=50
    )


# ---------------------------------------------------------------------------- join


def _joined_constants(x):
    return ",".join(("a", "bc")), "é".join((x, "lit", x)), "-".join(("only",)), "".join(())


@pytest.mark.parametrize("x", ["", "q", "日本"])
def test_join_of_a_tuple_of_differing_string_constants_matches_cpython(x):
    assert njit(_joined_constants)(x) == _joined_constants(x)


# ---------------------------------------------------------------------------- dict views, fromkeys


def _view_algebra(a, b):
    d = dict.fromkeys(a, 1.5)
    e = dict.fromkeys(b, 2.5)
    return (
        sorted(d.keys() & e.keys()),
        sorted(d.keys() | e.keys()),
        sorted(d.keys() - set(b)),
        sorted(d.keys() ^ e.keys()),
        sorted(d.items() & e.items()),
        list(reversed(d)),
        list(reversed(e.values())),
        d,
    )


_view_algebra_jitted = njit(_view_algebra)
_keys = st.lists(st.integers(-6, 6), min_size=1, max_size=8)


@settings(max_examples=25, deadline=None)
@given(_keys, _keys)
def test_dict_views_as_sets_and_fromkeys_match_cpython(a, b):
    got = _view_algebra_jitted(a, b)
    want = _view_algebra(a, b)
    assert got[:-1] == want[:-1] and dict(got[-1]) == want[-1]


def test_fromkeys_without_a_value_maps_to_none():
    got = njit(lambda words: dict.fromkeys(words))(["b", "a", "b"])
    assert dict(got) == {"b": None, "a": None} and list(got) == ["b", "a"]


def test_dict_views_as_sets_free_what_they_allocate():
    assert_frees_all(_view_algebra_jitted, lambda: [1, 2, 3], lambda: [2, 5], calls=50)
