"""Enum members passed from Python take the native entry (matched by class, their value found
by identity): each member gives its own value, as CPython computes it."""

import enum

import pytest

from ember import njit


class Color(enum.Enum):
    red = 1
    green = 2
    blue = 3
    crimson = 1  # an alias: the same member as red


class Level(enum.IntEnum):
    low = 10
    mid = 20
    high = 30


class Ratio(enum.Enum):
    half = 0.5
    third = 1 / 3


class Perm(enum.Flag):
    r = 4
    w = 2
    x = 1


def _describe(color):
    return color.value * 10 + (color == Color.green)


def _scaled(level, k):
    return level * k + 1


def _ratio(r):
    return r.value * 6.0


def _perm_value(p):
    return p.value


@pytest.mark.parametrize("member", list(Color) + [Color.crimson])
def test_enum_members_give_their_own_values(member):
    compiled = njit(_describe)
    for _ in range(2):  # the first call compiles, the second takes the native entry
        assert compiled(member) == _describe(member)


def test_int_and_float_enums_and_a_second_class():
    scaled, ratio = njit(_scaled), njit(_ratio)
    for level in Level:
        for _ in range(2):
            assert scaled(level, 3) == _scaled(level, 3)
    for r in Ratio:
        for _ in range(2):
            assert ratio(r) == _ratio(r)
    assert scaled(7, 3) == 22  # a plain int selects another specialization


def test_flags_made_at_run_time_are_not_mistaken_for_members():
    perm = njit(_perm_value)
    for value in (Perm.r, Perm.w, Perm.r | Perm.w, Perm.r | Perm.w | Perm.x):
        for _ in range(2):
            assert perm(value) == value.value
