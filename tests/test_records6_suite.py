"""records6: record values that own a reference to their memory (kept across loop turns and
calls), records in tuples, lists and dicts, returned to Python; differential against CPython
running the same functions on NumPy records."""

import numpy as np
import pytest

import ember
from ember import typed, types
from tests.oracle import assert_frees_all

DT = np.dtype([("a", np.int64), ("b", np.float64)])
NESTED = np.dtype([("k", np.int32), ("v", np.float64, (3,)), ("p", DT)])


def _records(n, offset=0):
    data = np.zeros(n, DT)
    data["a"] = np.arange(n) * 3 - 4 + offset
    data["b"] = np.linspace(-1.5, 2.5, n) + offset
    return data


def _as_tuples(value):
    """Records (np.void / np.record) as plain tuples, at any depth in tuples and lists."""
    if isinstance(value, np.void):
        return tuple(_as_tuples(v) for v in value.tolist()) if value.dtype.names else value
    if isinstance(value, (list, tuple)):
        return type(value)(_as_tuples(v) for v in value)
    return value


def _same(got, expected):
    assert _as_tuples(got) == _as_tuples(expected)


# ---------------------------------------------------------------------------- kept records


@ember.njit
def _record_of_a_copy(data, i):
    local = data.copy()
    local[i]["a"] = local[i]["a"] * 10 + i
    return local[i]


@ember.njit
def _kept_across_calls(data):
    prev = _record_of_a_copy(data, 0)
    total = 0.0
    for i in range(1, data.size):
        cur = _record_of_a_copy(data, i)
        total = total * 7 + prev["a"] * 1000 + cur["a"] + prev["b"]
        prev = cur
    return total, prev["a"]


@ember.njit
def _fresh(i):
    z = np.zeros(3, DT)
    z[0]["a"] = i
    z[0]["b"] = i * 0.5
    return z


@ember.njit
def _kept_across_turns(n):
    prev = _fresh(0)[0]
    older = prev
    total = 0.0
    for i in range(1, n):
        cur = _fresh(i)[0]
        churn = np.full(6, 777)  # reuses what a released array held
        total += older["a"] * 10000 + prev["a"] * 100 + cur["a"] + prev["b"] + churn[0]
        older = prev
        prev = cur
    return total


def test_a_record_kept_across_calls_of_one_call_site_keeps_its_bytes():
    for n in (1, 2, 5, 9):
        data = _records(n)
        assert _kept_across_calls(data) == _kept_across_calls.py_func(data)


def test_a_record_of_a_temporary_array_kept_across_loop_turns_keeps_its_bytes():
    for n in (1, 2, 3, 8, 40):
        assert _kept_across_turns(n) == _kept_across_turns.py_func(n)


def test_records_kept_across_calls_and_turns_free_all_they_allocate():
    assert_frees_all(_kept_across_calls, lambda: _records(6), calls=50)
    assert_frees_all(_kept_across_turns, lambda: 12, calls=50)


@ember.njit
def _record_of_a_local_array(i):
    return _fresh(i)[0]


@ember.njit
def _record_of_an_argument(data, i):
    return data[i]


def test_returned_records_are_numpy_records_with_the_right_bytes():
    for i in (-3, 0, 7):
        got = _record_of_a_local_array(i)
        expected = _record_of_a_local_array.py_func(i)
        assert got.dtype == expected.dtype
        _same(got, expected)
    data = _records(4)
    for i in range(4):
        _same(_record_of_an_argument(data, i), data[i])
        _same(_record_of_a_copy(data, i), _record_of_a_copy.py_func(data, i))
    assert_frees_all(_record_of_a_local_array, lambda: 5)


@ember.njit
def _nested_kept(n):
    """A nested record and a sub-array field read from a dead array stay valid."""
    out = 0.0
    for i in range(n):
        arr = np.zeros(2, NESTED)
        arr[0]["v"][:] = i + 0.25
        arr[0]["p"]["a"] = i * 3
        r = arr[0]
        sub = r["v"]
        inner = r["p"]
        arr = np.zeros(2, NESTED)  # the first array is released here
        churn = np.full(8, -1.0)
        out += sub[1] + inner["a"] + churn[0]
    return out


def test_nested_fields_of_a_record_keep_its_memory():
    for n in (0, 1, 4):
        assert _nested_kept(n) == _nested_kept.py_func(n)
    assert_frees_all(_nested_kept, lambda: 3)


@ember.njit
def _last_of_each_loop(n):
    """A record a loop over a temporary array gives, kept after the array dies."""
    last = np.zeros(1, DT)[0]
    total = 0
    for k in range(3):
        z = np.zeros(n, DT)
        z["a"][:] = np.arange(n) + k * 100
        for r in z:
            last = r
        churn = np.full(2 * n, -5)
        total += last["a"] + churn[0]
    return total, last["a"]


