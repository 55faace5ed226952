"""Tuples in nopython mode (ember/library/containers/tuples.py, builtins/hashing.py): iteration,
indexing, slicing, len, in, +, *, comparison, hash, unpacking (of arrays too), tuples of arrays.
Every jitted function must give what its own `py_func` gives in CPython, in value and type."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.runtime
from ember import njit
from ember.errors import TypingError
from tests.oracle import jitted
from tests.oracle import same as same_scalar

INT64 = st.integers(-(2**63), 2**63 - 1)
SMALL = st.integers(-1000, 1000)
FLOATS = st.floats(allow_nan=True, allow_infinity=True)
NUMBERS = st.one_of(INT64, SMALL, FLOATS, st.booleans())


def same(got, expected) -> bool:
    """The oracle's equality, through tuples (namedtuples too) and NumPy arrays."""
    if isinstance(expected, np.ndarray):
        return (
            isinstance(got, np.ndarray)
            and got.dtype == expected.dtype
            and np.array_equal(got, expected)
        )
    if isinstance(expected, tuple):
        return (
            type(got) is type(expected)
            and len(got) == len(expected)
            and all(map(same, got, expected))
        )
    if isinstance(expected, np.generic):  # compiled code returns Python numbers, as Numba
        expected = expected.item()
    return same_scalar(got, expected)


def check(func, *args):
    """The jitted result equals CPython's, or both raise the same exception and message (the
    jitted function is `func`'s one dispatcher per argument types, see `tests.oracle.jitted`)."""
    compiled = jitted(func.py_func, args)
    try:
        expected = func.py_func(*args)
    except Exception as error:  # noqa: BLE001 - compared with the jitted error below
        with pytest.raises(type(error)) as raised:
            compiled(*args)
        assert str(raised.value) == str(error)
        return
    got = compiled(*args)
    assert same(got, expected), (got, expected)


# ---------------------------------------------------------------------------- iteration


@njit
def sum_of_offsets(x):
    total = 0
    for d in (-1, 0, 1):
        total += d * x + d
    return total


@njit
def product_of_shape(a):
    p = 1
    for s in a.shape:
        p *= s
    return p


@njit
def iterate_argument(t):
    total = 0.0
    count = 0
    for x in t:
        if x < 0:
            continue
        if x > 100:
            break
        total += x
        count += 1
    return total, count


@njit
def iterate_nested(t):
    total = 0
    for pair in t:
        a, b = pair
        total += a * b
    return total


@njit
def iterate_arrays(t):
    total = 0.0
    for a in t:
        total += a.sum()
    return total


def test_iteration_over_constant_and_shape_tuples():
    for x in (-3, 0, 7):
        check(sum_of_offsets, x)
    for shape in ((3,), (2, 5), (4, 1, 3)):
        check(product_of_shape, np.zeros(shape))


@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=8))
@settings(max_examples=60, deadline=None)
def test_iteration_over_argument_tuples(values):
    check(iterate_argument, tuple(values))


def test_iteration_over_nested_tuples_and_arrays():
    check(iterate_nested, ((1, 2), (3, 4), (-5, 6)))
    check(iterate_arrays, (np.arange(3.0), np.ones(3), np.full(3, 2.5)))


@njit
def iterate_mixed(t):
    total = 0.0
    for x in t:
        total += x
    return total


@pytest.mark.parametrize("t", [(1, 2.5), (True, -3, 0.25), (2**40, 1.0)])
def test_iterating_a_mixed_tuple_unrolls_the_loop(t):
    assert iterate_mixed(t) == iterate_mixed.py_func(t)


@njit
def iterate_built_mixed(a):
    t = a.shape + (1.5,)
    total = 0.0
    for x in t:
        total += x
    return total


def test_iterating_a_mixed_tuple_made_in_the_function_unrolls_the_loop():
    for shape in [(3,), (0, 2), (4, 1, 2)]:
        a = np.ones(shape)
        assert iterate_built_mixed(a) == iterate_built_mixed.py_func(a)


# ---------------------------------------------------------------------------- indexing


@njit
def constant_indexes(t):
    return t[0], t[-1], t[1], t[-3]


@njit
def runtime_index(t, i):
    return t[i]


@njit
def index_in_loop(t):
    total = 0
    for i in range(len(t)):
        total += t[i] * (i + 1)
    return total


def test_constant_and_negative_indexes():
    check(constant_indexes, (1, 2.5, True, -4))
    check(constant_indexes, (1, 2, 3))


@given(st.lists(SMALL, min_size=1, max_size=6), st.integers(-8, 8))
@settings(max_examples=80, deadline=None)
def test_runtime_indexes_raise_index_error_out_of_range(values, index):
    check(runtime_index, tuple(values), index)


