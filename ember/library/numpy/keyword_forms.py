"""Keyword arguments of NumPy functions beyond their plain forms, written in Python and compiled
by ember: searchsorted(sorter=), histogram(weights=, density=), interp(period=),
linalg.norm(axis=, keepdims=) along one axis, np.apply_along_axis (Numba lacks it), and
order='F' of a.ravel/np.ravel, a.reshape, np.reshape, np.copy and a.copy, and a.astype(copy=)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.axis_forms import _axis_jit, lanes_along_jit
from ember.library.numpy.axis_forms2 import _keepdims_flag
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_array,
    is_integer,
    is_none,
    parse_dtype,
)

# ---------------------------------------------------------------------------- searchsorted


def _check_sorter(a, sorter):
    if sorter.shape[0] != a.shape[0]:
        raise ValueError("sorter.size must equal a.size")
    for k in sorter:
        if k < 0 or k >= a.shape[0]:
            raise ValueError("Sorter index out of range.")


_check_sorter_jit = njit(**NUMPY_ERRORS)(_check_sorter)


def _searchsorted_sorted_by(a, v, side="left", sorter=None):
    """`a` is sorted by `sorter` (the indices that sort it): search `a[sorter]`."""
    ordered = np.asarray(a)
    _check_sorter_jit(ordered, sorter)
    return np.searchsorted(ordered[sorter], v, side=side)


def _select_searchsorted_sorter(a, v, side="left", sorter=None):
    sorter = as_type(sorter)
    if sorter is None or is_none(sorter):
        return None  # the plain forms
    if not (is_array(sorter) and sorter.ndim == 1 and isinstance(sorter.dtype, types.Integer)):
        raise TypingError("np.searchsorted: sorter must be a 1-d array of integers")
    return _searchsorted_sorted_by


overload(np.searchsorted, jit_options=NUMPY_ERRORS)(_select_searchsorted_sorter)
overload_method(types.Array, "searchsorted", jit_options=NUMPY_ERRORS)(_select_searchsorted_sorter)


# ---------------------------------------------------------------------------- histogram


def _weighted_counts(a, edges, weights):
    """The sum of the weights of the items in each bin ([e0, e1), ..., [e(n-1), en])."""
    if weights.shape != a.shape:
        raise ValueError("weights should have the same shape as a.")
    n = edges.shape[0] - 1
    counts = np.zeros(n, weights.dtype)
    items = a.ravel()
    masses = weights.ravel()
    for k in range(items.shape[0]):
        value = items[k]
        if edges[0] <= value <= edges[n]:
            index = np.searchsorted(edges, value, side="right") - 1
            counts[min(index, n - 1)] += masses[k]
    return counts


_weighted_counts_jit = njit(**NUMPY_ERRORS)(_weighted_counts)


@functools.cache
def _histogram_impl(weighted: bool, density: bool):
    counts = "weighted(a, edges, weights)" if weighted else "counts"
    result = "counts / np.diff(edges) / counts.sum()" if density else "counts"
    source = f"""
def histogram(a, bins=10, range=None, density=None, weights=None):
    counts, edges = np.histogram(a, bins, range)
    counts = {counts}
    return {result}, edges