@ember.njit
def _loops_over_records(n):
    z = np.zeros(n, DT)
    z["a"][:] = np.arange(n)
    total = 0
    for i, r in enumerate(z):
        total += r["a"] * i
    for r, s in zip(z, z[::-1]):
        total += r["a"] * s["a"]
    grid = np.zeros((n, 2), DT)
    grid["a"][:] = 3
    for row in grid:
        for r in row:
            total += r["a"]
    kept = [r for r in z]
    pair = -1
    if n > 1:
        it = iter(z)
        first = next(it)
        pair = first["a"] + next(it)["a"]
    return total, kept[-1]["a"] if n else -1, pair


def test_records_from_loops_over_arrays():
    for n in (0, 1, 2, 6):
        assert _last_of_each_loop(max(n, 1)) == _last_of_each_loop.py_func(max(n, 1))
        assert _loops_over_records(n) == _loops_over_records.py_func(n)
    assert_frees_all(_last_of_each_loop, lambda: 4)
    assert_frees_all(_loops_over_records, lambda: 4)


# ---------------------------------------------------------------------------- containers


@ember.njit
def _in_a_tuple(data):
    return (data[0], 1, data[data.size - 1])


@ember.njit
def _local_in_a_tuple(i):
    return (_fresh(i)[0], i)


@ember.njit
def _in_a_list(data):
    out = [data[0]]
    for i in range(1, data.size):
        out.append(data[i])
    return out


@ember.njit
def _list_of_local_records(n):
    out = []
    for i in range(n):
        out.append(_fresh(i)[0])
    return out


@ember.njit
def _list_sees_later_writes(data):
    kept = [data[0], data[1]]
    data[0]["a"] = 99  # a record is a view, in a list too (as in NumPy)
    return kept[0]["a"] + kept[1]["a"]


@ember.njit
def _sum_from_a_list(n):
    items = [_fresh(i)[0] for i in range(n)]
    total = 0.0
    for r in items:
        total += r["a"] * 2 + r["b"]
    return total


def test_records_in_tuples_and_lists_match_numpy():
    data = _records(5)
    _same(_in_a_tuple(data), _in_a_tuple.py_func(data))
    _same(_in_a_list(data), _in_a_list.py_func(data))
    for i in (0, 4):
        _same(_local_in_a_tuple(i), _local_in_a_tuple.py_func(i))
    for n in (0, 1, 6):
        _same(_list_of_local_records(n), _list_of_local_records.py_func(n))
        assert _sum_from_a_list(n) == _sum_from_a_list.py_func(n)
    assert _list_sees_later_writes(_records(3)) == _list_sees_later_writes.py_func(_records(3))
    assert_frees_all(_list_of_local_records, lambda: 5)
    assert_frees_all(_sum_from_a_list, lambda: 5)
    assert_frees_all(_local_in_a_tuple, lambda: 2)


@ember.njit
def _dict_of_records(n):
    d = {}
    for i in range(n):
        d[i % 3] = _fresh(i)[0]
    total = 0.0
    for k in d:
        total += k * 100 + d[k]["a"] + d[k]["b"]
    return total


def test_records_as_dict_values():
    for n in (0, 1, 7):
        assert _dict_of_records(n) == _dict_of_records.py_func(n)
    assert_frees_all(_dict_of_records, lambda: 7)


@ember.njit
def _fill_typed(d, data):
    for i in range(data.size):
        d[i] = data[i]
    return d[data.size - 1]["a"]


@ember.njit
def _keep_record(items, rec):
    items.append(rec)
    return len(items)


def test_records_in_a_typed_dict_outlive_the_arrays_they_came_from():
    import gc

    record_type = ember.from_dtype(DT)
    d = typed.Dict.empty(types.int64, record_type)
    data = _records(4)
    expected = data.copy()
    assert _fill_typed(d, data) == data[3]["a"]
    data[1]["a"] = 55  # the dict holds views of the array (as NumPy records would be)
    expected[1]["a"] = 55
    del data
    gc.collect()
    churn = [_records(4, offset=9) for _ in range(50)]
    assert len(d) == 4 and len(churn) == 50
    for k in range(4):
        _same(d[k], expected[k])
    kept = typed.List.empty_list(record_type)
    for i in range(3):
        assert _keep_record(kept, _records(3, offset=i)[i]) == i + 1
    gc.collect()
    churn = [_records(3, offset=-5) for _ in range(50)]
    for i in range(3):
        _same(kept[i], _records(3, offset=i)[i])


# ---------------------------------------------------------------------------- record types

A_DT = np.dtype([("a", "f8")])
AB_DT = np.dtype([("a", "f8"), ("b", "f8")])
BA_DT = np.dtype([("b", "f8"), ("a", "f8")])


