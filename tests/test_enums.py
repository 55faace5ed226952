"""Enum and IntEnum members and classes in compiled code, checked against CPython running the
same functions."""

from __future__ import annotations

import enum

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit
from ember.errors import TypingError


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    CRIMSON = 1  # an alias of RED


class Level(enum.Enum):
    LOW = 0.25
    HIGH = 2.5


class Shape(enum.IntEnum):
    CIRCLE = 1
    SQUARE = 2
    TRIANGLE = 3


class Mixed(enum.Enum):
    ONE = 1
    TEXT = "text"


class IntsAndFloats(enum.Enum):
    ONE = 1
    HALF = 0.5


@njit
def identity(member):
    return member


@njit
def is_red(color):
    return color == Color.RED


@njit
def comparisons(a, b):
    return a == b, a != b, a is b, a is not b


@njit
def value_and_name(member):
    return member.value, member.name


@njit
def green():
    return Color.GREEN


@njit
def lookup_color(value):
    return Color(value)


@njit
def member_by_name():
    return Color["BLUE"], Shape["SQUARE"]


@njit
def member_values_joined():
    total = 0
    for color in Color:
        total = total * 10 + color.value
    return total, len(Color), len(Shape)


@njit
def pick(flag, color):
    if flag:
        return color
    return Color.BLUE


def test_members_pass_in_and_come_back_as_the_same_objects():
    for member in (Color.RED, Color.GREEN, Level.HIGH, Shape.TRIANGLE):
        assert identity(member) is identity.py_func(member)
    assert green() is Color.GREEN
    assert pick(True, Color.GREEN) is pick.py_func(True, Color.GREEN)
    assert pick(False, Color.GREEN) is Color.BLUE
    assert identity(Color.CRIMSON) is Color.RED  # an alias is its canonical member


def test_equality_and_identity_match_python():
    for color in Color:
        assert is_red(color) == is_red.py_func(color)
    pairs = [
        (Color.RED, Color.RED),
        (Color.RED, Color.BLUE),
        (Color.RED, Color.CRIMSON),
        (Color.RED, Level.LOW),  # members of two classes
        (Shape.SQUARE, Shape.SQUARE),
        (Color.GREEN, Shape.SQUARE),  # equal values, a plain Enum and an IntEnum
    ]
    for a, b in pairs:
        assert comparisons(a, b) == comparisons.py_func(a, b)


def test_a_plain_enum_member_never_equals_its_value_and_is_true():
    @njit
    def against_values(color):
        return color == 1, color != 1, 1 == color, color == "RED", bool(color)

    for color in (Color.RED, Color.GREEN):
        assert against_values(color) == against_values.py_func(color)


def test_value_name_and_lookup():
    for member in (Color.RED, Color.BLUE, Color.CRIMSON, Level.HIGH, Shape.CIRCLE):
        assert value_and_name(member) == value_and_name.py_func(member)
    for value in (1, 2, 3):
        assert lookup_color(value) is lookup_color.py_func(value)
    assert lookup_color(Color.BLUE) is Color.BLUE  # a member looks up itself
    with pytest.raises(ValueError, match="not a valid Color"):
        lookup_color(7)
    assert member_by_name() == member_by_name.py_func()


def test_float_valued_members():
    @njit
    def scaled(level, x):
        return level.value * x, level is Level.HIGH, Level(2.5) is level

    for level in Level:
        assert scaled(level, 3.0) == scaled.py_func(level, 3.0)


def test_iteration_over_the_class_and_len():
    assert member_values_joined() == member_values_joined.py_func()


def test_members_in_tuples_lists_and_dicts():
    @njit
    def containers(color):
        weights = {Color.RED: 1.5, Color.GREEN: 2.5, Color.BLUE: 4.0}
        members = [color, Color.RED]
        seen = {color, Color.RED}
        return (color, 7), members[0] is color, members[1], weights[color], Color.GREEN in seen

    for color in (Color.GREEN, Color.BLUE):
        result, expected = containers(color), containers.py_func(color)
        assert result == expected
        assert result[0][0] is color and result[2] is Color.RED


