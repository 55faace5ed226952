"""Exceptions raised by ufunc kernels, in the generated inner loops: each loop keeps the first
one in an EXCINFO record (ember/lowering/callconv.py), and NumPy's loop function raises it
as a Python exception (taking the GIL) once the loop is done, so the ufunc call raises it."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember.codegen.symbols import capi_symbol, external_function
from ember.lowering import callconv
from ember.lowering.pyapi import _object_pointer
from ember.runtime import nrt

_PTR = llvm.PointerType()
_I32 = llvm.IntType(32)
_I64 = llvm.IntType(64)
NO_ERROR = llvm.Constant(callconv.EXCINFO_TYPE, [0, None])

_CAPI = {
    "PyGILState_Ensure": llvm.FunctionType(_I32, []),
    "PyGILState_Release": llvm.FunctionType(llvm.VoidType(), [_I32]),
    "PyLong_FromLongLong": llvm.FunctionType(_PTR, [_I64]),
    "PyObject_CallOneArg": llvm.FunctionType(_PTR, [_PTR, _PTR]),
    "Py_DecRef": llvm.FunctionType(llvm.VoidType(), [_PTR]),
}


def has_error(builder: llvm.IRBuilder, record: llvm.Value) -> llvm.Value:
    """Whether the record at `record` holds an exception (its id is not 0)."""
    exc_id = builder.load(record, typ=callconv.EXCINFO_TYPE.elements[0])
    return builder.icmp_signed("!=", exc_id, llvm.Constant(exc_id.type, 0))


def keep_first(builder: llvm.IRBuilder, first: llvm.Value, error: llvm.Value) -> None:
    """Copy the record at `error` into `first` unless that already holds one; a dropped
    record's payload is released."""
    record = builder.load(error, typ=callconv.EXCINFO_TYPE)
    with builder.if_else(has_error(builder, first)) as (dropped, kept):
        with dropped:
            nrt.emit_decref(builder, builder.extract_value(record, 1))
        with kept:
            builder.store(record, first)


def raise_kernel_error(builder: llvm.IRBuilder, record: llvm.Value) -> None:
    """When the record holds an exception, set it as the calling thread's Python error."""
    with builder.if_then(has_error(builder, record), likely=False):
        state = _capi(builder, "PyGILState_Ensure", [])
        address = _capi(builder, "PyLong_FromLongLong", [builder.ptrtoint(record, _I64)])
        raiser = _object_pointer(callconv.raise_static_exception, builder.module)
        # it always raises (returns NULL); a NULL address object leaves MemoryError set
        with builder.if_then(builder.icmp_unsigned("!=", address, llvm.Constant(_PTR, None))):
            _capi(builder, "Py_DecRef", [_capi(builder, "PyObject_CallOneArg", [raiser, address])])
            _capi(builder, "Py_DecRef", [address])
        _capi(builder, "PyGILState_Release", [state])


def _capi(builder: llvm.IRBuilder, name: str, args: list) -> llvm.Value:
    callee = external_function(builder.module, capi_symbol(name), _CAPI[name])
    return builder.call(callee, args)
