"""NumPy features found missing by running Numba's test modules under ember (third round:
`a.flat` of any layout, np.nditer of several operands, records returned and assigned, datetime
scalars in builtins), each checked against NumPy or CPython running the same function."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
import ember.runtime
from ember import TypingError, njit


class live_allocations:
    """The runtime's live-allocation count is unchanged across the block."""

    def __enter__(self):
        self.before = ember.runtime.stats().live

    def __exit__(self, *exc):
        if exc[0] is None:
            assert ember.runtime.stats().live == self.before


def _layouts():
    """C, F and strided ('A') arrays, of several dtypes and ranks."""
    base = np.arange(24).reshape(4, 2, 3)
    yield base
    yield base.T
    yield base.T[::2]
    yield np.arange(10)[::3]
    yield np.arange(12.0).reshape(3, 4)[:, ::-2]
    yield np.bool_([1, 0, 0, 1] * 2).reshape(2, 2, 2).transpose(1, 0, 2)
    yield np.array(42).reshape(())


LAYOUTS = list(_layouts())


# ---------------------------------------------------------------------------- a.flat


@njit
def _flat_items(a):
    out = np.empty(a.size, a.dtype)
    for i, v in enumerate(a.flat):
        out[i] = v
    return out


@njit
def _flat_weighted_sum(a):
    total = 0
    for v in a.flat:
        total = total * 3 + v
    return total


@njit
def _flat_len(a):
    return len(a.flat)


@njit
def _flat_get(a, index):
    return a.flat[index]


@njit
def _flat_set(a, index, value):
    a.flat[index] = value


@pytest.mark.parametrize("a", LAYOUTS, ids=range(len(LAYOUTS)))
def test_flat_iterates_in_c_order(a):
    np.testing.assert_array_equal(_flat_items(a), np.array(list(a.flat), a.dtype))
    assert _flat_weighted_sum(a) == _flat_weighted_sum.py_func(a)
    assert _flat_len(a) == len(a.flat)


@pytest.mark.parametrize("a", LAYOUTS, ids=range(len(LAYOUTS)))
def test_flat_integer_index_get_and_set(a):
    for index in range(-a.size, a.size):
        assert _flat_get(a, index) == a.flat[index]
        got, expected = np.copy(a), np.copy(a)
        _flat_set(got, index, 1)
        expected.flat[index] = 1
        np.testing.assert_array_equal(got, expected)


def test_flat_index_out_of_bounds_is_index_error():
    a = np.arange(6).reshape(2, 3).T
    for index in (6, -7):
        with pytest.raises(IndexError):
            a.flat[index]
        with pytest.raises(IndexError):
            _flat_get(a, index)
        with pytest.raises(IndexError):
            _flat_set(a, index, 0)


@pytest.mark.parametrize("selector", [slice(1, None, 2), slice(None, None, -3), slice(5, 2)])
def test_flat_slice_get_is_a_copy(selector):
    a = np.arange(24).reshape(4, 6).T
    got = _flat_get(a, selector)
    np.testing.assert_array_equal(got, a.flat[selector])
    if got.size:
        got[0] = -1
        assert -1 not in a


def test_flat_integer_array_get_and_set():
    a = np.arange(24.0).reshape(4, 6).T
    picks = np.array([0, -1, 5, 5])
    np.testing.assert_array_equal(_flat_get(a, picks), a.flat[picks])
    got, expected = np.asfortranarray(a), np.asfortranarray(a)
    _flat_set(got, picks, 9.5)
    expected.flat[picks] = 9.5
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "values", [7, np.array([100, 200]), np.array([1, 2, 3, 4, 5, 6, 7]), (8, 9)]
)
def test_flat_slice_set_repeats_values_as_numpy(values):
    a = np.arange(24).reshape(4, 6).T
    got, expected = a.copy(order="F"), a.copy(order="F")
    _flat_set(got, slice(1, 20, 3), values)
    expected.flat[1:20:3] = values
    np.testing.assert_array_equal(got, expected)


def test_flat_bad_index_is_typing_error():
    with pytest.raises(TypingError, match="a.flat"):
        _flat_get(np.arange(6).reshape(2, 3).T, 1.5)


