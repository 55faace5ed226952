"""Reshaping and rearranging NumPy functions, written in Python and compiled by ember:
expand_dims, roll, tile, repeat, meshgrid, cross, digitize, trapezoid (trapz), asfortranarray,
swapaxes, atleast_1d/2d/3d, tril, triu, fill_diagonal, tri, diag, diagflat, fliplr, flipud, rot90,
the array methods item and tolist (1-d and 2-d), and lists or tuples as the arrays NumPy makes
of them. Editing by index is in editing.py, partitions in partitions.py.

Implementations that depend on the rank (`expand_dims`, `tile`) are generated per rank.
"""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.axis_forms import _axis_jit
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    constant_bool,
    is_array,
    is_integer,
    is_none,
    is_number,
    numpy_dtype,
)


def generated(name: str, source: str, **names) -> object:
    """The function `name` defined by `source` (NumPy as `np`, `axis_of` normalizing an axis,
    and `names`)."""
    namespace = {"np": np, "AxisError": np.exceptions.AxisError, "axis_of": _axis_jit, **names}
    exec(source, namespace)  # noqa: S102 - source assembled from integers and fixed text
    return namespace[name]


# ---------------------------------------------------------------------------- expand_dims


@functools.cache
def _expand_dims_impl(ndim: int):
    """One view per possible axis, chosen at run time (constants are not typed as literals)."""
    lines = ["def expand_dims(a, axis):", f"    if axis < 0:\n        axis += {ndim + 1}"]
    for axis in range(ndim + 1):
        index = ", ".join(["None" if k == axis else ":" for k in range(ndim + 1)])
        lines.append(f"    if axis == {axis}:\n        return a[{index}]")
    lines.append("    raise AxisError('axis is out of bounds for the result')")
    return generated("expand_dims", "\n".join(lines) + "\n")


@overload(np.expand_dims, jit_options=NUMPY_ERRORS)
def _select_expand_dims(a, axis):
    return _expand_dims_impl(a.ndim) if is_array(a) and is_integer(axis) else None


# ---------------------------------------------------------------------------- roll


def _roll(a, shift):
    flat = a.ravel()
    out = np.empty_like(flat)
    n = flat.shape[0]
    if n:
        offset = int(shift) % n
        out[offset:] = flat[: n - offset]
        out[:offset] = flat[n - offset :]
    return out.reshape(a.shape)


@overload(np.roll, jit_options=NUMPY_ERRORS)
def _select_roll(a, shift):
    if not (is_integer(shift) or isinstance(shift, types.Boolean)):
        return None
    if is_array(a):
        return _roll
    if isinstance(a, (types.Number, types.Boolean, types.BaseTuple, types.List)):
        return _roll_of_array_like
    return None


_roll_jit = njit(**NUMPY_ERRORS)(_roll)


def _roll_of_array_like(a, shift):
    return _roll_jit(np.asarray(a), shift)


# ---------------------------------------------------------------------------- tile, repeat


@functools.cache
def _tile_impl(ndim: int):
    """Repeat the last axis `reps` times (NumPy's rule for an integer `reps`)."""
    lead = [f"a.shape[{k}]" for k in range(ndim - 1)]
    shape = ", ".join([*lead, "cols * reps"]) + ","
    source = f"""
def tile(a, reps):
    cols = a.shape[-1]
    rows = a.size // cols if cols else 0
    reps = max(reps, 0)
    flat = np.ascontiguousarray(a).reshape((rows, cols))
    out = np.empty((rows, cols * reps), a.dtype)
    for r in range(reps):
        out[:, r * cols : (r + 1) * cols] = flat
    return out.reshape(({shape}))
"""
    return generated("tile", source)


def _tile_scalar(a, reps):
    return np.full(max(reps, 0), a)


@overload(np.tile, jit_options=NUMPY_ERRORS)
def _select_tile(A, reps):
    if not is_integer(reps):
        return None
    if is_number(A) or (is_array(A) and A.ndim == 0):
        return _tile_scalar if is_number(A) else None
    return _tile_impl(A.ndim) if is_array(A) else None


def _repeat_int(a, repeats):
    if repeats < 0:
        raise ValueError("negative dimensions are not allowed")
    flat = a.ravel()
    out = np.empty(flat.shape[0] * repeats, flat.dtype)
    for i in range(flat.shape[0]):
        for j in range(repeats):
            out[i * repeats + j] = flat[i]
    return out


