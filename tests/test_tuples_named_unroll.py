"""Namedtuples (ember/library/containers/namedtuples.py) and `literal_unroll` over tuples of
different types (ember/rewrites/literal_unroll.py), checked against CPython running the
same code."""

from __future__ import annotations

import collections
import typing

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import ember
import ember.misc.literal
import ember.runtime
from ember import literal_unroll, njit
from ember.errors import TypingError
from tests.test_tuples import check

Point = collections.namedtuple("Point", ["x", "y"])
Span = collections.namedtuple("Span", "start stop step", defaults=(1,))


class Particle(typing.NamedTuple):
    mass: float
    position: np.ndarray
    charge: int = 0


# ---------------------------------------------------------------------------- namedtuples


@njit
def read_point(p):
    return p.x + p.y, p[0], p[-1], len(p), p.x * 2


@njit
def make_points(a, b):
    return Point(a, b), Point(y=a, x=b), Point(a, b).y


@njit
def make_spans(n):
    return Span(0, n), Span(stop=n, start=1, step=2)


@njit
def iterate_and_unpack(p):
    total = 0.0
    for v in p:
        total += v
    x, y = p
    return total, x - y, p == (x, y), hash(p)


@njit
def move(particle, dt):
    return Particle(particle.mass, particle.position + dt * particle.charge, particle.charge)


@given(st.integers(-(2**40), 2**40), st.floats(-1e6, 1e6))
@settings(max_examples=50, deadline=None)
def test_namedtuples_passed_in(x, y):
    check(read_point, Point(x, y))
    check(read_point, Point(x, x))
    check(iterate_and_unpack, Point(float(x), y))


def test_namedtuples_created_inside_come_back_as_their_class():
    check(make_points, 1, 2.5)
    check(make_spans, 7)
    point, swapped, _ = make_points(3, 4)
    assert type(point) is Point and point == Point(3, 4) and swapped == Point(4, 3)


def test_typing_namedtuple_with_an_array_member():
    particle = Particle(2.0, np.arange(3.0), charge=-1)
    moved = move(particle, 0.5)
    assert type(moved) is Particle
    assert moved.mass == 2.0 and moved.charge == -1
    assert np.array_equal(moved.position, particle.position - 0.5)
    before = ember.runtime.stats().live
    for _ in range(500):
        move(particle, 0.5)
    assert ember.runtime.stats().live == before


def test_typeof_of_namedtuples():
    assert str(ember.typeof(Point(1, 2.5))) == "Point(int64, float64)"
    assert str(ember.typeof(Point(1, 2))) == "Point(int64 x 2)"
    assert ember.typeof(Point(1, 2)) is not ember.typeof((1, 2))
    particle_type = ember.typeof(Particle(1.0, np.zeros(2)))
    assert particle_type.fields == ("mass", "position", "charge")


ORIGIN = Point(0, 0.5)


@njit
def offset_from_origin(p):
    return Point(p.x - ORIGIN.x, p.y - ORIGIN.y), ORIGIN


def test_global_namedtuple_instances():
    check(offset_from_origin, Point(3, 4.5))


@njit
def unknown_field(p):
    return p.z


def test_unknown_field_is_a_typing_error():
    with pytest.raises(TypingError, match="z"):
        unknown_field(Point(1, 2))


# ---------------------------------------------------------------------------- literal_unroll


@njit
def unrolled_sum(t):
    total = 0.0
    for x in literal_unroll(t):
        total += x
    return total


@njit
def unrolled_with_break_and_continue(t, n):
    total = 0.0
    count = 0
    for _ in range(n):
        for x in literal_unroll(t):
            if x > 5:
                break
            if x < 0:
                continue
            total += x
            count += 1
    return total, count


@njit
def unrolled_arrays(t):
    out = 0.0
    for a in ember.literal_unroll(t):
        out += a.sum() * a.ndim
    return out


@njit
def unrolled_nested(t, u):
    total = 0.0
    for a in literal_unroll(t):
        for b in literal_unroll(u):
            total += a * b
    return total


@njit
def unrolled_search(t, value):
    for x in ember.misc.literal.literal_unroll(t):
        if x == value:
            return True
    return False


MIXED = st.lists(
    st.one_of(st.integers(-10, 10), st.floats(-10, 10), st.booleans()), min_size=0, max_size=6
)


@given(MIXED, st.integers(0, 3))
@example([], 2)
@example([3, -1.5, True], 0)
@example([1, 2.5, -3, False, 7, 0.5], 3)  # every kind, a `continue` and then a `break`
@example([6.5, 1, True, -2.0, 0, 4.5], 1)  # `break` on the first member
@settings(max_examples=30, deadline=None)  # each example is a new tuple type: two compiles
def test_literal_unroll_over_mixed_tuples(values, n):
    check(unrolled_sum, tuple(values))
    check(unrolled_with_break_and_continue, tuple(values), n)


def test_literal_unroll_bodies_typed_per_member():
    check(unrolled_arrays, (np.ones(3), np.arange(4), np.zeros((2, 2)) + 1.5))
    check(unrolled_nested, (1, 2.5), (3, 0.5, True))
    for value in (1, 2.5, 4, True):
        check(unrolled_search, (1, 2.5, 3), value)
    check(unrolled_sum, np.arange(5))  # not a tuple: an ordinary loop
    assert literal_unroll((1, 2)) == (1, 2)  # in Python, the container itself


RECORD_FIELDS = ("low", "high", "count")


@njit
def weighted_fields(record):
    total, weight = 0.0, 1
    for name in literal_unroll(RECORD_FIELDS):
        total += weight * record[name]
        weight += 1
    return total


@njit
def reversed_fields(record):
    total = 0.0
    for name in literal_unroll(("count", "high")):
        total = total * 10 + record[name]
    return total


def test_literal_unroll_over_constant_names_indexes_records():
    """Members of a constant tuple are literals in the body, so they index record fields."""
    table = np.array(
        [(1.5, 2.0, 3), (-4.0, 0.25, 7)], dtype=[("low", "f8"), ("high", "f8"), ("count", "i4")]
    )
    for record in table:
        check(weighted_fields, record)
        check(reversed_fields, record)


def test_literal_unroll_leaks_nothing():
    arrays = (np.ones(3), np.arange(4), np.zeros((2, 2)))
    unrolled_arrays(arrays)
    before = ember.runtime.stats().live
    for _ in range(500):
        unrolled_arrays(arrays)
    assert ember.runtime.stats().live == before


# ---------------------------------------------------------------------------- print


@njit
def show(t, p):
    print(t, t[1:], p, Point(1, 2.5), (np.arange(2), p.x))


def test_print_of_tuples_and_namedtuples_matches_cpython(capsys):
    args = ((1, (2.5, True), -3), Point(3, -1.5))
    show.py_func(*args)
    expected = capsys.readouterr().out
    show(*args)
    assert capsys.readouterr().out == expected
