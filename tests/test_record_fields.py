"""Record array fields as Numba gives them: `a.x` (a strided view, like `a['x']`), reads and
writes through `a[i].x`, `a[i]['x']` and `a.x[i]`, nested records and sub-array fields; each
result checked against the Python function run by NumPy."""

import numpy as np
import pytest

from ember import njit, typeof, types
from ember.errors import TypingError

POINT = np.dtype([("x", "f8"), ("n", "i4")])
NESTED = np.dtype([("p", POINT), ("w", "f8"), ("tag", "u1")])
PARTICLE = np.dtype([("pos", "f8", (3,)), ("id", "i8"), ("m", "f4", (2, 2))])


def filled(dtype, n, seed=0):
    """An array of `dtype` with every number drawn at random (small integers, normal floats)."""
    rng = np.random.default_rng(seed)
    out = np.zeros(n, dtype)
    raw = out.view(np.uint8).reshape(n, dtype.itemsize)
    raw[:] = rng.integers(0, 4, raw.shape)  # small bytes: finite floats, small integers
    return out


def same_after(func, make, *args):
    """Run `func` compiled and as Python on copies of `make()` (NumPy's recarray view reads
    `a.x` and `a[i].x`, as compiled code does); both results and arrays agree."""
    ours, theirs = make(), make()
    got, expected = njit(func)(ours, *args), func(theirs.view(np.recarray), *args)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_allclose(got, expected)


def field_attribute_sum(a):
    return a.x.sum() + a.n[1::2].sum()


def field_attribute_write(a, k):
    for i in range(a.shape[0]):
        a.x[i] = a.n[i] * k
    a["n"][0] = 77
    return a.x[-1]


def element_reads_and_writes(a):
    total = 0.0
    for i in range(a.shape[0]):
        a[i].x = a[i]["x"] + i
        a[i]["n"] = a[i].n - 1
        total += a[i].x * a[i]["n"]
    return total


def field_names_an_attribute_of_arrays(a):
    return a.shape[0] + a["shape"].sum()


@pytest.mark.parametrize(
    "func, args",
    [(field_attribute_sum, ()), (field_attribute_write, (1.5,)), (element_reads_and_writes, ())],
)
def test_plain_fields(func, args):
    same_after(func, lambda: filled(POINT, 7), *args)


def test_attribute_views_of_a_2d_record_array():
    def column_totals(a):
        return a.x.sum(axis=0) + a.n[:, 0].sum()

    same_after(column_totals, lambda: filled(POINT, 12).reshape(3, 4))


def test_a_field_named_like_an_array_attribute_leaves_the_attribute():
    dtype = np.dtype([("shape", "f8"), ("n", "i4")])
    same_after(field_names_an_attribute_of_arrays, lambda: filled(dtype, 5))


def test_attribute_view_shares_memory():
    @njit
    def view(a):
        return a.x

    a = filled(POINT, 4)
    got = view(a)
    got[2] = -9.0
    assert a["x"][2] == -9.0
    assert got.strides == a["x"].strides


def nested_reads(a):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i].p.x * a[i].w + a[i]["p"]["n"] + a[i].tag
    return total + a.p.x.sum() + a["p"]["n"].sum()


def nested_writes(a):
    for i in range(a.shape[0]):
        a[i].p.x = a[i].w * 2.0
        a[i]["p"]["n"] = i
        a[i].tag = a[i].p.n + 1
    a.p.x[0] = 5.0
    a[a.shape[0] - 1].p = a[0].p  # copies the nested record's bytes
    return a[1].p.x


@pytest.mark.parametrize("func", [nested_reads, nested_writes])
def test_nested_records(func):
    same_after(func, lambda: filled(NESTED, 6, seed=1))


def test_nested_record_type():
    record = typeof(np.zeros(1, NESTED)).dtype
    assert record.typeof("p") == typeof(np.zeros(1, POINT)).dtype
    assert record.dtype == NESTED


