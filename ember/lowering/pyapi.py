"""Calls into the CPython C-API from generated code, under the names of Numba's `PythonAPI`
(`c.pyapi` inside `@box` / `@unbox` implementations).

Each C-API function is called through its absolute address in the running interpreter (found
with ctypes), so no symbol resolution or C compiler is involved. Python objects that generated
code refers to (`serialize_object`) are kept alive by the owner of that code.

Reference conventions follow the C-API: functions named after a C-API call returning a new
reference return one (NULL with a Python exception set on failure); `tuple_getitem` borrows.
"""

from __future__ import annotations

import builtins
import ctypes
from typing import Any

from llvmlite import ir as llvm

from ember.codegen.symbols import (
    builtin_symbol,
    capi_symbol,
    external_function,
    external_global,
    named_object_symbol,
    pickled_constant_symbol,
)
from ember.lowering.callconv import alloca_in_entry
from ember.lowering.pyapi_numba import SIGNATURES as _MORE_SIGNATURES
from ember.lowering.pyapi_numba import NumbaPythonAPI

_PTR = llvm.PointerType()
_VOID = llvm.VoidType()
_I32 = llvm.IntType(32)
_INT = llvm.IntType(ctypes.sizeof(ctypes.c_int) * 8)
_LONG = llvm.IntType(ctypes.sizeof(ctypes.c_long) * 8)
_LONGLONG = llvm.IntType(ctypes.sizeof(ctypes.c_longlong) * 8)
_SSIZE = llvm.IntType(ctypes.sizeof(ctypes.c_ssize_t) * 8)
_F64 = llvm.DoubleType()
_NULL = llvm.Constant(_PTR, None)

_SIGNATURES: dict[str, tuple[llvm.Type, list[llvm.Type]]] = {
    "Py_IncRef": (_VOID, [_PTR]),
    "Py_DecRef": (_VOID, [_PTR]),
    "PyErr_Occurred": (_PTR, []),
    "PyErr_SetString": (_VOID, [_PTR, _PTR]),
    "PyErr_Clear": (_VOID, []),
    "PyFloat_AsDouble": (_F64, [_PTR]),
    "PyFloat_FromDouble": (_PTR, [_F64]),
    "PyLong_AsLongLong": (_LONGLONG, [_PTR]),
    "PyLong_AsUnsignedLongLong": (_LONGLONG, [_PTR]),
    "PyLong_FromLongLong": (_PTR, [_LONGLONG]),
    "PyLong_FromUnsignedLongLong": (_PTR, [_LONGLONG]),
    "PyBool_FromLong": (_PTR, [_LONG]),
    "PyUnicode_FromKindAndData": (_PTR, [llvm.IntType(32), _PTR, _SSIZE]),
    "PyObject_IsTrue": (_INT, [_PTR]),
    "PyComplex_RealAsDouble": (_F64, [_PTR]),
    "PyComplex_ImagAsDouble": (_F64, [_PTR]),
    "PyComplex_FromDoubles": (_PTR, [_F64, _F64]),
    "PyObject_GetAttrString": (_PTR, [_PTR, _PTR]),
    "PyObject_SetAttrString": (_INT, [_PTR, _PTR, _PTR]),
    "PyObject_CallObject": (_PTR, [_PTR, _PTR]),
    "PyObject_Call": (_PTR, [_PTR, _PTR, _PTR]),
    "PyTuple_New": (_PTR, [_SSIZE]),
    "PyList_New": (_PTR, [_SSIZE]),
    "PyList_SetItem": (llvm.IntType(32), [_PTR, _SSIZE, _PTR]),
    "PyTuple_GetItem": (_PTR, [_PTR, _SSIZE]),
    "PyTuple_SetItem": (_INT, [_PTR, _SSIZE, _PTR]),
    "PyTuple_Size": (_SSIZE, [_PTR]),
    "PyGILState_Ensure": (_INT, []),
    "PyGILState_Release": (_VOID, [_INT]),
    "PyErr_WriteUnraisable": (_VOID, [_PTR]),
    "PyErr_Fetch": (_VOID, [_PTR, _PTR, _PTR]),
    "PyErr_NormalizeException": (_VOID, [_PTR, _PTR, _PTR]),
    "PyException_SetTraceback": (_INT, [_PTR, _PTR]),
    **_MORE_SIGNATURES,
}


class _FunctionPointer(llvm.values.FormattedConstant):
    """An absolute function address usable as a callee (it carries its function type)."""

    def __init__(self, function_type: llvm.FunctionType, address: int) -> None:
        super().__init__(_PTR, f"inttoptr (i64 {address} to ptr)")
        self.function_type = function_type


