"""Questions about arrays and scalars answered in compiled code: np.shape, np.size, np.ndim,
np.isscalar, np.iscomplexobj, np.isrealobj, np.iscomplex, np.isreal, np.asarray_chkfinite, and
np.finfo / np.iinfo (named tuples of the dtype's limits, fixed when compiling)."""

from __future__ import annotations

import collections
import functools

import numpy as np

from ember import types
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, is_array, numpy_dtype, parse_dtype


def _scalar_like(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Number, types.Boolean))


# ---------------------------------------------------------------------------- shape, size, ndim


@overload(np.shape, jit_options=NUMPY_ERRORS)
def _select_shape(a):
    if is_array(a):
        return lambda a: a.shape
    return (lambda a: ()) if _scalar_like(a) else None


@overload(np.size, jit_options=NUMPY_ERRORS)
def _select_size(a):
    if is_array(a):
        return lambda a: a.size
    return (lambda a: 1) if _scalar_like(a) else None


@overload(np.ndim, jit_options=NUMPY_ERRORS)
def _select_ndim(a):
    if is_array(a):
        return lambda a: a.ndim
    return (lambda a: 0) if _scalar_like(a) else None


@overload(np.isscalar, jit_options=NUMPY_ERRORS)
def _select_isscalar(element):
    scalar = _scalar_like(element) or isinstance(
        types.unliteral(element),
        (types.UnicodeType, types.UnicodeCharSeq, types.NPDatetime, types.NPTimedelta),
    )
    return (lambda element: True) if scalar else (lambda element: False)


# ---------------------------------------------------------------------------- complex or real


def _dtype_of(x) -> types.Type | None:
    if is_array(x):
        return x.dtype
    return types.unliteral(x) if _scalar_like(x) else None


def _complex_kind(x) -> bool | None:
    """Whether NumPy calls x's dtype complex; None (the value's own dtype decides) for an
    Optional of a complex type; str and None are not complex."""
    if isinstance(x, types.Optional):
        return None if _complex_kind(x.type) else False
    if isinstance(types.unliteral(x), (types.NoneType, types.UnicodeType)):
        return False
    dtype = _dtype_of(x)
    return False if dtype is None else isinstance(dtype, types.Complex)


def _select_complex_question(x, complex_answer: bool):
    """iscomplexobj (complex_answer True) or isrealobj (False)."""
    plain = isinstance(types.unliteral(x), (types.NoneType, types.UnicodeType, types.Optional))
    if not plain and _dtype_of(x) is None:
        return None  # (a list of complex numbers is complex to NumPy: not answered here)
    kind = _complex_kind(x)
    if kind is None:
        return lambda x: (not complex_answer) if x is None else complex_answer
    answer = kind if complex_answer else not kind
    return lambda x: answer


@overload(np.iscomplexobj, jit_options=NUMPY_ERRORS)
def _select_iscomplexobj(x):
    return _select_complex_question(x, True)


@overload(np.isrealobj, jit_options=NUMPY_ERRORS)
def _select_isrealobj(x):
    return _select_complex_question(x, False)


@overload(np.iscomplex, jit_options=NUMPY_ERRORS)
def _select_iscomplex(x):
    dtype = _dtype_of(x)
    if dtype is None:
        return None
    if isinstance(dtype, types.Complex):
        return lambda x: np.imag(x) != 0
    if is_array(x):
        return lambda x: np.zeros(x.shape, np.bool_)
    return lambda x: False


@overload(np.isreal, jit_options=NUMPY_ERRORS)
def _select_isreal(x):
    dtype = _dtype_of(x)
    if dtype is None:
        return None
    if isinstance(dtype, types.Complex):
        return lambda x: np.imag(x) == 0
    if is_array(x):
        return lambda x: np.ones(x.shape, np.bool_)
    return lambda x: True


def _asarray_chkfinite(a, dtype):
    out = np.asarray(a, dtype)
    for value in out.flat:
        if not np.isfinite(value):
            raise ValueError("array must not contain infs or NaNs")
    return out


def _asarray_chkfinite_default(a, dtype):
    out = np.asarray(a)
    for value in out.flat:
        if not np.isfinite(value):
            raise ValueError("array must not contain infs or NaNs")
    return out


@overload(np.asarray_chkfinite, jit_options=NUMPY_ERRORS)
def _select_asarray_chkfinite(a, dtype=None):
    if not (is_array(a) or _scalar_like(a) or isinstance(a, (types.BaseTuple, types.List))):
        return None
    return (
        _asarray_chkfinite_default
        if isinstance(dtype, (types.NoneType, type(None)))
        else (_asarray_chkfinite)
    )


# ---------------------------------------------------------------------------- finfo, iinfo

_FINFO_FIELDS = ("bits", "eps", "epsneg", "iexp", "machep", "max", "maxexp", "min", "minexp",
                 "negep", "nexp", "nmant", "precision", "resolution", "tiny", "smallest_normal",
                 "smallest_subnormal")  # fmt: skip
finfo = collections.namedtuple("finfo", _FINFO_FIELDS)
iinfo = collections.namedtuple("iinfo", ("bits", "min", "max"))


def _info_dtype(x) -> np.dtype:
    """The NumPy dtype finfo/iinfo is asked about: a dtype, scalar class, scalar or array."""
    if is_array(x):
        return numpy_dtype(x.dtype)
    if _scalar_like(x):
        return numpy_dtype(types.unliteral(x))
    return numpy_dtype(parse_dtype(x, default=None))


@functools.cache
def _finfo_impl(dtype_name: str):
    limits = np.finfo(np.dtype(dtype_name))
    values = finfo(*(
        int(getattr(limits, name)) if isinstance(getattr(limits, name), int) else float(
            getattr(limits, name))
        for name in _FINFO_FIELDS
    ))  # fmt: skip
    return lambda dtype: values


@functools.cache
def _iinfo_impl(dtype_name: str):
    limits = np.iinfo(np.dtype(dtype_name))
    values = iinfo(limits.bits, int(limits.min), int(limits.max))
    return lambda int_type: values


@overload(np.finfo, jit_options=NUMPY_ERRORS)
def _select_finfo(dtype):
    np_dtype = _info_dtype(dtype)
    if np_dtype.kind not in "fc":
        raise TypingError(f"data type {np_dtype} not inexact")
    return _finfo_impl(np_dtype.name)


@overload(np.iinfo, jit_options=NUMPY_ERRORS)
def _select_iinfo(int_type):
    np_dtype = _info_dtype(int_type)
    if np_dtype.kind not in "iu":
        raise TypingError(f"Invalid integer data type {np_dtype.kind!r}.")
    return _iinfo_impl(np_dtype.name)
