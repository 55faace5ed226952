"""The loops that NumPy calls and slice assignments become under parallel=True, written as
Python: `numpy_to_parfor.py` inlines one into the caller's IR in place of the call, and the
prange-to-parfor sub-pass then parallelizes its marked loop like any user prange loop.

Each template gives exactly what the serial call gives (value, type and exception), and keeps
the statements before its loop free of branches so that the loop can fuse with its
neighbours; checks that may raise come after the loop (the serial call's own code raises).
`T` is the result's scalar type (np.float64, ...), `init` a constant start value. The checks
after a loop are calls (not branches), so that the next parfor can still fuse with it.
"""

from __future__ import annotations

import numpy as np

from ember.decorators import njit
from ember.parallel.api import numpy_prange, reduction_prange, setitem_prange
from ember.parallel.overlap import arrays_may_overlap
from ember.parallel.random_streams import chunk_seeds, full_chunks

_EMPTY_MIN = "zero-size array to reduction operation minimum which has no identity"
_EMPTY_MAX = "zero-size array to reduction operation maximum which has no identity"


@njit
def mean_of(total, count):
    """total / count, NaN for no items (as np.mean of an empty array)."""
    if count == 0:
        return total * np.nan
    return total / count


@njit
def require_items_for_min(count):
    if count == 0:
        raise ValueError(_EMPTY_MIN)


@njit
def require_items_for_max(count):
    if count == 0:
        raise ValueError(_EMPTY_MAX)


@njit
def argmin_of_pair(pair, count):
    if count == 0:
        raise ValueError("attempt to get argmin of an empty sequence")  # NumPy's words
    return pair[1]


@njit
def argmax_of_pair(pair, count):
    if count == 0:
        raise ValueError("attempt to get argmax of an empty sequence")
    return pair[1]


@njit
def nan_if(value, seen_nan):
    """NaN when a NaN was seen (np.min and np.max propagate it), else value."""
    if seen_nan:
        return value * np.nan
    return value


@njit
def copy_items(source, out):
    """out[:] = source for 1-d arrays of one length (a loop: quick to compile)."""
    for j in range(out.shape[0]):
        out[j] = source[j]


@njit
def sum_of_rows(a, lo, hi, out):
    copy_items(np.sum(a[lo:hi], axis=0), out)


@njit
def prod_of_rows(a, lo, hi, out):
    copy_items(np.prod(a[lo:hi], axis=0), out)


@njit
def min_of_rows(a, lo, hi, out):
    copy_items(np.min(a[lo:hi], axis=0), out)


@njit
def max_of_rows(a, lo, hi, out):
    copy_items(np.max(a[lo:hi], axis=0), out)


@njit
def sum_partials(partial, a):
    if partial.shape[0] == 0:
        return np.sum(a, axis=0)
    return np.sum(partial, axis=0)


@njit
def prod_partials(partial, a):
    if partial.shape[0] == 0:
        return np.prod(a, axis=0)
    return np.prod(partial, axis=0)


@njit
def mean_partials(partial, a):
    if partial.shape[0] == 0:
        return np.mean(a, axis=0)
    out = np.sum(partial, axis=0)
    for j in range(out.shape[0]):
        out[j] = mean_of(out[j], a.shape[0])
    return out


@njit
def min_partials(partial, a):
    if partial.shape[0] == 0:
        return np.min(a, axis=0)  # raises: no identity
    return np.min(partial, axis=0)


@njit
def max_partials(partial, a):
    if partial.shape[0] == 0:
        return np.max(a, axis=0)
    return np.max(partial, axis=0)


