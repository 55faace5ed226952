"""Generator.shuffle, Generator.permutation and Generator.choice (without `p=`: Floyd's algorithm
or a tail shuffle without replacement) in compiled code, drawing as NumPy's Generator does with
its C bounded-integer functions; `p=` cases go to generator_multivariate.py."""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload, overload_method
from ember.library.numpy.random.generator import (
    _call_c,
    _i64,
    _integers_array,
    _integers_scalar,
    check_argument,
    check_size,
)
from ember.library.numpy.random.legacy import _mask_above
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_none
from ember.typing.signature import signature

# ---------------------------------------------------------------------------- permutations


@intrinsic
def _interval(typingctx, rng, largest):
    """NumPy's random_interval: a draw in [0, largest] (masked rejection, as shuffle uses)."""

    def codegen(context, builder, sig, args):
        bitgen = builder.extract_value(args[0], 1)
        return _call_c(builder, "random_interval", _i64, [bitgen, args[1]])

    return signature(types.int64, types.npy_rng, types.int64), codegen


def _shuffle(rng, x):
    """Shuffle `x` along its first axis in place, as Generator.shuffle (Fisher-Yates from the
    end, each position swapped with a random_interval draw)."""
    raise NotImplementedError("compiled code only")


@overload(_shuffle)
def _shuffle_for(rng, x):
    if x.ndim == 1:

        def vector(rng, x):
            for i in range(x.shape[0] - 1, 0, -1):
                j = _interval(rng, i)
                x[i], x[j] = x[j], x[i]

        return vector

    def rows(rng, x):
        for i in range(x.shape[0] - 1, 0, -1):
            j = _interval(rng, i)
            row = x[i].copy()
            x[i] = x[j]
            x[j] = row

    return rows


def _normalized_axis_impl(axis, ndim):
    """`axis` in [0, ndim), counting a negative one from the end (NumPy's AxisError is an
    IndexError too)."""
    if axis < -ndim or axis >= ndim:
        raise IndexError("Axis is out of bounds for the given array")
    return axis + ndim if axis < 0 else axis


_normalized_axis = njit(**NUMPY_ERRORS)(_normalized_axis_impl)


def _check_array_and_axis(x, axis) -> None:
    check_argument("x", x, isinstance(x, types.Array) and x.ndim >= 1, "[array of one or more "
                   "dimensions]")  # fmt: skip
    check_argument("axis", axis, isinstance(types.unliteral(axis), types.Integer), "[int]")


def _shuffle_vector_along(rng, x, axis):
    _normalized_axis(axis, 1)
    _shuffle(rng, x)


def _shuffle_along(rng, x, axis):
    """As NumPy: shuffle the slices along `axis` (the rows of x with that axis first)."""
    _shuffle(rng, np.swapaxes(x, 0, _normalized_axis(axis, x.ndim)))


@overload_method(types.NumPyRandomGeneratorType, "shuffle", jit_options=NUMPY_ERRORS)
def _generator_shuffle(self, x, axis=0):
    axis = as_type(axis)
    _check_array_and_axis(x, axis)
    if x.readonly:
        raise TypingError("Generator.shuffle() cannot shuffle a read-only array in place")
    return _shuffle_vector_along if x.ndim == 1 else _shuffle_along


def _permutation_of_length(rng, x, axis=0):
    out = np.arange(x)
    _shuffle(rng, out)
    return out


def _permutation_of_vector(rng, x, axis=0):
    _normalized_axis(axis, 1)
    out = x.copy()
    _shuffle(rng, out)
    return out


def _permutation_along(rng, x, axis=0):
    """As NumPy: a shuffled order of the indices along `axis`, then x's slices in that order
    (a new array; x is unchanged)."""
    axis = _normalized_axis(axis, x.ndim)
    order = np.arange(x.shape[axis])
    _shuffle(rng, order)
    out = np.empty_like(x)
    source = np.swapaxes(x, 0, axis)
    target = np.swapaxes(out, 0, axis)
    for k in range(order.shape[0]):
        target[k] = source[order[k]]
    return out


@overload_method(types.NumPyRandomGeneratorType, "permutation", jit_options=NUMPY_ERRORS)
def _generator_permutation(self, x, axis=0):
    axis = as_type(axis)
    if isinstance(types.unliteral(x), types.Integer):
        return _permutation_of_length
    _check_array_and_axis(x, axis)
    return _permutation_of_vector if x.ndim == 1 else _permutation_along


