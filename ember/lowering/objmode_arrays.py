"""Arrays across an objmode block, in generated code: array value <-> ndarray `PyObject*`.

Boxing returns the ndarray an array value came from (its `parent`) when the value still
describes exactly that ndarray (same data, shape and strides); other values go through Python
(`ember.runtime.boxing`). Unboxing reads the ndarray's fields (NumPy's public `PyArrayObject`
layout) into an array value whose meminfo owns a reference to the ndarray: compiled code may keep
the array after the block, and the ndarray is released with the meminfo's last reference.
"""

from __future__ import annotations

import threading
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.codegen.symbols import external_function, is_published, publish
from ember.lowering import callconv
from ember.lowering.models import model_of
from ember.lowering.pyapi import PythonAPI
from ember.runtime import nrt

_PTR = llvm.PointerType()
_I8 = llvm.IntType(8)
_I32 = llvm.IntType(32)
_I64 = llvm.IntType(64)

# PyArrayObject: PyObject_HEAD, char *data, int nd, npy_intp *dimensions, npy_intp *strides
_DATA, _ND, _DIMENSIONS, _STRIDES = 16, 24, 32, 40
_MEMBERS = {"meminfo": 0, "parent": 1, "nitems": 2, "itemsize": 3, "data": 4}
_SHAPE, _STRIDES_MEMBER = 5, 6


def _field(builder: llvm.IRBuilder, obj: llvm.Value, offset: int, typ: llvm.Type) -> llvm.Value:
    address = builder.gep(obj, [_I64(offset)], inbounds=True, source_etype=_I8)
    return builder.load(address, typ=typ)


def _element(builder: llvm.IRBuilder, pointer: llvm.Value, index: int) -> llvm.Value:
    return builder.load(builder.gep(pointer, [_I64(index)], source_etype=_I64), typ=_I64)


def box_array(pyapi: PythonAPI, typ: types.Array, value: llvm.Value, slow_boxer: Any):
    """A new reference to the ndarray for the array `value` (NULL with an exception set)."""
    builder = pyapi.builder
    model = model_of(typ)
    data = model.as_data(builder, value)
    parent = builder.extract_value(data, _MEMBERS["parent"])
    result = callconv.alloca_in_entry(builder, _PTR)
    builder.store(pyapi.get_null_object(), result)
    same = callconv.alloca_in_entry(builder, llvm.IntType(1))
    builder.store(llvm.Constant(llvm.IntType(1), 0), same)
    with builder.if_then(builder.icmp_unsigned("!=", parent, pyapi.get_null_object())):
        nd = _field(builder, parent, _ND, _I32)
        with builder.if_then(builder.icmp_signed("==", nd, _I32(typ.ndim))):
            builder.store(_describes(builder, typ, data, parent), same)
    with builder.if_else(builder.load(same)) as (reuse, convert):
        with reuse:
            pyapi.incref(parent)
            builder.store(parent, result)
        with convert:
            slot = callconv.alloca_in_entry(builder, model.data_type)
            builder.store(data, slot)
            address = pyapi.long_from_longlong(builder.ptrtoint(slot, pyapi.longlong))
            typ_obj = pyapi.borrow_constant(typ)
            builder.store(pyapi.call_function_objargs(slow_boxer, [typ_obj, address]), result)
            pyapi.decref(address)
    return builder.load(result)


def _describes(builder: llvm.IRBuilder, typ: types.Array, data: llvm.Value, parent) -> llvm.Value:
    """i1: the ndarray `parent` has the data pointer, shape and strides of the value `data`."""
    own_data = builder.extract_value(data, _MEMBERS["data"])
    equal = builder.icmp_unsigned("==", _field(builder, parent, _DATA, _PTR), own_data)
    dims = _field(builder, parent, _DIMENSIONS, _PTR)
    strides = _field(builder, parent, _STRIDES, _PTR)
    for index in range(typ.ndim):
        for member, pointer in ((_SHAPE, dims), (_STRIDES_MEMBER, strides)):
            own = builder.extract_value(data, [member, index])
            theirs = _element(builder, pointer, index)
            equal = builder.and_(equal, builder.icmp_signed("==", own, theirs))
    return equal


