"""The jitclass box's `__del__` as native code: consumes the box's `_meminfo` slot layout and the
runtime's decref, produces a method descriptor that releases the instance's reference with no
Python frame (dropping a box from Python cost more than making it in compiled code)."""

from __future__ import annotations

import ctypes
import functools
from typing import Any

from llvmlite import ir

from ember.dispatcher.object_layout import _capi_address, _FunctionPointer

_PTR = ir.PointerType()
_I64 = ir.IntType(64)
_METH_NOARGS = 0x0004  # CPython's methodobject.h
_SYMBOL = "ember.jitclass_box.del"


def _emit_del(module: ir.Module, meminfo_offset: int, decref: int) -> None:
    """`PyObject *del(PyObject *box, PyObject *unused)`: decref the meminfo the box's
    `_meminfo` int names (a box never filled in holds NULL there), return None."""
    function = ir.Function(module, ir.FunctionType(_PTR, [_PTR, _PTR]), _SYMBOL)
    entry, release, done = (function.append_basic_block(n) for n in ("entry", "release", "done"))
    builder = ir.IRBuilder(entry)
    offset = ir.Constant(_I64, meminfo_offset)
    slot = builder.gep(function.args[0], [offset], source_etype=ir.IntType(8))
    number = builder.load(slot, typ=_PTR)
    builder.cbranch(builder.icmp_unsigned("!=", number, ir.Constant(_PTR, None)), release, done)
    builder.position_at_end(release)
    as_pointer = _FunctionPointer(ir.FunctionType(_PTR, [_PTR]), _capi_address("PyLong_AsVoidPtr"))
    meminfo = builder.call(as_pointer, [number])
    builder.call(_FunctionPointer(ir.FunctionType(ir.VoidType(), [_PTR]), decref), [meminfo])
    builder.branch(done)
    builder.position_at_end(done)
    none = builder.inttoptr(ir.Constant(_I64, id(None)), _PTR)
    incref = _FunctionPointer(ir.FunctionType(ir.VoidType(), [_PTR]), _capi_address("Py_IncRef"))
    builder.call(incref, [none])
    builder.ret(none)


@functools.cache
def native_del(box_class: type, meminfo_offset: int) -> Any:
    """A `__del__` method descriptor of `box_class` running the compiled release (made once
    per process; its method definition is kept alive here, CPython points into it)."""
    from ember.codegen.jit import glue_engine
    from ember.dispatcher.native_entry import _PyMethodDef
    from ember.runtime import nrt

    module = ir.Module(name=_SYMBOL)
    _emit_del(module, meminfo_offset, nrt.runtime().addresses[nrt.DECREF])
    jit = glue_engine()
    jit.add_module(jit.parse(str(module)))
    definition = _PyMethodDef(b"__del__", jit.address_of(_SYMBOL), _METH_NOARGS, None)
    _keepalive.append(definition)
    new_method = ctypes.pythonapi.PyDescr_NewMethod
    new_method.restype = ctypes.py_object
    new_method.argtypes = [ctypes.py_object, ctypes.c_void_p]
    return new_method(box_class, ctypes.addressof(definition))


_keepalive: list = []
