"""Ordering, written in Python and compiled by ember: np.sort / a.sort, np.argsort / a.argsort
along any axis, and np.median by selection. NaNs order last, as in NumPy.

Values sort with an in-place quicksort (insertion sort for short runs); indices with a stable
merge sort, so argsort equals NumPy's `kind='stable'` whatever `kind` asks for. The median
selects in O(n) on a copy (quickselect, falling back to a sort after too many bad pivots).
Along an axis other than the last, each lane of a C-ordered copy is a strided 1-d view.
"""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_none

AxisError = np.exceptions.AxisError
SORT_KINDS = ("quicksort", "mergesort", "heapsort", "stable")

# ---------------------------------------------------------------------------- 1-d kernels


def _before(x, y):
    """x orders before y: x < y, with NaN after every number."""
    return x < y or (y != y and x == x)


_before_jit = njit(**NUMPY_ERRORS)(_before)


def _partition(a, low, high):
    """Partition a[low..high] around a median-of-three pivot: returns (j, i) with
    a[low..j] <= pivot <= a[i..high] and a[j+1..i-1] == pivot."""
    before = _before_jit
    middle = (low + high) // 2
    if before(a[middle], a[low]):
        a[middle], a[low] = a[low], a[middle]
    if before(a[high], a[middle]):
        a[high], a[middle] = a[middle], a[high]
        if before(a[middle], a[low]):
            a[middle], a[low] = a[low], a[middle]
    pivot = a[middle]
    i = low
    j = high
    while i <= j:
        while before(a[i], pivot):
            i += 1
        while before(pivot, a[j]):
            j -= 1
        if i <= j:
            a[i], a[j] = a[j], a[i]
            i += 1
            j -= 1
    return j, i


_partition_jit = njit(**NUMPY_ERRORS)(_partition)


def _insertion_sort(a, low, high):
    before = _before_jit
    for i in range(low + 1, high + 1):
        item = a[i]
        j = i - 1
        while j >= low and before(item, a[j]):
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = item


_insertion_sort_jit = njit(**NUMPY_ERRORS)(_insertion_sort)


def _sort_1d(a):
    """In-place ascending sort of a 1-d array: quicksort, insertion sort below 16 items."""
    stack = np.empty(128, np.int64)
    stack[0] = 0
    stack[1] = a.shape[0] - 1
    top = 2
    while top > 0:
        top -= 2
        low = stack[top]
        high = stack[top + 1]
        while high - low > 16:
            j, i = _partition_jit(a, low, high)
            # push the larger part, keep sorting the smaller one: the stack stays short
            if j - low > high - i:
                stack[top] = low
                stack[top + 1] = j
                low = i
            else:
                stack[top] = i
                stack[top + 1] = high
                high = j
            top += 2
        _insertion_sort_jit(a, low, high)
    return a


_sort_1d_jit = njit(**NUMPY_ERRORS)(_sort_1d)


def _select(a, k):
    """Reorder the 1-d array `a` so that a[k] is its k-th smallest item, with smaller or equal
    items before it and greater or equal ones after (introselect)."""
    low = 0
    high = a.shape[0] - 1
    budget = 4  # bad pivots allowed: about 2 log2(n), then sort the rest
    size = high + 1
    while size > 1:
        budget += 2
        size //= 2
    while high - low > 16:
        if budget == 0:
            _sort_1d_jit(a[low : high + 1])
            return
        budget -= 1
        j, i = _partition_jit(a, low, high)
        if k <= j:
            high = j
        elif k >= i:
            low = i
        else:
            return  # a[k] equals the pivot: in place
    _insertion_sort_jit(a, low, high)


_select_jit = njit(**NUMPY_ERRORS)(_select)


