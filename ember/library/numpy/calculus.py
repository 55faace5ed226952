"""Polynomials and finite differences, written in Python and compiled by ember: polyval,
polyder and polyint (real coefficients, highest degree first; m=0 gives the result dtype of
m>0, one type per compilation), polyfit (least squares as NumPy: columns scaled to unit norm,
then LAPACK's gelsd) and gradient (second-order central differences inside, first- or
second-order at the edges; n-d arrays, along all axes, one or a tuple of them; uniform spacings
or coordinates)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.manipulation import generated
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_integer, numpy_dtype


def _real(typ) -> bool:
    typ = typ.dtype if is_array(typ) else types.unliteral(typ)
    return isinstance(typ, (types.Integer, types.Float, types.Boolean))


def _polyval(p, x):
    result = x * 0.0
    for coefficient in p:
        result = result * x + coefficient
    return result


def _polyval_array(p, x):
    result = np.zeros(x.shape)
    for coefficient in p:
        result = result * x + coefficient
    return result


@overload(np.polyval, jit_options=NUMPY_ERRORS)
def _select_polyval(p, x):
    if not (is_array(p) and p.ndim == 1 and _real(p) and _real(x)):
        return None
    return _polyval_array if is_array(x) else _polyval


def _polyder(p, m=1):
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    out = p * np.ones(1, np.int64)  # NumPy's dtype: the coefficients times an arange
    for _ in range(m):
        n = out.shape[0] - 1
        out = out[:-1] * np.arange(n, 0, -1)
    return out


@overload(np.polyder, jit_options=NUMPY_ERRORS)
def _select_polyder(p, m=1):
    if is_array(p) and p.ndim == 1 and _real(p) and is_integer(as_type(m)):
        return _polyder
    return None


def _polyint(p, m=1, k=None):
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    given = np.atleast_1d(np.asarray(k, np.float64)).ravel()
    constants = np.zeros(m) + given[0] if given.shape[0] == 1 else given
    if constants.shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    out = p.astype(np.float64)
    for step in range(m):
        n = out.shape[0]
        integrated = np.empty(n + 1)
        integrated[:n] = out / np.arange(n, 0, -1)
        integrated[n] = constants[step]
        out = integrated
    return out


def _polyint_default(p, m=1, k=None):
    return _polyint_jit(p, m, 0.0)


_polyint_jit = njit(**NUMPY_ERRORS)(_polyint)


@overload(np.polyint, jit_options=NUMPY_ERRORS)
def _select_polyint(p, m=1, k=None):
    """np.polyint of real coefficients (float64 result; k: a number or one per integration)."""
    if not (is_array(p) and p.ndim == 1 and _real(p) and is_integer(as_type(m))):
        return None
    k = as_type(k)
    if k is None or isinstance(k, types.NoneType):
        return _polyint_default
    if _real(k) and (not is_array(k) or k.ndim <= 1):
        return _polyint
    if isinstance(k, (types.BaseTuple, types.List)):
        return lambda p, m=1, k=None: _polyint_jit(p, m, np.array(k, np.float64))
    return None


def _polyfit(x, y, deg):
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.shape[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    order = deg + 1
    lhs = np.empty((x.shape[0], order))
    for i in range(x.shape[0]):  # the Vandermonde matrix, highest power first
        value = 1.0
        for j in range(order - 1, -1, -1):
            lhs[i, j] = value
            value *= x[i]
    scale = np.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    rcond = x.shape[0] * 2.220446049250313e-16
    coefficients = np.linalg.lstsq(lhs, y.astype(np.float64), rcond=rcond)[0]
    return coefficients / scale


@overload(np.polyfit, jit_options=NUMPY_ERRORS)
def _select_polyfit(x, y, deg):
    vectors = all(is_array(t) and t.ndim == 1 and _real(t) for t in (x, y))
    return _polyfit if vectors and isinstance(types.unliteral(deg), types.Integer) else None


# ---------------------------------------------------------------------------- gradient


def _too_short(n, edge_order):
    if edge_order != 1 and edge_order != 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, "
                         "at least (edge_order + 1) elements are required.")  # fmt: skip


def _uniform_line(f, out, h, edge_order):
    """One line's gradient for the uniform spacing h: central differences inside, one-sided
    ones of the order asked at the ends (NumPy's formulas)."""
    n = f.shape[0]
    for i in range(1, n - 1):
        out[i] = (f[i + 1] - f[i - 1]) / (2.0 * h)
    if edge_order == 1:
        out[0] = (f[1] - f[0]) / h
        out[n - 1] = (f[n - 1] - f[n - 2]) / h
    else:
        out[0] = (-1.5 * f[0] + 2.0 * f[1] - 0.5 * f[2]) / h
        out[n - 1] = (0.5 * f[n - 3] - 2.0 * f[n - 2] + 1.5 * f[n - 1]) / h


def _coordinates_line(f, out, x, edge_order):
    """One line's gradient at the coordinates x (second-order accurate inside)."""
    n = f.shape[0]
    if x.shape[0] != n:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")  # fmt: skip
    for i in range(1, n - 1):
        hs = x[i] - x[i - 1]
        hd = x[i + 1] - x[i]
        out[i] = (hs * hs * f[i + 1] + (hd * hd - hs * hs) * f[i] - hd * hd * f[i - 1]) / (
            hs * hd * (hd + hs)
        )
    if edge_order == 1:
        out[0] = (f[1] - f[0]) / (x[1] - x[0])
        out[n - 1] = (f[n - 1] - f[n - 2]) / (x[n - 1] - x[n - 2])
    else:
        dx1 = x[1] - x[0]
        dx2 = x[2] - x[1]
        a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = -dx1 / (dx2 * (dx1 + dx2))
        out[0] = a * f[0] + b * f[1] + c * f[2]
        dx1 = x[n - 2] - x[n - 3]
        dx2 = x[n - 1] - x[n - 2]
        a = dx2 / (dx1 * (dx1 + dx2))
        b = -(dx2 + dx1) / (dx1 * dx2)
        c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
        out[n - 1] = a * f[n - 3] + b * f[n - 2] + c * f[n - 1]


def _gradient_along(f, spacing, axis, edge_order, line, out):
    """The gradient of f along one axis into `out`: every line along it, by `line`."""
    _too_short_jit(f.shape[axis], edge_order)
    lines_in = np.swapaxes(f, axis, -1)
    lines_out = np.swapaxes(out, axis, -1)
    for index in np.ndindex(lines_in.shape[:-1]):
        line(lines_in[index], lines_out[index], spacing, edge_order)
    return out


def _gradient_axes(f, axis) -> tuple | None:
    """The axes as source text (an expression of a tuple) and how many there are."""
    if axis is None or isinstance(axis, types.NoneType):
        return f"({''.join(f'{k}, ' for k in range(f.ndim))})", f.ndim
    if is_integer(axis):
        return f"(axis_of(axis, {f.ndim}),)", 1
    if isinstance(axis, types.BaseTuple) and all(is_integer(t) for t in axis.types):
        items = "".join(f"axis_of(axis[{k}], {f.ndim}), " for k in range(len(axis)))
        return f"({items})", len(axis)
    return None


_too_short_jit = njit(**NUMPY_ERRORS)(_too_short)
_uniform_line_jit = njit(**NUMPY_ERRORS)(_uniform_line)
_coordinates_line_jit = njit(**NUMPY_ERRORS)(_coordinates_line)
_gradient_along_jit = njit(**NUMPY_ERRORS)(_gradient_along)


@functools.cache
def _gradient_impl(axes_text: str, count: int, given: int, spacing_kinds: tuple, out: str):
    """np.gradient for `count` axes and `given` spacings; spacing_kinds[k]: 'one' (1.0), or
    (index of the spacing, 'array' or 'number')."""
    spacings = "".join(f"v{k}, " for k in range(given))  # no *args: keywords bind by name
    lines = [f"def gradient(f, {spacings}axis=None, edge_order=1):", f"    axes = {axes_text}"]
    results = []
    for k, kind in enumerate(spacing_kinds):
        if kind == "one":
            spacing, line = "1.0", "uniform"
        else:
            index, form = kind
            spacing = f"v{index}"
            line = "coordinates" if form == "array" else "uniform"
        lines.append(f"    g{k} = np.empty(f.shape, OUT)")
        lines.append(f"    along(f, {spacing}, axes[{k}], edge_order, {line}, g{k})")
        results.append(f"g{k}")
    if count > 1:
        lines.append("    if " + " or ".join(
            f"axes[{j}] == axes[{k}]" for k in range(count) for j in range(k)) + ":")  # fmt: skip
        lines.append("        raise ValueError('repeated axis')")
    lines.append(f"    return {results[0] if count == 1 else '(' + ', '.join(results) + ',)'}")
    return generated(
        "gradient", "\n".join(lines) + "\n", along=_gradient_along_jit, OUT=np.dtype(out).type,
        uniform=_uniform_line_jit, coordinates=_coordinates_line_jit,
    )  # fmt: skip


def _gradient_dtype(f) -> str | None:
    if isinstance(f.dtype, (types.Float, types.Complex)):
        return numpy_dtype(f.dtype).name
    if isinstance(f.dtype, types.Integer) and not isinstance(f.dtype, types.Boolean):
        return "float64"
    return None


def _spacing_kind(typ):
    if is_array(typ) and typ.ndim == 1 and _gradient_real(typ.dtype):
        return "array"
    if is_array(typ) and typ.ndim == 0:
        return None
    if _gradient_real(types.unliteral(typ)):
        return "number"
    return None


def _gradient_real(typ) -> bool:
    return isinstance(typ, (types.Integer, types.Float)) and not isinstance(typ, types.Boolean)


@overload(np.gradient, jit_options=NUMPY_ERRORS)
def _select_gradient(f, *varargs, axis=None, edge_order=1):
    """np.gradient of an n-d array along all its axes (a tuple of arrays), one axis (an array)
    or a tuple of axes; spacings: none, one for every axis, or one per axis (a number or the
    1-d coordinates)."""
    if not is_array(f) or f.ndim == 0:
        return None
    out = _gradient_dtype(f)
    if out is None:
        raise TypingError(f"np.gradient: the array's dtype {f.dtype} has no gradient")
    found = _gradient_axes(f, as_type(axis))
    if found is None:
        return None
    axes_text, count = found
    if len(varargs) not in (0, 1, count):
        raise TypingError(
            f"np.gradient: give one spacing, or one per axis ({count}), not {len(varargs)}"
        )
    kinds = []
    for k in range(count):
        if not varargs:
            kinds.append("one")
            continue
        index = 0 if len(varargs) == 1 else k
        form = _spacing_kind(varargs[index])
        if form is None:
            raise TypingError("np.gradient: a spacing is a number or a 1-d array of coordinates")
        kinds.append((index, form))
    if len(varargs) == 1 and count > 1 and kinds[0][1] == "array":
        raise TypingError("np.gradient: one array of coordinates for several axes is ambiguous")
    return _gradient_impl(axes_text, count, len(varargs), tuple(kinds), out)
