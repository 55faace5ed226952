"""Ordering, written in Python and compiled by ember: np.sort / a.sort, np.argsort / a.argsort
along any axis, and np.median by selection. NaNs order last, complex numbers by real then
imaginary part, as in NumPy.

Values sort with an in-place quicksort (insertion sort for short runs). argsort equals NumPy's
`kind='stable'` whatever `kind` asks for: integers by a radix sort, other values by sorting
(value, index) pairs and then each run of ties by index. The median selects in O(n) on a copy
once it knows there is no NaN (`select_kth_number`: branch-free partitions, falling back to a
sort after too many bad pivots).
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


def _complex_before(x, y):
    """NumPy's order of complex numbers: by real part, then imaginary part; a NaN part orders
    after every number (R + Rj < R + nanj < nan + Rj < nan + nanj)."""
    if x.real < y.real:
        return x.imag == x.imag or y.imag != y.imag
    if x.real > y.real:
        return y.imag != y.imag and x.imag == x.imag
    if x.real == y.real or (x.real != x.real and y.real != y.real):
        return x.imag < y.imag or (y.imag != y.imag and x.imag == x.imag)
    return y.real != y.real


def _before_jit(x, y):
    """The order the kernels sort by (compiled code only: `_before` or `_complex_before`)."""
    raise NotImplementedError("only called from compiled code")


@overload(_before_jit, jit_options=NUMPY_ERRORS)
def _select_before(x, y):
    return _complex_before if isinstance(x, types.Complex) else _before


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


select_kth = njit(**NUMPY_ERRORS)(_select)


def _median_of_three_to_end(a, first, second, third, high):
    """Moves the median of a[first], a[second] and a[third] to a[high], the pivot's place."""
    if a[second] < a[first]:
        a[second], a[first] = a[first], a[second]
    if a[third] < a[second]:
        a[third], a[second] = a[second], a[third]
        if a[second] < a[first]:
            a[second], a[first] = a[first], a[second]
    a[second], a[high] = a[high], a[second]


_median_of_three_to_end_jit = njit(**NUMPY_ERRORS)(_median_of_three_to_end)


@functools.cache
def _branch_free_partition(or_equal: bool):
    """A Lomuto partition of a[low..high) by the `pivot` at a[high]: the items below it (or
    not above it, `or_equal`) go first, then the pivot; returns its new place. Every item is
    swapped and the count of those below grows by the comparison's outcome, with no branch
    on it: on random data a branch there is a coin toss, and mispredicted half the time."""

    def partition(a, low, high):
        pivot = a[high]
        # unsigned indices: no test for a negative index to wrap around
        store = np.uint64(low)
        for i in range(np.uint64(low), np.uint64(high)):
            item = a[i]
            a[i] = a[store]
            a[store] = item
            store += np.uint64((not pivot < item) if or_equal else (item < pivot))
        a[high] = a[store]
        a[store] = pivot
        return np.int64(store)

    return njit(**NUMPY_ERRORS)(partition)


_partition_below_jit = _branch_free_partition(False)
_partition_at_most_jit = _branch_free_partition(True)


def _scattered_place(state, low, length):
    """The next state of a pseudo-random sequence (a 63-bit LCG) and a place in
    [low, low + length) drawn from it."""
    state = (state * 6364136223846793005 + 1442695040888963407) & (2**63 - 1)
    return state, low + (state >> 20) % length


_scattered_place_jit = njit(**NUMPY_ERRORS)(_scattered_place)