def subarray_reads(a):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i].pos.sum() * a[i].id + a[i].m[1, 0] + a[i]["pos"][2]
    return total + a.pos[:, 1].sum() + a["m"][0, 1, 1]


def subarray_writes(a):
    for i in range(a.shape[0]):
        a[i].pos[1] = 2.0
        a[i]["m"][0, 0] = a[i].id
        a[i].pos[:] = a[i].pos * 0.5
    a.pos[0, 2] = 9.0
    return a[0].pos[2]


def subarray_of_every_record(a):
    n = 0.0
    for r in a:
        n += r.pos[0] - r.m.sum()
    return n


@pytest.mark.parametrize("func", [subarray_reads, subarray_writes, subarray_of_every_record])
def test_subarray_fields(func):
    same_after(func, lambda: filled(PARTICLE, 5, seed=2))


def test_subarray_field_types():
    record = typeof(np.zeros(1, PARTICLE)).dtype
    assert record.typeof("pos") == types.NestedArray(types.float64, (3,))
    assert record.typeof("m") == types.NestedArray(types.float32, (2, 2))
    assert record.dtype == PARTICLE

    @njit
    def views(a):
        return a.pos, a[0].pos.copy(), a[0].m.copy()

    a = filled(PARTICLE, 3)
    whole, first, matrix = views(a)
    np.testing.assert_array_equal(whole, a["pos"])
    np.testing.assert_array_equal(first, a[0]["pos"])
    np.testing.assert_array_equal(matrix, a[0]["m"])


def test_arrays_of_nested_dtypes_made_in_compiled_code():
    @njit
    def make(n):
        a = np.zeros(n, PARTICLE)
        for i in range(n):
            a[i].id = i
            a[i].pos[2] = i * 0.5
        return a

    made = make(3)
    assert made.dtype == PARTICLE
    np.testing.assert_array_equal(made["id"], [0, 1, 2])
    np.testing.assert_array_equal(made["pos"], [[0, 0, 0], [0, 0, 0.5], [0, 0, 1.0]])
    assert not made["m"].any()


def test_assigning_a_whole_subarray_field_copies_as_numpy():
    def assign(a):
        a[0]["pos"] = np.arange(3.0)
        a[1]["m"] = 2.5

    got, expected = filled(PARTICLE, 2), filled(PARTICLE, 2)
    njit(assign)(got)
    assign(expected)
    np.testing.assert_array_equal(got, expected)


def test_returning_a_subarray_field_is_a_view_of_the_argument():
    def view(a):
        return a[0].pos

    a = filled(PARTICLE, 1)
    got = njit(view)(a)
    np.testing.assert_array_equal(got, a[0]["pos"])
    got[1] = 42.0
    assert a[0]["pos"][1] == 42.0


def test_unknown_nested_field_names_the_fields():
    @njit
    def missing(a):
        return a[0].p.y

    with pytest.raises(TypingError, match="Field 'y' was not found.*x.*n"):
        missing(filled(NESTED, 1))


def test_records_passed_in_from_python_are_views_as_in_numpy():
    def nudge(record):
        record.pos[0] += 1.0
        record.id = record.id * 2
        return record.pos.sum() + record.m[1, 1]

    ours, theirs = filled(PARTICLE, 3), filled(PARTICLE, 3)
    assert njit(nudge)(ours[2]) == nudge(theirs.view(np.recarray)[2])
    assert ours.tobytes() == theirs.tobytes()
    alone = np.void(((1.0, 2.0, 3.0), 4, ((5.0, 6.0), (7.0, 8.0))), dtype=PARTICLE)
    assert njit(nudge)(alone) == 1.0 + 1 + 2.0 + 3.0 + 8.0
    assert alone["id"] == 8 and alone["pos"][0] == 2.0


def test_a_record_of_an_unsupported_dtype_is_refused_with_the_reason():
    with pytest.raises(TypingError, match="records"):
        njit(lambda r: 1)(np.zeros(1, [("o", object)])[0])