_repeat_int_jit = njit(**NUMPY_ERRORS)(_repeat_int)


def _repeat_array(a, repeats):
    flat = a.ravel()
    if repeats.shape[0] == 1:  # broadcast: one count for every item, as NumPy
        return _repeat_int_jit(a, repeats[0])
    if repeats.shape[0] != flat.shape[0]:
        raise ValueError("operands could not be broadcast together")
    total = 0
    for count in repeats:
        if count < 0:
            raise ValueError(  # NumPy's words, then Numba's
                "repeats may not contain negative values: negative dimensions are not allowed"
            )
        total += count
    out = np.empty(total, flat.dtype)
    position = 0
    for i in range(flat.shape[0]):
        for _ in range(repeats[i]):
            out[position] = flat[i]
            position += 1
    return out


def _select_repeat(a, repeats):
    if not is_array(a):
        return None
    if is_integer(repeats):
        return _repeat_int
    if isinstance(repeats, (types.List, types.ListType, types.BaseTuple)):
        return lambda a, repeats: np.repeat(a, np.asarray(repeats))
    if is_array(repeats) and repeats.ndim == 1 and isinstance(repeats.dtype, types.Integer):
        return _repeat_array
    raise TypingError(
        f"The repeats argument must be an integer or an array-like of integer dtype, not {repeats}"
    )


@overload(np.repeat, jit_options=NUMPY_ERRORS)
def _np_repeat(a, repeats):
    if _array_like(a):  # a number, list or tuple: the array NumPy makes of it
        return lambda a, repeats: np.repeat(np.asarray(a), repeats)
    return _select_repeat(a, repeats)


def _array_like(value) -> bool:
    """A number, bool, list or tuple that NumPy's functions take as the array it makes."""
    return isinstance(
        types.unliteral(value), (types.Number, types.Boolean, types.List, types.BaseTuple)
    )


@overload_method(types.Array, "repeat", jit_options=NUMPY_ERRORS)
def _array_repeat(self, repeats):
    return _select_repeat(self, repeats)


# ---------------------------------------------------------------------------- meshgrid


@functools.cache
@functools.cache
def _meshgrid_impl(count: int, ij: bool, sparse: bool):
    """NumPy's grids: input k varies along axis k ('ij'; 'xy' swaps the first two axes), each
    raveled; dense grids are copies broadcast to the full shape (copy=False too)."""
    names = [f"x{k}" for k in range(count)]
    axis_of = list(range(count))
    if not ij and count > 1:
        axis_of[0], axis_of[1] = 1, 0
    lines = [f"def meshgrid({', '.join(names)}, indexing='xy', sparse=False, copy=True):"]
    lines += [f"    f{k} = np.ravel({name})" for k, name in enumerate(names)]
    sizes = [""] * count
    for k in range(count):
        sizes[axis_of[k]] = f"f{k}.size"
    full = ", ".join(sizes)
    results = []
    for k in range(count):
        shape = ", ".join("-1" if axis == axis_of[k] else "1" for axis in range(count))
        grid = f"f{k}.copy().reshape(({shape},))"
        results.append(grid if sparse else f"np.broadcast_to({grid}, ({full},)).copy()")
    lines.append(f"    return ({', '.join(results)},)")
    return generated("meshgrid", "\n".join(lines) + "\n")


@overload(np.meshgrid, jit_options=NUMPY_ERRORS)
def _select_meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    indexing = as_type(indexing)
    if not xi or not all(is_array(x) for x in xi):
        return None
    if not isinstance(indexing, types.StringLiteral) or indexing.literal_value not in ("xy", "ij"):
        raise TypingError("np.meshgrid(indexing=...) must be the constant 'xy' or 'ij'")
    sparse = constant_bool(sparse, "np.meshgrid(sparse=...)")
    return _meshgrid_impl(len(xi), indexing.literal_value == "ij", sparse)


# ---------------------------------------------------------------------------- cross