def test_closure_constant_members():
    blue = Color.BLUE

    @njit
    def is_blue(color):
        return color is blue

    assert [is_blue(c) for c in Color] == [is_blue.py_func(c) for c in Color]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(list(Shape)), st.integers(-1000, 1000))
def test_int_enum_members_are_ints_in_arithmetic(shape, n):
    @njit
    def arithmetic(s, n):
        return s * 2 + n, n - s, s // 1, s == n, s < n, s + Shape.SQUARE, Shape.TRIANGLE * n

    assert arithmetic(shape, n) == arithmetic.py_func(shape, n)


def test_int_enum_members_index_and_compare_with_arrays():
    @njit
    def with_array(a, s):
        return a[s], a[Shape.TRIANGLE], a == Shape.SQUARE, (a > s).sum()

    a = np.arange(5)
    got, expected = with_array(a, Shape.CIRCLE), with_array.py_func(a, Shape.CIRCLE)
    assert got[:2] == expected[:2] and got[3] == expected[3]
    np.testing.assert_array_equal(got[2], expected[2])


def test_int_enum_merges_with_ints():
    @njit
    def merged(s, k):
        x = s
        if k > 0:
            x = 5
        return x + 0, hash(s)

    for k in (0, 1):
        assert merged(Shape.SQUARE, k) == merged.py_func(Shape.SQUARE, k)
    assert lookup_shape(3) is Shape.TRIANGLE


@njit
def lookup_shape(value):
    return Shape(value)


@pytest.mark.parametrize("enum_class", [Mixed, IntsAndFloats])
def test_members_of_mixed_value_types_are_refused(enum_class):
    member = next(iter(enum_class))
    refused = "must all be numbers|Cannot type heterogeneous enum"  # (Numba's)
    with pytest.raises(TypingError, match=refused):
        identity(member)

    @njit
    def use_global():
        return enum_class.ONE

    with pytest.raises(TypingError, match=refused):
        use_global()


def test_the_class_passed_as_an_argument():
    @njit
    def member_of(enum_class, value):
        return enum_class(value), len(enum_class)

    for value in (1, 3):
        got, expected = member_of(Color, value), member_of.py_func(Color, value)
        assert got == expected and got[0] is expected[0]
    assert member_of(Shape, 2)[0] is Shape.SQUARE


class Planet(enum.Enum):
    """Members valued by (mass, radius) tuples, as in the enum module's documentation."""

    MERCURY = (3.303e23, 2.4397e6)
    EARTH = (5.976e24, 6.37814e6)
    JUPITER = (1.9e27, 7.1492e7)


class Ragged(enum.Enum):
    PAIR = (1.0, 2.0)
    TRIPLE = (1.0, 2.0, 3.0)


@njit
def surface_gravity(planet):
    mass, radius = planet.value
    return 6.673e-11 * mass / (radius * radius)


def test_tuple_valued_members():
    @njit
    def compare(a, b, pick_a):
        return a == b, a is b, a != b, (a if pick_a else b), a.name

    for a in Planet:
        assert surface_gravity(a) == surface_gravity.py_func(a)
        for b in Planet:
            for pick_a in (True, False):
                got, expected = compare(a, b, pick_a), compare.py_func(a, b, pick_a)
                assert got == expected and got[3] is expected[3]

    @njit
    def heaviest():
        best = Planet.MERCURY
        for planet in Planet:
            if planet.value[0] > best.value[0]:
                best = planet
        return best

    assert heaviest() is Planet.JUPITER


def test_tuples_of_different_lengths_are_refused():
    with pytest.raises(TypingError, match="Cannot type heterogeneous enum"):
        identity(Ragged.PAIR)