def _select_number(a, k):
    """`select_kth` for items that are not NaN, faster: partitions without branches on the
    items (`_branch_free_partition`). A pivot equal to the item before the range (so the
    smallest in it) takes all its copies to the front at once: many equal items cost one
    partition, not one each. The pivot is the median of the first, middle and last items
    until a partition leaves k among 7/8 of the range; then of items at scattered places
    (a pattern that fooled the first choice rarely fools these); sorted after log2(n) such."""
    low = 0
    high = a.shape[0] - 1
    bad_left = 0
    size = high + 1
    while size > 1:
        bad_left += 1
        size //= 2
    scatter = 0  # a pseudo-random state, once a partition was bad
    while high - low > 16:
        length = high - low + 1
        if scatter == 0:
            _median_of_three_to_end_jit(a, low, (low + high) // 2, high, high)
        else:
            scatter, first = _scattered_place_jit(scatter, low, length)
            scatter, second = _scattered_place_jit(scatter, low, length)
            scatter, third = _scattered_place_jit(scatter, low, length)
            _median_of_three_to_end_jit(a, first, second, third, high)
        if low > 0 and not a[low - 1] < a[high]:
            place = _partition_at_most_jit(a, low, high)  # a[low..place] all equal the pivot
            if k <= place:
                return
            low = place + 1
        else:
            place = _partition_below_jit(a, low, high)
            if k == place:
                return
            if k < place:
                high = place - 1
            else:
                low = place + 1
        if high - low + 1 > length - length // 8:
            if bad_left == 0:
                _sort_1d_jit(a[low : high + 1])
                return
            bad_left -= 1
            scatter = scatter or length
    _insertion_sort_jit(a, low, high)


select_kth_number = njit(**NUMPY_ERRORS)(_select_number)


def _swap_pairs(keys, index, x, y):
    keys[x], keys[y] = keys[y], keys[x]
    index[x], index[y] = index[y], index[x]


_swap_pairs_jit = njit(**NUMPY_ERRORS)(_swap_pairs)


def _partition_pairs(keys, index, low, high):
    """Partition keys[low..high] around a median-of-three pivot, carrying `index` along:
    returns (j, i) with keys[low..j] <= pivot <= keys[i..high] and keys[j+1..i-1] == pivot."""
    before = _before_jit
    swap = _swap_pairs_jit
    middle = (low + high) // 2
    if before(keys[middle], keys[low]):
        swap(keys, index, middle, low)
    if before(keys[high], keys[middle]):
        swap(keys, index, high, middle)
        if before(keys[middle], keys[low]):
            swap(keys, index, middle, low)
    pivot = keys[middle]
    i = low
    j = high
    while i <= j:
        while before(keys[i], pivot):
            i += 1
        while before(pivot, keys[j]):
            j -= 1
        if i <= j:
            swap(keys, index, i, j)
            i += 1
            j -= 1
    return j, i


_partition_pairs_jit = njit(**NUMPY_ERRORS)(_partition_pairs)


def _insertion_sort_pairs(keys, index, low, high):
    """Sort keys[low..high] by insertion (stable), carrying `index` along."""
    before = _before_jit
    for m in range(low + 1, high + 1):
        key = keys[m]
        item = index[m]
        p = m
        while p > low and before(key, keys[p - 1]):
            keys[p] = keys[p - 1]
            index[p] = index[p - 1]
            p -= 1
        keys[p] = key
        index[p] = item


_insertion_sort_pairs_jit = njit(**NUMPY_ERRORS)(_insertion_sort_pairs)


def _sift_down(keys, index, root, end):
    before = _before_jit
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and before(keys[child], keys[child + 1]):
            child += 1
        if not before(keys[root], keys[child]):
            return
        _swap_pairs_jit(keys, index, root, child)
        root = child


_sift_down_jit = njit(**NUMPY_ERRORS)(_sift_down)


def _heapsort_pairs(keys, index):
    """Sort `keys` by heapsort (in O(n log n) whatever the input), carrying `index` along."""
    n = keys.shape[0]
    for root in range(n // 2 - 1, -1, -1):
        _sift_down_jit(keys, index, root, n)
    for end in range(n - 1, 0, -1):
        _swap_pairs_jit(keys, index, 0, end)
        _sift_down_jit(keys, index, 0, end)


_heapsort_pairs_jit = njit(**NUMPY_ERRORS)(_heapsort_pairs)


def _introsort_pairs(keys, index):
    """Sort `keys` in place, carrying `index` along, equal keys in any order: quicksort
    (insertion sort below 16 items); a range that needs more than 2 log2(n) + 4 nested
    partitions (bad pivots, heading for quadratic time) makes it heapsort everything."""
    n = keys.shape[0]
    depth_limit = 4
    size = n
    while size > 1:
        depth_limit += 2
        size //= 2
    stack = np.empty(3 * 64, np.int64)  # (low, high, depth): the smaller part goes first
    stack[0], stack[1], stack[2] = 0, n - 1, 0
    top = 3
    while top > 0:
        top -= 3
        low, high, depth = stack[top], stack[top + 1], stack[top + 2]
        while high - low > 16:
            if depth == depth_limit:
                _heapsort_pairs_jit(keys, index)
                return
            depth += 1
            j, i = _partition_pairs_jit(keys, index, low, high)
            if j - low > high - i:
                stack[top], stack[top + 1], stack[top + 2] = low, j, depth
                low = i
            else:
                stack[top], stack[top + 1], stack[top + 2] = i, high, depth
                high = j
            top += 3
        _insertion_sort_pairs_jit(keys, index, low, high)


_introsort_pairs_jit = njit(**NUMPY_ERRORS)(_introsort_pairs)


def _order_ties_by_index(keys, index):
    """Sort the indices of each run of equal keys (NaNs are one run) in increasing order:
    after any sort of the keys, that is all a stable order asks."""
    before = _before_jit
    n = keys.shape[0]
    start = 0
    for m in range(1, n + 1):
        if m == n or before(keys[m - 1], keys[m]):
            if m - start > 1:
                _sort_1d_jit(index[start:m])
            start = m


_order_ties_by_index_jit = njit(**NUMPY_ERRORS)(_order_ties_by_index)


def _argsort_by_comparisons(values, index, keys):
    """index[:] = the indices that sort the 1-d `values` stably, NaNs last (NumPy's
    `kind='stable'`). The values are copied to `keys` and sorted together with their indices,
    so comparisons read memory in order. Input already in order costs one comparison per item,
    strictly descending input one more pass; other input is sorted by introsort, after which
    each run of equal keys gets its indices in increasing order. `keys` holds as many items
    as `values`."""
    before = _before_jit
    n = values.shape[0]
    ascending, descending = True, True
    for m in range(n):
        keys[m] = values[m]
        index[m] = m
        if m > 0:
            ascending = ascending and not before(keys[m], keys[m - 1])
            descending = descending and before(keys[m], keys[m - 1])
    if ascending:
        return
    if descending:
        for m in range(n):
            index[m] = n - 1 - m
        return
    _introsort_pairs_jit(keys, index)
    _order_ties_by_index_jit(keys, index)


_RADIX_MIN = 128  # shorter integer lanes sort by insertion
_BYTE = np.uint64(255)


@functools.cache
def _radix_argsort_impl(signed: bool):
    """The stable argsort of integer lanes by bytes, least significant first (an LSD radix
    sort): one pass counts every byte position's values, then each position in which the
    values differ moves the items once, in order. Signed values sort as their two's
    complement with the sign bit flipped."""
    flip = np.uint64(1 << 63) if signed else np.uint64(0)

    def radix_argsort(values, index, keys):
        n = values.shape[0]
        if n < _RADIX_MIN:
            for m in range(n):
                keys[m] = values[m]
                index[m] = m
            _insertion_sort_pairs_jit(keys, index, 0, n - 1)
            return
        bits, bits_scratch = np.empty(n, np.uint64), np.empty(n, np.uint64)
        counts = np.zeros((8, 256), np.int64)
        for m in range(n):
            x = np.uint64(np.int64(values[m])) ^ flip
            bits[m] = x
            index[m] = m
            for b in range(8):
                counts[b, np.int64((x >> np.uint64(8 * b)) & _BYTE)] += 1
        order, order_scratch = index, np.empty(n, np.int64)
        moves = 0
        for b in range(8):
            shift = np.uint64(8 * b)
            if counts[b, np.int64((bits[0] >> shift) & _BYTE)] == n:
                continue  # every value has the same byte here
            start = 0
            for d in range(256):
                count = counts[b, d]
                counts[b, d] = start
                start += count
            for m in range(n):
                x = bits[m]
                digit = np.int64((x >> shift) & _BYTE)
                p = counts[b, digit]
                counts[b, digit] = p + 1
                bits_scratch[p] = x
                order_scratch[p] = order[m]
            bits, bits_scratch = bits_scratch, bits
            order, order_scratch = order_scratch, order
            moves += 1
        if moves % 2 == 1:  # the result is in the scratch array
            index[:] = order

    return njit(**NUMPY_ERRORS)(radix_argsort)


def _argsort_lane(values, index, keys):
    """index[:] = the stable argsort of the 1-d `values`; `keys` holds as many items of the
    values' dtype (the compiled forms are chosen by `_argsort_lane_typed`)."""
    raise NotImplementedError("only called from compiled code")


@overload(_argsort_lane, jit_options=NUMPY_ERRORS)
def _argsort_lane_typed(values, index, keys):
    dtype = values.dtype
    if isinstance(dtype, types.Integer) and dtype.bitwidth <= 64:
        return _radix_argsort_impl(dtype.signed)
    return _argsort_by_comparisons


def _argsort_1d(a):
    n = a.shape[0]
    index = np.empty(n, np.int64)
    _argsort_lane(a, index, np.empty(n, a.dtype))
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
    if not isinstance(kind, types.StringLiteral):  # Numba's words first
        raise TypingError(f'"kind" must be a string literal, one of {", ".join(SORT_KINDS)}')
    if kind.literal_value not in SORT_KINDS:
        raise TypingError(
            f"sort kind must be one of {', '.join(SORT_KINDS)}, not '{kind.literal_value}'"
        )


def _sortable(a) -> bool:
    return isinstance(a, types.Array) and a.ndim > 0


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
    index, keys = np.empty(n, np.int64), np.empty(n, a.dtype)
    for o in range(values.shape[0]):
        for i in range(values.shape[2]):
            _argsort_lane(values[o, :, i], index, keys)
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
        has_nan = v[0] != v[0]
        ordered = True  # (sorted or equal data: the middle is in place)
        for i in range(1, n):  # no exit at the first NaN or descent: this loop vectorizes
            has_nan |= v[i] != v[i]
            ordered &= v[i - 1] <= v[i]
        if has_nan:
            for x in v:
                if x != x:
                    return result_class(x)
        half = n // 2
        if not ordered:
            select_kth_number(v, half)
        # np.mean's sum starts from +0.0, which turns a -0.0 median into 0.0
        total = result_class(0.0) + result_class(v[half])
        if n % 2 == 1:
            return total
        total += result_class(v[half - 1] if ordered else v[:half].max())
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
    if isinstance(axis, types.BaseTuple):
        return None  # a tuple of axes: axis_gather.py
    _check_integer_axis(axis, "np.median: axis must be None, an integer or a tuple of integers")
    if a.ndim == 1:
        return _median_all_impl(result_class, True)
    return _median_axis_impl(a.ndim, result_class)
