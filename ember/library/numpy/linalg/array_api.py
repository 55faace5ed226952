"""np.linalg.multi_dot, NumPy 2's array-API names (vector_norm, matrix_transpose, vecdot) and
keyword forms (qr mode=, svd compute_uv=, eigh/eigvalsh UPLO=),
written in Python over np.dot, np.linalg.norm and the reductions (Numba has none of them)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.axis_forms2 import _keepdims_flag
from ember.library.numpy.keyword_forms import _norm_along_impl
from ember.library.numpy.support import NUMPY_ERRORS, as_type, is_array, is_integer, is_none

# ---------------------------------------------------------------------------- multi_dot


@functools.cache
def _multi_dot_impl(count: int, from_right: bool):
    """The product of `count` arrays of a tuple, left to right, or right to left when the last
    is a vector (then every product is a matrix-vector one)."""
    order = range(count - 1, -1, -1) if from_right else range(count)
    lines = ["def multi_dot(arrays, out=None):"]
    first, *rest = order
    lines.append(f"    product = arrays[{first}]")
    for k in rest:
        pair = f"arrays[{k}], product" if from_right else f"product, arrays[{k}]"
        lines.append(f"    product = np.dot({pair})")
    lines.append("    return product")
    namespace = {"np": np}
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - fixed text and integers
    return namespace["multi_dot"]


def _multi_dot_list(arrays, out=None):
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    product = np.dot(arrays[0], arrays[1])
    for k in range(2, len(arrays)):
        product = np.dot(product, arrays[k])
    return product


@overload(np.linalg.multi_dot, jit_options=NUMPY_ERRORS)
def _select_multi_dot(arrays, out=None):
    if not is_none(as_type(out)):
        return None
    if isinstance(arrays, types.List) and is_array(arrays.dtype) and arrays.dtype.ndim == 2:
        return _multi_dot_list
    if not isinstance(arrays, types.BaseTuple):
        return None
    if len(arrays) < 2:
        raise TypingError("np.linalg.multi_dot: expecting at least two arrays")
    if not all(is_array(t) and 1 <= t.ndim <= 2 for t in arrays.types):
        return None
    if any(t.ndim != 2 for t in arrays.types[1:-1]):
        raise TypingError("np.linalg.multi_dot: the arrays between the ends must be 2-d")
    return _multi_dot_impl(len(arrays), arrays.types[-1].ndim == 1)


# ---------------------------------------------------------------------------- array-API names


def _vector_norm_flat(x, axis=None, keepdims=False, ord=2):
    return np.linalg.norm(x.ravel(), ord)


@functools.cache
def _vector_norm_along(two_norm: bool, keep: bool, exact: bool, vector: bool):
    along = njit(**NUMPY_ERRORS)(_norm_along_impl(two_norm, keep, exact, vector))

    def vector_norm(x, axis=None, keepdims=False, ord=2):
        return along(x, ord, axis, keepdims)

    return vector_norm


@overload(np.linalg.vector_norm, jit_options=NUMPY_ERRORS)
def _select_vector_norm(x, axis=None, keepdims=False, ord=2):
    axis = as_type(axis)
    if not (is_array(x) and isinstance(x.dtype, types.Number)):
        return None
    keep = _keepdims_flag(keepdims)
    if keep is None and not isinstance(keepdims, bool):
        return None  # a flag known only at run time: typing retries with the constant
    if is_none(axis) and not keep:
        return _vector_norm_flat
    if not is_integer(axis):
        return None
    exact = isinstance(x.dtype, types.Integer)
    return _vector_norm_along(False, bool(keep), exact, x.ndim == 1)


def _matrix_transpose(x):
    return np.swapaxes(x, -1, -2)


@overload(np.linalg.matrix_transpose, jit_options=NUMPY_ERRORS)
def _select_matrix_transpose(x):
    if not is_array(x):
        return None
    if x.ndim < 2:
        raise TypingError("matrix_transpose: input array must be at least 2-dimensional")
    return _matrix_transpose


def _vecdot(x1, x2, axis=-1):
    return np.sum(np.conj(x1) * x2, axis=axis)


@overload(np.linalg.vecdot, jit_options=NUMPY_ERRORS)
def _select_vecdot(x1, x2, axis=-1):
    if is_array(x1) and is_array(x2) and is_integer(as_type(axis)):
        return _vecdot
    return None


# ---------------------------------------------------------------------------- keyword forms


def _literal_text(value) -> str | None:
    if isinstance(value, str):
        return value
    return getattr(value, "literal_value", None)


def _qr_r(a, mode="reduced"):
    return np.linalg.qr(a)[1]


def _qr_reduced(a, mode="reduced"):
    return np.linalg.qr(a)


def _qr_complete(a, mode="reduced"):
    """Householder QR of [a | I]: its first columns are a's (the reflections of a column depend
    on it and the columns before), and its square Q extends a's Q to an orthonormal basis."""
    m, n = a.shape
    if m <= n:
        return np.linalg.qr(a)
    q, r = np.linalg.qr(np.hstack((a, np.eye(m, dtype=a.dtype))))
    return q, np.ascontiguousarray(r[:, :n])


