"""The `axis=` (and `order=`) forms of NumPy functions whose plain forms live elsewhere, written in
Python and compiled by ember: var/std/nanvar/nanstd/average along an axis, flip, roll, repeat,
squeeze and concatenate(axis=None) along an axis, ravel/flatten in 'F' order, and the array
methods squeeze, diagonal, trace, searchsorted and var/std along an axis."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.support import NUMPY_ERRORS, is_array, is_integer, is_none
from ember.typing.overload import as_type


def _axis_of(axis, ndim):
    """A Python axis in [0, ndim) (AxisError otherwise, NumPy's exception)."""
    if axis < -ndim or axis >= ndim:
        raise np.exceptions.AxisError(
            "axis " + str(axis) + " is out of bounds for array of dimension " + str(ndim)
        )
    return axis + ndim if axis < 0 else axis


_axis_jit = njit(**NUMPY_ERRORS)(_axis_of)


def _lanes_along(a, axis):
    """The lanes of `a` along (normalized) `axis` as the rows of a C-contiguous 2-d array, and
    the shape of the other axes, in order (the shape of a result with one item per lane)."""
    moved = np.ascontiguousarray(np.moveaxis(a, axis, -1))
    count = 1
    for size in moved.shape[:-1]:
        count *= size
    return moved.reshape((count, moved.shape[-1])), moved.shape[:-1]


lanes_along_jit = njit(**NUMPY_ERRORS)(_lanes_along)


def _literal_string(value) -> str | None:
    if isinstance(value, str):  # omitted: the default
        return value
    if isinstance(value, types.StringLiteral):
        return value.literal_value
    return None


def _explicit_none(value) -> bool:
    """`None` passed by the caller (an omitted argument arrives as its Python default)."""
    return isinstance(value, types.NoneType)


# ---------------------------------------------------------------------------- var, std


def _var_along(a, axis, ddof):
    """Sum of squared deviations from the mean along `axis`, over max(n - ddof, 0), as NumPy."""
    ax = _axis_jit(axis, a.ndim)
    mean = np.expand_dims(np.mean(a, ax), ax)
    deviations = np.abs(a - mean)
    squares = deviations * deviations
    return np.sum(squares, ax) / max(a.shape[ax] - ddof, 0)


def _nanvar_along(a, axis, ddof):
    """As `_var_along`, NaN entries left out of every count, sum and mean."""
    ax = _axis_jit(axis, a.ndim)
    present = ~np.isnan(a)
    counts = np.sum(present, ax)
    filled = np.where(present, a, 0)
    mean = np.expand_dims(np.sum(filled, ax) / counts, ax)
    deviations = np.where(present, np.abs(a - mean), 0)
    squares = deviations * deviations
    return np.sum(squares, ax) / np.maximum(counts - ddof, 0)


_var_along_jit = njit(**NUMPY_ERRORS)(_var_along)
_nanvar_along_jit = njit(**NUMPY_ERRORS)(_nanvar_along)


def _result_float(a: types.Array) -> types.Type:
    """NumPy's var/std dtype: float32 stays float32 (complex: its real part), else float64."""
    dtype = a.dtype
    if isinstance(dtype, types.Complex):
        return dtype.underlying_float
    return dtype if isinstance(dtype, types.Float) else types.float64


@functools.cache
def _variance_impl(root: bool, skip_nan: bool, result_dtype):
    along = _nanvar_along_jit if skip_nan else _var_along_jit
    if root:

        def impl(a, axis=None, ddof=0):
            return np.sqrt(along(a, axis, ddof)).astype(result_dtype)

    else:

        def impl(a, axis=None, ddof=0):
            return along(a, axis, ddof).astype(result_dtype)

    return impl


def _select_variance(root: bool, skip_nan: bool):
    def select(a, axis=None, ddof=0):
        if not (is_array(a) and a.ndim >= 2 and is_integer(axis)):
            return None  # (no axis, or a vector: the reductions' own forms)
        if not isinstance(types.unliteral(as_type(ddof)), (types.Integer, types.Float)):
            return None
        if not isinstance(a.dtype, (types.Integer, types.Float, types.Complex, types.Boolean)):
            return None
        exact = not isinstance(a.dtype, (types.Float, types.Complex))  # (no NaN to skip)
        return _variance_impl(root, skip_nan and not exact, np.dtype(str(_result_float(a))))

    return select


for _function, _root, _skip in (
    (np.var, False, False),
    (np.std, True, False),
    (np.nanvar, False, True),
    (np.nanstd, True, True),
):
    overload(_function, jit_options=NUMPY_ERRORS)(_select_variance(_root, _skip))
for _name, _root in (("var", False), ("std", True)):
    overload_method(types.Array, _name, jit_options=NUMPY_ERRORS)(_select_variance(_root, False))


# ---------------------------------------------------------------------------- average(axis=)


def _average_along(a, axis=None, weights=None):
    return np.mean(a, axis)


def _weighted_average_vector(a, axis=None, weights=None):
    """1-d weights, one per position along `axis`."""
    ax = _axis_jit(axis, a.ndim)
    if weights.shape[0] != a.shape[ax]:
        raise ValueError("Length of weights not compatible with specified axis.")
    scale = np.sum(weights)
    if scale == 0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    values = np.moveaxis(a, ax, -1)
    return np.sum(values * weights, a.ndim - 1) / scale


def _weighted_average_same_shape(a, axis=None, weights=None):
    ax = _axis_jit(axis, a.ndim)
    if weights.shape != a.shape:
        raise TypeError("1D weights expected when shapes of a and weights differ.")
    scale = np.sum(weights, ax)
    if np.any(scale == 0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return np.sum(a * weights, ax) / scale


@overload(np.average, jit_options=NUMPY_ERRORS)
def _select_average_along(a, axis=None, weights=None):
    if not (is_array(a) and a.ndim >= 2 and is_integer(axis)):
        return None
    if is_none(as_type(weights)):
        return _average_along
    if is_array(weights) and weights.ndim == 1:
        return _weighted_average_vector
    if is_array(weights) and weights.ndim == a.ndim:
        return _weighted_average_same_shape
    return None


# ---------------------------------------------------------------------------- flip, roll, repeat


def _flip_along(m, axis):
    ax = _axis_jit(axis, m.ndim)
    return np.moveaxis(np.moveaxis(m, ax, -1)[..., ::-1], -1, ax)


@overload(np.flip, jit_options=NUMPY_ERRORS)
def _select_flip_along(m, axis=None):
    if is_array(m) and m.ndim >= 1 and is_integer(axis):
        return _flip_along
    if is_array(m) and _explicit_none(axis):
        return lambda m, axis=None: np.flip(m)
    return None


@functools.cache
def _empty_in_stride_order(ndim: int):
    """np.empty_like(a) as NumPy's order='K': the axes laid out in the order of `a`'s strides
    (largest first), so a permuted `a` gives a result permuted alike."""
    each = range(ndim)
    lines = [
        "def empty_k(a):",
        "    strides = np.empty(" + str(ndim) + ", np.int64)",
        *(f"    strides[{k}] = -abs(a.strides[{k}])" for k in each),
        "    order = np.argsort(strides, kind='mergesort')",
        "    back = np.empty(" + str(ndim) + ", np.int64)",
        "    back[order] = np.arange(" + str(ndim) + ")",
        "    out = np.empty((" + "".join(f"a.shape[order[{k}]], " for k in each) + "), a.dtype)",
        "    return np.transpose(out, (" + "".join(f"back[{k}], " for k in each) + "))",
    ]
    namespace = {"np": np}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - fixed text and integers
    return njit(**NUMPY_ERRORS)(namespace["empty_k"])


def empty_like_kept(a):
    """np.empty_like of a C or F array (its layout), or of another as NumPy's order='K'."""


@overload(empty_like_kept, jit_options=NUMPY_ERRORS)
def _select_empty_like_kept(a):
    if a.layout in "CF" or a.ndim < 2:
        return lambda a: np.empty_like(a)
    empty_k = _empty_in_stride_order(a.ndim)
    return lambda a: empty_k(a)


def _roll_along(a, shift, axis):
    ax = _axis_jit(axis, a.ndim)
    out = empty_like_kept(a)  # NumPy's empty_like: a permuted input gives a permuted result
    source = np.moveaxis(a, ax, -1)
    target = np.moveaxis(out, ax, -1)
    n = source.shape[-1]
    if n:
        offset = int(shift) % n
        target[..., offset:] = source[..., : n - offset]
        target[..., :offset] = source[..., n - offset :]
    return out


@overload(np.roll, jit_options=NUMPY_ERRORS)
def _select_roll_along(a, shift, axis=None):
    if not (is_array(a) and a.ndim >= 1 and is_integer(shift)):
        return None
    if is_integer(axis):
        return _roll_along
    if _explicit_none(axis):
        return lambda a, shift, axis=None: np.roll(a, shift)
    return None


@functools.cache
def _repeat_impl(ndim: int):
    """The result's shape as a tuple of the rank's length (a list would not type as a shape)."""
    rest = ", ".join(f"shape[{k}]" for k in range(1, ndim))
    source = f"""
def repeat(a, repeats, axis):
    ax = axis_of(axis, a.ndim)
    counts = np.broadcast_to(np.asarray(repeats), (a.shape[ax],))
    total = 0
    for count in counts:
        if count < 0:
            raise ValueError("negative dimensions are not allowed")
        total += count
    source = np.moveaxis(a, ax, 0)
    shape = source.shape
    width = 1
    for k in range(1, {ndim}):
        width *= shape[k]
    rows = np.ascontiguousarray(source).reshape((shape[0], width))
    out = np.empty((total, width), a.dtype)
    position = 0
    for i in range(shape[0]):
        for _ in range(counts[i]):
            out[position] = rows[i]
            position += 1
    return np.ascontiguousarray(np.moveaxis(out.reshape((total, {rest})), 0, ax))
"""
    namespace = {"np": np, "axis_of": _axis_jit}
    exec(source, namespace)  # noqa: S102 - source assembled from integers and fixed text
    return namespace["repeat"]


def _repeat_vector_along(a, repeats, axis=None):
    _axis_jit(axis, 1)
    return np.repeat(a, repeats)


def _select_repeat_along(a, repeats, axis=None):
    if not (is_array(a) and a.ndim >= 1 and is_integer(axis)):
        return None
    if a.ndim == 1:
        return _repeat_vector_along
    if is_integer(repeats) or (is_array(repeats) and isinstance(repeats.dtype, types.Integer)):
        return _repeat_impl(a.ndim)
    if isinstance(repeats, (types.List, types.BaseTuple)):
        return _repeat_impl(a.ndim)
    raise TypingError(f"repeats must be an integer or integers, not {repeats}")


overload(np.repeat, jit_options=NUMPY_ERRORS)(_select_repeat_along)
overload_method(types.Array, "repeat", jit_options=NUMPY_ERRORS)(_select_repeat_along)


# ---------------------------------------------------------------------------- squeeze


@functools.cache
def _squeeze_axis_impl(ndim: int):
    """One view per axis, chosen at run time: the axis indexed by 0 once its length is 1."""
    lines = ["def squeeze(a, axis=None):", f"    axis = axis_of(axis, {ndim})"]
    lines.append("    if a.shape[axis] != 1:")
    lines.append(
        "        raise ValueError('cannot select an axis to squeeze out which has size not "
        "equal to one')"
    )
    for axis in range(ndim):
        index = ", ".join(["0" if k == axis else ":" for k in range(ndim)])
        lines.append(f"    if axis == {axis}:\n        return a[{index}]")
    lines.append(f"    return a[{', '.join(['0'] + [':'] * (ndim - 1))}]")
    namespace = {"np": np, "axis_of": _axis_jit}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - assembled from integers, fixed text
    return namespace["squeeze"]


def _select_squeeze(a, axis=None):
    """An integer axis only: without one, the result's rank would depend on the shape."""
    if is_array(a) and a.ndim >= 1 and is_integer(as_type(axis)):
        return _squeeze_axis_impl(a.ndim)
    if is_array(a):
        raise TypingError("squeeze: give the axis to remove (an integer) in compiled code")
    return None


overload(np.squeeze, jit_options=NUMPY_ERRORS)(_select_squeeze)
overload_method(types.Array, "squeeze", jit_options=NUMPY_ERRORS)(_select_squeeze)


# ---------------------------------------------------------------------------- concatenate(None)


@overload(np.concatenate, jit_options=NUMPY_ERRORS)
def _select_concatenate_flat(arrays, axis=0):
    if not (_explicit_none(axis)):
        return None
    if not (isinstance(arrays, types.BaseTuple) and all(is_array(t) for t in arrays.types)):
        if not (isinstance(arrays, (types.List, types.ListType)) and is_array(arrays.dtype)):
            return None
    if isinstance(arrays, types.BaseTuple):
        source = "def concatenate(arrays, axis=0):\n    return np.concatenate(("
        source += "".join(f"arrays[{k}].ravel(), " for k in range(len(arrays.types))) + "))\n"
        namespace = {"np": np}
        exec(source, namespace)  # noqa: S102 - assembled from integers and fixed text
        return namespace["concatenate"]

    def concatenate_list(arrays, axis=0):
        total = 0
        for a in arrays:
            total += a.size
        out = np.empty(total, arrays[0].dtype)
        position = 0
        for a in arrays:
            out[position : position + a.size] = a.ravel()
            position += a.size
        return out

    return concatenate_list


# ---------------------------------------------------------------------------- ravel, flatten 'F'


def _check_order(order: str | None, allowed: str, name: str) -> None:
    if order is None or order not in allowed:
        raise TypingError(f"{name}: order must be one of {', '.join(allowed)} (a constant)")


def _select_in_order(name: str):
    """`np.ravel(a, order)` / `a.flatten(order)`: 'F' (or 'A'/'K' of a Fortran array) reads
    the transpose in C order."""
    namespace = {"np": np}
    exec(  # noqa: S102 - a fixed method name
        f"def by_columns(a, order='C'):\n    return a.T.{name}()\n"
        f"def by_rows(a, order='C'):\n    return a.{name}()\n",
        namespace,
    )

    def select(a, order="C"):
        if not is_array(a) or isinstance(order, str):
            return None
        text = _literal_string(order)
        _check_order(text, "CFAK", name)
        if text == "F" or (text in "AK" and a.layout == "F"):
            return namespace["by_columns"]
        return namespace["by_rows"]

    return select


overload(np.ravel, jit_options=NUMPY_ERRORS)(_select_in_order("ravel"))
overload_method(types.Array, "flatten", jit_options=NUMPY_ERRORS)(_select_in_order("flatten"))


# ---------------------------------------------------------------------------- methods


def _diagonal(a, offset=0):
    rows, cols = a.shape
    start_row = -offset if offset < 0 else 0
    start_col = offset if offset > 0 else 0
    n = max(min(rows - start_row, cols - start_col), 0)
    out = np.empty(n, a.dtype)
    for i in range(n):
        out[i] = a[start_row + i, start_col + i]
    return out


_diagonal_jit = njit(**NUMPY_ERRORS)(_diagonal)


def _select_diagonal(a, offset=0):
    if is_array(a) and a.ndim == 2 and is_integer(as_type(offset)):
        return _diagonal
    if is_array(a) and a.ndim != 2:
        raise TypingError("diagonal: ember takes 2-d arrays only")
    return None


overload(np.diagonal, jit_options=NUMPY_ERRORS)(_select_diagonal)
overload_method(types.Array, "diagonal", jit_options=NUMPY_ERRORS)(_select_diagonal)


@overload_method(types.Array, "trace", jit_options=NUMPY_ERRORS)
def _array_trace(a, offset=0):
    return lambda a, offset=0: np.sum(_diagonal_jit(a, offset))  # NumPy's sum dtype


@overload_method(types.Array, "searchsorted", jit_options=NUMPY_ERRORS)
def _array_searchsorted(a, v, side="left"):
    return lambda a, v, side="left": np.searchsorted(a, v, side=side)


def _transpose_all(a, axes=None):
    return a.T


def _transpose_by(a, axes=None):
    return a.transpose(*axes)  # (the axes one by one: the registered positional form)


def _select_transpose_keyword(a, axes=None):
    """transpose(a, axes=...): by keyword (also reached positionally, same result)."""
    if not is_array(a):
        return None
    if _explicit_none(axes):
        return _transpose_all
    if isinstance(axes, types.BaseTuple) and all(is_integer(t) for t in axes.types):
        return _transpose_by
    return None


overload(np.transpose, jit_options=NUMPY_ERRORS)(_select_transpose_keyword)
overload_method(types.Array, "transpose", jit_options=NUMPY_ERRORS)(_select_transpose_keyword)
