"""Polynomials and finite differences, written in Python and compiled by ember: polyval,
polyfit (least squares as NumPy: columns scaled to unit norm, then LAPACK's gelsd) and gradient
(second-order central differences inside, first-order at the edges, for 1-d arrays)."""

from __future__ import annotations

import numpy as np

from ember import types
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_number


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


def _gradient(f, spacing):
    n = f.shape[0]
    if n < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, "
                         "at least (edge_order + 1) elements are required.")  # fmt: skip
    out = np.empty(n)
    out[0] = (f[1] - f[0]) / spacing
    out[n - 1] = (f[n - 1] - f[n - 2]) / spacing
    for i in range(1, n - 1):
        out[i] = (f[i + 1] - f[i - 1]) / (2.0 * spacing)
    return out


@overload(np.gradient, jit_options=NUMPY_ERRORS)
def _select_gradient(f, varargs=1.0):
    varargs = as_type(varargs)
    if is_array(f) and f.ndim == 1 and _real(f) and is_number(varargs) and _real(varargs):
        return _gradient
    return None
