"""Element-by-element NumPy functions that are not ufuncs in ember, written in Python and compiled
by ember: sinc, heaviside, isin, array_equal and logspace."""

from __future__ import annotations

import numpy as np

from ember import types
from ember.library.numpy_support import implement, is_array, is_number, jitted


def _real(typ) -> bool:
    typ = typ.dtype if is_array(typ) else types.unliteral(typ)
    return isinstance(typ, (types.Integer, types.Float, types.Boolean))


def _sinc(x):
    y = np.pi * np.where(x == 0, 1.0e-20, x)  # NumPy's own guard against 0/0
    return np.sin(y) / y


def _sinc_scalar(x):
    y = np.pi * (1.0e-20 if x == 0 else x)
    return np.sin(y) / y


@implement(np.sinc, "x")
def _select_sinc(x):
    if not _real(x):
        return None
    return _sinc if is_array(x) else _sinc_scalar


def _heaviside(x1, x2):
    return np.where(np.isnan(x1), np.nan, np.where(x1 < 0, 0.0, np.where(x1 > 0, 1.0, x2)))


def _heaviside_scalar(x1, x2):
    if np.isnan(x1):
        return np.nan
    if x1 < 0:
        return 0.0
    return 1.0 if x1 > 0 else float(x2)


@implement(np.heaviside, "x1, x2")
def _select_heaviside(x1, x2):
    if not (_real(x1) and _real(x2)):
        return None
    return _heaviside if is_array(x1) or is_array(x2) else _heaviside_scalar


def _isin(element, test_elements):
    ordered = np.sort(test_elements.ravel())
    flat = element.ravel()
    out = np.empty(flat.shape[0], np.bool_)
    n = ordered.shape[0]
    for i in range(flat.shape[0]):
        value = flat[i]
        low, high = 0, n
        while low < high:
            middle = (low + high) // 2
            if ordered[middle] < value:
                low = middle + 1
            else:
                high = middle
        out[i] = low < n and ordered[low] == value
    return out.reshape(element.shape)


@implement(np.isin, "element, test_elements")
def _select_isin(element, test_elements):
    if is_array(element) and is_array(test_elements) and _real(element) and _real(test_elements):
        return _isin
    return None


def _shapes_equal(a1, a2):
    if a1.ndim != a2.ndim:
        return False
    for k in range(a1.ndim):
        if a1.shape[k] != a2.shape[k]:
            return False
    return True


_shapes_equal_jit = jitted(_shapes_equal)


def _array_equal(a1, a2):
    if not _shapes_equal_jit(a1, a2):
        return False
    return bool((a1 == a2).all())


@implement(np.array_equal, "a1, a2")
def _select_array_equal(a1, a2):
    if is_array(a1) and is_array(a2) and a1.ndim == a2.ndim:
        return _array_equal
    return None


def _logspace(start, stop, num, endpoint, base):
    if endpoint:
        return np.power(base, np.linspace(start, stop, num))
    return np.power(base, np.linspace(start, stop, num + 1)[:-1])


@implement(np.logspace, "start, stop, num=50, endpoint=True, base=10.0")
def _select_logspace(start, stop, num, endpoint, base):
    if all(is_number(t) and _real(t) for t in (start, stop, num, endpoint, base)):
        return _logspace
    return None
