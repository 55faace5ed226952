"""Python language features real Numba programs use (literal_unroll with type tests,
comprehensions, closures, exceptions, object-mode blocks): each compiled function is checked
against CPython running the same function."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import literal_unroll, njit


def unrolled_sum_by_type(a, b):
    out = 0.0
    for x in literal_unroll((a, "xy", b, None)):
        if x is None:
            out += 1000
        elif isinstance(x, str):
            out += len(x)
        elif isinstance(x, np.ndarray):
            out += x.sum()
        else:
            out += x
    return out


def unrolled_pairs(t):
    out = 0
    for x in literal_unroll(t):
        for y in literal_unroll(t):
            if isinstance(x, str) and isinstance(y, str):
                out += len(x) * len(y)
            elif isinstance(x, int) and isinstance(y, int):
                out += x * y
    return out


def test_isinstance_on_a_literal_unroll_member_drops_the_other_branches():
    for a in (1.5, -2.0):
        args = (a, np.arange(3.0))
        assert njit(unrolled_sum_by_type)(*args) == unrolled_sum_by_type(*args)


@settings(max_examples=25, deadline=None)
@given(st.integers(-50, 50), st.text(max_size=4), st.integers(-50, 50))
def test_nested_unrolled_loops_test_each_pair_of_member_types(a, s, b):
    t = (a, s, b)
    assert njit(unrolled_pairs)(t) == unrolled_pairs(t)


def print_narrow_floats(a, b):
    print(a, b, (a, b), -a)


def test_print_shows_float32_and_complex64_as_numpy_does(capsys):
    args = (np.float32(0.1), np.complex64(0.1 + 0.2j))
    print_narrow_floats(*args)
    expected = capsys.readouterr().out
    njit(print_narrow_floats)(*args)
    assert capsys.readouterr().out == expected