def test_runtime_index_in_a_loop():
    check(index_in_loop, (4, -2, 9, 11))


@njit
def mixed_runtime_index(t, i):
    return t[i]


def test_runtime_index_of_a_mixed_tuple_is_a_clear_error():
    with pytest.raises(TypingError, match="constant"):
        mixed_runtime_index((1, 2.5), 0)


# ---------------------------------------------------------------------------- slicing


@njit
def slices(t):
    return t[1:], t[:2], t[::-1], t[-2:], t[1:-1], t[::2], t[3:1], t[:]


@njit
def shape_slices(a):
    return a.shape[:2], a.shape[1:], a.shape[-1:], a.shape[::-1]


@njit
def runtime_slice(t, n):
    return t[:n]


NDIM = 2
TIMES = 3


@njit
def global_constants(a, t):
    return a.shape[:NDIM], a.shape[NDIM], (1, 2.5, 7)[NDIM], t * TIMES


def test_global_integers_count_as_constants():
    check(global_constants, np.zeros((2, 3, 4)), (1, 0.5))


def test_constant_slices():
    check(slices, (1, 2.5, 3, True, -5))
    check(slices, (1, 2))
    check(shape_slices, np.zeros((2, 3, 4)))
    check(shape_slices, np.zeros(5))


def test_runtime_slice_bounds_are_a_clear_error():
    with pytest.raises(TypingError, match="constant bounds"):
        runtime_slice((1, 2, 3), 2)


# ---------------------------------------------------------------------------- len, in, +, *


@njit
def length_and_membership(t, x):
    return len(t), x in t, x not in t, (x, 1) in ((0, 1), (2, 1))


@njit
def concatenate(t, u):
    return t + u, u + t + (1,), () + t


@njit
def repeat(t):
    return t * 2, 3 * t, t * 1, t * 0, t * -1


@njit
def repeat_runtime(t, n):
    return t * n


@given(st.lists(SMALL, max_size=5), SMALL)
@settings(max_examples=60, deadline=None)
def test_len_and_in(values, x):
    check(length_and_membership, tuple(values), x)
    check(length_and_membership, (*values, 0.5), float(x))


def test_concatenation_and_repetition():
    check(concatenate, (1, 2.5), (True, -3))
    check(concatenate, (1,), (np.ones(2),))
    check(repeat, (1, 2.5))
    check(repeat, (np.arange(2),))
    with pytest.raises(TypingError, match="constant count"):
        repeat_runtime((1, 2), 3)


# ---------------------------------------------------------------------------- comparison


@njit
def compare(t, u):
    return t == u, t != u, t < u, t <= u, t > u, t >= u


TUPLES = st.lists(st.one_of(SMALL, st.floats(-5, 5), st.sampled_from([0, 1, 0.0])), max_size=4)


@given(TUPLES, TUPLES)
@settings(max_examples=60, deadline=None)  # each example is a new pair of tuple types
def test_lexicographic_comparison(left, right):
    check(compare, tuple(left), tuple(right))
    check(compare, tuple(left), tuple(left))  # equal prefixes: the lengths decide


def test_comparison_of_nested_and_nan_members():
    check(compare, ((1, 2.5), 3), ((1, 3), 0))
    check(compare, ((1, 2), 3), ((1, 2), 3))
    nan = float("nan")
    check(compare, (1, nan), (1, float("nan")))  # distinct NaN objects: CPython compares them
    check(compare, (nan, 1), (0.0, 2))


# ---------------------------------------------------------------------------- hash


@njit
def hash_of(value):
    return hash(value)


@given(INT64)
@settings(max_examples=200, deadline=None)
def test_hash_of_ints_is_cpythons(x):
    assert hash_of(x) == hash(x)


@given(st.floats(allow_nan=False))
@settings(max_examples=200, deadline=None)
def test_hash_of_floats_is_cpythons(x):
    assert hash_of(x) == hash(x)


@given(st.lists(st.one_of(INT64, st.floats(allow_nan=False), st.booleans()), max_size=6))
@settings(max_examples=30, deadline=None)  # each example is a new tuple type: a compile
def test_hash_of_tuples_is_cpythons(values):
    t = tuple(values)
    nested = (t[:2], t)
    assert jitted(hash_of.py_func, (t,))(t) == hash(t)
    assert jitted(hash_of.py_func, (nested,))(nested) == hash(nested)


