"""np.inner (vectors and matrices), np.vdot, np.outer (with out=), np.kron and np.trace (with
offset) in compiled code: arrays of any layout and, where NumPy takes them, plain numbers;
results in NumPy's dtype."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, numpy_dtype


def _operand_dtype(typ):
    """An array's dtype, or a number's as np.asarray gives it (NumPy's kron and outer convert
    numbers to arrays: np.kron(float32 array, 2.0) is float64)."""
    return numpy_dtype(typ.dtype if is_array(typ) else types.unliteral(typ))


def _result_dtype(a, b) -> str:
    return np.result_type(_operand_dtype(a), _operand_dtype(b)).name


def _operand(typ) -> bool:
    return is_array(typ) or isinstance(types.unliteral(typ), (types.Number, types.Boolean))


def _dimensions_error(name: str, a, b):
    raise TypingError(f"np.{name}() only supported on 1 and 2-D arrays, not {a} and {b}")


def _flat(x):
    """x as a 1-d array (a number gives a 1-item array). Compiled code only."""
    raise NotImplementedError("_flat runs in compiled code only")


@overload(_flat, jit_options=NUMPY_ERRORS)
def _select_flat(x):
    if is_array(x):
        return lambda x: x.ravel()
    return lambda x: np.full(1, x)


def _as_matrix(x):
    """x as a 2-d array: a vector is one row, a number a 1 x 1 matrix. Compiled code only."""
    raise NotImplementedError("_as_matrix runs in compiled code only")


@overload(_as_matrix, jit_options=NUMPY_ERRORS)
def _select_as_matrix(x):
    if is_array(x) and x.ndim == 2:
        return lambda x: x
    return lambda x: _flat(x).reshape(1, -1)


# ---------------------------------------------------------------------------- inner, vdot


def _inner(a, b):
    if a.shape[0] != b.shape[0]:
        raise ValueError("shapes not aligned: incompatible array sizes")
    return np.dot(a, b)  # NumPy's dtype: uint8 stays uint8 (wrapping), booleans give any()


_inner_jit = njit(**NUMPY_ERRORS)(_inner)


def _inner_matrices(a, b):
    return np.dot(a, b.T)  # rows of a against rows of b


def _inner_matrix_vector(a, b):
    return np.dot(a, b)


def _inner_vector_matrix(a, b):
    return np.dot(b, a)


@overload(np.inner, jit_options=NUMPY_ERRORS)
def _select_inner(a, b):
    """Sums over the last axes of vectors and matrices."""
    if not (is_array(a) and is_array(b)):
        return None
    forms = {
        (1, 1): _inner,
        (2, 2): _inner_matrices,
        (2, 1): _inner_matrix_vector,
        (1, 2): _inner_vector_matrix,
    }
    return forms.get((a.ndim, b.ndim))


def _vdot_real(a, b):
    return _inner_jit(a.ravel(), b.ravel())


def _vdot_complex(a, b):
    return _inner_jit(np.conj(a.ravel()), b.ravel())


@overload(np.vdot, jit_options=NUMPY_ERRORS)
def _select_vdot(a, b):
    if not (is_array(a) and is_array(b)):
        return None
    return _vdot_complex if isinstance(a.dtype, types.Complex) else _vdot_real


# ---------------------------------------------------------------------------- outer


@functools.cache
def _outer_impl(dtype_name: str, into_out: bool):
    np_type = np.dtype(dtype_name).type

    def outer(a, b, out):
        x, y = _flat(a), _flat(b)
        m, n = x.shape[0], y.shape[0]
        if into_out:
            if out.shape[0] != m or out.shape[1] != n:
                raise ValueError("incompatible output array size: out must have shape "
                                 "(a.size, b.size)")  # fmt: skip
            result = out
        else:
            result = np.empty((m, n), np_type)
        for i in range(m):
            xi = np_type(x[i])
            for j in range(n):
                result[i, j] = xi * np_type(y[j])
        return result

    return outer


@overload(np.outer, jit_options=NUMPY_ERRORS)
def _select_outer(a, b, out=None):
    out = as_type(out)
    if not (_operand(a) and _operand(b)):
        return None
    if any(is_array(t) and t.ndim > 2 for t in (a, b)):
        _dimensions_error("outer", a, b)
    into_out = not isinstance(out, types.NoneType)
    if into_out and not (is_array(out) and out.ndim == 2):
        raise TypingError(f"np.outer(): out must be a 2-d array, not {out}")
    return _outer_impl(_result_dtype(a, b), into_out)


# ---------------------------------------------------------------------------- kron


@functools.cache
def _kron_impl(dtype_name: str, result_ndim: int):
    """NumPy's kron of operands of at most 2 dimensions: both are lifted to matrices, the
    block product is formed, and the lifted dimensions are dropped again."""
    np_type = np.dtype(dtype_name).type

    def kron_matrix(a, b):
        x, y = _as_matrix(a), _as_matrix(b)
        (p, q), (r, s) = x.shape, y.shape
        out = np.empty((p * r, q * s), np_type)
        for i in range(p):
            for j in range(q):
                xij = np_type(x[i, j])
                for k in range(r):
                    for m in range(s):
                        out[i * r + k, j * s + m] = xij * np_type(y[k, m])
        return out

    if result_ndim == 2:
        return kron_matrix
    kron_jit = njit(**NUMPY_ERRORS)(kron_matrix)
    if result_ndim == 1:
        return lambda a, b: kron_jit(a, b).ravel()
    return lambda a, b: kron_jit(a, b)[0, 0]


@overload(np.kron, jit_options=NUMPY_ERRORS)
def _select_kron(a, b):
    if not (_operand(a) and _operand(b)):
        return None
    ndims = [t.ndim if is_array(t) else 0 for t in (a, b)]
    if max(ndims) > 2:
        _dimensions_error("kron", a, b)
    return _kron_impl(_result_dtype(a, b), max(ndims))


# ---------------------------------------------------------------------------- trace


def _trace(a, offset):
    rows, columns = a.shape
    first_row, first_column = (0, offset) if offset >= 0 else (-offset, 0)
    total = a[:0, 0].sum()  # zero in the dtype NumPy's sum gives (small integers widen)
    for i in range(max(min(rows - first_row, columns - first_column), 0)):
        total += a[first_row + i, first_column + i]
    return total


@overload(np.trace, jit_options=NUMPY_ERRORS)
def _select_trace(a, offset=0):
    offset = as_type(offset)
    if not is_array(a):
        return None
    if a.ndim != 2:
        raise TypingError(f"np.trace() only supported on 2-D arrays, not {a}")
    if not isinstance(types.unliteral(offset), types.Integer):
        raise TypingError(f"np.trace(): offset must be an integer, not {offset}")
    return _trace