@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.permutations([0, 1, 2]),
    st.integers(1, 2),
)
@settings(max_examples=25, deadline=None)
def test_flat_matches_numpy_for_any_strides(shape, order, step):
    a = np.arange(int(np.prod(shape)) * 2, dtype=np.int32).reshape([*shape[:-1], shape[-1] * 2])
    a = a[..., ::step]
    a = a.transpose([k for k in order if k < a.ndim])
    np.testing.assert_array_equal(_flat_items(a), np.array(list(a.flat), a.dtype))


@njit
def _flat_of_local(n):
    a = np.arange(n * 3.0).reshape(n, 3).T
    total = 0.0
    for v in a.flat:
        total += v
    part = a.flat[1::2]
    a.flat[0:4] = part[:2]
    return total + part.sum() + a.flat[0] + len(a.flat)


def test_flat_of_a_local_array_leaks_nothing():
    expected = _flat_of_local.py_func(4)
    _flat_of_local(4)
    with live_allocations():
        for _ in range(20):
            assert _flat_of_local(4) == expected


@njit
def _ndenumerate_sum(a):
    total = 0
    for (i, j), v in np.ndenumerate(a):
        total += (i + 1) * (j + 2) * v
    return total


def test_ndenumerate_of_non_contiguous_arrays():
    a = np.arange(12).reshape(4, 3)
    for view in (a, a.T, a.T[::2], a[::-1, 1:]):
        assert _ndenumerate_sum(view) == _ndenumerate_sum.py_func(view)


# ---------------------------------------------------------------------------- np.nditer


def _nditer_one(a):
    return [u.item() for u in np.nditer(a)]


def _nditer_two(a, b):
    return [(u.item(), v.item()) for u, v in np.nditer((a, b))]


def _nditer_three(a, b, c):
    return [(u.item(), v.item(), w.item()) for u, v, w in np.nditer((a, b, c))]


_nditer_one_c = njit(_nditer_one)
_nditer_two_c = njit(_nditer_two)
_nditer_three_c = njit(_nditer_three)


def _operands():
    yield np.float32(100)
    yield np.array(102, dtype=np.int16)
    yield np.arange(4).astype(np.complex64)
    yield np.arange(8)[::2]
    yield np.arange(12).reshape(3, 4)
    yield np.arange(12).reshape(3, 4).copy(order="F")
    yield np.arange(24).reshape(6, 4)[::2]


OPERANDS = list(_operands())


@pytest.mark.parametrize("a", OPERANDS, ids=range(len(OPERANDS)))
def test_nditer_of_one_operand_matches_numpy(a):
    assert _nditer_one_c(a) == _nditer_one(a)


# a number, a 0-d array, 1-d (contiguous, strided), 2-d (C, F, strided) against each other
PAIRS = [(0, 1), (0, 4), (1, 3), (2, 4), (3, 5), (4, 6), (5, 2), (6, 5), (2, 2), (6, 0)]


@pytest.mark.parametrize("pair", PAIRS)
def test_nditer_of_two_operands_broadcasts_as_numpy(pair):
    a, b = OPERANDS[pair[0]], OPERANDS[pair[1]]
    # ember walks the broadcast shape in C order; NumPy may pick a memory order
    assert sorted(_nditer_two_c(a, b), key=repr) == sorted(_nditer_two(a, b), key=repr)


def test_nditer_of_three_operands_in_c_order():
    a, b, c = np.arange(3.0), np.arange(6).reshape(2, 3), np.int8(7)
    assert _nditer_three_c(a, b, c) == _nditer_three(a, b, c)  # all C: the same order


def test_nditer_of_one_operand_in_a_tuple_yields_elements():
    f = njit(lambda a: [u.item() for u in np.nditer((a,))])
    a = np.arange(4.0)
    assert f(a) == [u.item() for u in np.nditer((a,))]


def test_nditer_operands_that_do_not_broadcast_raise():
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        np.nditer((np.arange(3), np.arange(4)))
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        _nditer_two_c(np.arange(3), np.arange(4))
    with pytest.raises(ValueError, match="zero-sized"):
        _nditer_two_c(np.arange(0), np.arange(1))


def test_nditer_views_read_the_operands_and_leak_nothing():
    @njit
    def total(n):
        a = np.arange(n * 2.0).reshape(n, 2)
        s = 0.0
        for u, v in np.nditer((a, 1.5)):
            s += u[()] * v[()]
        return s

    assert total(3) == sum(x * 1.5 for x in range(6))
    with live_allocations():
        for _ in range(10):
            total(3)


