"""Builtins and `operator`/`functools` functions Numba documents, against CPython: map, filter,
functools.reduce, sum/any/all over any iterable, sorted/min/max of strings and tuples,
isinstance with more classes, a float in a range, slice objects, getattr/hasattr, type(x), the
operator module's in-place functions, bytes arguments."""

import functools
import math
import operator

import pytest

import ember
from tests.oracle import same

# one dispatcher per function, shared by its cases: each compiles once per argument types
_compiled = functools.cache(ember.njit)


def _check(py_func, *args):
    assert same(_compiled(py_func)(*args), py_func(*args))


def _raises_like(compiled, py_func, *args):
    with pytest.raises(Exception) as expected:
        py_func(*args)
    with pytest.raises(expected.type):
        compiled(*args)


# ---------------------------------------------------------------------------- map, filter, reduce


def map_filter_reduce(xs, ys):
    doubled = list(map(lambda v: v * 2, xs))
    sums = list(map(lambda p, q: p + q, xs, ys))
    triples = list(map(lambda p, q, r: p * q - r, xs, ys, xs))
    kept = list(filter(lambda v: v > 1, xs))
    odd_total = 0
    for v in filter(lambda v: v % 2 == 1, xs):
        odd_total += v
    truthy = list(filter(None, xs))
    absolute = list(map(abs, xs))
    product = functools.reduce(lambda p, q: p * q, ys)
    seeded = functools.reduce(lambda p, q: p * q, xs, 10)
    added = functools.reduce(operator.add, ys)
    biggest = functools.reduce(max, xs, -100)
    reduced = (product, seeded, added, biggest)
    return doubled, sums, triples, kept, odd_total, truthy, absolute, reduced


@pytest.mark.parametrize(
    "xs, ys",
    [([1, 0, 3], [4, 5, 6]), ([-2, 7], [1, -1]), ([5], [0])],
)
def test_map_filter_reduce(xs, ys):
    compiled = _compiled(map_filter_reduce)
    assert compiled(xs, ys) == map_filter_reduce(xs, ys)


def reduce_without_initial(n):
    return functools.reduce(lambda p, q: p + q, range(n))


def test_reduce_of_empty_iterable_raises_type_error():
    compiled = _compiled(reduce_without_initial)
    assert compiled(4) == reduce_without_initial(4)
    _raises_like(compiled, reduce_without_initial, 0)


def map_of_jitted(xs):
    return list(map(_square, xs)), sum(map(_square, xs))


@ember.njit
def _square(v):
    return v * v


def test_map_of_jitted_function():
    assert _compiled(map_of_jitted)([1.5, -2.0]) == map_of_jitted([1.5, -2.0])


# ---------------------------------------------------------------------------- sum, any, all


def sums_and_truths(xs, y):
    return (
        sum(xs, 10),
        sum(xs, start=0.5),
        sum(iter(xs)),
        sum({3, 4}),
        sum((1, y)),
        sum([True, False, True]),
        sum(range(5), -1),
        all(xs),
        any(xs),
        all((1, y)),
        any((0, 0.0)),
        all(iter(xs)),
        any("ab"),
        any({0: 1}),
        all((xs[0], "a", y)),
        any(""),
        all(()),
    )


@pytest.mark.parametrize(
    "xs, y", [([1, 0, 3], 2.5), ([2, 2], 0.0), ([0], float("nan")), ([-1, 5, 7], -0.0)]
)
def test_sum_any_all_over_iterables(xs, y):
    _check(sums_and_truths, xs, y)


# ---------------------------------------------------------------------------- ordering


def orderings(a, b, c, s):
    return (
        sorted((a, b, c)),
        sorted((a, b, c), reverse=True),
        sorted(s),
        min(s),
        max(s),
        min((a, b, c)),
        max({a, b}),
        min(range(a, a + 9)),
        (s, a) < (s, b),
        sorted([(s, c), ("m", a), (s, b)]),
        [a, b] < [a, c],
        [s] >= ["m", s],
    )


@pytest.mark.parametrize("a, b, c, s", [(3, 1, 2, "hello"), (-1, -1, 0, "zü"), (5, 9, 5, "ab")])
def test_sorted_min_max_of_strings_tuples_sets(a, b, c, s):
    compiled = _compiled(orderings)
    assert compiled(a, b, c, s) == orderings(a, b, c, s)


def list_index_range(xs, x, start, stop):
    return xs.index(x, start, stop)


@pytest.mark.parametrize("start, stop", [(0, 4), (1, 4), (-1, 100), (-100, 2), (2, 1), (3, -1)])
def test_list_index_with_bounds(start, stop):
    compiled = _compiled(list_index_range)
    xs = [1, 2, 1, 2]
    for x in (1, 2):
        try:
            expected = list_index_range(xs, x, start, stop)
        except ValueError:
            with pytest.raises(ValueError):
                compiled(xs, x, start, stop)
        else:
            assert compiled(xs, x, start, stop) == expected


# ---------------------------------------------------------------------------- isinstance, ranges


def classes_and_ranges(x, s):
    r = range(5)
    return (
        isinstance(s, str),
        isinstance(x, str),
        isinstance(s, (int, str)),
        isinstance({1: 2}, dict),
        isinstance({1}, set),
        isinstance(r, range),
        isinstance(x, (float, dict)),
        x in r,
        -x in r,
    )


