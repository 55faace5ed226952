"""The native entry's kind for NumPy datetime64/timedelta64 scalars: matches a scalar's class and
unit in its object, unboxes its int64 count with one load, boxes a result through NumPy."""

from __future__ import annotations

import ctypes
import functools
import sys
from dataclasses import dataclass
from typing import Any

from llvmlite import ir

_I32 = ir.IntType(32)
_I64 = ir.IntType(64)

# NumPy's scalar object: PyObject header, the int64 count, then its unit metadata
# (NPY_DATETIMEUNIT base, int num); checked against a live scalar before use.
_COUNT_OFFSET = 16
_UNIT_OFFSET = 24
_MULTIPLE_OFFSET = 28
_UNIT_CODES = {"Y": 0, "M": 1, "W": 2, "D": 4, "h": 5, "m": 6, "s": 7, "ms": 8, "us": 9,
               "ns": 10, "ps": 11, "fs": 12, "as": 13, "": 14}  # fmt: skip


@dataclass(frozen=True)
class DatetimeKind:
    """A datetime64 (`numpy_kind` 'M') or timedelta64 ('m') scalar of one unit."""

    numpy_kind: str
    unit: str

    @property
    def scalar_class(self) -> type:
        numpy = sys.modules["numpy"]
        return numpy.datetime64 if self.numpy_kind == "M" else numpy.timedelta64


def datetime_kind(typ: Any) -> DatetimeKind | None:
    """The kind of an NPDatetime/NPTimedelta type; None where NumPy's layout is not the one
    this module reads."""
    return DatetimeKind(typ.numpy_kind, typ.unit) if _layout_verified() else None


@functools.cache
def _layout_verified() -> bool:
    numpy = sys.modules.get("numpy")
    if numpy is None or ctypes.sizeof(ctypes.c_void_p) != 8:
        return False
    for unit, code in _UNIT_CODES.items():
        probe = numpy.timedelta64(-12345, unit) if unit else numpy.timedelta64(-12345)
        address = id(probe)
        read = (
            ctypes.c_int64.from_address(address + _COUNT_OFFSET).value,
            ctypes.c_int32.from_address(address + _UNIT_OFFSET).value,
            ctypes.c_int32.from_address(address + _MULTIPLE_OFFSET).value,
        )
        if read != (-12345, code, 1):
            return False
    return True


def emit_match(entry: Any, obj: ir.Value, kind: DatetimeKind, fail: ir.Block) -> None:
    """Exactly the scalar class, with the kind's unit (and no multiple of it)."""
    from ember.dispatcher.object_layout import _object_constant

    b = entry.builder
    same_class = b.icmp_unsigned("==", entry.ob_type(obj), _object_constant(kind.scalar_class))
    entry.continue_if(same_class, fail, "datetime.class_ok")
    unit = entry.load_field(obj, _UNIT_OFFSET, _I32, 4)
    multiple = entry.load_field(obj, _MULTIPLE_OFFSET, _I32, 4)
    same_unit = b.and_(
        b.icmp_signed("==", unit, _I32(_UNIT_CODES[kind.unit])),
        b.icmp_signed("==", multiple, _I32(1)),
    )
    entry.continue_if(same_unit, fail, "datetime.unit_ok")


def emit_unbox(entry: Any, obj: ir.Value, kind: DatetimeKind, fail: ir.Block) -> list[ir.Value]:
    return [entry.load_field(obj, _COUNT_OFFSET, _I64, 8)]


def emit_box(entry: Any, kind: DatetimeKind, ptr: ir.Value) -> ir.Value:
    """`maker(count)` (NULL with the error set when it fails)."""
    from ember.dispatcher.object_layout import _object_constant

    b = entry.builder
    count = entry.call_capi("PyLong_FromLongLong", [b.load(ptr, typ=_I64)])
    result = entry.alloca(ir.PointerType(), "box.datetime")
    b.store(count, result)  # NULL: the error is already set
    with b.if_then(b.icmp_unsigned("!=", count, ir.Constant(ir.PointerType(), None))):
        maker = _object_constant(scalar_maker(kind.numpy_kind, kind.unit))
        b.store(entry.call_capi("PyObject_CallOneArg", [maker, count]), result)
        entry.call_capi("Py_DecRef", [count])
    return b.load(result)


@functools.cache
def scalar_maker(numpy_kind: str, unit: str) -> Any:
    """`make(count)`: the NumPy scalar of this kind and unit holding `count` (NaT for the
    int64 minimum)."""
    numpy = sys.modules["numpy"]
    scalar_class = numpy.datetime64 if numpy_kind == "M" else numpy.timedelta64
    if not unit:  # NumPy builds generic scalars from NaT only: reinterpret the bits
        dtype = numpy.dtype(f"{numpy_kind}8")
        return lambda count: numpy.int64(count).view(dtype)
    return lambda count: scalar_class(count, unit)


# ---------------------------------------------------------------------------- array arguments

# NumPy 2's dtype object keeps a datetime unit in its `c_metadata` (an NpyAuxData of four
# pointers, then the unit and its multiple); checked against live dtypes before use.
_DESCR_METADATA_OFFSET = 112
_METADATA_UNIT_OFFSET = 32
_DTYPE_NAMES = ("datetime64", "timedelta64")


def is_datetime_dtype_name(name: str) -> bool:
    return name.startswith(_DTYPE_NAMES)


def datetime_array_kind(typ: Any) -> Any:
    """The ArrayKind of an array argument of datetimes (None where NumPy's dtype layout is not
    the one this module reads). Returned arrays are boxed by the Python path, which knows the
    unit."""
    from ember.dispatcher.object_layout import ArrayKind

    if not _descr_layout_verified():
        return None
    return ArrayKind(typ.dtype.name, typ.ndim, typ.layout, typ.readonly)


@functools.cache
def _descr_layout_verified() -> bool:
    numpy = sys.modules.get("numpy")
    if numpy is None or ctypes.sizeof(ctypes.c_void_p) != 8 or int(numpy.__version__[0]) != 2:
        return False
    for unit, code in _UNIT_CODES.items():
        for multiple in (1, 3) if unit else (1,):
            dtype = numpy.dtype(f"m8[{multiple}{unit}]" if unit else "m8")
            metadata = ctypes.c_void_p.from_address(id(dtype) + _DESCR_METADATA_OFFSET).value
            if not metadata:
                return False
            address = metadata + _METADATA_UNIT_OFFSET
            read = (ctypes.c_int32.from_address(address).value,
                    ctypes.c_int32.from_address(address + 4).value)  # fmt: skip
            if read != (code, multiple):
                return False
    return True


def emit_match_array_unit(entry: Any, descr: ir.Value, dtype_name: str, fail: ir.Block) -> None:
    """The array's dtype (a datetime one, by its type number) has the kind's unit."""
    numpy = sys.modules["numpy"]
    unit, _ = numpy.datetime_data(numpy.dtype(dtype_name))
    b = entry.builder
    metadata = entry.load_field(descr, _DESCR_METADATA_OFFSET, ir.PointerType(), 8)
    found = entry.load_field(metadata, _METADATA_UNIT_OFFSET, _I32, 4)
    multiple = entry.load_field(metadata, _METADATA_UNIT_OFFSET + 4, _I32, 4)
    code = _UNIT_CODES["" if unit == "generic" else unit]
    same_unit = b.and_(
        b.icmp_signed("==", found, _I32(code)), b.icmp_signed("==", multiple, _I32(1))
    )
    entry.continue_if(same_unit, fail, "array.unit_ok")