@intrinsic
def _bounded_draw(typingctx, rng, largest):
    """NumPy's random_bounded_uint64(bitgen, 0, largest, 0, false): a draw in [0, largest]
    (Lemire's method, as Generator.choice without replacement uses)."""

    def codegen(context, builder, sig, args):
        bitgen = builder.extract_value(args[0], 1)
        zero = llvm.Constant(_i64, 0)
        use_masked = llvm.Constant(llvm.IntType(1), 0)
        return _call_c(builder, "random_bounded_uint64", _i64,
                       [bitgen, zero, args[1], zero, use_masked])  # fmt: skip

    return signature(types.int64, types.npy_rng, types.int64), codegen


def _shuffle_tail_impl(rng, data, first):
    """Swap data[i] (i from the end down to `first`) with a bounded draw at or below i."""
    for i in range(data.shape[0] - 1, first - 1, -1):
        j = _bounded_draw(rng, i)
        data[i], data[j] = data[j], data[i]


_shuffle_tail = njit(**NUMPY_ERRORS)(_shuffle_tail_impl)


def _distinct_indices_impl(rng, population, count):
    """`count` distinct indices below `population` as Generator.choice(replace=False) draws
    them: a partial tail shuffle of all indices when many of a large population are taken, else
    Floyd's algorithm (an open-addressing set of the taken ones), then a shuffle."""
    if count > population:
        raise ValueError("Cannot take a larger sample than population when replace is False")
    if count < 0:
        raise ValueError("negative dimensions are not allowed")
    if population > 10000 and count > population // 50:
        everything = np.arange(population)
        _shuffle_tail(rng, everything, max(population - count, 1))
        return everything[population - count :].copy()
    mask = _mask_above(np.int64(1.2 * count))
    taken = np.full(mask + 1, -1, np.int64)
    out = np.empty(count, np.int64)
    for j in range(population - count, population):
        value = _bounded_draw(rng, j)
        slot = value & mask
        while taken[slot] != -1 and taken[slot] != value:
            slot = (slot + 1) & mask
        if taken[slot] == -1:
            taken[slot] = value
        else:  # already taken: take j, new in this round
            value = j
            slot = j & mask
            while taken[slot] != -1:
                slot = (slot + 1) & mask
            taken[slot] = j
        out[j - population + count] = value
    _shuffle_tail(rng, out, 1)
    return out


_distinct_indices = njit(**NUMPY_ERRORS)(_distinct_indices_impl)


def _check_population(count):
    if count <= 0:
        raise ValueError("a must be a positive integer unless no samples are taken")


def _check_nonempty(count):
    if count == 0:
        raise ValueError("a cannot be empty unless no samples are taken")


_positive_population = njit(**NUMPY_ERRORS)(_check_population)
_nonempty_population = njit(**NUMPY_ERRORS)(_check_nonempty)


def _choice_index(rng, a, size, replace, p=None):
    _positive_population(a)
    if not replace:
        return _distinct_indices(rng, a, 1)[0]
    return _draw_index(rng, 0, a, None)


def _choice_indices(rng, a, size, replace, p=None):
    out = np.empty(size, np.int64)
    if out.size:
        _positive_population(a)
    if not replace:
        out.reshape(-1)[:] = _distinct_indices(rng, a, out.size)
        return out
    return _draw_indices(rng, 0, a, size)


def _choice_item(rng, a, size, replace, p=None):
    _nonempty_population(a.shape[0])
    return a[_pick_index(rng, a.shape[0], size, replace)]


def _choice_items(rng, a, size, replace, p=None):
    if a.shape[0] == 0 and np.empty(size, np.int8).size:
        _nonempty_population(0)
    return a[_pick_indices(rng, a.shape[0], size, replace).reshape(-1)].reshape(size)


_draw_index = njit(**NUMPY_ERRORS)(_integers_scalar)
_draw_indices = njit(**NUMPY_ERRORS)(_integers_array)
_pick_index = njit(**NUMPY_ERRORS)(_choice_index)
_pick_indices = njit(**NUMPY_ERRORS)(_choice_indices)


def _select_choice(rng, a, size, replace):
    if not isinstance(types.unliteral(replace), types.Boolean):
        return None
    check_size(size)
    if isinstance(types.unliteral(a), types.Integer):
        return _choice_index if is_none(size) else _choice_indices
    if isinstance(a, types.Array) and a.ndim == 1:
        return _choice_item if is_none(size) else _choice_items
    return None


@overload_method(types.NumPyRandomGeneratorType, "choice", jit_options=NUMPY_ERRORS)
def _generator_choice(self, a, size=None, replace=True, p=None):
    size = as_type(size)
    replace = as_type(replace)
    if not is_none(as_type(p)):
        from ember.library.numpy.random.generator_multivariate import (
            select_generator_weighted_choice,
        )

        if not isinstance(types.unliteral(replace), types.Boolean):
            return None
        return select_generator_weighted_choice(a, size, replace, as_type(p))
    return _select_choice(self, a, size, replace)
