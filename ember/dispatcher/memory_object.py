"""The Python object that owns runtime memory behind an ndarray the native call entry returns:
`ember.runtime.MemInfo`, a heap type made once with `PyType_FromSpec` whose instances hold one
meminfo reference and release it when NumPy drops the array's base (as Numba's MemInfo does)."""

from __future__ import annotations

import ctypes
import functools

from llvmlite import ir

from ember.dispatcher.object_layout import _capi_address, _FunctionPointer

_PTR = ir.PointerType()
_I64 = ir.IntType(64)
_OBJECT_HEADER = 2 * ctypes.sizeof(ctypes.c_void_p)  # ob_refcnt, ob_type
_MEMINFO_OFFSET = _OBJECT_HEADER

# CPython's typeslots.h, structmember.h and object.h
_TP_DEALLOC = 52
_TP_DOC = 56
_TP_MEMBERS = 72
_T_PYSSIZET = 19
_READONLY = 1
_TPFLAGS_DISALLOW_INSTANTIATION = 1 << 7  # made by compiled code only: never a NULL meminfo
_TPFLAGS_DEFAULT = 1 << 18


class _Slot(ctypes.Structure):
    _fields_ = [("slot", ctypes.c_int), ("pfunc", ctypes.c_void_p)]


class _Member(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("type", ctypes.c_int),
        ("offset", ctypes.c_ssize_t),
        ("flags", ctypes.c_int),
        ("doc", ctypes.c_char_p),
    ]


class _Spec(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("basicsize", ctypes.c_int),
        ("itemsize", ctypes.c_int),
        ("flags", ctypes.c_uint),
        ("slots", ctypes.POINTER(_Slot)),
    ]


class MemoryObjectType:
    """The type object and the address of `PyObject *new(ptr meminfo)`, which steals the
    meminfo reference (NULL when Python is out of memory; the reference is then released)."""

    def __init__(self, type_object: type, constructor: int, keepalive: list) -> None:
        self.type_object = type_object
        self.constructor = constructor
        self._keepalive = keepalive  # the spec's strings and members, which CPython points into


def _call(builder: ir.IRBuilder, address: int, signature: ir.FunctionType, args: list):
    return builder.call(_FunctionPointer(signature, address), args)


def _meminfo_slot(builder: ir.IRBuilder, obj: ir.Value) -> ir.Value:
    return builder.gep(obj, [ir.Constant(_I64, _MEMINFO_OFFSET)], source_etype=ir.IntType(8))


def _emit_dealloc(module: ir.Module, decref: int) -> None:
    """`void dealloc(PyObject *self)`: release the meminfo, free the object, drop its type (a
    heap type's instances each hold a reference to it)."""
    unary = ir.FunctionType(ir.VoidType(), [_PTR])
    function = ir.Function(module, unary, "ember.memory_object.dealloc")
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    obj = function.args[0]
    meminfo = builder.load(_meminfo_slot(builder, obj), typ=_PTR)
    _call(builder, decref, unary, [meminfo])  # NULL: no-op
    type_slot = builder.gep(obj, [ir.Constant(_I64, 8)], source_etype=ir.IntType(8))
    type_object = builder.load(type_slot, typ=_PTR)
    _call(builder, _capi_address("PyObject_Free"), unary, [obj])
    _call(builder, _capi_address("Py_DecRef"), unary, [type_object])
    builder.ret_void()


def _emit_constructor(module: ir.Module, type_address: int, decref: int) -> None:
    function = ir.Function(module, ir.FunctionType(_PTR, [_PTR]), "ember.memory_object.new")
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    meminfo = function.args[0]
    alloc = ir.FunctionType(_PTR, [_PTR, _I64])
    type_pointer = builder.inttoptr(ir.Constant(_I64, type_address), _PTR)
    obj = _call(
        builder, _capi_address("PyType_GenericAlloc"), alloc, [type_pointer, ir.Constant(_I64, 0)]
    )
    made = function.append_basic_block("made")
    failed = function.append_basic_block("failed")
    builder.cbranch(builder.icmp_unsigned("!=", obj, ir.Constant(_PTR, None)), made, failed)
    builder.position_at_end(failed)
    _call(builder, decref, ir.FunctionType(ir.VoidType(), [_PTR]), [meminfo])
    builder.ret(obj)
    builder.position_at_end(made)
    builder.store(meminfo, _meminfo_slot(builder, obj))
    builder.ret(obj)


def _refcount(self) -> int:
    """The runtime's count of references to this memory (Numba's `MemInfo.refcount`)."""
    from ember.runtime.nrt import refcount

    return refcount(self.meminfo)


def _data(self) -> int:
    """The address of the memory's data (Numba's `MemInfo.data`)."""
    from ember.runtime.nrt import data_address

    return data_address(self.meminfo)


@functools.cache
def memory_object_type() -> MemoryObjectType:
    """Make the type (once per process) and compile its deallocator and constructor."""
    from ember.codegen.jit import glue_engine
    from ember.runtime import nrt

    decref = nrt.runtime().addresses[nrt.DECREF]
    module = ir.Module(name="ember.memory_object")
    _emit_dealloc(module, decref)
    jit = glue_engine()
    jit.add_module(jit.parse(str(module)))
    members = (_Member * 2)(
        _Member(b"meminfo", _T_PYSSIZET, _MEMINFO_OFFSET, _READONLY, b"the meminfo's address"),
        _Member(),
    )
    doc = b"Runtime memory owned by an array returned from compiled code."
    slots = (_Slot * 4)(
        _Slot(_TP_DEALLOC, jit.address_of("ember.memory_object.dealloc")),
        _Slot(_TP_MEMBERS, ctypes.addressof(members)),
        _Slot(_TP_DOC, ctypes.cast(ctypes.c_char_p(doc), ctypes.c_void_p).value),
        _Slot(0, None),
    )
    name = b"ember.runtime.MemInfo"
    spec = _Spec(name, _MEMINFO_OFFSET + 8, 0, _TPFLAGS_DEFAULT | _TPFLAGS_DISALLOW_INSTANTIATION,
                 slots)  # fmt: skip
    from_spec = ctypes.pythonapi.PyType_FromSpec
    from_spec.restype = ctypes.py_object
    from_spec.argtypes = [ctypes.POINTER(_Spec)]
    type_object = from_spec(ctypes.byref(spec))
    type_object.refcount = property(_refcount)
    type_object.data = property(_data)
    constructor_module = ir.Module(name="ember.memory_object.new")
    _emit_constructor(constructor_module, id(type_object), decref)
    jit.add_module(jit.parse(str(constructor_module)))
    constructor = jit.address_of("ember.memory_object.new")
    return MemoryObjectType(type_object, constructor, [members, slots, spec, name, doc])