@functools.cache
def _cross_impl(ndim: int, dtype_name: str):
    """The cross product of 3-vectors (ndim 1) or of the rows of two (n, 3) arrays."""
    row = "" if ndim == 1 else "i, "
    shape = "3" if ndim == 1 else "(a.shape[0], 3)"
    source = f"""
def cross(a, b):
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError("incompatible dimensions for cross product (dimension must be 3)")
    if a.shape[0] != b.shape[0]:
        raise ValueError("operands could not be broadcast together")
    out = np.empty({shape}, np.{dtype_name})
    for i in range(1 if {ndim} == 1 else a.shape[0]):
        out[{row}0] = a[{row}1] * b[{row}2] - a[{row}2] * b[{row}1]
        out[{row}1] = a[{row}2] * b[{row}0] - a[{row}0] * b[{row}2]
        out[{row}2] = a[{row}0] * b[{row}1] - a[{row}1] * b[{row}0]
    return out
"""
    return generated("cross", source)


@overload(np.cross, jit_options=NUMPY_ERRORS)
def _select_cross(a, b):
    if not (is_array(a) and is_array(b)) or a.ndim != b.ndim or a.ndim > 2:
        return None
    dtype = np.result_type(numpy_dtype(a.dtype), numpy_dtype(b.dtype))
    return _cross_impl(a.ndim, dtype.name)


# ---------------------------------------------------------------------------- digitize


@njit(**NUMPY_ERRORS)
def _monotonicity(bins):
    """NumPy's test of the bin edges: 1 increasing (or all equal), -1 decreasing, 0 neither. The
    direction is set by the first edge that differs from the first one (a NaN there counts as
    decreasing, as in NumPy)."""
    n = bins.shape[0]
    i = 1
    while i < n and bins[i] == bins[0]:
        i += 1
    if i == n:
        return 1
    increasing = bins[0] < bins[i]
    for k in range(i + 1, n):
        if (bins[k - 1] > bins[k]) if increasing else (bins[k - 1] < bins[k]):
            return 0
    return 1 if increasing else -1


@njit(**NUMPY_ERRORS)
def sorts_before(a, b):
    """NumPy's sort order, NaN (and NaT) last: whether a sorts strictly before b."""
    return a < b or (b != b and a == a)


def _bin_of(value, bins, right, direction):
    """np.searchsorted of `value` in the bins read increasing (side 'left' with `right`, else
    'right'), counted from the end for decreasing bins."""
    n = bins.shape[0]
    low, high = 0, n
    while low < high:
        middle = (low + high) // 2
        edge = bins[middle] if direction == 1 else bins[n - 1 - middle]
        before = sorts_before(edge, value) if right else not sorts_before(value, edge)
        if before:
            low = middle + 1
        else:
            high = middle
    return low if direction == 1 else n - low


def _checked_direction(bins):
    direction = _monotonicity(bins)
    if direction == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    return direction


_bin_of_jit = njit(**NUMPY_ERRORS)(_bin_of)
_checked_direction_jit = njit(**NUMPY_ERRORS)(_checked_direction)


def _digitize_array(x, bins, right=False):
    direction = _checked_direction_jit(bins)
    flat = x.ravel()
    out = np.empty(flat.shape[0], np.intp)
    for i in range(flat.shape[0]):
        out[i] = _bin_of_jit(flat[i], bins, right, direction)
    return out.reshape(x.shape)


def _digitize_scalar(x, bins, right=False):
    return _bin_of_jit(x, bins, right, _checked_direction_jit(bins))


@overload(np.digitize, jit_options=NUMPY_ERRORS)
def _select_digitize(x, bins, right=False):
    right = as_type(right)
    if isinstance(x, (types.List, types.BaseTuple)) or isinstance(
        bins, (types.List, types.BaseTuple)
    ):
        return _digitize_sequences
    if not (is_array(bins) and bins.ndim == 1) or isinstance(bins.dtype, types.Complex):
        return None
    if is_array(x) and isinstance(x.dtype, types.Complex) or isinstance(x, types.Complex):
        raise TypingError("x may not be complex")
    if is_array(x):
        return _digitize_array
    return _digitize_scalar if is_number(x) else None


def _digitize_sequences(x, bins, right=False):
    """Lists and tuples, for x or the bins, are read as the arrays NumPy makes of them."""
    return np.digitize(np.asarray(x), np.asarray(bins), right)


# ---------------------------------------------------------------------------- trapezoid


def _trapezoid_dx(y, x, dx, axis):
    _axis_jit(axis, 1)
    total = 0.0
    for i in range(1, y.shape[0]):
        total += (y[i] + y[i - 1]) / 2.0
    return total * dx