def _merge_runs(keys, index, key_scratch, index_scratch, start, middle, end):
    """Merge the sorted, non-empty runs [start:middle] and [middle:end] of `keys` (stable), in
    place, carrying `index` along. Without branches on the comparison (selects), which on
    random keys would be mispredicted half the time."""
    before = _before_jit
    i, j, k = start, middle, start
    while i < middle and j < end:
        left, right = keys[i], keys[j]
        right_first = before(right, left)
        key_scratch[k] = right if right_first else left
        index_scratch[k] = index[j] if right_first else index[i]
        j += right_first
        i += not right_first
        k += 1
    while i < middle:  # (when the right run ends first; else its rest is in place already)
        key_scratch[k] = keys[i]
        index_scratch[k] = index[i]
        i += 1
        k += 1
    for m in range(start, k):
        keys[m] = key_scratch[m]
        index[m] = index_scratch[m]


_merge_runs_jit = njit(**NUMPY_ERRORS)(_merge_runs)


def _sort_run(keys, index, start, end):
    """Sort keys[start:end] (stable), carrying `index` along: reversed when strictly
    descending, else by insertion."""
    before = _before_jit
    descending = True
    for m in range(start + 1, end):
        if not before(keys[m], keys[m - 1]):
            descending = False
            break
    if descending:
        low, high = start, end - 1
        while low < high:
            keys[low], keys[high] = keys[high], keys[low]
            index[low], index[high] = index[high], index[low]
            low += 1
            high -= 1
        return
    for m in range(start + 1, end):
        key = keys[m]
        item = index[m]
        p = m
        while p > start and before(key, keys[p - 1]):
            keys[p] = keys[p - 1]
            index[p] = index[p - 1]
            p -= 1
        keys[p] = key
        index[p] = item


_sort_run_jit = njit(**NUMPY_ERRORS)(_sort_run)


def _rotate_runs(items, scratch, start, middle, end):
    """items[start:end] = items[middle:end] + items[start:middle]."""
    for m in range(start, middle):
        scratch[m] = items[m]
    for m in range(middle, end):
        items[start + m - middle] = items[m]
    for m in range(start, middle):
        items[end - middle + m] = scratch[m]


_rotate_runs_jit = njit(**NUMPY_ERRORS)(_rotate_runs)

_ARGSORT_RUN = 16  # runs this long are sorted before merging


def _argsort_into(values, index, keys, key_scratch, index_scratch):
    """index[:] = the indices that sort the 1-d `values` (a stable merge sort, NaNs last).

    The values are copied to `keys` and sorted together with their indices, so comparisons
    read memory in order instead of through the indices. Runs of _ARGSORT_RUN are sorted by
    insertion, then merged bottom-up; two neighbouring runs already in order are not merged
    (sorted input costs one comparison per run), nor compared item by item when one wholly
    precedes the other (reversed input). The other arrays hold as many items as `values`."""
    before = _before_jit
    n = values.shape[0]
    for m in range(n):
        keys[m] = values[m]
        index[m] = m
    for start in range(0, n, _ARGSORT_RUN):
        _sort_run_jit(keys, index, start, min(start + _ARGSORT_RUN, n))
    width = _ARGSORT_RUN
    while width < n:
        start = 0
        while start < n - width:
            middle = start + width
            end = min(start + 2 * width, n)
            if not before(keys[middle], keys[middle - 1]):
                pass  # already in order
            elif before(keys[end - 1], keys[start]):  # all of the right run first
                _rotate_runs_jit(keys, key_scratch, start, middle, end)
                _rotate_runs_jit(index, index_scratch, start, middle, end)
            else:
                _merge_runs_jit(keys, index, key_scratch, index_scratch, start, middle, end)
            start += 2 * width
        width *= 2


_argsort_into_jit = njit(**NUMPY_ERRORS)(_argsort_into)


def _argsort_1d(a):
    n = a.shape[0]
    index = np.empty(n, np.int64)
    keys, key_scratch = np.empty(n, a.dtype), np.empty(n, a.dtype)
    _argsort_into_jit(a, index, keys, key_scratch, np.empty(n, np.int64))
    return index


_argsort_1d_jit = njit(**NUMPY_ERRORS)(_argsort_1d)

# ---------------------------------------------------------------------------- lanes of an axis


def _normalize_axis(axis, ndim):
    if axis < -ndim or axis >= ndim:
        raise AxisError("axis is out of bounds for the array")
    return axis + ndim if axis < 0 else axis


