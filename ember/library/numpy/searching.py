"""np.searchsorted in compiled code: NumPy's exact bisection (side='left'|'right') in NumPy's
sort order (NaN last), for arrays, scalars and sequences of keys."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_real_number,
)


def _sort_less(a, b):
    """NumPy's sort order: NaN (and NaT) after everything else."""
    return a < b or (b != b and a == a)


_sort_less_jit = njit(**NUMPY_ERRORS)(_sort_less)


@functools.cache
def _searchsorted_impl(right: bool, scalar: bool):
    """NumPy's binary search, step for step: the bounds carry over from one value to the next
    (narrowed when the values increase), so even an unsorted `a` gives NumPy's positions."""

    def goes_after(item, key):
        return not _sort_less_jit(key, item) if right else _sort_less_jit(item, key)

    after = njit(**NUMPY_ERRORS)(goes_after)

    def search(a, key, low, high):
        if key == key:  # not NaN: NumPy's order is the plain one (a NaN item compares false)
            while low < high:
                middle = low + ((high - low) >> 1)
                if (a[middle] <= key) if right else (a[middle] < key):
                    low = middle + 1
                else:
                    high = middle
            return low
        while low < high:
            middle = low + ((high - low) >> 1)
            if after(a[middle], key):
                low = middle + 1
            else:
                high = middle
        return low

    find = njit(**NUMPY_ERRORS)(search)
    if scalar:

        def impl(a, v, side):
            return find(a, v, 0, a.shape[0])

    else:

        def impl(a, v, side):
            out = np.empty(v.shape, np.int64)
            flat_out = out.ravel()
            flat_v = v.ravel()
            n = a.shape[0]
            if flat_v.shape[0] == 0:
                return out
            low, high = 0, n
            last = flat_v[0]
            for i in range(flat_v.shape[0]):
                key = flat_v[i]
                if after(last, key):  # the side's comparison, as NumPy's
                    high = n
                else:
                    low = 0
                    high = high + 1 if high < n else n
                last = key
                low = find(a, key, low, high)
                high = low  # the search ends with both bounds here, as NumPy's
                flat_out[i] = low
            return out

    return impl


@overload(np.searchsorted, jit_options=NUMPY_ERRORS)
def _select_searchsorted(a, v, side="left"):
    side = as_type(side)
    side_value = side if isinstance(side, str) else getattr(side, "literal_value", None)
    sequences = tuple(isinstance(t, (types.List, types.BaseTuple)) for t in (a, v))
    if any(sequences) and side_value in ("left", "right"):
        return _searchsorted_of_sequences(*sequences, side_value)
    if not (is_array(a) and a.ndim == 1):
        return None
    if side_value not in ("left", "right"):
        raise TypingError("np.searchsorted: side must be the constant 'left' or 'right'")
    if is_array(v):
        return _searchsorted_impl(side_value == "right", False)
    scalar = is_real_number(v) or isinstance(
        types.unliteral(v), (types.NPDatetime, types.NPTimedelta)
    )
    return _searchsorted_impl(side_value == "right", True) if scalar else None


@functools.cache
def _searchsorted_of_sequences(a_sequence: bool, v_sequence: bool, side: str):
    """Lists and tuples (for the sorted array or the values) as the arrays NumPy makes."""
    a = "np.asarray(a)" if a_sequence else "a"
    v = "np.asarray(v)" if v_sequence else "v"
    source = f"def impl(a, v, side='left'):\n    return np.searchsorted({a}, {v}, side='{side}')\n"
    namespace = {"np": np}
    exec(source, namespace)  # noqa: S102 - fixed text and a checked side
    return namespace["impl"]
