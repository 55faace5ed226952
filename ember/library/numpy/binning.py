"""Counting values into bins: np.bincount (weights=, minlength=) and np.histogram (bin count with
or without range=, or explicit edges), with NumPy's edge rules."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.extending import intrinsic, overload
from ember.library.builtins.numeric import truncated_or_int64_min
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_none,
)
from ember.lowering import arrays as arr
from ember.lowering.intrinsics import call_intrinsic
from ember.typing.signature import signature

_NEGATIVE_BINCOUNT = (
    "bincount(): first argument must be non-negative "
    "('list' argument must have no negative elements)"
)


def _bincount_size(x, minlength):
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    size = minlength
    for value in x:
        if value < 0:
            raise ValueError(_NEGATIVE_BINCOUNT)
        if value + 1 > size:
            size = value + 1
    return size


_bincount_size_jit = njit(**NUMPY_ERRORS)(_bincount_size)


def _bincount(x, weights, minlength):
    out = np.zeros(_bincount_size_jit(x, minlength), np.int64)
    for value in x:
        out[value] += 1
    return out


def _bincount_weighted(x, weights, minlength):
    if weights.shape[0] != x.shape[0]:
        raise ValueError(
            "bincount(): weights and list don't have the same length "
            "(The weights and list don't have the same length.)"
        )
    out = np.zeros(_bincount_size_jit(x, minlength), np.float64)
    for i in range(x.shape[0]):
        out[x[i]] += weights[i]
    return out


def _vector_like(typ, item_kind) -> bool:
    """A 1-d array, list or homogeneous tuple whose items are of `item_kind`."""
    typ = types.unliteral(typ)
    if is_array(typ):
        return typ.ndim == 1 and isinstance(typ.dtype, item_kind)
    if isinstance(typ, (types.List, types.UniTuple)):
        return isinstance(types.unliteral(typ.dtype), item_kind)
    return False


@functools.cache
def _bincount_of_sequences(weighted: bool):
    """Lists and tuples count as the arrays NumPy makes of them."""
    impl = njit(**NUMPY_ERRORS)(_bincount_weighted if weighted else _bincount)
    if weighted:
        return lambda x, weights=None, minlength=0: impl(
            np.asarray(x), np.asarray(weights), minlength
        )
    return lambda x, weights=None, minlength=0: impl(np.asarray(x), weights, minlength)


@overload(np.bincount, jit_options=NUMPY_ERRORS)
def _select_bincount(x, weights=None, minlength=0):
    weights = as_type(weights)
    minlength = as_type(minlength)
    if not _vector_like(x, types.Integer):
        return None
    if not (is_none(weights) or _vector_like(weights, (types.Integer, types.Float))):
        return None
    if is_array(x) and (is_none(weights) or is_array(weights)):
        return _bincount if is_none(weights) else _bincount_weighted
    return _bincount_of_sequences(not is_none(weights))


def _edge_bin(value, index, edges, last):
    """NumPy's guard against rounding at a bin's edges: `index` moved to the bin whose
    [left, right) edges (the last bin closed) hold `value`."""
    index = min(max(index, 0), last)
    if value < edges[index]:
        return index - 1
    if index < last and value >= edges[index + 1]:
        return index + 1
    return index


_edge_bin_jit = njit(**NUMPY_ERRORS)(_edge_bin)


def _histogram_in(flat, bins, low, high, refuse_nan):
    """Counts of `flat` in `bins` equal bins from `low` to `high`, and their edges; values
    outside are left out, as are NaNs unless `refuse_nan` (the range came from the values:
    NumPy finds it not finite)."""
    if bins <= 0:
        raise ValueError("`bins` must be positive, when an integer")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError("the range of the bins is not finite")
    if low > high:
        raise ValueError("max must be larger than min in range parameter.")
    if low == high:
        low -= 0.5
        high += 0.5
    counts = np.zeros(bins, np.int64)
    edges = np.linspace(low, high, bins + 1)
    scale = bins / (high - low)
    last = bins - 1
    # A bin computed this far from a whole number is exact: the arithmetic's rounding errors
    # (a few units of 2**-52 of the bin count and the range's magnitude) are much smaller.
    # Only positions closer to an edge than that compare the value with the edges.
    tolerance = 2.0**-40 * (bins + (abs(low) + abs(high)) * scale)
    half_width = 0.5 - tolerance
    for i in range(flat.shape[0]):
        value = flat[i]
        position = (value - low) * scale
        whole = np.floor(position)
        # one test of the bin (NaN and far values: -2**63) and one of the distance from its
        # middle keep the common path short; a value outside the range fails one of them
        index = truncated_or_int64_min(whole)
        if 0 <= index < bins and abs(position - whole - 0.5) < half_width:
            counts[index] += 1
        elif low <= value <= high:
            counts[_edge_bin_jit(value, int(whole), edges, last)] += 1
        elif refuse_nan and value != value:
            raise ValueError("autodetected range of the values is not finite (NaN)")
    return counts, edges


_histogram_in_jit = njit(**NUMPY_ERRORS)(_histogram_in)


def _histogram_range(a, bins, range):
    low, high = range
    return _histogram_in_jit(a.ravel(), bins, float(low), float(high), False)


def _histogram_auto(a, bins, range):
    flat = a.ravel()
    if flat.shape[0] == 0:
        return _histogram_in_jit(flat, bins, 0.0, 1.0, True)
    low, high = _smallest_and_largest(flat)  # (NaN items skipped: the count refuses them)
    return _histogram_in_jit(flat, bins, float(low), float(high), True)


@intrinsic
def _smallest_and_largest(typingctx, array):
    """(a.min(), a.max()) of a non-empty array in one pass, but NaN items skipped (NaN only if
    all are): for floats IEEE minNum and maxNum, which vectorize much better than NumPy's
    NaN-propagating minimum and maximum."""
    if not (
        is_array(array) and isinstance(array.dtype, types.Boolean | types.Integer | types.Float)
    ):
        return None

    def codegen(context, builder, sig, args):
        from ember.library.numpy.reductions import _extreme_fold, _first_item, reduce_all

        fields = arr.unpack(builder, array, args[0])
        first = _first_item(builder, array, fields)
        if isinstance(array.dtype, types.Float):
            steps = [_float_step("llvm.minnum"), _float_step("llvm.maxnum")]
        else:
            steps = [_extreme_fold(array.dtype, is_max, first)[1] for is_max in (False, True)]
        init = context.make_tuple(builder, sig.return_type, [first, first])

        def step(b, pair, item, index):
            for position, one_step in enumerate(steps):
                value = one_step(b, b.extract_value(pair, position), item, index)
                pair = b.insert_value(pair, value, position)
            return pair

        return reduce_all(context, builder, array, fields, init.type, init, step,
                          memory_order=True)  # fmt: skip

    return signature(types.UniTuple(array.dtype, 2), array), codegen


def _float_step(intrinsic_name: str):
    return lambda b, acc, item, index: call_intrinsic(b, intrinsic_name, [acc, item])


def _histogram_edges(a, bins, range):
    """Bins given by their edges: [e0, e1), [e1, e2) ... [e(n-1), en], NaN outside."""
    n = bins.shape[0] - 1
    if n < 1:
        raise ValueError("`bins` must have at least two edges, when an array")
    if np.any(bins[1:] < bins[:-1]):  # (`range` is the parameter here, not the builtin)
        raise ValueError("`bins` must increase monotonically, when an array")
    counts = np.zeros(n, np.int64)
    for value in a.ravel():
        if bins[0] <= value <= bins[n]:
            index = np.searchsorted(bins, value, side="right") - 1
            counts[min(index, n - 1)] += 1
    return counts, bins


@overload(np.histogram, jit_options=NUMPY_ERRORS)
def _select_histogram(a, bins=10, range=None):
    bins = as_type(bins)
    range = as_type(range)
    if is_array(a) and is_array(bins) and bins.ndim == 1:
        return _histogram_edges  # range= does not apply to explicit edges
    if not (is_array(a) and isinstance(types.unliteral(bins), types.Integer)):
        return None
    if is_none(range):
        return _histogram_auto
    if isinstance(range, types.BaseTuple) and len(range) == 2:
        return _histogram_range
    return None