_normalize_axis_jit = njit(**NUMPY_ERRORS)(_normalize_axis)


def _lanes(c, axis):
    """The C-ordered array `c` as (before, along, after) dimensions around `axis`: each
    lanes[o, :, i] is one 1-d lane along the axis."""
    shape = c.shape
    before = 1
    after = 1
    for k in range(len(shape)):
        if k < axis:
            before *= shape[k]
        elif k > axis:
            after *= shape[k]
    return c.reshape((before, shape[axis], after))


_lanes_jit = njit(**NUMPY_ERRORS)(_lanes)


def _sort_lanes(c, axis):
    lanes = _lanes_jit(c, _normalize_axis_jit(axis, c.ndim))
    for o in range(lanes.shape[0]):
        for i in range(lanes.shape[2]):
            _sort_1d_jit(lanes[o, :, i])


_sort_lanes_jit = njit(**NUMPY_ERRORS)(_sort_lanes)

# ---------------------------------------------------------------------------- sort


def _check_kind(kind) -> None:
    if is_none(kind):
        return
    if getattr(kind, "literal_value", None) not in SORT_KINDS:
        raise TypingError(f"sort kind must be a constant string, one of {', '.join(SORT_KINDS)}")


def _sortable(a) -> bool:
    if not isinstance(a, types.Array) or a.ndim == 0:
        return False
    if isinstance(a.dtype, types.Complex):
        raise TypingError(f"sorting complex arrays is not supported ({a})")
    return True


def _check_integer_axis(axis, message: str) -> None:
    if not isinstance(types.unliteral(axis), types.Integer):
        raise TypingError(message)


def _sort_1d_in_place(a, axis, kind):
    _normalize_axis_jit(axis, 1)
    _sort_1d_jit(a)


def _sort_in_place(a, axis, kind):
    c = a.copy()
    _sort_lanes_jit(c, axis)
    a[...] = c


@overload_method(types.Array, "sort", jit_options=NUMPY_ERRORS)
def _select_sort(a, axis=-1, kind=None):
    axis = as_type(axis)
    kind = as_type(kind)
    if not _sortable(a):
        return None
    if a.readonly:
        raise TypingError(f"cannot sort a read-only array ({a}) in place")
    _check_kind(kind)
    _check_integer_axis(axis, "a.sort: axis must be an integer")
    return _sort_1d_in_place if a.ndim == 1 else _sort_in_place


def _sorted_copy_1d(a, axis, kind):
    _normalize_axis_jit(axis, 1)
    return _sort_1d_jit(a.copy())


def _sorted_copy(a, axis, kind):
    c = a.copy()
    _sort_lanes_jit(c, axis)
    return c


def _sorted_flat(a, axis, kind):
    return _sort_1d_jit(a.flatten())


@overload(np.sort, jit_options=NUMPY_ERRORS)
def _select_np_sort(a, axis=-1, kind=None):
    axis = as_type(axis)
    kind = as_type(kind)
    if not _sortable(a):
        return None
    _check_kind(kind)
    if is_none(axis):
        return _sorted_flat
    _check_integer_axis(axis, "np.sort: axis must be None or an integer")
    # chosen here, by type: a run-time `if a.ndim == 1` would compile both branches
    return _sorted_copy_1d if a.ndim == 1 else _sorted_copy


# ---------------------------------------------------------------------------- argsort


def _argsort_1d_along(a, axis, kind):
    _normalize_axis_jit(axis, 1)
    return _argsort_1d_jit(a)


def _argsort_flat(a, axis, kind):
    return _argsort_1d_jit(a.ravel())


def _argsort_along(a, axis, kind):
    axis = _normalize_axis_jit(axis, a.ndim)
    values = _lanes_jit(a.copy(), axis)
    order = np.empty(values.shape, np.int64)
    n = values.shape[1]
    index, index_scratch = np.empty(n, np.int64), np.empty(n, np.int64)
    keys, key_scratch = np.empty(n, a.dtype), np.empty(n, a.dtype)
    for o in range(values.shape[0]):
        for i in range(values.shape[2]):
            _argsort_into_jit(values[o, :, i], index, keys, key_scratch, index_scratch)
            order[o, :, i] = index
    return order.reshape(a.shape)