def test_ndindex_of_no_dimensions_yields_one_empty_index():
    def count():
        found = []
        for index in np.ndindex(()):
            found.append(len(index))
        for index in np.ndindex():
            found.append(len(index) + 10)
        return found

    assert njit(count)() == count()


# ---------------------------------------------------------------------------- records

RECORD = np.dtype([("a", "f8"), ("b", "i2"), ("c", "c8"), ("d", "U5")])
NESTED = np.dtype([("g", "i4"), ("h", "f4", (3, 2))])


def _records():
    a = np.zeros(3, RECORD)
    a[1] = (1.5, 3, 2 + 1j, "hi")
    a[2] = (-2.0, 7, 1j, "world")
    return a


@njit
def _record_at(a, i):
    return a[i]


def test_returned_record_is_a_numpy_record_copy():
    a = _records()
    got = _record_at(a, 1)
    assert isinstance(got, np.record)
    assert got == a[1] and got.a == a[1]["a"] and got.d == "hi"
    got["a"] = 99.0  # a copy: the array keeps its value
    assert a[1]["a"] == 1.5


def test_returned_record_from_a_constant_array():
    table = _records()

    @njit
    def pick(i):
        return table[i]

    assert pick(2) == table[2]


def test_record_of_an_array_made_in_the_call_and_its_field_keep_their_memory():
    """A record and a sub-array field (an array view) of an array made in the call hold a
    reference to its memory: both come back with their values."""

    @njit
    def local_record(i):
        a = np.zeros(3, RECORD)
        a[i].a = 2.5
        return a[i]

    @njit
    def local_field(i):
        a = np.zeros(2, NESTED)
        a[i].h[0] = 4.0
        return a[i].h

    assert local_record(1).a == 2.5
    expected = np.zeros(2, NESTED)[1]["h"]
    expected[0] = 4.0
    np.testing.assert_array_equal(local_field(1), expected)


def test_returned_sub_array_field_is_a_view_of_the_argument():
    a = np.zeros(2, NESTED)
    a["h"][1] = np.arange(6).reshape(3, 2)
    view = njit(lambda a, i: a[i].h)(a, 1)
    np.testing.assert_array_equal(view, a[1]["h"])
    view[0, 0] = 50.0
    assert a[1]["h"][0, 0] == 50.0  # NumPy's a[1].h is a view too
    from_record = njit(lambda r: r.h)(a[0])
    np.testing.assert_array_equal(from_record, a[0]["h"])


@pytest.mark.parametrize("position", [0, 1, 2, -3])
def test_record_indexed_by_constant_position(position):
    def get(ary, i):
        return ary[i][position]

    def put(ary, i, v):
        ary[i][position] = v

    a = _records()
    assert njit(get)(a, 1) == get(a, 1)
    got, expected = _records(), _records()
    njit(put)(got, 2, 3.0)
    put(expected, 2, 3.0)
    np.testing.assert_array_equal(got, expected)


def test_record_position_out_of_range_is_typing_error():
    def get(ary, i):
        return ary[i][10]

    with pytest.raises(TypingError, match="Requested index 10 is out of range"):
        njit(get)(_records(), 0)


def test_missing_field_names_the_record_fields():
    def get(rec):
        names = ("a", "q")
        return rec[names[1]]

    with pytest.raises(TypingError, match=r"Field 'q' was not found in record with fields"):
        njit(get)(_records()[0])


@pytest.mark.parametrize(
    "value",
    [np.arange(6, dtype=np.int16).reshape(3, 2) + 1, np.arange(2.0), 7, True],
    ids=["array", "broadcast row", "number", "bool"],
)
def test_whole_sub_array_field_assignment(value):
    def assign(dest, value):
        dest["h"] = value

    got, expected = np.zeros(2, NESTED), np.zeros(2, NESTED)
    njit(assign)(got[1], value)
    assign(expected[1], value)
    np.testing.assert_array_equal(got, expected)


def test_sub_array_field_assignment_that_does_not_broadcast_raises():
    def assign(dest, value):
        dest["h"] = value

    with pytest.raises(ValueError):
        assign(np.zeros(1, NESTED)[0], np.arange(4.0))
    with pytest.raises(ValueError):
        njit(assign)(np.zeros(1, NESTED)[0], np.arange(4.0))