def test_hash_corner_cases():
    cases = [
        -1, -2, 0, 2**61 - 1, 2**61, -(2**63), 2**63 - 1, True, False, -0.0, 0.5, 1e-310,
        math.inf, -math.inf, 1e308, 3 + 4j, -1 + 0j, (), (-1,), (1, (2, (3.5,))),
    ]  # fmt: skip
    for value in cases:
        assert hash_of(value) == hash(value), value
    assert hash_of(np.uint64(2**64 - 1)) == hash(2**64 - 1)
    # CPython 3.10+ hashes each NaN object apart: compiled code gives each hash a fresh value
    nan_hashes = {hash_of(float("nan")) for _ in range(10)}
    assert len(nan_hashes) == 10 and min(nan_hashes) >= 0


def test_hash_of_narrow_integers_at_their_extremes():
    # -(-128) must not wrap inside int8: hash(np.int8(-128)) is -128, as CPython's
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32):
        info = np.iinfo(dtype)
        for value in (info.min, info.min + 1, -1, 0, info.max):
            number = dtype(value) if info.min <= value else dtype(0)
            assert hash_of(number) == hash(number), repr(number)


# ---------------------------------------------------------------------------- unpacking


@njit
def unpack_tuples(t):
    a, (b, c) = t
    d, e = b, a
    return a, b, c, d, e


@njit
def unpack_array(arr):
    x, y = arr
    return x + y, x * y


@njit
def unpack_three(arr):
    a, b, c = arr
    return a - b + c


def test_unpacking_tuples_and_nested_tuples():
    check(unpack_tuples, (1, (2.5, np.arange(3))))


@pytest.mark.parametrize("length", [0, 1, 2, 3, 5])
def test_unpacking_arrays_checks_the_length_at_run_time(length):
    check(unpack_array, np.arange(length, dtype=np.float64))
    check(unpack_array, np.arange(length))
    check(unpack_three, np.arange(length) * 1.5)
    check(unpack_three, np.arange(2 * length)[::2])  # a strided view


@njit
def unpack_matrix(m):
    a, b = m
    return a


def test_unpacking_a_2d_array_gives_its_rows_as_python_does():
    matrix = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(unpack_matrix(matrix), unpack_matrix.py_func(matrix))
    with pytest.raises(ValueError, match="too many values"):
        unpack_matrix(np.zeros((3, 2)))


# ---------------------------------------------------------------------------- tuples of arrays


@njit
def arrays_in_and_out(t):
    a, b = t
    c = a + b
    return (c, t[0], t[-1][::-1]), c.sum()


@njit
def build_many(n):
    total = 0.0
    for i in range(n):
        t = (np.ones(3) * i, np.zeros(2))
        u = t + (t[0],)
        for a in u:
            total += a[0]
        x, y, z = u
        total += (x + z).sum() + y.sum()
    return total


def test_tuples_of_arrays_pass_in_return_and_index():
    a, b = np.arange(4.0), np.ones(4)
    check(arrays_in_and_out, (a, b))
    (c, first, last_reversed), _ = arrays_in_and_out((a, b))
    assert first is a  # the same array object comes back, as in CPython


def test_tuples_of_arrays_leak_nothing():
    args = (np.arange(4.0), np.ones(4))
    arrays_in_and_out(args)
    build_many(2)
    before = ember.runtime.stats().live
    for _ in range(2000):
        arrays_in_and_out(args)
    assert build_many(500) == build_many.py_func(500)
    assert ember.runtime.stats().live == before


# ---------------------------------------------------------------------------- builtins, methods


@njit
def builtins_over_tuples(t, u):
    total = 0.0
    for i, x in enumerate(t):
        total += i * x
    for a, b in zip(t, u):
        total += a * b
    return total, sum(t), sum(u), sum(()), tuple(t), min(t), max(u)


@njit
def methods(t, value):
    return t.count(value), t.index(value)


def test_enumerate_zip_sum_and_tuple_of_tuples():
    check(builtins_over_tuples, (3, 4, 5), (1.5, 0.25, -2.0))
    check(builtins_over_tuples, (True, False), (0.5, 0.25))


@given(st.lists(st.integers(-3, 3), max_size=6), st.integers(-3, 3))
@settings(max_examples=60, deadline=None)
def test_index_and_count(values, value):
    check(methods, tuple(values), value)
    check(methods, (*values, 1.5), value)


def test_hash_of_a_mutable_container_is_a_type_error_when_called():
    from ember import typed, types

    cases = [
        (typed.Dict.empty(types.int64, types.int64), "DictType[int64,int64]<iv=None>"),
        (typed.List.empty_list(types.int64), "ListType[int64]"),
        (np.ones(4), "array(float64, 1d, C)"),
        ([1, 2], "list"),
        ({1, 2}, "set"),
    ]
    for value, name in cases:
        with pytest.raises(TypeError, match=re.escape(f"unhashable type: '{name}'")):
            hash_of(value)
