"""String constants inside returned tuples (a slice of a literal tuple, nested tuples, several
returns) come back as `str`, as CPython returns them, and nothing is leaked."""

from __future__ import annotations

import gc

import pytest

import ember
from ember import njit


def sliced(n):
    t = (n, 2.5, "a")
    return t[1:]


def nested(n):
    return (n, "x", (3, "yé"))


def either(n):
    if n > 1:
        return (n, "x")
    return (0, "yy")


@pytest.mark.parametrize("func", [sliced, nested, either])
@pytest.mark.parametrize("n", [0, 2])
def test_matches_python(func, n):
    assert njit(func)(n) == func(n)


def test_no_string_is_leaked():
    compiled = njit(nested)
    compiled(1)
    gc.collect()
    before = ember.runtime.stats().live
    for n in range(1000):
        compiled(n)
    gc.collect()
    assert ember.runtime.stats().live == before
