"""A bound method whose call waits on a conditional expression (`xs.append(a if c else b)`)
is copied into a block-crossing variable: it must keep its own reference (it crashed when the
method borrowed the list's)."""

from __future__ import annotations

import numpy as np

from ember import njit


def append_conditional(keys):
    out = [2.5]
    for i in range(len(keys)):
        b = keys[i] > 0
        out.append(1.0 if b else 0.0)
    return out


def test_append_of_a_conditional_expression():
    keys = np.array([0, 1, 0, 3])
    for _ in range(50):
        assert njit(append_conditional)(keys) == append_conditional(keys)