def _object_pointer(obj: object, module: llvm.Module | None = None) -> llvm.Constant:
    """A pointer to `obj`: by symbol for builtins (None, True, ValueError...), ember's own
    functions and ember's types, whose code then works in any process (ember/codegen/
    symbols.py); by its address in this process for other objects."""
    if module is not None:
        symbol = builtin_symbol(obj) or named_object_symbol(obj) or pickled_constant_symbol(obj)
        if symbol is not None:
            return external_global(module, symbol)
    return llvm.Constant(llvm.IntType(64), id(obj)).inttoptr(_PTR)


class PythonAPI(NumbaPythonAPI):
    """Emit C-API calls with `builder`; `keepalive` receives the Python objects the code uses."""

    pyobj = _PTR
    long = _LONG
    longlong = _LONGLONG
    py_ssize_t = _SSIZE
    double = _F64

    def __init__(self, context: Any, builder: llvm.IRBuilder, keepalive: list) -> None:
        self.context = context
        self.builder = builder
        self.keepalive = keepalive
        self._strings: dict[str, llvm.GlobalVariable] = {}

    # ------------------------------------------------------------------ plumbing

    def _call(self, name: str, args: list) -> llvm.Value:
        restype, argtypes = _SIGNATURES[name]
        fnty = llvm.FunctionType(restype, argtypes)
        callee = external_function(self.builder.module, capi_symbol(name), fnty)
        return self.builder.call(callee, args)

    def _cstring(self, text: str) -> llvm.GlobalVariable:
        found = self._strings.get(text)
        if found is None:
            module = self.builder.module
            data = bytearray(text.encode("utf-8") + b"\0")
            const = llvm.Constant(llvm.ArrayType(llvm.IntType(8), len(data)), data)
            found = llvm.GlobalVariable(module, const.type, module.get_unique_name("ember.str"))
            found.linkage = "private"
            found.global_constant = True
            found.initializer = const
            self._strings[text] = found
        return found

    # ------------------------------------------------------------------ objects and references

    def serialize_object(self, obj: object) -> object:
        """A handle for `obj` usable by `unserialize` (the object is kept alive)."""
        self.keepalive.append(obj)
        return obj

    def unserialize(self, handle: object) -> llvm.Value:
        """A new reference to the object behind a `serialize_object` handle."""
        pointer = _object_pointer(handle, self.builder.module)
        self.incref(pointer)
        return pointer

    def borrow_constant(self, obj: object) -> llvm.Value:
        """A borrowed reference to `obj` (kept alive as long as the generated code)."""
        self.keepalive.append(obj)
        return _object_pointer(obj, self.builder.module)

    def get_null_object(self) -> llvm.Value:
        return llvm.Constant(_PTR, None)

    def borrow_none(self) -> llvm.Value:
        return _object_pointer(None, self.builder.module)

    def make_none(self) -> llvm.Value:
        none = _object_pointer(None, self.builder.module)
        self.incref(none)
        return none

    def incref(self, obj: llvm.Value) -> None:
        self._call("Py_IncRef", [obj])

    def decref(self, obj: llvm.Value) -> None:
        """Release a reference; NULL is allowed (Py_XDECREF)."""
        self._call("Py_DecRef", [obj])

    # ------------------------------------------------------------------ errors

    def gil_ensure(self) -> llvm.Value:
        """Take the GIL (compiled code may run without it); returns the state to release."""
        return self._call("PyGILState_Ensure", [])

    def gil_release(self, state: llvm.Value) -> None:
        self._call("PyGILState_Release", [state])

    def err_occurred(self) -> llvm.Value:
        """The pending exception type (borrowed), or NULL when none is set."""
        return self._call("PyErr_Occurred", [])

    def err_set_string(self, exc: type | str, message: str) -> None:
        """Set `exc` (a class, or a name such as "PyExc_TypeError") with a constant message."""
        if isinstance(exc, str):
            exc = getattr(builtins, exc.removeprefix("PyExc_"))
        self._call("PyErr_SetString", [self.borrow_constant(exc), self._cstring(message)])

    def write_unraisable(self, where: object = None) -> None:
        """Report the pending exception where it cannot be raised (sys.unraisablehook); with
        `where`, the report says "Exception ignored in: <where>"."""
        context = self.get_null_object() if where is None else self.borrow_constant(where)
        self._call("PyErr_WriteUnraisable", [context])

    def err_clear(self) -> None:
        self._call("PyErr_Clear", [])

    def err_fetch_exception(self) -> llvm.Value:
        """Take the pending exception out of the thread state: a new reference to the
        normalized exception instance (its traceback attached); the error indicator is clear."""
        slots = [alloca_in_entry(self.builder, _PTR) for _ in range(3)]
        self._call("PyErr_Fetch", slots)
        self._call("PyErr_NormalizeException", slots)
        exc_type, exc_value, traceback = (self.builder.load(slot, typ=_PTR) for slot in slots)
        with self.builder.if_then(self.builder.icmp_unsigned("!=", traceback, _NULL)):
            self._call("PyException_SetTraceback", [exc_value, traceback])
        self.decref(exc_type)
        self.decref(traceback)
        return exc_value

    # ------------------------------------------------------------------ numbers

    def float_as_double(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyFloat_AsDouble", [obj])

    def float_from_double(self, value: llvm.Value) -> llvm.Value:
        return self._call("PyFloat_FromDouble", [value])

    def long_as_longlong(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyLong_AsLongLong", [obj])

    def long_as_ulonglong(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyLong_AsUnsignedLongLong", [obj])

    def long_from_longlong(self, value: llvm.Value) -> llvm.Value:
        return self._call("PyLong_FromLongLong", [value])

    def long_from_ulonglong(self, value: llvm.Value) -> llvm.Value:
        return self._call("PyLong_FromUnsignedLongLong", [value])

    def list_new(self, size: llvm.Value) -> llvm.Value:
        return self._call("PyList_New", [size])

    def list_setitem(self, lst: llvm.Value, index: llvm.Value, item: llvm.Value) -> llvm.Value:
        """Steals the reference to `item`."""
        return self._call("PyList_SetItem", [lst, index, item])

    def unicode_from_kind_and_data(self, kind, data, length) -> llvm.Value:
        return self._call("PyUnicode_FromKindAndData", [kind, data, length])

    def bool_from_long(self, value: llvm.Value) -> llvm.Value:
        return self._call("PyBool_FromLong", [value])

    def bool_from_bool(self, bit: llvm.Value) -> llvm.Value:
        return self.bool_from_long(self.builder.zext(bit, _LONG))

    def object_istrue(self, obj: llvm.Value) -> llvm.Value:
        """`int` 1, 0, or -1 on error."""
        return self._call("PyObject_IsTrue", [obj])

    def complex_real_as_double(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyComplex_RealAsDouble", [obj])

    def complex_imag_as_double(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyComplex_ImagAsDouble", [obj])

    def complex_from_doubles(self, real: llvm.Value, imag: llvm.Value) -> llvm.Value:
        return self._call("PyComplex_FromDoubles", [real, imag])

    # ------------------------------------------------------------------ attributes and calls

    def object_getattr_string(self, obj: llvm.Value, name: str) -> llvm.Value:
        return self._call("PyObject_GetAttrString", [obj, self._cstring(name)])

    def object_setattr_string(self, obj: llvm.Value, name: str, value: llvm.Value) -> llvm.Value:
        return self._call("PyObject_SetAttrString", [obj, self._cstring(name), value])

    def call(self, callee: llvm.Value, args: llvm.Value, kws: llvm.Value | None = None):
        """`callee(*args, **kws)` with a tuple `args` and an optional dict `kws`."""
        return self._call("PyObject_Call", [callee, args, kws or self.get_null_object()])

    def call_function_objargs(self, callee: llvm.Value, objargs: list) -> llvm.Value:
        """`callee(*objargs)`; NULL (with the pending exception) if any argument is NULL."""
        builder = self.builder
        all_present = llvm.Constant(llvm.IntType(1), 1)
        for arg in objargs:
            present = builder.icmp_unsigned("!=", arg, llvm.Constant(_PTR, None))
            all_present = builder.and_(all_present, present)
        result_slot = alloca_in_entry(builder, _PTR)
        builder.store(self.get_null_object(), result_slot)
        with builder.if_then(all_present, likely=True):
            packed = self.tuple_new(len(objargs))
            with builder.if_then(builder.icmp_unsigned("!=", packed, self.get_null_object())):
                for index, arg in enumerate(objargs):
                    self.incref(arg)  # PyTuple_SetItem steals; the caller keeps its reference
                    self.tuple_setitem(packed, index, arg)
                builder.store(self._call("PyObject_CallObject", [callee, packed]), result_slot)
                self.decref(packed)
        return builder.load(result_slot, typ=_PTR)  # (a generator's slot is an opaque ptr)

    # ------------------------------------------------------------------ tuples

    def tuple_new(self, count: int) -> llvm.Value:
        return self._call("PyTuple_New", [llvm.Constant(_SSIZE, count)])

    def tuple_getitem(self, tup: llvm.Value, index: int | llvm.Value) -> llvm.Value:
        """Borrowed reference to `tup[index]`."""
        if isinstance(index, int):
            index = llvm.Constant(_SSIZE, index)
        return self._call("PyTuple_GetItem", [tup, index])

    def tuple_setitem(self, tup: llvm.Value, index: int, item: llvm.Value) -> llvm.Value:
        """Store `item` (the reference is stolen) at `tup[index]`."""
        return self._call("PyTuple_SetItem", [tup, llvm.Constant(_SSIZE, index), item])

    def tuple_size(self, tup: llvm.Value) -> llvm.Value:
        return self._call("PyTuple_Size", [tup])