@pytest.mark.parametrize("x", [2.0, 2.5, 7.0, float("nan"), float("inf"), 0.0, -0.0, 4.0])
def test_isinstance_and_float_in_range(x):
    _check(classes_and_ranges, x, "s")


def slices(n, start, stop, step):
    s = slice(start, stop, step)
    xs = [0, 1, 2, 3, 4, 5, 6, 7]
    return s.start, s.stop, s.step, s.indices(n), xs[s]


@pytest.mark.parametrize(
    "n, start, stop, step",
    [(5, 1, 5, 2), (3, 1, 5, 2), (10, 0, 4, 3), (5, -100, 100, 1), (5, -2, -9, -3), (0, 1, 2, 1)],
)
def test_slice_attributes_and_indices(n, start, stop, step):
    _check(slices, n, start, stop, step)


def open_slice_indices(n):
    return slice(None, None, -1).indices(n), slice(2, None).indices(n), slice(None, -1).indices(n)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_open_slice_indices(n):
    _check(open_slice_indices, n)


def negative_length(n):
    return slice(1, 2).indices(n)


def test_slice_indices_of_negative_length_raises():
    _raises_like(_compiled(negative_length), negative_length, -1)


# ---------------------------------------------------------------------------- attributes, types


def attributes(z):
    return (
        getattr(z, "real"),  # noqa: B009 - getattr itself is tested
        getattr(z, "missing", 3),
        getattr(z, "imag", 3.0),
        hasattr(z, "real"),
        hasattr(z, "missing"),
    )


@pytest.mark.parametrize("z", [1 + 2j, -0.5j, complex(math.inf, math.nan)])
def test_getattr_and_hasattr_with_constant_names(z):
    _check(attributes, z)


def converted_by_type(x, n):
    return type(x)(3), type(n)(2.7), type(x)(n), type(n)(True)


@pytest.mark.parametrize("x, n", [(1.5, 2), (-0.0, -7)])
def test_calling_the_type_of_a_number(x, n):
    _check(converted_by_type, x, n)


# ---------------------------------------------------------------------------- operator


def operator_functions(a, b):
    xs = [1]
    operator.iadd(xs, [2, 3])
    nothing = None
    return (
        operator.iadd(a, b),
        operator.isub(a, b),
        operator.imul(a, b),
        operator.ifloordiv(a, b),
        operator.imod(a, b),
        operator.itruediv(a, b),
        operator.ilshift(a, 3),
        operator.irshift(a, 1),
        operator.iand(a, b),
        operator.ior(a, b),
        operator.ixor(a, b),
        operator.ipow(a, 2),
        operator.is_(nothing, None),
        operator.is_not(a, None),
        operator.truth(a),
        operator.abs(-a),
        operator.index(b),
        xs[2],
        a,
    )


@pytest.mark.parametrize("a, b", [(7, 3), (-7, 2), (0, -5)])
def test_operator_in_place_and_identity_functions(a, b):
    _check(operator_functions, a, b)


# ---------------------------------------------------------------------------- bytes


def bytes_operations(b):
    total = 0
    for x in b:
        total += x
    first = b[0] if len(b) else -1
    return len(b), first, b[1:], b[::-1], total, b == b"abc", b


@pytest.mark.parametrize("b", [b"abc", b"", b"\x00\xff\x80", bytes(range(256))])
def test_bytes_arguments(b):
    compiled = _compiled(bytes_operations)
    for _ in range(2):  # the first call and the native entry
        assert compiled(b) == bytes_operations(b)


def bytearray_operations(b):
    total = 0
    for x in b:
        total += x
    if len(b):
        b[0] = (b[-1] + 1) % 256  # written through to the caller's bytearray
    return len(b), total


@pytest.mark.parametrize("data", [b"ab", b"", b"\x00\xff\x80"])
def test_bytearray_argument_is_read_and_written_through(data):
    expected_array, got_array = bytearray(data), bytearray(data)
    expected = bytearray_operations(expected_array)
    assert _compiled(bytearray_operations)(got_array) == expected
    assert got_array == expected_array


def power_mod(a, b, m):
    return pow(a, b, m)


@pytest.mark.parametrize(
    "a, b, m", [(2, -1, 5), (3, -2, 7), (-3, -3, 11), (3, -1, -7), (5, -1, 1), (2, 10, 1000)]
)
def test_pow_with_negative_exponent_and_modulus(a, b, m):
    _check(power_mod, a, b, m)


@pytest.mark.parametrize("a, b, m", [(2, -1, 4), (0, -1, 7), (2, 3, 0)])
def test_pow_modulus_errors(a, b, m):
    _raises_like(_compiled(power_mod), power_mod, a, b, m)


def identities(b, n, m):
    return b is True, b is not False, b is False, n is m, n is not m, operator.is_(b, True)


@pytest.mark.parametrize(
    "b, n, m",
    [(True, 3, 3), (False, -5, 256), (True, 0, 1)],  # CPython caches -5..256
)
def test_is_of_booleans_and_small_integers(b, n, m):
    _check(identities, b, n, m)


def bytes_in_tuple(pair):
    return len(pair[0]) + pair[1], pair[0][::-1]


def test_bytes_in_a_tuple_argument_are_released():
    import ember.runtime

    compiled = _compiled(bytes_in_tuple)
    assert compiled((b"abc", 2)) == bytes_in_tuple((b"abc", 2))
    before = ember.runtime.stats().live
    for _ in range(200):
        compiled((b"abc", 2))
    assert ember.runtime.stats().live == before