def _trapezoid_x(y, x, dx, axis):
    _axis_jit(axis, 1)
    if x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have the same length")
    total = 0.0
    for i in range(1, y.shape[0]):
        total += (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0
    return total


def _trapezoid_nd_dx(y, x, dx, axis):
    """n-d y: NumPy's sum of dx * (y[1:] + y[:-1]) / 2 along the axis (moved last)."""
    lanes = np.moveaxis(y, axis, -1)
    return (dx * (lanes[..., 1:] + lanes[..., :-1]) / 2.0).sum(axis=lanes.ndim - 1)


def _trapezoid_nd_x(y, x, dx, axis):
    """x 1-d (the coordinates along the axis) or of y's shape."""
    lanes = np.moveaxis(y, axis, -1)
    widths = np.diff(x) if x.ndim == 1 else np.diff(np.moveaxis(x, axis, -1))
    return (widths * (lanes[..., 1:] + lanes[..., :-1]) / 2.0).sum(axis=lanes.ndim - 1)


def _select_trapezoid(y, x=None, dx=1.0, axis=-1):
    x, dx, axis = as_type(x), as_type(dx), as_type(axis)
    if not is_array(y) or y.ndim == 0 or not is_integer(axis):
        return None
    if y.ndim == 1 and isinstance(y.dtype, types.Complex):
        return None
    if is_none(x):
        if not is_number(dx):
            return None
        return _trapezoid_dx if y.ndim == 1 else _trapezoid_nd_dx
    if not is_array(x):
        return None
    if y.ndim == 1:
        return _trapezoid_x if x.ndim == 1 else None
    if x.ndim not in (1, y.ndim):
        raise TypingError("np.trapezoid: x must be 1-d or of y's shape")
    return _trapezoid_nd_x


for _name in ("trapezoid", "trapz"):  # NumPy 2 renamed trapz; older NumPy has only trapz
    if hasattr(np, _name):
        overload(getattr(np, _name), jit_options=NUMPY_ERRORS)(_select_trapezoid)


# ---------------------------------------------------------------------------- axes and ranks


def _asfortranarray(a):
    return np.ascontiguousarray(a.T).T


def _asfortranarray_0d(a):
    return np.ascontiguousarray(a)  # NumPy: a 1-d view of the one item


@overload(np.asfortranarray, jit_options=NUMPY_ERRORS)
def _select_asfortranarray(a):
    if not is_array(a):
        return None
    return _asfortranarray if a.ndim >= 1 else _asfortranarray_0d


@functools.cache
def _swapaxes_impl(ndim: int):
    order = ", ".join(f"{k} if {k} != first and {k} != second else (second if {k} == first else "
                      f"first)" for k in range(ndim))  # fmt: skip
    source = f"""
def swapaxes(a, axis1, axis2):
    first = axis1 + {ndim} if axis1 < 0 else axis1
    second = axis2 + {ndim} if axis2 < 0 else axis2
    if not (0 <= first < {ndim} and 0 <= second < {ndim}):
        raise AxisError("axis is out of bounds for the array")
    return a.transpose(({order},))
"""
    return generated("swapaxes", source)


def _select_swapaxes(a, axis1, axis2):
    if is_array(a) and a.ndim >= 1 and is_integer(axis1) and is_integer(axis2):
        return _swapaxes_impl(a.ndim)
    return None


@overload(np.swapaxes, jit_options=NUMPY_ERRORS)
def _np_swapaxes(a, axis1, axis2):
    return _select_swapaxes(a, axis1, axis2)


@overload_method(types.Array, "swapaxes", jit_options=NUMPY_ERRORS)
def _array_swapaxes(self, axis1, axis2):
    return _select_swapaxes(self, axis1, axis2)


@functools.cache
def _atleast_impl(rank: int, ndim: int):
    """NumPy's placement of the new axes: 1-d (n,) becomes (1, n) and (1, n, 1)."""
    if ndim >= rank:
        return generated("atleast", "def atleast(a):\n    return a\n")
    if ndim == 0:
        index = "a.reshape((" + "1, " * rank + "))"
    elif rank == 2 or ndim == 2:
        index = "a[None, " + ", ".join([":"] * ndim) + "]"
        if rank == 3 and ndim == 2:
            index = "a[:, :, None]"
    else:  # 1-d to 3-d
        index = "a[None, :, None]"
    return generated("atleast", f"def atleast(a):\n    return {index}\n")


def _select_one_atleast(rank: int, a):
    if is_array(a):
        return _atleast_impl(rank, a.ndim)
    if is_number(a):  # a scalar becomes an array of one element
        ones = "(" + "1, " * rank + ")"
        return generated("atleast", f"def atleast(a):\n    return np.full({ones}, a)\n")
    if rank == 1 and isinstance(a, types.List) and is_number(a.dtype):
        return generated("atleast", "def atleast(a):\n    return np.asarray(a)\n")
    return None


@functools.cache
def _atleast_several_impl(parts: tuple):
    """atleast_Nd(a0, a1, ...): NumPy returns a tuple holding each argument's result."""
    params = ", ".join(f"a{k}" for k in range(len(parts)))
    results = "".join(f"_f{k}(a{k}), " for k in range(len(parts)))
    namespace = {f"_f{k}": njit(**NUMPY_ERRORS)(part) for k, part in enumerate(parts)}
    exec(f"def atleast({params}):\n    return ({results})\n", namespace)  # noqa: S102
    impl = njit(**NUMPY_ERRORS)(namespace["atleast"])
    return lambda *arys: impl(*arys)


def _register_atleast(rank: int, function) -> None:
    @overload(function, jit_options=NUMPY_ERRORS)
    def _select_atleast(*arys):
        parts = tuple(_select_one_atleast(rank, a) for a in arys)
        if not parts or None in parts:
            return None
        if len(parts) == 1:
            only = njit(**NUMPY_ERRORS)(parts[0])
            return lambda *arys: only(arys[0])
        return _atleast_several_impl(parts)


for _rank, _function in ((1, np.atleast_1d), (2, np.atleast_2d), (3, np.atleast_3d)):
    _register_atleast(_rank, _function)


# ---------------------------------------------------------------------------- triangles


def _triangle_mask(m, k, lower):
    out = m.copy()
    rows, cols = m.shape[-2], m.shape[-1]
    for i in range(rows):
        for j in range(cols):
            if (j - i > k) if lower else (j - i < k):
                out[..., i, j] = 0
    return out


_triangle_mask_jit = njit(**NUMPY_ERRORS)(_triangle_mask)


def _tril(m, k):
    return _triangle_mask_jit(m, k, True)


def _triu(m, k):
    return _triangle_mask_jit(m, k, False)


def _triangle_of_vector(m, k, lower):
    """NumPy's tril/triu of a 1-d m: the vector repeated as the rows of a square, masked."""
    n = m.shape[0]
    out = np.zeros((n, n), m.dtype)
    for i in range(n):
        for j in range(n):
            if not ((j - i > k) if lower else (j - i < k)):
                out[i, j] = m[j]
    return out


def _tril_of_vector(m, k):
    return _triangle_of_vector_jit(m, k, True)


def _triu_of_vector(m, k):
    return _triangle_of_vector_jit(m, k, False)


_triangle_of_vector_jit = njit(**NUMPY_ERRORS)(_triangle_of_vector)


def _select_triangle(impl, vector_impl):
    def select(m, k):
        if not (is_array(m) and is_integer(k)):
            return None
        if m.ndim == 1:
            return vector_impl
        return impl if m.ndim >= 2 else None

    return select


@overload(np.tril, jit_options=NUMPY_ERRORS)
def _np_tril(m, k=0):
    k = as_type(k)
    return _select_triangle(_tril, _tril_of_vector)(m, k)


@overload(np.triu, jit_options=NUMPY_ERRORS)
def _np_triu(m, k=0):
    k = as_type(k)
    return _select_triangle(_triu, _triu_of_vector)(m, k)


def _fill_diagonal(a, val, wrap=False):
    """NumPy's rule: the diagonal is every `step`-th item of `a.flat`, `val`'s items cycled;
    a tall 2-d matrix's diagonal stops after its first square unless `wrap`."""
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = a.size if wrap else min(a.size, a.shape[1] * a.shape[1])
    else:
        step, stride = 1, 1
        for dim in a.shape:
            if dim != a.shape[0]:
                raise ValueError("All dimensions of input must be of equal length")
        for dim in a.shape[:-1]:
            stride *= dim
            step += stride
        end = a.size
    values = np.asarray(val).ravel()
    if values.size == 0:
        return
    for count, index in enumerate(range(0, end, step)):
        a.flat[index] = values[count % values.size]


@overload(np.fill_diagonal, jit_options=NUMPY_ERRORS)
def _select_fill_diagonal(a, val, wrap=False):
    if not (is_array(a) and a.ndim >= 2):
        return None
    if is_number(val) or is_array(val) or isinstance(val, (types.List, types.BaseTuple)):
        return _fill_diagonal
    return None


# ---------------------------------------------------------------------------- special matrices


def _tri(N, M, k, dtype):
    return _tri_jit(N, N, k, dtype)


def _tri_columns(N, M, k, dtype):
    out = np.zeros((max(N, 0), max(M, 0)), dtype)  # NumPy: a negative size gives no rows
    columns = M
    for i in range(N):
        for j in range(min(columns, max(i + k + 1, 0))):
            out[i, j] = 1
    return out


_tri_jit = njit(**NUMPY_ERRORS)(_tri_columns)


@overload(np.tri, jit_options=NUMPY_ERRORS)
def _select_tri(N, M=None, k=0, dtype=float):
    M = as_type(M)
    k = as_type(k)
    dtype = as_type(dtype)
    if not (is_integer(N) and is_integer(k)):
        return None
    if isinstance(M, types.NoneType):
        return _tri
    return _tri_columns if is_integer(M) else None


def _diag_matrix(v, k):
    n = v.shape[0]
    size = n + abs(k)
    out = np.zeros((size, size), v.dtype)
    for i in range(n):
        if k >= 0:
            out[i, i + k] = v[i]
        else:
            out[i - k, i] = v[i]
    return out


def _diag_vector(v, k):
    rows, columns = v.shape
    first_row, first_column = (0, k) if k >= 0 else (-k, 0)
    n = max(min(rows - first_row, columns - first_column), 0)
    out = np.empty(n, v.dtype)
    for i in range(n):
        out[i] = v[first_row + i, first_column + i]
    return out


@overload(np.diag, jit_options=NUMPY_ERRORS)
def _select_diag(v, k=0):
    k = as_type(k)
    if is_none(v):
        raise TypingError('The argument "v" must be array-like')
    if not (is_array(v) and isinstance(types.unliteral(k), types.Integer)):
        return None
    return {1: _diag_matrix, 2: _diag_vector}.get(v.ndim)


def _diagflat(v, k):
    flat = v.ravel()
    n = flat.shape[0] + abs(k)
    out = np.zeros((n, n), flat.dtype)
    for i in range(flat.shape[0]):
        if k >= 0:
            out[i, i + k] = flat[i]
        else:
            out[i - k, i] = flat[i]
    return out


@overload(np.diagflat, jit_options=NUMPY_ERRORS)
def _select_diagflat(v, k=0):
    k = as_type(k)
    return _diagflat if is_array(v) and is_integer(k) else None


@functools.cache
def _vander_of(dtype: np.dtype):
    """np.vander for one result dtype (NumPy's: the input's promoted with int)."""
    one = dtype.type(1)

    def vander(x, N, increasing):
        n = x.shape[0]
        columns = n if N is None else N
        out = np.empty((n, columns), dtype)
        for i in range(n):
            power = one
            for j in range(columns):  # successive products, as NumPy's multiply.accumulate
                out[i, j if increasing else columns - 1 - j] = power
                power = power * x[i]
        return out

    return vander


@overload(np.vander, jit_options=NUMPY_ERRORS)
def _select_vander(x, N=None, increasing=False):
    N = as_type(N)
    increasing = as_type(increasing)
    if not (is_array(x) and x.ndim == 1):
        return None
    if not (isinstance(N, types.NoneType) or is_integer(N)):
        return None
    return _vander_of(np.promote_types(numpy_dtype(x.dtype), np.int64))


def _put(a, ind, v):
    flat = a.reshape(-1)  # a C-contiguous array's view
    positions = np.atleast_1d(ind).ravel()  # scalars, lists, arrays
    values = np.atleast_1d(v).ravel()
    if positions.shape[0] and not values.shape[0]:
        raise ValueError("cannot replace elements of an array with an empty array")
    for k in range(positions.shape[0]):
        i = positions[k]
        if i < -flat.shape[0] or i >= flat.shape[0]:
            raise IndexError("index out of range for array")
        flat[i] = values[k % values.shape[0]]


@overload(np.put, jit_options=NUMPY_ERRORS)
def _select_put(a, ind, v):
    """`np.put(a, ind, v)` (mode='raise') into a C-contiguous array: v repeats as needed."""
    return _put if is_array(a) and a.layout == "C" and not a.readonly else None


# ---------------------------------------------------------------------------- to Python values


def _item(a):
    if a.size != 1:
        raise ValueError("item(): can only convert an array of size 1 to a Python scalar")
    return a.ravel()[0]


_item_jit = njit(**NUMPY_ERRORS)(_item)


@overload_method(types.Array, "item", jit_options=NUMPY_ERRORS)
def _select_item(a, *args):
    if not args:
        return lambda a, *args: _item_jit(a)
    from ember.library.numpy.axis_forms3 import item_implementation

    return item_implementation(a, args)


def _tolist(a):
    out = []
    for value in a:
        out.append(value)
    return out


def _tolist_rows(a):
    out = []
    for i in range(a.shape[0]):
        out.append(_tolist_jit(a[i]))
    return out


_tolist_jit = njit(**NUMPY_ERRORS)(_tolist)


@overload_method(types.Array, "tolist", jit_options=NUMPY_ERRORS)
def _select_tolist(a):
    return {1: _tolist, 2: _tolist_rows}.get(a.ndim)


# ---------------------------------------------------------------------------- fliplr, flipud, rot90


def _fliplr(m):
    return m[:, ::-1]


def _flipud(m):
    return m[::-1]


def _select_flip_of_axis(name: str, least_ndim: int, impl):
    """np.fliplr (2-d at least) / np.flipud (1-d at least) of arrays, lists and tuples."""

    def select(m):
        if isinstance(m, (types.List, types.BaseTuple)):
            return lambda m: getattr(np, name)(np.asarray(m))
        ndim = m.ndim if is_array(m) else 0 if is_number(m) else None
        if ndim is None:
            raise TypingError(f"Cannot np.{name} on {m} type")
        if ndim < least_ndim:
            raise TypingError(
                f"np.{name}: cannot index array of {ndim} dimension(s) with {least_ndim} "
                f"indices: the input must be at least {least_ndim}-d"
            )
        return impl

    return select


overload(np.fliplr, jit_options=NUMPY_ERRORS)(_select_flip_of_axis("fliplr", 2, _fliplr))
overload(np.flipud, jit_options=NUMPY_ERRORS)(_select_flip_of_axis("flipud", 1, _flipud))


def _rot90(m, k=1):
    """As NumPy: views rotating the first two axes by k quarter turns (counter-clockwise)."""
    turns = k % 4
    if turns == 0:
        return m[::-1][::-1]
    if turns == 1:
        return np.swapaxes(m[:, ::-1], 0, 1)
    if turns == 2:
        return m[::-1, ::-1]
    return np.swapaxes(m[::-1], 0, 1)


@overload(np.rot90, jit_options=NUMPY_ERRORS)
def _select_rot90(m, k=1):
    return _rot90 if is_array(m) and m.ndim >= 2 and is_integer(as_type(k)) else None


# ---------------------------------------------------------------------------- sequences as arrays


def _is_array_like(typ: types.Type) -> bool:
    """An array, number, list or tuple: what np.asarray takes (`np.append([0], a)`)."""
    return is_array(typ) or is_number(typ) or isinstance(typ, (types.List, types.BaseTuple))


def _sequence(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.List, types.BaseTuple))