def unbox_array(pyapi: PythonAPI, typ: types.Array, obj: llvm.Value) -> tuple:
    """(array value, i1 is_error) for the ndarray `obj` (checked by the block runner to match
    `typ`); the value's meminfo holds a new reference to `obj`."""
    builder = pyapi.builder
    model = model_of(typ)
    meminfo = nrt.emit_allocate(builder, _I64(8))
    failed = builder.icmp_unsigned("==", meminfo, pyapi.get_null_object())
    with builder.if_then(failed, likely=False):
        pyapi.err_set_string(MemoryError, "ember: out of memory for an objmode output array")
    with builder.if_then(builder.not_(failed), likely=True):
        pyapi.incref(obj)
        builder.store(obj, nrt.emit_data_pointer(builder, meminfo))
        nrt.emit_set_destructor(builder, meminfo, _releaser(builder.module))
    data = llvm.Constant(model.data_type, llvm.Undefined)
    dims = _field(builder, obj, _DIMENSIONS, _PTR)
    strides = _field(builder, obj, _STRIDES, _PTR)
    nitems = _I64(1)
    for index in range(typ.ndim):
        extent = _element(builder, dims, index)
        nitems = builder.mul(nitems, extent)
        data = builder.insert_value(data, extent, [_SHAPE, index])
        stride = _element(builder, strides, index)
        data = builder.insert_value(data, stride, [_STRIDES_MEMBER, index])
    members = {
        "meminfo": meminfo,
        "parent": obj,
        "nitems": nitems,
        "itemsize": _I64(_itemsize(typ.dtype)),
        "data": _field(builder, obj, _DATA, _PTR),
    }
    for name, member in members.items():
        data = builder.insert_value(data, member, _MEMBERS[name])
    return model.from_data(builder, data), failed


def _itemsize(dtype: types.Type) -> int:
    import numpy as np

    return np.dtype("bool" if isinstance(dtype, types.Boolean) else dtype.name).itemsize


# ---------------------------------------------------------------------------- the destructor

_RELEASER_TYPE = llvm.FunctionType(llvm.VoidType(), [_PTR])
RELEASER = "ember_objmode_release"  # found by symbol: cached code works in any process
_releaser_lock = threading.Lock()


def _releaser(module: llvm.Module) -> llvm.Function:
    """`void ember_objmode_release(ptr meminfo)`, which drops the ndarray reference that the
    meminfo's data holds (taking the GIL: the last reference may go in `nogil` code)."""
    publish_symbol(RELEASER)
    return external_function(module, RELEASER, _RELEASER_TYPE)


def publish_symbol(name: str) -> None:
    with _releaser_lock:
        if not is_published(RELEASER):
            publish(RELEASER, _compile_releaser())


def _compile_releaser() -> int:
    """Machine code for the releaser; not optimized (it is a handful of calls), so that a
    process loading cached code runs no LLVM optimization."""
    from ember.codegen.jit import engine
    from ember.lowering.context import CPUContext

    jit = engine()
    module = llvm.Module(name="ember_objmode_release")
    module.triple = jit.triple
    module.data_layout = jit.data_layout
    body = RELEASER + ".body"
    function = llvm.Function(module, _RELEASER_TYPE, body)
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    pyapi = PythonAPI(CPUContext(), builder, _keepalive)
    gil = pyapi.gil_ensure()
    (meminfo,) = function.args
    pyapi.decref(builder.load(nrt.emit_data_pointer(builder, meminfo), typ=_PTR))
    pyapi.gil_release(gil)
    builder.ret_void()
    compiled = jit.parse(str(module))
    compiled.verify()
    jit.add_module(compiled)
    return jit.address_of(body)


_keepalive: list = []