def _select_argsort(a, axis, kind):
    if not _sortable(a):
        return None
    _check_kind(kind)
    if is_none(axis):
        return _argsort_flat
    _check_integer_axis(axis, "argsort: axis must be None or an integer")
    return _argsort_1d_along if a.ndim == 1 else _argsort_along


@overload(np.argsort, jit_options=NUMPY_ERRORS)
def _np_argsort(a, axis=-1, kind=None):
    axis = as_type(axis)
    kind = as_type(kind)
    return _select_argsort(a, axis, kind)


@overload_method(types.Array, "argsort", jit_options=NUMPY_ERRORS)
def _array_argsort(self, axis=-1, kind=None):
    axis = as_type(axis)
    kind = as_type(kind)
    return _select_argsort(self, axis, kind)


# ---------------------------------------------------------------------------- median


@functools.cache
def _median_lane_impl(result_class):
    """The median of a 1-d lane, reordering it; `result_class` (np.float32 or np.float64) is
    NumPy's result dtype, in which the middle items are also summed, as np.mean does."""

    def median_lane(v):
        n = v.shape[0]
        if n == 0:
            return result_class(np.nan)
        for x in v:
            if x != x:
                return result_class(x)
        half = n // 2
        _select_jit(v, half)
        # np.mean's sum starts from +0.0, which turns a -0.0 median into 0.0
        total = result_class(0.0) + result_class(v[half])
        if n % 2 == 1:
            return total
        total += result_class(v[:half].max())
        return result_class(float(total) / 2.0)

    return njit(**NUMPY_ERRORS)(median_lane)


@functools.cache
def _median_all_impl(result_class, check_axis: bool):
    median_lane = _median_lane_impl(result_class)
    if check_axis:  # a 1-d array along its only axis

        def median_all(a, axis):
            _normalize_axis_jit(axis, 1)
            return median_lane(a.flatten())

    else:

        def median_all(a, axis):
            return median_lane(a.flatten())

    return median_all


@functools.cache
def _median_axis_impl(ndim: int, result_class):
    """np.median(a, axis) of an `ndim`-d array: the result's shape drops `axis`, a tuple whose
    length only a template can spell."""
    dims = "".join(
        f"    d{p} = shape[{p}] if {p} < axis else shape[{p + 1}]\n" for p in range(ndim - 1)
    )
    names = ", ".join(f"d{p}" for p in range(ndim - 1))
    source = f"""
def median_axis(a, axis):
    axis = normalize_axis(axis, a.ndim)
    shape = a.shape
{dims}    lanes = lanes_of(a.copy(), axis)
    out = np.empty(({names},), result_class)
    flat = out.reshape(lanes.shape[0], lanes.shape[2])
    for o in range(lanes.shape[0]):
        for i in range(lanes.shape[2]):
            flat[o, i] = median_lane(lanes[o, :, i])
    return out
"""
    namespace = {
        "np": np,
        "normalize_axis": _normalize_axis_jit,
        "lanes_of": _lanes_jit,
        "median_lane": _median_lane_impl(result_class),
        "result_class": result_class,
    }
    exec(source, namespace)  # noqa: S102 - a template over fixed names
    impl = namespace["median_axis"]
    impl.__module__ = __name__
    return impl


@overload(np.median, jit_options=NUMPY_ERRORS)
def _select_median(a, axis=None):
    axis = as_type(axis)
    if not isinstance(a, types.Array):
        return None
    if isinstance(a.dtype, types.Complex):
        raise TypingError(f"np.median of complex arrays is not supported ({a})")
    result_class = np.float32 if a.dtype == types.float32 else np.float64
    if is_none(axis):
        return _median_all_impl(result_class, False)
    _check_integer_axis(axis, "np.median: axis must be None or an integer (one axis)")
    if a.ndim == 1:
        return _median_all_impl(result_class, True)
    return _median_axis_impl(a.ndim, result_class)