@functools.cache
def _with_arrays_of(name: str, params: tuple, converted: tuple):
    """np.<name>(params) with the parameters `converted` (lists, tuples) made arrays first, as
    NumPy's np.asarray does."""
    args = ", ".join(f"np.asarray({p})" if p in converted else p for p in params)
    source = f"def {name}({', '.join(params)}):\n    return np.{name}({args})\n"
    return generated(name, source)


@overload(np.cross, jit_options=NUMPY_ERRORS)
def _cross_of_sequences(a, b):
    """np.cross((1, 2, 3), v): lists and tuples as the arrays NumPy makes of them."""
    converted = tuple(name for name, t in (("a", a), ("b", b)) if _sequence(t))
    if not converted or not all(_is_array_like(t) for t in (a, b)):
        return None
    return _with_arrays_of("cross", ("a", "b"), converted)


@overload(np.diagflat, jit_options=NUMPY_ERRORS)
def _diagflat_of_sequence(v, k=0):
    return _with_arrays_of("diagflat", ("v", "k"), ("v",)) if _sequence(v) else None


@overload(np.vander, jit_options=NUMPY_ERRORS)
def _vander_of_sequence(x, N=None, increasing=False):
    return _with_arrays_of("vander", ("x", "N", "increasing"), ("x",)) if _sequence(x) else None