def test_a_record_with_more_fields_runs_code_compiled_for_fewer():
    """Record subtyping: same names, types and offsets; nothing is compiled again."""

    @ember.njit
    def first(rec):
        return rec["a"] * 2

    @ember.njit
    def in_tuple(recs):
        total = 0.0
        for i in range(len(recs)):
            total += recs[i]["a"]
        return total

    small = np.array([(1.5,)], A_DT)[0]
    large = np.array([(2.5, 7.0)], AB_DT)[0]
    first(small)
    in_tuple((small, small))
    first.disable_compile()
    in_tuple.disable_compile()
    assert first(large) == first.py_func(large)
    assert in_tuple((large, large)) == in_tuple.py_func((large, large))
    assert len(first.signatures) == 1
    for other in (np.array([(1.0, 2.0)], BA_DT)[0], np.array([("x",)], [("a", "U3")])[0]):
        with pytest.raises(TypeError, match="No matching definition"):
            first(other)  # 'a' at another offset, or of another type


def test_a_record_with_fewer_fields_is_not_a_subtype():
    @ember.njit
    def both(rec):
        return rec["a"] + rec["b"]

    both(np.array([(1.0, 2.0)], AB_DT)[0])
    both.disable_compile()
    with pytest.raises(TypeError, match="No matching definition"):
        both(np.array([(1.0,)], A_DT)[0])


def test_sub_arrays_of_sub_arrays_join_their_shapes():
    inner = np.dtype((np.float64, (2, 2)))
    dt = np.dtype([("k", np.int32), ("m", (inner, (3,)))])
    assert ember.from_dtype(np.dtype((inner, (3, 6)))) == types.NestedArray(
        types.float64, (3, 6, 2, 2)
    )
    assert types.Array(ember.from_dtype(np.dtype((inner, (3,)))), 2, "C") == types.Array(
        types.float64, 5, "C"
    )
    packed = ember.from_dtype(dt)  # not padded as a C struct: what Numba calls unaligned
    assert types.Array(packed, 1, "C", aligned=False) == ember.typeof(np.zeros(1, dt))
    with pytest.raises(ValueError, match="unaligned"):
        types.Array(types.float64, 1, "C", aligned=False)

    @ember.njit
    def read(data):
        total = 0.0
        for i in range(data.size):
            m = data[i]["m"]
            total += m[2, 1, 0] * (i + 1) + m.sum()
            data[i]["m"][0, 0, 1] = -total
        return total

    data = np.zeros(3, dt)
    data["m"] = np.arange(36.0).reshape(3, 3, 2, 2)
    expected_data = data.copy()
    assert read(data) == read.py_func(expected_data)
    np.testing.assert_array_equal(data, expected_data)


# ---------------------------------------------------------------------------- Polynomial


def test_polynomial_arguments_from_python():
    from numpy.polynomial import Polynomial

    @ember.njit
    def parts(p):
        return p.coef.sum() * 2, p.domain[1] - p.domain[0], p.window[0], p.coef.size

    @ember.njit
    def same(p):
        return p

    cases = [
        Polynomial([1.0, 2.0, 3.0]),
        Polynomial([-0.5], domain=[0, 4]),
        Polynomial([1.0, 0.0, -2.5, 7.0], domain=[-2.0, 3.0], window=[0.0, 1.0]),
    ]
    for p in cases:
        assert parts(p) == parts.py_func(p)
        back = same(p)
        assert isinstance(back, Polynomial)
        for name in ("coef", "domain", "window"):
            np.testing.assert_array_equal(getattr(back, name), getattr(p, name))
    with pytest.raises(ValueError, match="object"):  # an object array, as an array argument
        parts(Polynomial(np.array([1, "x"], dtype=object)))
    assert_frees_all(same, lambda: Polynomial([1.0, 2.0]))


# ---------------------------------------------------------------------------- datetimes


def test_isinstance_of_datetime_and_timedelta_classes():
    @ember.njit
    def kinds(x):
        return isinstance(x, np.datetime64), isinstance(x, np.timedelta64), isinstance(x, int)

    values = [
        np.datetime64(1, "ns"),
        np.datetime64("2020-01-03", "D"),
        np.datetime64(5, "ns") - np.datetime64(2, "ns"),
        np.timedelta64(7, "m"),
        3,
    ]
    for value in values:
        assert kinds(value) == kinds.py_func(value)


def test_a_multiple_of_a_datetime_unit_is_refused_naming_the_argument():
    @ember.njit
    def shift(x):
        return x + 1

    with pytest.raises(ember.errors.TypingError, match=r"datetime64\[10Y\].*\(argument 0\)"):
        shift(np.array("2010", dtype="datetime64[10Y]"))
    assert shift(np.array("2010", dtype="datetime64[Y]")) == shift.py_func(
        np.array("2010", dtype="datetime64[Y]")
    )


def test_filling_an_array_of_records_with_a_number_is_refused_clearly():
    @ember.njit
    def ones(n):
        return np.ones(n, DT)

    @ember.njit
    def full(n):
        return np.full(n, 5, DT)

    for func in (ones, full):
        with pytest.raises(ember.errors.TypingError, match="assign each field"):
            func(3)