def test_field_of_a_record_array_assigned():
    def assign(a, b):
        a["g"] = b["g"] + 1
        a["h"] = b["h"]
        a["g"][0] = 5

    src = np.zeros(3, NESTED)
    src["g"] = [1, 2, 3]
    src["h"] = np.arange(18).reshape(3, 3, 2)
    got, expected = np.zeros(3, NESTED), np.zeros(3, NESTED)
    njit(assign)(got, src)
    assign(expected, src)
    np.testing.assert_array_equal(got, expected)


def test_field_assignment_on_local_record_arrays_leaks_nothing():
    @njit
    def fill(n):
        a = np.zeros(n, NESTED)
        a["g"] = np.arange(n)
        a["h"] = 2.5
        a[0]["h"] = np.ones((3, 2))
        return a["g"].sum() + a["h"].sum()

    expected = fill.py_func(4)
    with live_allocations():
        for _ in range(10):
            assert fill(4) == expected


# ---------------------------------------------------------------------------- datetimes


_builtin_max = njit(lambda a: max(a))
_builtin_min = njit(lambda a: min(a))


@pytest.mark.parametrize(
    "values",
    [
        np.array(["2011-01-01", "NaT", "1900-01-01"], "M8[ns]"),
        np.array(["NaT", "2000-01-01"], "M8[D]"),
        np.array(["NaT", "NaT"], "m8[ns]"),
        np.array([3, 1, 2], "m8[D]"),
    ],
)
def test_builtin_max_min_of_datetime_arrays(values):
    for compiled, builtin in ((_builtin_max, max), (_builtin_min, min)):
        got, expected = compiled(values), builtin(values)
        assert (np.isnat(got) and np.isnat(expected)) or got == expected


def test_searchsorted_of_a_datetime_scalar():
    f = njit(lambda a, v: np.searchsorted(a, v))
    a = np.array(["1900-01-01", "2011-01-01", "NaT"], "M8[ns]")
    for v in (np.datetime64("2000-01-01", "ns"), np.datetime64("NaT", "ns"),
              np.datetime64("2011-01-01", "D")):  # fmt: skip
        assert f(a, v) == np.searchsorted(a, v)


def test_int_of_nanosecond_datetimes_and_its_typing_error():
    f = njit(lambda x: int(x))
    for x in (np.timedelta64(-4, "ns"), np.datetime64("2014-01-05T01:00", "ns"),
              np.timedelta64(3, "ps")):  # fmt: skip
        assert f(x) == int(x)
    with pytest.raises(TypingError, match="only datetime64\\[ns\\]"):
        f(np.datetime64("2014"))


def test_hash_of_datetimes_is_the_count():
    f = njit(lambda x: hash(x))
    for x in (np.timedelta64(-4, "ms"), np.timedelta64(27, "D"), np.datetime64("2014-02-02")):
        assert f(x) == x.astype(np.int64)
    with pytest.raises(ValueError, match="Can't hash generic timedelta64"):
        hash(np.timedelta64(3))
    with pytest.raises(ValueError, match="Can't hash generic timedelta64"):
        f(np.timedelta64(3))


@pytest.mark.parametrize("factor", [np.uint32(2), np.uint8(3), np.uint64(5)])
def test_timedelta_times_unsigned_numpy_integers(factor):
    mul = njit(lambda a, b: a * b)
    div = njit(lambda a, b: a // b)
    delta = np.timedelta64(-7, "ps")
    assert mul(delta, factor) == delta * factor
    assert mul(factor, delta) == factor * delta
    assert div(delta, factor) == delta // factor


def test_unsupported_unit_pair_names_the_ufunc():
    f = njit(lambda a, b: np.add(a, b))
    with pytest.raises(TypingError, match="ufunc 'add' is not supported between"):
        f(np.zeros(2, "M8[ns]"), np.timedelta64(1, "M"))


# ---------------------------------------------------------------------------- smaller gaps


def _same_result(got, expected):
    assert type(got) is type(expected) or np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "func, args",
    [
        (lambda a: np.repeat(a, 3), (5,)),
        (lambda a: np.repeat(a, 2), ((1.5, 2.5),)),
        (lambda a, b: np.isin(a, b), (3, np.array([1, 3]))),
        (lambda a, b: np.isin(a, b), (np.array([1, 3, 4]), 3)),
        (lambda a, b: np.isin(a, b, invert=True), (2.5, np.array([2.5]))),
        (lambda a: np.insert(a, 1, 9), ([1, 2, 3],)),
        (lambda a: np.insert(a, -1, 9.5), ((1.0, 2.0),)),
        (lambda a: np.fliplr(a), (((1, 2), (3, 4)),)),
        (lambda a: np.flipud(a), ((1, 2, 3),)),
        (lambda a, b: np.isin(a, b), ([1.0, 2.5], (2.5, 3.0))),
        (lambda a, r: np.repeat(a, r), (np.arange(3), [2, 0, 1])),
        (lambda a, r: a.repeat(r), (np.arange(3.0), (1, 3, 0))),
    ],
    ids=[
        "repeat number",
        "repeat tuple",
        "isin scalar a",
        "isin scalar b",
        "isin invert",
        "insert list",
        "insert tuple",
        "fliplr tuple",
        "flipud tuple",
        "isin lists",
        "repeat list counts",
        "repeat method tuple counts",
    ],
)
def test_array_likes_taken_as_numpy_does(func, args):
    _same_result(njit(func)(*args), func(*args))


