"""Structured (record) arrays in compiled code: fields read and written by name or attribute,
field views, record copies, iteration, creation, and the dtypes refused with a reason."""

import numpy as np
import pytest

from ember import njit, typeof, types
from ember.errors import TypingError

POINT = np.dtype([("x", "f8"), ("n", "i4"), ("flag", "?")])
ALIGNED = np.dtype([("n", "i2"), ("x", "f8"), ("k", "u1")], align=True)
SHUFFLED = np.dtype({"names": ["b", "a"], "formats": ["f4", "i8"], "offsets": [8, 0]})


def _points(n, dtype=POINT, seed=0):
    rng = np.random.default_rng(seed)
    a = np.zeros(n, dtype=dtype)
    for name in dtype.names:
        kind = dtype.fields[name][0].kind
        if kind == "b":
            a[name] = rng.random(n) < 0.5
        elif kind in "iu":
            a[name] = rng.integers(0, 100, n)
        else:
            a[name] = rng.normal(size=n)
    return a


@njit
def weighted_by_index(r):
    total = 0.0
    for i in range(r.shape[0]):
        if r[i]["flag"]:
            total += r[i]["x"] * r[i]["n"]
    return total


@njit
def weighted_by_attribute(r):
    total = 0.0
    for i in range(r.shape[0]):
        if r[i].flag:
            total += r[i].x * r[i].n
    return total


@njit
def update(r, k):
    for i in range(r.shape[0]):
        r[i]["x"] += k
        r[i]["n"] = r[i]["n"] * 2 - i
        item = r[i]
        item["flag"] = not item["flag"]


@njit
def update_by_attribute(r, k):
    for i in range(r.shape[0]):
        r[i].x += k
        r[i].n = r[i].n * 2 - i
        item = r[i]
        item.flag = not item.flag


@njit
def field_views(r):
    return r["x"].sum(), r["n"] * 2, r["x"][1::2].copy()


@njit
def iterate(r):
    total = 0
    for item in r:
        total += item["n"]
    return total


@njit
def rotate(r):
    first = r[0]["x"], r[0]["n"], r[0]["flag"]
    for i in range(r.shape[0] - 1):
        r[i] = r[i + 1]
    last = r[r.shape[0] - 1]
    last["x"], last["n"], last["flag"] = first


@njit
def make(n):
    a = np.zeros(n, dtype=POINT)
    for i in range(n):
        a[i]["x"] = i * 0.5
        a[i]["n"] = i
        a[i]["flag"] = i % 2 == 0
    return a


def test_type_lists_fields_with_offsets():
    record = typeof(np.zeros(1, POINT)).dtype
    assert isinstance(record, types.Record)
    assert [(name, field.offset) for name, field in record.fields.items()] == [
        ("x", 0),
        ("n", 8),
        ("flag", 12),
    ]
    assert record.size == POINT.itemsize
    # Numba's field tuples: (type, offset, alignment, title)
    assert record.fields["n"] == (record.fields["n"].type, 8, None, None)


@pytest.mark.parametrize("n", [0, 1, 7, 50])
def test_reads_match_python(n):
    a = _points(n, seed=n)
    expected = weighted_by_index.py_func(a)
    assert weighted_by_index(a) == pytest.approx(expected)
    assert weighted_by_attribute(a) == pytest.approx(expected)
    assert iterate(a) == iterate.py_func(a)


@pytest.mark.parametrize("updater", [update, update_by_attribute])
def test_writes_go_to_the_array(updater):
    a = _points(9)
    expected = a.copy()
    update.py_func(expected, 1.5)
    updater(a, 1.5)
    np.testing.assert_array_equal(a, expected)


def test_field_views_share_memory_and_strides():
    a = _points(10)
    total, doubled, odd = field_views(a)
    assert total == pytest.approx(a["x"].sum())
    np.testing.assert_array_equal(doubled, a["n"] * 2)
    np.testing.assert_array_equal(odd, a["x"][1::2])


def test_record_assignment_copies_bytes():
    a = _points(5)
    expected = a.copy()
    rotate.py_func(expected)
    rotate(a)
    np.testing.assert_array_equal(a, expected)


def test_arrays_made_in_compiled_code_have_the_dtype():
    made = make(4)
    assert made.dtype == POINT
    np.testing.assert_array_equal(made, make.py_func(4))


@pytest.mark.parametrize("dtype", [ALIGNED, SHUFFLED])
def test_padding_and_field_order(dtype):
    a = _points(6, dtype)

    @njit
    def bump_all(r):
        for i in range(r.shape[0]):
            r[i] = r[(i + 1) % r.shape[0]]

    expected = a.copy()
    bump_all.py_func(expected)
    bump_all(a)
    np.testing.assert_array_equal(a, expected)


def test_two_record_dtypes_of_one_size_get_their_own_code():
    other = np.dtype([("x", "i8"), ("n", "f4"), ("flag", "?")])  # 13 bytes, like POINT
    a, b = _points(4), _points(4, other)
    assert weighted_by_index(a) == pytest.approx(weighted_by_index.py_func(a))
    assert weighted_by_index(b) == pytest.approx(weighted_by_index.py_func(b))


def test_unknown_field_names_the_fields():
    @njit
    def missing(r):
        return r[0]["y"]

    with pytest.raises(TypingError, match="Field 'y' was not found.*x.*n.*flag"):
        missing(_points(2))


def test_fields_of_unsupported_dtypes_are_refused_with_a_reason():
    dated = np.zeros(2, dtype=[("t", "M8[10ns]"), ("w", "f8")])  # a multiple of a unit
    boxed = np.zeros(2, dtype=[("o", object)])

    @njit
    def first(r):
        return r.shape[0]

    for a in (dated, boxed):
        with pytest.raises(TypingError, match="records"):
            first(a)


def test_a_single_record_argument_is_the_element_itself():
    @njit
    def read_and_bump(item):
        item["n"] += 1
        return item["x"]

    a = _points(3)
    expected = a.copy()
    assert read_and_bump(a[1]) == expected[1]["x"]
    expected[1]["n"] += 1  # NumPy's a[1] is a view: the write reaches the array
    np.testing.assert_array_equal(a, expected)


_GLOBAL_RECORD = np.array([(3, 1.5)], dtype=[("a", "<i4"), ("b", "<f4")])[0]
# the same bytes in another dtype of the same size: the two constants must stay apart
_GLOBAL_TWIN = np.array([(3, 1.5)], dtype=[("x", "<i4"), ("y", "<f4")])[0]


def test_a_global_record_is_a_constant():
    read = njit(lambda: (_GLOBAL_RECORD.a * 2 + _GLOBAL_RECORD.b, _GLOBAL_TWIN.y - _GLOBAL_TWIN.x))
    assert read() == (7.5, -1.5)
    whole = njit(lambda: _GLOBAL_TWIN)()
    assert whole.dtype == _GLOBAL_TWIN.dtype and whole == _GLOBAL_TWIN