"""
    namespace = {"np": np, "weighted": _weighted_counts_jit}
    exec(source, namespace)  # noqa: S102 - fixed text
    return namespace["histogram"]


@overload(np.histogram, jit_options=NUMPY_ERRORS)
def _select_histogram_keywords(a, bins=10, range=None, density=None, weights=None):
    density, weights = as_type(density), as_type(weights)
    weighted = not is_none(weights)
    if not is_array(a) or (not weighted and is_none(density)):
        return None  # the plain forms
    if weighted and not (is_array(weights) and isinstance(weights.dtype, types.Number)):
        raise TypingError("np.histogram: weights must be an array of numbers")
    if is_none(density):
        return _histogram_impl(weighted, False)
    if not isinstance(density, types.BooleanLiteral):
        raise TypingError("np.histogram: density must be the constant True or False")
    return _histogram_impl(weighted, density.literal_value)


# ---------------------------------------------------------------------------- interp(period=)


def _interp_periodic(x, xp, fp, left=None, right=None, period=None):
    """NumPy's periodic interpolation: x and xp taken modulo the period, xp sorted and
    extended by one point on each side (left and right do not apply)."""
    if period == 0:
        raise ValueError("period must be a non-zero value")
    span = abs(float(period))
    xs = np.asarray(x).astype(np.float64) % span
    points = np.asarray(xp).astype(np.float64) % span
    values = np.asarray(fp)
    if points.shape[0] != values.shape[0]:
        raise ValueError("fp and xp are not of the same length")
    order = np.argsort(points)
    points = points[order]
    values = values[order]
    points = np.concatenate((points[-1:] - span, points, points[0:1] + span))
    values = np.concatenate((values[-1:], values, values[0:1]))
    return np.interp(xs, points, values)


@overload(np.interp, jit_options=NUMPY_ERRORS)
def _select_interp_period(x, xp, fp, left=None, right=None, period=None):
    period = as_type(period)
    if period is None or is_none(period):
        return None  # the plain form
    if not isinstance(types.unliteral(period), types.Integer | types.Float):
        raise TypingError("np.interp: period must be a real number")
    if not (is_array(xp) and xp.ndim == 1 and is_array(fp) and fp.ndim == 1):
        return None
    if is_array(x):
        return _interp_periodic
    if isinstance(types.unliteral(as_type(x)), types.Integer | types.Float):
        return lambda x, xp, fp, left=None, right=None, period=None: _interp_periodic_jit(
            np.array([x]), xp, fp, left, right, period
        )[0]
    return None


_interp_periodic_jit = njit(**NUMPY_ERRORS)(_interp_periodic)


# ---------------------------------------------------------------------------- norm(axis=)


def _vector_norms(x, ord, axis):
    """Vector norms of the lanes of `x` along `axis` (NumPy's `ord` meanings)."""
    magnitude = np.abs(x)
    if ord == np.inf:  # (of empty lanes: 0, NumPy's initial value of this norm)
        return magnitude.sum(axis) if x.shape[axis] == 0 else magnitude.max(axis)
    if ord == -np.inf:
        return magnitude.min(axis)
    if ord == 0:
        return (magnitude != 0).astype(magnitude.dtype).sum(axis)
    if ord == 1:
        return magnitude.sum(axis)
    if ord == 2:
        return np.sqrt((magnitude * magnitude).sum(axis))
    return ((magnitude**ord).sum(axis)) ** (1.0 / ord)


_vector_norms_jit = njit(**NUMPY_ERRORS)(_vector_norms)


@functools.cache
def _norm_along_impl(two_norm: bool, keep: bool, exact: bool, vector: bool):
    value = "x.astype(np.float64)" if exact else "x"
    order = "2" if two_norm else "ord"
    kept = "np.asarray(norms).reshape((1,))" if vector else "np.expand_dims(norms, ax)"
    result = kept if keep else "norms"
    source = f"""
def norm(x, ord=None, axis=None, keepdims=False):
    ax = axis_of(axis, x.ndim)
    norms = vector_norms({value}, {order}, ax)
    return {result}
"""
    namespace = {"np": np, "axis_of": _axis_jit, "vector_norms": _vector_norms_jit}
    exec(source, namespace)  # noqa: S102 - fixed text
    return namespace["norm"]


@overload(np.linalg.norm, jit_options=NUMPY_ERRORS)
def _select_norm_along(x, ord=None, axis=None, keepdims=False):
    ord, axis = as_type(ord), as_type(axis)
    if not (is_array(x) and is_integer(axis) and x.ndim >= 1):
        return None
    if not isinstance(x.dtype, types.Number):
        return None
    if not (is_none(ord) or isinstance(types.unliteral(ord), types.Integer | types.Float)):
        raise TypingError("np.linalg.norm: ord must be a number (vector norms along an axis)")
    keep = _keepdims_flag(keepdims)
    if keep is None and not isinstance(keepdims, bool):
        return None  # a flag known only at run time: typing retries with the constant
    exact = isinstance(x.dtype, types.Integer)
    return _norm_along_impl(is_none(ord), bool(keep), exact, x.ndim == 1)


# ---------------------------------------------------------------------------- apply_along_axis


def _collect(func1d, lanes, first, others, axis):
    """The results of `func1d` on every lane (the first already computed) in NumPy's shape: the
    `others` axes, with a 1-d result's axis at `axis` (compiled code only)."""
    raise NotImplementedError("_collect runs in compiled code only")


def _collect_scalars(func1d, lanes, first, others, axis):
    out = np.full(lanes.shape[0], first)
    for i in range(1, lanes.shape[0]):
        out[i] = func1d(lanes[i])
    return out.reshape(others)


def _collect_vectors(func1d, lanes, first, others, axis):
    out = np.empty((lanes.shape[0], first.shape[0]), first.dtype)
    out[0] = first
    for i in range(1, lanes.shape[0]):
        result = func1d(lanes[i])
        if result.shape != first.shape:
            raise ValueError("apply_along_axis: func1d must return results of one shape")
        out[i] = result
    return np.moveaxis(out.reshape(others + (out.shape[1],)), -1, axis)


@overload(_collect, jit_options=NUMPY_ERRORS)
def _select_collect(func1d, lanes, first, others, axis):
    if is_array(first):
        if first.ndim != 1:
            raise TypingError("np.apply_along_axis: func1d must return a scalar or a 1-d array")
        return _collect_vectors
    if isinstance(types.unliteral(first), types.Number | types.Boolean):
        return _collect_scalars
    raise TypingError(f"np.apply_along_axis: func1d returns {first}, not a number or an array")


def _apply_along_axis(func1d, axis, arr):
    """NumPy's apply_along_axis for a func1d returning a scalar (the axis drops) or a 1-d array
    (its length replaces the axis)."""
    ax = _axis_jit(axis, arr.ndim)
    lanes, others = lanes_along_jit(arr, ax)
    if lanes.shape[0] == 0:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    return _collect(func1d, lanes, func1d(lanes[0]), others, ax)


@overload(np.apply_along_axis, jit_options=NUMPY_ERRORS)
def _select_apply_along_axis(func1d, axis, arr):
    if not (is_array(arr) and arr.ndim >= 1 and is_integer(as_type(axis))):
        return None
    return _apply_along_axis


# ---------------------------------------------------------------------------- order='F'


def _order_of(order, what: str) -> str:
    order = as_type(order)
    if isinstance(order, str):  # omitted: Python's 'C'
        return order
    if isinstance(order, types.StringLiteral) and order.literal_value in ("C", "F", "A", "K"):
        return order.literal_value
    raise TypingError(f"{what}: order must be the constant 'C', 'F', 'A' or 'K'")


def _ravel_fortran(a, order="C"):
    return a.T.ravel()  # Fortran order is the C order of the reversed axes


@overload_method(types.Array, "ravel", jit_options=NUMPY_ERRORS)
def _select_ravel_order(a, order="C"):
    return _ravel_fortran if _order_of(order, "a.ravel") == "F" else None


@overload(np.ravel, jit_options=NUMPY_ERRORS)
def _select_np_ravel_order(a, order="C"):
    if not is_array(a):
        return None
    return _ravel_fortran if _order_of(order, "np.ravel") == "F" else None


def _reshape_fortran(a, shape, order="C"):
    return a.T.ravel().reshape(shape[::-1]).T


@overload_method(types.Array, "reshape", jit_options=NUMPY_ERRORS)
def _select_reshape_order(a, shape, order="C"):
    """a.reshape(shape, order='F'): items taken and placed in Fortran order (a tuple shape)."""
    if not isinstance(shape, types.BaseTuple):
        return None
    return _reshape_fortran if _order_of(order, "a.reshape") == "F" else None


def _copy_fortran(a, order="K"):
    return a.T.copy().T  # a fresh C copy of the reversed axes is a Fortran copy


@overload(np.copy, jit_options=NUMPY_ERRORS)
def _select_copy_order(a, order="K"):
    if not is_array(a):
        return None
    return _copy_fortran if _order_of(order, "np.copy") == "F" else None


def _fortran_wanted(a, order, what: str) -> bool:
    """NumPy's order= of a copy: 'F', or 'A'/'K' of a Fortran array (other layouts: C)."""
    order = _order_of(order, what)
    return order == "F" or (order in ("A", "K") and a.layout == "F" and a.ndim > 1)


@overload_method(types.Array, "copy", jit_options=NUMPY_ERRORS)
def _select_method_copy_order(a, order="C"):
    if isinstance(order, str):  # omitted: the plain a.copy()
        return None
    if _fortran_wanted(a, order, "a.copy"):
        return lambda a, order="C": a.T.copy().T
    return lambda a, order="C": a.copy()


@overload(np.reshape, jit_options=NUMPY_ERRORS)
def _select_np_reshape_order(a, shape, order="C"):
    if not is_array(a) or isinstance(order, str):  # order omitted: the plain np.reshape
        return None
    if _order_of(order, "np.reshape") == "F" or _fortran_wanted(a, order, "np.reshape"):
        return lambda a, shape, order="C": a.reshape(shape, order="F")
    return lambda a, shape, order="C": np.reshape(a, shape)


def _astype_flag(copy) -> bool:
    copy = as_type(copy)
    if isinstance(copy, bool):
        return copy
    if isinstance(copy, types.BooleanLiteral):
        return copy.literal_value
    raise TypingError("a.astype: copy must be the constant True or False")


@overload_method(types.Array, "astype", jit_options=NUMPY_ERRORS)
def _select_astype_copy(a, dtype, copy=True):
    """copy=False: the array itself when it already has the dtype (NumPy's rule), else the
    converted copy."""
    if isinstance(copy, bool):  # omitted: the plain a.astype(dtype)
        return None
    if not _astype_flag(copy) and parse_dtype(dtype, default=None) == a.dtype:
        return lambda a, dtype, copy=True: a
    return lambda a, dtype, copy=True: a.astype(dtype)


# ---------------------------------------------------------------------------- quantile method=

# NumPy's rank of the answer among the sorted values, from the virtual index q * (n - 1)
_DISCRETE_RANKS = {
    "lower": "np.floor(virtual)",
    "higher": "np.ceil(virtual)",
    "nearest": "np.rint(virtual)",  # halves to even, as NumPy
}


_RANGE_ERRORS = {
    1.0: "Quantiles must be in the range [0, 1]",
    100.0: "Percentiles must be in the range [0, 100]",
}


@functools.cache
def _quantile_method_impl(method: str, scale: float, array_q: bool, floats: bool):
    """np.quantile/np.percentile(a, q, method=) of a whole array: 'lower', 'higher' and
    'nearest' give the input's dtype, 'midpoint' float64 (the mean of the neighbours); with
    `floats`, NaN (any NaN in `a`, sorted last) gives NaN."""
    if method == "midpoint":
        pick = [
            "    low = float(ordered[int(np.floor(virtual))])",
            "    high = float(ordered[int(np.ceil(virtual))])",
            "    return low if low == high else low + (high - low) * 0.5",
        ]
    else:
        pick = [f"    return ordered[int({_DISCRETE_RANKS[method]})]"]
    nan = "ordered[-1] != ordered[-1]" if floats else "False"
    dtype = "np.float64" if method == "midpoint" else "ordered.dtype"
    lines = [
        "def one(ordered, q):",
        f"    fraction = q / {scale}",
        "    if not (0.0 <= fraction <= 1.0):",
        f"        raise ValueError('{_RANGE_ERRORS[scale]}')",
        "    virtual = fraction * (ordered.shape[0] - 1)",
        *pick,
        "",
        "def quantile(a, q, axis=None, out=None, overwrite_input=False, method='linear'):",
        "    if a.size == 0:",
        "        raise IndexError('cannot do a non-empty take from an empty axes.')",
        "    ordered = np.sort(a.ravel())",
    ]
    if array_q:
        lines += [
            "    qs = np.asarray(q)",
            "    flat = qs.ravel()",
            f"    results = np.empty(flat.shape[0], {dtype})",
            "    for i in range(flat.shape[0]):",
            "        results[i] = one(ordered, flat[i])",
            f"        if {nan}:",
            "            results[i] = ordered[-1]",
            "    return results.reshape(qs.shape)",
        ]
    else:
        lines += [
            "    found = one(ordered, q)",
            f"    return ordered[-1] if {nan} else found",
        ]
    namespace = {"np": np}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - fixed text chosen above
    namespace["one"] = njit(**NUMPY_ERRORS)(namespace["one"])
    return namespace["quantile"]


def _quantile_method_selector(scale: float, what: str):
    def select(a, q, axis=None, out=None, overwrite_input=False, method="linear"):
        if isinstance(method, str) or not is_array(a):  # method omitted: the plain forms
            return None
        method = as_type(method)
        chosen = method.literal_value if isinstance(method, types.StringLiteral) else None
        if chosen == "linear":
            return lambda a, q, axis=None, out=None, overwrite_input=False, method="linear": (
                getattr(np, what)(a, q, axis=axis)
            )
        if chosen not in ("lower", "higher", "nearest", "midpoint"):
            raise TypingError(
                f"np.{what}: method must be the constant 'linear', 'lower', 'higher', "
                "'nearest' or 'midpoint' in compiled code"
            )
        if not (isinstance(axis, types.NoneType) or axis is None) or not (
            out is None or isinstance(out, types.NoneType)
        ):
            raise TypingError(f"np.{what}(method={chosen!r}) takes a whole array (no axis=, out=)")
        if isinstance(a.dtype, types.Complex):
            return None
        array_q = is_array(q) or isinstance(q, (types.BaseTuple, types.List))
        return _quantile_method_impl(chosen, scale, array_q, isinstance(a.dtype, types.Float))

    return select


for _what, _scale in (("quantile", 1.0), ("percentile", 100.0)):
    overload(getattr(np, _what), jit_options=NUMPY_ERRORS)(_quantile_method_selector(_scale, _what))
