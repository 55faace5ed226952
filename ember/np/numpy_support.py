"""Numba's `numba.np.numpy_support`: conversions between NumPy dtypes and ember types, for
extension code that imports them from Numba's path."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember import types
from ember.errors import NumbaNotImplementedError
from ember.misc.carray import carray as _carray
from ember.misc.carray import farray as _farray


def from_dtype(dtype: Any) -> types.Type:
    """The ember type of a NumPy dtype (or anything `np.dtype` accepts)."""
    from ember import from_dtype as _from_dtype

    return _from_dtype(dtype)


def as_dtype(typ: types.Type) -> np.dtype:
    """The NumPy dtype of an ember scalar or record type, or of a record member's nested array
    (Numba's NumbaNotImplementedError for a type no dtype represents, such as an array type)."""
    from ember.library.numpy.support import numpy_dtype

    if isinstance(typ, types.NestedArray):  # a record member holding a fixed-size array
        return np.dtype((as_dtype(typ.dtype), tuple(typ.shape)))
    scalar = (types.Number, types.Boolean, types.Record, types.UnicodeCharSeq, types.CharSeq,
              types.NPDatetime, types.NPTimedelta)  # fmt: skip
    if not isinstance(typ, scalar):
        raise NumbaNotImplementedError(f"{typ} cannot be represented as a NumPy dtype")
    return numpy_dtype(typ)


def from_struct_dtype(dtype: Any) -> types.Record:
    """The record type of a structured dtype."""
    typ = from_dtype(dtype)
    if not isinstance(typ, types.Record):
        raise TypeError(f"expected a structured dtype, got {dtype!r}")
    return typ


def as_struct_dtype(typ: types.Record) -> np.dtype:
    """The structured NumPy dtype of a record type."""
    if not isinstance(typ, types.Record):
        raise TypeError(f"expected a record type, got {typ}")
    return as_dtype(typ)


def is_array(typ: types.Type) -> bool:
    return isinstance(typ, types.Array)


def is_contiguous(dims: tuple, strides: tuple, itemsize: int) -> bool:
    """Whether `strides` (bytes) lay out `dims` in C order without gaps."""
    expected = itemsize
    for dim, stride in zip(reversed(dims), reversed(strides)):
        if dim > 1 and stride != expected:
            return False
        expected *= dim
    return True


def is_fortran(dims: tuple, strides: tuple, itemsize: int) -> bool:
    """Whether `strides` (bytes) lay out `dims` in Fortran order without gaps."""
    return is_contiguous(tuple(reversed(dims)), tuple(reversed(strides)), itemsize)


def map_layout(array: np.ndarray) -> str:
    """The layout letter of a NumPy array's type: "C", "F" or "A"."""
    if array.flags.c_contiguous:
        return "C"
    return "F" if array.flags.f_contiguous else "A"


def is_nonelike(typ: Any) -> bool:
    """None itself, or the type of None (an omitted optional argument)."""
    return typ is None or isinstance(typ, (types.NoneType, types.Omitted))


def type_can_asarray(typ: types.Type) -> bool:
    """Whether `np.asarray` accepts a value of this type in compiled code."""
    return isinstance(typ, (types.Array, types.List, types.BaseTuple, types.Number, types.Boolean))


def check_is_integer(value: Any, name: str) -> None:
    """Raise TypeError unless `value` is an integer or an integer type."""
    if isinstance(value, types.Type):
        value = types.unliteral(value)
    if not isinstance(value, (int, types.Integer)):
        raise TypeError(f"{name} must be an integer")


def type_is_scalar(typ: types.Type) -> bool:
    """Whether `typ` is a scalar NumPy can hold (a number or a boolean)."""
    return isinstance(types.unliteral(typ), (types.Number, types.Boolean))


def map_arrayscalar_type(value: Any) -> types.Type:
    """The ember type of a NumPy scalar value (`np.float32(1)` -> float32)."""
    return from_dtype(np.asarray(value).dtype)


numpy_version = types.numpy_version
carray = _carray
farray = _farray

__all__ = [
    "as_dtype",
    "as_struct_dtype",
    "carray",
    "check_is_integer",
    "farray",
    "from_dtype",
    "from_struct_dtype",
    "is_array",
    "is_contiguous",
    "is_fortran",
    "is_nonelike",
    "map_arrayscalar_type",
    "map_layout",
    "numpy_version",
    "type_can_asarray",
    "type_is_scalar",
]