@njit
def int_arange_length(start, stop, step):
    """len(np.arange(start, stop, step)) of integers; ZeroDivisionError for step 0."""
    if step == 0:
        raise ZeroDivisionError("arange: step is zero")
    if step > 0:
        return max((stop - start + step - 1) // step, 0)
    return max((start - stop - step - 1) // (-step), 0)


@njit
def float_arange_length(start, stop, step):
    if step == 0:
        raise ZeroDivisionError("arange: step is zero")
    return max(int(np.ceil((stop - start) / step)), 0)


@njit
def linspace_count(num):
    if num < 0:
        raise ValueError("Number of samples must be non-negative.")
    return num


@njit
def linspace_divisor(num, endpoint):
    return num - 1 if endpoint else num


@njit
def linspace_step(start, stop, div):
    delta = stop - start
    return delta / div if div > 0 else 0.0


@njit
def linspace_last(num, endpoint, div, start, stop):
    """(index, value) of the item serial np.linspace sets apart, index -1 for none."""
    if div > 0 and endpoint and num > 1:
        return num - 1, np.float64(stop)
    if div <= 0 and num == 1:
        return 0, np.float64(start)
    return -1, 0.0


@njit
def count_true(mask, start, stop):
    return np.count_nonzero(mask[start:stop])


@njit
def mask_fits(counts, mask, b, a, done):
    """Whether a[mask] = b may fill its blocks in parallel (one item of b per True place,
    no overlap); turns counts into each block's first index into b."""
    total = 0
    for c in range(counts.shape[0]):
        total, counts[c] = total + counts[c], total
    total += count_true(mask, done, mask.shape[0])
    same = a.shape == mask.shape
    return same and total == b.shape[0] and not arrays_may_overlap(a, b)


@njit
def place_masked(row, mask, b, start, k):
    """The True places of mask[start:start + len(row)] take b[k], b[k + 1], ... in order."""
    flags = mask[start : start + row.shape[0]]
    for i in range(row.shape[0]):
        if flags[i]:
            row[i] = b[k]
            k += 1


@njit
def finish_masked(a, mask, b, done, parallel):
    """The items after the last full block; the serial assignment when not parallel."""
    if not parallel:
        a[mask] = b
        return
    k = b.shape[0] - count_true(mask, done, mask.shape[0])
    for i in range(done, a.shape[0]):
        if mask[i]:
            a[i] = b[k]
            k += 1


@njit(fastmath={"reassoc"})
def block_sum(a, total):
    """total + the items of a block, added in any order (NumPy's own sum is pairwise: no
    order is promised), so that it vectorizes whatever loop it is inlined into."""
    for i in range(a.shape[0]):
        total += a[i]
    return total


PURE_HELPERS = (mean_of, nan_if)  # calls fusion may move freely
# may raise: moved past quiet loops only
CHECKS = (require_items_for_min, require_items_for_max, argmin_of_pair, argmax_of_pair)


# ---------------------------------------------------------------------------- reductions


def sum_1d(a, T, init):
    acc = T(init)
    for i in reduction_prange(len(a)):
        acc += a[i]
    return acc


def sum_nd(a, T, init):
    acc = T(init)
    for i in reduction_prange(a.shape[0]):
        acc += np.sum(a[i])
    return acc


def prod_1d(a, T, init):
    acc = T(init)
    for i in reduction_prange(len(a)):
        acc *= a[i]
    return acc


def prod_nd(a, T, init):
    acc = T(init)
    for i in reduction_prange(a.shape[0]):
        acc *= np.prod(a[i])
    return acc


def mean_1d(a, T, init):
    acc = T(init)
    for i in reduction_prange(len(a)):
        acc += a[i]
    return T(mean_of(acc, a.size))


def mean_nd(a, T, init):
    acc = T(init)
    for i in reduction_prange(a.shape[0]):
        acc += np.sum(a[i])
    return T(mean_of(acc, a.size))


def extreme_blocks_1d(a, T, init, require, row_extreme, combine):
    # floats: each iteration takes the (vectorized, NaN-propagating) np.min or np.max of a
    # block of 4096 items, combined with np.minimum or np.maximum; an element loop would be
    # a chain of compares that LLVM cannot vectorize without assuming there are no NaNs
    n = len(a)
    acc = T(init)
    for b in reduction_prange((n + 4095) // 4096):
        acc = combine(acc, row_extreme(a[b * 4096 : min(b * 4096 + 4096, n)]))
    require(a.size)
    return acc


def sum_blocks_1d(a, T, init, block_sum):
    # floats of an array passed in: each iteration sums a block of 4096 items (the block loop
    # of np.min / np.max of the same array, so they all fuse into one pass over it)
    n = len(a)
    acc = T(init)
    for b in reduction_prange((n + 4095) // 4096):
        acc += block_sum(a[b * 4096 : min(b * 4096 + 4096, n)], T(init))
    return acc


def mean_blocks_1d(a, T, init, block_sum):
    n = len(a)
    acc = T(init)
    for b in reduction_prange((n + 4095) // 4096):
        acc += block_sum(a[b * 4096 : min(b * 4096 + 4096, n)], T(init))
    return T(mean_of(acc, a.size))


def extreme_1d(a, T, init, pick, require):
    # floats of an array made in this function (so likely filled by a loop this one can fuse
    # with): pick is builtin min or max (a compare and select), NaNs are tracked apart
    acc = T(init)
    seen_nan = False
    for i in reduction_prange(len(a)):
        v = a[i]
        acc = pick(acc, v)
        seen_nan |= v != v
    require(a.size)
    return T(nan_if(acc, seen_nan))


def extreme_int_1d(a, T, init, pick, require):
    acc = T(init)
    for i in reduction_prange(len(a)):
        acc = pick(acc, a[i])
    require(a.size)
    return acc


def extreme_nd(a, T, init, require, row_extreme, combine):
    # row_extreme is np.min or np.max, combine np.minimum or np.maximum (NaN-propagating)
    acc = T(init)
    for i in reduction_prange(a.shape[0]):
        if a[i].size:
            acc = combine(acc, row_extreme(a[i]))
    require(a.size)
    return acc


def arg_extreme(flat, block, arg_of):
    # np.argmin / np.argmax of a 1-d array (or an n-d one raveled): each iteration finds the
    # first extreme of a block of items with the serial function; the first extreme among the
    # blocks' (in block order) is the first in the array, NaN included (arg_of picks the first
    # NaN)
    n = len(flat)
    count = (n + block - 1) // block
    where = np.empty(count, np.int64)
    for b in reduction_prange(count):
        start = b * block
        where[b] = start + arg_of(flat[start : min(start + block, n)])
    return where[arg_of(flat[where])]  # no items: the serial call's error


def arg_extreme_items(flat, T, init, pick, finish):
    # np.argmin / np.argmax of an array made in this function (so likely filled by a loop this
    # one can fuse with): one item per iteration, reduced as (value, index) pairs by pick
    # (reductions.py: the first NaN, else the first extreme)
    acc = (T(init), np.int64(9223372036854775807))  # reductions.py's _NO_INDEX
    for i in reduction_prange(len(flat)):
        acc = pick(acc, (T(flat[i]), np.int64(i)))
    return finish(acc, len(flat))


def reduce_rows(a, reduce, T):
    # np.<sum|prod|mean>(a, axis=1) of a 2-d array: one row per iteration
    out = np.empty(a.shape[0], T)
    for i in reduction_prange(a.shape[0]):
        out[i] = reduce(a[i])
    return out


def extreme_rows(a, reduce, T, require):
    # np.<min|max>(a, axis=1): as reduce_rows; no columns raises even when there are no rows
    out = np.empty(a.shape[0], T)
    for i in reduction_prange(a.shape[0]):
        out[i] = reduce(a[i])
    require(a.shape[1])
    return out


@njit
def no_check(count):
    """The check after a sum, product or mean along an axis: none (an empty axis is fine)."""


def reduce_last_axis(a, reduce, T, require):
    # np.<sum|prod|mean|min|max>(a, axis=2) of a 3-d array: one (i, j) line per iteration;
    # no items along the axis raises for min and max even when there are no lines
    rows, columns = a.shape[0], a.shape[1]
    out = np.empty(rows * columns, T)
    for k in reduction_prange(rows * columns):
        out[k] = reduce(a[k // columns, k % columns])
    require(a.shape[2])
    return out.reshape((rows, columns))


def reduce_middle_axis(a, reduce, T, require):
    # np.<...>(a, axis=1) of a 3-d array: iteration i reduces the slab a[i] along its axis 0
    out = np.empty((a.shape[0], a.shape[2]), T)
    for i in reduction_prange(a.shape[0]):
        copy_items(reduce(a[i], 0), out[i])
    require(a.shape[1])
    return out


def reduce_first_axis(a, reduce, T, require):
    # np.<...>(a, axis=0) of a 3-d array: iteration j reduces the slab a[:, j] along its axis 0
    out = np.empty((a.shape[1], a.shape[2]), T)
    for j in reduction_prange(a.shape[1]):
        copy_items(reduce(a[:, j], 0), out[j])
    require(a.shape[0])
    return out


def reduce_row_blocks(a, T, block, reduce, finish):
    # np.<sum|prod|mean|min|max>(a, axis=0) of a 2-d array: each iteration reduces a block of
    # whole rows along axis 0 with the serial function (reading rows in order; `reduce` is a
    # jitted helper, compiled once per array type rather than inlined into every caller), into
    # its own row of `partial`; finish reduces those rows (the serial answer for no rows)
    n = a.shape[0]
    count = (n + block - 1) // block
    partial = np.empty((count, a.shape[1]), T)
    for b in reduction_prange(count):
        reduce(a, b * block, min(b * block + block, n), partial[b])
    return finish(partial, a)


def dot_1d(a, b, T, init):
    acc = T(init)
    for i in reduction_prange(min(len(a), len(b))):
        acc += a[i] * b[i]
    if len(a) != len(b):
        return np.dot(a, b)  # the serial call raises its own error
    return acc


# ---------------------------------------------------------------------------- allocation


def fill(out, value):
    for i in numpy_prange(len(out)):
        out[i] = value
    return out


def arange_1(stop, T):
    out = np.empty(max(stop, 0), T)
    for i in numpy_prange(len(out)):
        out[i] = i
    return out


def arange_3(start, stop, step, T, length):
    # np.arange(start, stop[, step]) filled as NumPy (and the serial np.arange) fill it: item 1
    # is start + step, any other start + i * delta, delta being (start + step) - start
    out = np.empty(length(start, stop, step), T)
    delta = (start + step) - start
    for i in numpy_prange(len(out)):
        out[i] = start + step if i == 1 else start + i * delta
    return out


def linspace(start, stop, num, endpoint):
    # item i is i * step + start, but for the one item serial np.linspace sets apart
    # (`last`: exactly stop at the end point, start when it is the only item)
    out = np.empty(linspace_count(num), np.float64)
    div = linspace_divisor(num, endpoint)
    step = linspace_step(start, stop, div)
    last, last_value = linspace_last(num, endpoint, div, start, stop)
    for i in numpy_prange(len(out)):
        out[i] = last_value if i == last else i * step + start
    return out


def random_fill(size, a, b, chunk, fill_chunk, fill_serial, check, T):
    # np.random.<uniform|normal|exponential|lognormal|randint> family: the arguments checked,
    # then full chunks in parallel, each from its own generator (random_streams.py); the tail,
    # and arrays under two chunks, from the serial generator
    check(a, b)
    out = np.empty(size, T)
    flat = out.ravel()
    count = full_chunks(len(flat))
    seeds = chunk_seeds(count)
    grid = flat[: count * chunk].reshape((count, chunk))
    for c in numpy_prange(count):
        fill_chunk(grid[c], a, b, seeds[c])
    fill_serial(flat[count * chunk :], a, b)
    return out


# ---------------------------------------------------------------------------- setitem


def setitem_scalar(a, index, value):
    view = a[index]
    for i in setitem_prange(len(view)):
        view[i] = value


def setitem_array(a, index, b):
    view = a[index]
    # parallel only when no broadcasting and no overlap; otherwise the serial assignment
    # (which copies overlapping sources and raises on bad shapes) runs after the loop
    simple = view.shape == b.shape and not arrays_may_overlap(view, b)
    for i in setitem_prange(len(view) * simple):
        view[i] = b[i]
    if not simple:
        a[index] = b


def setitem_mask_1d(a, mask, value):
    same = a.shape == mask.shape
    for i in setitem_prange(len(a) * same):
        if mask[i]:
            a[i] = value
    if not same:
        a[mask] = value


def setitem_mask_array(a, mask, b, block):
    # a[mask] = b (1-d, a contiguous): the k-th True place takes b[k], so each block of the
    # mask is counted in parallel, a running sum gives each block its first item of b, and
    # the blocks are filled in parallel; the serial assignment runs instead when the counts,
    # shapes or memory (b overlapping a) do not allow it, and raises what it raises
    n = len(a)
    count = (n // block) * (a.shape == mask.shape)
    counts = np.empty(count, np.int64)
    for c in setitem_prange(count):
        counts[c] = count_true(mask, c * block, c * block + block)
    parallel = mask_fits(counts, mask, b, a, count * block)
    grid = a[: count * block].reshape((count, block))
    for c in setitem_prange(count * parallel):
        place_masked(grid[c], mask, b, c * block, counts[c])
    finish_masked(a, mask, b, count * block, parallel)


def setitem_mask_nd(a, mask, value):
    same = a.shape == mask.shape
    for i in setitem_prange(len(a) * same):
        row = a[i]
        row[mask[i]] = value
    if not same:
        a[mask] = value