def test_isclose_of_integer_extremes_computes_in_float():
    info = np.iinfo(np.int64)
    a, b = np.array([info.min, 0, 5]), np.array([info.max, 1, 5])
    f = njit(lambda a, b: np.isclose(a, b))
    np.testing.assert_array_equal(f(a, b), np.isclose(a, b))
    np.testing.assert_array_equal(f(a, info.max), np.isclose(a, info.max))
    assert njit(lambda a, b: np.allclose(a, b))(a, b) == np.allclose(a, b)


def test_diff_and_flip_of_0d_arrays():
    with pytest.raises(ValueError, match="at least one dimensional"):
        np.diff(np.array(3.0))
    with pytest.raises(TypingError, match="at least one dimensional"):  # known statically
        njit(lambda a: np.diff(a))(np.array(3.0))
    got = njit(lambda a: np.flip(a))(np.array(3.5))
    assert not isinstance(got, np.ndarray) and got == np.flip(np.array(3.5))


def test_roots_of_float32_and_of_2d_input():
    f = njit(lambda p: np.roots(p))
    p = np.array([1.0, -3.0, 2.0], np.float32)
    got, expected = f(p), np.roots(p)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(np.sort(got), np.sort(expected), rtol=1e-6)
    with pytest.raises(ValueError, match="rank-1"):
        f(np.ones((2, 2)))


def test_flips_of_the_wrong_kind_are_typing_errors():
    with pytest.raises(TypingError, match="Cannot np.flip on UniTuple"):
        njit(lambda a: np.flip(a))((1, 2, 3))
    with pytest.raises(TypingError, match="Cannot np.fliplr on unicode_type"):
        njit(lambda a: np.fliplr(a))("abc")
    with pytest.raises(TypingError, match="with 2 indices"):
        njit(lambda a: np.fliplr(a))(np.arange(3))
    with pytest.raises(TypingError, match="integer or an array-like of integer dtype"):
        njit(lambda a, r: np.repeat(a, r))(np.arange(3.0), 1.5)


def test_repeat_counts_of_one_broadcast_and_isin_flags_are_bools():
    f = njit(lambda a, r: np.repeat(a, r))
    np.testing.assert_array_equal(f(np.arange(3), np.array([2])), np.repeat(np.arange(3), [2]))
    with pytest.raises(ValueError, match="negative dimensions"):
        f(np.ones(1), np.array([-1]))
    g = njit(lambda a, b, u, i: np.isin(a, b, u, i))
    with pytest.raises(TypingError, match="assume_unique must be a bool"):
        g(np.array([1]), np.array([2]), "foo", False)


def test_insert_and_repeat_errors_name_the_problem():
    insert = njit(lambda a, i, v: np.insert(a, i, v))
    with pytest.raises(TypingError, match="arr must be either an Array or a Sequence"):
        insert(2, 0, 9)
    with pytest.raises(TypingError, match="obj should be an Integer, an Array or a Sequence"):
        insert(np.arange(5), 2.5, 9)
    with pytest.raises(ValueError, match="repeats may not contain negative values"):
        np.repeat(np.ones(2), np.array([1, -1]))
    with pytest.raises(ValueError, match="repeats may not contain negative values"):
        njit(lambda a, r: np.repeat(a, r))(np.ones(2), np.array([1, -1]))
