"""The native entry's kind for NumPy record scalars (`np.void`/`np.record` of a structured
dtype): an argument is borrowed as ember's record model {meminfo NULL, parent, data} over its
own bytes (writes reach the array it views); a result is copied into a new `np.record`."""

from __future__ import annotations

import ctypes
import functools
import sys
from dataclasses import dataclass
from typing import Any

from llvmlite import ir

from ember.runtime import nrt

_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_PTR = ir.PointerType()
RECORD_FIELDS = [_PTR, _PTR, _PTR]  # meminfo, parent, data (RecordModel)


@dataclass(frozen=True)
class RecordKind:
    """A record scalar of `dtype` (a DtypeObject, matched as arrays' structured dtypes are);
    results are `np.record`s of `record_dtype`, the same fields with np.record as their type."""

    dtype: Any

    @functools.cached_property
    def record_dtype(self) -> Any:
        numpy = sys.modules["numpy"]
        return numpy.dtype((numpy.record, self.dtype.dtype))


def record_kind(typ: Any) -> RecordKind:
    """The kind of a Record type (of its first dtype object: Record.remember_dtype)."""
    from ember.dispatcher.object_layout import DtypeObject
    from ember.library.numpy.support import numpy_dtype

    return RecordKind(DtypeObject(numpy_dtype(typ)))


def void_layout_verified() -> bool:
    """Whether NumPy's void scalars are laid out as this module reads them, and the C-API
    functions results are made with were found."""
    from ember.dispatcher.object_layout import numpy_capi, numpy_layout

    return _void_offsets() is not None and numpy_capi() is not None and numpy_layout() is not None


@functools.cache
def _void_offsets() -> tuple[int, int] | None:
    """Offsets of a void scalar's data pointer and descr (PyVoidScalarObject, numpy's
    arrayscalars.h), checked on a live record viewing an array."""
    numpy = sys.modules["numpy"]
    data_offset = object.__basicsize__ + ctypes.sizeof(ctypes.c_ssize_t)  # after ob_size
    descr_offset = data_offset + ctypes.sizeof(ctypes.c_void_p)
    holder = numpy.zeros(2, numpy.dtype([("a", numpy.float64), ("b", numpy.int16)]))
    address = holder.ctypes.data + holder.dtype.itemsize
    for probe in (holder[1], holder.view(numpy.recarray)[1]):
        offsets = (data_offset, descr_offset)
        read = [ctypes.c_void_p.from_address(id(probe) + offset).value for offset in offsets]
        if read != [address, id(probe.dtype)]:
            return None
    return data_offset, descr_offset


def emit_match(entry: Any, obj: ir.Value, kind: RecordKind, fail: ir.Block) -> None:
    """Exactly an `np.void` or `np.record` whose dtype is the kind's."""
    from ember.dispatcher.object_layout import _object_constant

    b = entry.builder
    numpy = sys.modules["numpy"]
    ob_type = entry.ob_type(obj)
    is_record = b.or_(
        b.icmp_unsigned("==", ob_type, _object_constant(numpy.void)),
        b.icmp_unsigned("==", ob_type, _object_constant(numpy.record)),
    )
    entry.continue_if(is_record, fail, "record.type_ok")
    descr = entry.load_field(obj, _void_offsets()[1], _PTR, 8)
    entry.emit_match_dtype_object(descr, kind.dtype, fail)


def emit_unbox(entry: Any, obj: ir.Value, kind: RecordKind, fail: ir.Block) -> list[ir.Value]:
    """Borrow the scalar's bytes: no meminfo, the scalar as parent."""
    data = entry.load_field(obj, _void_offsets()[0], _PTR, 8)
    return [ir.Constant(_PTR, None), obj, data]


def emit_box(entry: Any, kind: RecordKind, ptr: ir.Value) -> ir.Value:
    """A new `np.record` holding a copy of the result's bytes (in a one-item array, its base,
    as the Python path makes it); the result's reference to its memory is released. NULL with
    the error set on failure."""
    from ember.dispatcher.object_layout import _FunctionPointer, _object_constant, numpy_capi

    b = entry.builder
    null = ir.Constant(_PTR, None)
    capi = numpy_capi()
    record_type = ir.LiteralStructType(RECORD_FIELDS)
    meminfo = b.load(entry.member_ptr(ptr, record_type, 0), typ=_PTR)
    data = b.load(entry.member_ptr(ptr, record_type, 2), typ=_PTR)
    descr = _object_constant(kind.record_dtype)
    entry.incref_object(descr)  # NewFromDescr steals one
    one = entry.alloca(_I64, "record.shape")
    b.store(ir.Constant(_I64, 1), one)
    new_from_descr = ir.FunctionType(_PTR, [_PTR, _PTR, _I32, _PTR, _PTR, _PTR, _I32, _PTR])
    numpy = sys.modules["numpy"]
    holder = b.call(
        _FunctionPointer(new_from_descr, capi.new_from_descr),
        [_object_constant(numpy.ndarray), descr, _I32(1), one, null, null, _I32(0), null],
    )
    result = entry.alloca(_PTR, "record.box")
    b.store(null, result)
    with b.if_then(b.icmp_unsigned("!=", holder, null), likely=True):
        from ember.dispatcher.object_layout import numpy_layout

        holder_data = entry.load_field(holder, numpy_layout().data, _PTR, 8)
        memcpy = b.module.declare_intrinsic("llvm.memcpy", [_PTR, _PTR, _I64])
        size = ir.Constant(_I64, kind.dtype.dtype.itemsize)
        b.call(memcpy, [holder_data, data, size, ir.Constant(ir.IntType(1), 0)])
        scalar = ir.FunctionType(_PTR, [_PTR, _PTR, _PTR])
        made = b.call(_FunctionPointer(scalar, capi.scalar), [holder_data, descr, holder])
        b.store(made, result)
        entry.call_capi("Py_DecRef", [holder])  # the record holds it as its base
    with b.if_then(b.icmp_unsigned("!=", meminfo, null)):
        entry.call_nrt(nrt.DECREF, meminfo)
    return b.load(result)