@overload(np.linalg.qr, jit_options=NUMPY_ERRORS)
def _select_qr_mode(a, mode="reduced"):
    text = _literal_text(mode)
    if not (is_array(a) and a.ndim == 2) or text == "reduced" and isinstance(mode, str):
        return None  # (not given: the plain form)
    if text not in ("reduced", "complete", "r"):
        raise TypingError("np.linalg.qr: mode must be the constant 'reduced', 'complete' or 'r'")
    return {"reduced": _qr_reduced, "complete": _qr_complete, "r": _qr_r}[text]


def _singular_values_only(a, full_matrices=True, compute_uv=True, hermitian=False):
    return np.linalg.svd(a)[1]


def _svd_full(a, full_matrices=True, compute_uv=True, hermitian=False):
    return np.linalg.svd(a, full_matrices)


@overload(np.linalg.svd, jit_options=NUMPY_ERRORS)
def _select_svd_compute_uv(a, full_matrices=True, compute_uv=True, hermitian=False):
    if not (is_array(a) and a.ndim == 2) or compute_uv is True:
        return None  # (not given: the plain forms)
    if not isinstance(compute_uv, types.BooleanLiteral):
        raise TypingError("np.linalg.svd: compute_uv must be the constant True or False")
    return _svd_full if compute_uv.literal_value else _singular_values_only


@njit(**NUMPY_ERRORS)
def _upper_mirrored(a):
    """The Hermitian matrix whose upper triangle is a's (LAPACK's UPLO='U')."""
    return np.triu(a) + np.conj(np.triu(a, 1)).T


def _eigh_upper(a, UPLO="L"):  # noqa: N803 - NumPy's name
    return np.linalg.eigh(_upper_mirrored(a))


def _eigvalsh_upper(a, UPLO="L"):  # noqa: N803
    return np.linalg.eigvalsh(_upper_mirrored(a))


def _uplo_selector(upper, lower):
    def select(a, UPLO="L"):  # noqa: N803
        text = _literal_text(UPLO)
        if not (is_array(a) and a.ndim == 2) or (text == "L" and isinstance(UPLO, str)):
            return None  # (not given: the plain form)
        if text not in ("L", "U"):
            raise TypingError("UPLO argument must be the constant 'L' or 'U'")
        return upper if text == "U" else lower

    return select


def _eigh_lower(a, UPLO="L"):  # noqa: N803
    return np.linalg.eigh(a)


def _eigvalsh_lower(a, UPLO="L"):  # noqa: N803
    return np.linalg.eigvalsh(a)


overload(np.linalg.eigh, jit_options=NUMPY_ERRORS)(_uplo_selector(_eigh_upper, _eigh_lower))
overload(np.linalg.eigvalsh, jit_options=NUMPY_ERRORS)(
    _uplo_selector(_eigvalsh_upper, _eigvalsh_lower)
)
