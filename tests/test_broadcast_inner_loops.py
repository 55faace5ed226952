"""Element-wise loops chosen by the innermost strides (arrays_kernels.elementwise): broadcast,
contiguous, negative-stride, gapped, empty and Fortran-ordered operands, mixed dtypes, scalars
and in-place updates, each compared with NumPy; and the vectorized inner loop of a broadcast."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_arrays_support import assert_same

from ember import njit


def outer_sum(a, b):
    return a[:, None] + b[None, :]


def fused(x, y, z):
    return x * y - z


def five(a, b, c, d, e):
    return a * b + c - d * e


def scaled(a, s, b):
    return a * s + b


def add_into(out, x):
    out += x


def assign_into(out, a, b):
    out[...] = a * b


def less(a, b):
    return a < b


# one dispatcher per function, so each signature compiles once in this module
JIT = {f.__name__: njit(f) for f in (outer_sum, fused, five, scaled, add_into, assign_into, less)}


def values(shape, dtype=np.float64, seed=0):
    """Small integers (exact in every dtype and under + - *), never 0."""
    rng = np.random.default_rng(seed)
    return rng.integers(1, 9, size=shape).astype(dtype)


def view(array, kind: str):
    """The same values seen through a view of another memory layout."""
    if kind == "C" or array.ndim == 0:
        return array
    if kind == "F":
        return np.asfortranarray(array)
    if kind == "reversed":  # negative strides, same values after a double reversal
        return np.ascontiguousarray(array[..., ::-1])[..., ::-1]
    if kind == "gapped":  # every second item of a wider array along the last axis
        wide = np.zeros((*array.shape[:-1], 2 * array.shape[-1]), array.dtype)
        wide[..., ::2] = array
        return wide[..., ::2]
    raise ValueError(kind)


KINDS = ["C", "F", "reversed", "gapped"]


# ---------------------------------------------------------------------------- broadcasts


@pytest.mark.parametrize(
    "dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8, np.complex128]
)
@pytest.mark.parametrize("sizes", [(13, 17), (1, 7), (7, 1), (0, 5), (5, 0), (600, 3)])
def test_outer_sum_matches_numpy(dtype, sizes):
    a, b = values(sizes[0], dtype, 1), values(sizes[1], dtype, 2)
    assert_same(JIT["outer_sum"](a, b), outer_sum(a, b))


@pytest.mark.parametrize(
    "shapes",
    [
        ((4, 1), (1, 5), (4, 5)),  # each operand broadcast along a different axis
        ((4, 5), (1, 5), (4, 1)),
        ((3, 1, 6), (1, 4, 6), (3, 4, 1)),  # 3-d, the last broadcast along the inner axis
        ((2, 3, 4), (4,), (3, 1)),  # fewer dimensions
        ((6,), (3, 1), ()),  # a 0-d array
        ((3, 1), (3, 1), (1, 1)),  # inner axis of length 1
        ((5, 1), (1, 1), (1, 1)),
        ((1, 300), (300,), (2, 1, 1)),  # rows longer than a vector
        ((0, 3), (1, 3), (1, 1)),  # empty
        ((3, 0), (3, 1), (1, 0)),
    ],
)
def test_three_operand_broadcasts_match_numpy(shapes):
    x, y, z = (values(shape, seed=k) for k, shape in enumerate(shapes))
    assert_same(JIT["fused"](x, y, z), fused(x, y, z))


@pytest.mark.parametrize("kind", KINDS)
def test_views_of_every_layout_in_a_broadcast(kind):
    x, y, z = values((6, 1), seed=1), values((1, 9), seed=2), values((6, 9), seed=3)
    args = (view(x, kind), view(y, kind), view(z, kind))
    assert_same(JIT["fused"](*args), fused(x, y, z))


@pytest.mark.parametrize("order", ["C", "F"])
def test_fortran_ordered_operands_broadcast(order):
    """(An F-ordered result, whose loops run along the first axis, is updated in place in
    `test_in_place_add_matches_numpy` and assigned in `test_assignment_...`.)"""
    x = np.asarray(values((5, 7), seed=1), order=order)
    column = np.asarray(values((5, 1), seed=2), order=order)
    row = np.asarray(values((1, 7), seed=3), order=order)
    for args in ((x, column, row), (column, row, x), (row, x, column)):
        assert_same(JIT["fused"](*args), fused(*args))


def test_many_operands_with_several_broadcast():
    a, b, c = values((4, 1), seed=1), values((1, 6), seed=2), values((4, 6), seed=3)
    d, e = values((4, 1), seed=4), values((6,), seed=5)
    for args in ((a, b, c, d, e), (c, c, c, c, c), (a, a, a, a, b), (e, e, e, e, c)):
        assert_same(JIT["five"](*args), five(*args))


@pytest.mark.parametrize(
    "dtypes",
    [(np.int32, np.float64), (np.float32, np.int64), (np.uint8, np.int16), (np.bool_, np.int8)],
)
def test_mixed_dtypes_and_a_scalar(dtypes):
    a, b = values((5, 1), dtypes[0], 1), values((1, 8), dtypes[1], 2)
    for s in (3, 2.5):
        assert_same(JIT["scaled"](a, s, b), scaled(a, s, b))
        assert_same(JIT["scaled"](b, s, a), scaled(b, s, a))


def test_comparison_writes_narrower_items():
    a, b = values(9, seed=1), values(11, seed=2)
    assert_same(JIT["less"](a[:, None], b), less(a[:, None], b))
    assert_same(JIT["less"](b[None, ::-1], a[:, None]), less(b[None, ::-1], a[:, None]))


# ---------------------------------------------------------------------------- in place


def target(kind: str):
    """A (6, 8) array to update in place, through a view of the given layout."""
    data = values((6, 8), seed=1)
    if kind == "transposed":
        return np.ascontiguousarray(data.T).T
    return view(data, kind)


@pytest.mark.parametrize("kind", [*KINDS, "transposed"])
@pytest.mark.parametrize("source", [(8,), (1, 8), (6, 1), (6, 8), ()])
def test_in_place_add_matches_numpy(kind, source):
    x = values(source, seed=2)
    expected, got = target(kind), target(kind)
    add_into(expected, x)
    JIT["add_into"](got, x)
    assert_same(got, expected)


def test_in_place_from_itself_and_overlapping_views():
    def run(update):
        expected, got = values((6, 8), seed=3), values((6, 8), seed=3)
        update(expected)
        njit(update)(got)
        assert_same(got, expected)

    def same_view(x):
        x += x

    def reversed_self(x):
        x += x[::-1]

    def first_row(x):
        x += x[:1, :]

    def first_column(x):
        x += x[:, :1]

    def shifted(x):
        x[:, 1:] += x[:, :-1]

    for update in (same_view, reversed_self, first_row, first_column, shifted):
        run(update)


@pytest.mark.parametrize("shapes", [((5, 1), (1, 7)), ((7,), (5, 1)), ((5, 7), (5, 7))])
def test_assignment_of_a_broadcast_expression(shapes):
    a, b = values(shapes[0], seed=1), values(shapes[1], seed=2)
    expected, got = np.zeros((5, 7)), np.zeros((5, 7))
    assign_into(expected, a, b)
    JIT["assign_into"](got, a, b)
    assert_same(got, expected)
    got_view = np.zeros((7, 5)).T  # an F-ordered target
    JIT["assign_into"](got_view, a, b)
    assert_same(got_view, expected)


# ---------------------------------------------------------------------------- differential


@st.composite
def broadcast_case(draw):
    ndim = draw(st.integers(1, 3))
    shape = draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim))
    operands = []
    for seed in range(3):
        mine = [dim if draw(st.booleans()) else 1 for dim in shape]
        mine = mine[draw(st.integers(0, ndim - 1)) :]  # fewer leading axes
        kind = draw(st.sampled_from(KINDS)) if mine and 0 not in mine else "C"
        dtype = draw(st.sampled_from([np.float64, np.int32]))
        operands.append(view(values(tuple(mine), dtype, seed), kind))
    return operands


@settings(max_examples=25, deadline=None)
@given(broadcast_case())
def test_random_broadcasts_match_numpy(operands):
    assert_same(JIT["fused"](*operands), fused(*operands))


# ---------------------------------------------------------------------------- vectorized


def test_broadcast_inner_loop_is_vectorized():
    """The loop for `a[:, None] + b[None, :]` adds vectors of doubles (any x86-64 has SSE2)."""
    compiled = njit(outer_sum)
    compiled(np.ones(3), np.ones(4))
    llvm_ir = compiled.inspect_llvm(compiled.signatures[0])
    assert re.search(r"fadd (fast )?<\d+ x double>", llvm_ir)


def test_in_place_inner_loop_is_vectorized():
    compiled = njit(add_into)
    compiled(np.ones((3, 4)), np.ones(4))
    llvm_ir = compiled.inspect_llvm(compiled.signatures[0])
    assert re.search(r"fadd (fast )?<\d+ x double>", llvm_ir)
