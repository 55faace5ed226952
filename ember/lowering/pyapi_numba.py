"""More of Numba's `PythonAPI` names (`c.pyapi` in `@box`/`@unbox`): conversions between
Python numbers and native integers, containers, attribute and item access, and the generic
`to_native_value` / `from_native_value`. `PythonAPI` (pyapi.py) inherits these; each method
emits one C-API call through `self._call`, whose signature is listed in `SIGNATURES`."""

from __future__ import annotations

import ctypes
from typing import Any

from llvmlite import ir as llvm

_PTR = llvm.PointerType()
_INT = llvm.IntType(ctypes.sizeof(ctypes.c_int) * 8)
_LONG = llvm.IntType(ctypes.sizeof(ctypes.c_long) * 8)
_SSIZE = llvm.IntType(ctypes.sizeof(ctypes.c_ssize_t) * 8)

SIGNATURES: dict[str, tuple[llvm.Type, list[llvm.Type]]] = {
    "PyNumber_AsSsize_t": (_SSIZE, [_PTR, _PTR]),
    "PyNumber_Float": (_PTR, [_PTR]),
    "PyNumber_Long": (_PTR, [_PTR]),
    "PyNumber_Add": (_PTR, [_PTR, _PTR]),
    "PyNumber_Subtract": (_PTR, [_PTR, _PTR]),
    "PyNumber_Multiply": (_PTR, [_PTR, _PTR]),
    "PyLong_FromSsize_t": (_PTR, [_SSIZE]),
    "PyLong_AsSsize_t": (_SSIZE, [_PTR]),
    "PyLong_FromLong": (_PTR, [_LONG]),
    "PyLong_AsLong": (_LONG, [_PTR]),
    "PyLong_AsVoidPtr": (_PTR, [_PTR]),
    "PyLong_FromVoidPtr": (_PTR, [_PTR]),
    "PyObject_GetAttr": (_PTR, [_PTR, _PTR]),
    "PyObject_SetAttr": (_INT, [_PTR, _PTR, _PTR]),
    "PyObject_HasAttrString": (_INT, [_PTR, _PTR]),
    "PyObject_GetItem": (_PTR, [_PTR, _PTR]),
    "PyObject_SetItem": (_INT, [_PTR, _PTR, _PTR]),
    "PyObject_Str": (_PTR, [_PTR]),
    "PyObject_Repr": (_PTR, [_PTR]),
    "PyObject_IsInstance": (_INT, [_PTR, _PTR]),
    "PyUnicode_FromString": (_PTR, [_PTR]),
    "PyUnicode_FromStringAndSize": (_PTR, [_PTR, _SSIZE]),
    "PyBytes_FromStringAndSize": (_PTR, [_PTR, _SSIZE]),
    "PyBytes_AsString": (_PTR, [_PTR]),
    "PyBytes_Size": (_SSIZE, [_PTR]),
    "PyList_New": (_PTR, [_SSIZE]),
    "PyList_Size": (_SSIZE, [_PTR]),
    "PyList_GetItem": (_PTR, [_PTR, _SSIZE]),
    "PyList_SetItem": (_INT, [_PTR, _SSIZE, _PTR]),
    "PyList_Append": (_INT, [_PTR, _PTR]),
    "PyList_SetSlice": (_INT, [_PTR, _SSIZE, _SSIZE, _PTR]),
    "PyDict_New": (_PTR, []),
    "PyDict_SetItem": (_INT, [_PTR, _PTR, _PTR]),
    "PyDict_SetItemString": (_INT, [_PTR, _PTR, _PTR]),
    "PyDict_GetItemString": (_PTR, [_PTR, _PTR]),
    "PyErr_SetObject": (llvm.VoidType(), [_PTR, _PTR]),
    "PyErr_SetNone": (llvm.VoidType(), [_PTR]),
}


class NumbaPythonAPI:
    """Numba's PythonAPI method names (see module doc); mixed into `PythonAPI`."""

    builder: llvm.IRBuilder  # and PythonAPI's _call, _cstring, borrow_constant, ...

    # ------------------------------------------------------------------ native values

    def call_jit_code(self, func: Any, sig: Any, args: list) -> tuple[llvm.Value, llvm.Value]:
        """Run the Python function `func`, compiled for `sig`, on native `args` from inside
        boxing code: (is_error i1, result). On an error the Python exception is set, as
        returning NULL from a boxer or is_error from an unboxer expects."""
        from ember.decorators import njit
        from ember.lowering import callconv
        from ember.lowering.boxing import _call_native

        dispatcher = njit(func)
        compiled = dispatcher.compile(sig)
        self.keepalive.append(dispatcher)
        builder = self.builder
        status, excinfo, result = _call_native(builder, compiled.signature, compiled.address, args)
        is_error = builder.icmp_signed("!=", status, llvm.Constant(status.type, callconv.STATUS_OK))
        with builder.if_then(is_error, likely=False):
            record = self.long_from_longlong(builder.ptrtoint(excinfo, self.longlong))
            raiser = self.borrow_constant(callconv.raise_static_exception)
            self.decref(self.call_function_objargs(raiser, [record]))  # NULL: the error is set
            self.decref(record)
        return is_error, result

    def to_native_value(self, typ: Any, obj: llvm.Value) -> Any:
        """The `NativeValue` of `obj` as `typ` (the registered `@unbox`)."""
        return self._box_context().unbox(typ, obj)

    def from_native_value(self, typ: Any, value: llvm.Value, env_manager: Any = None):
        """A new reference to the Python object for `value` of `typ` (the registered `@box`)."""
        return self._box_context().box(typ, value)

    def _box_context(self) -> Any:
        from ember.lowering.boxing import BoxContext

        return BoxContext(self.context, self.builder, self)

    # ------------------------------------------------------------------ numbers

    def number_as_ssize_t(self, obj: llvm.Value) -> llvm.Value:
        """`operator.index(obj)` as a Py_ssize_t (-1 with OverflowError when it does not fit)."""
        return self._call("PyNumber_AsSsize_t", [obj, self.borrow_constant(OverflowError)])

    def number_float(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyNumber_Float", [obj])

    def number_long(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyNumber_Long", [obj])

    def number_add(self, lhs: llvm.Value, rhs: llvm.Value, inplace: bool = False) -> llvm.Value:
        return self._call("PyNumber_Add", [lhs, rhs])

    def number_subtract(self, lhs, rhs, inplace: bool = False) -> llvm.Value:
        return self._call("PyNumber_Subtract", [lhs, rhs])

    def number_multiply(self, lhs, rhs, inplace: bool = False) -> llvm.Value:
        return self._call("PyNumber_Multiply", [lhs, rhs])

    def long_from_ssize_t(self, value: llvm.Value) -> llvm.Value:
        return self._call("PyLong_FromSsize_t", [value])

    def long_as_ssize_t(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyLong_AsSsize_t", [obj])

    def long_from_long(self, value: llvm.Value) -> llvm.Value:
        return self._call("PyLong_FromLong", [value])

    def long_as_long(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyLong_AsLong", [obj])

    def long_as_voidptr(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyLong_AsVoidPtr", [obj])

    def long_from_voidptr(self, ptr: llvm.Value) -> llvm.Value:
        return self._call("PyLong_FromVoidPtr", [ptr])

    # ------------------------------------------------------------------ objects

    def object_getattr(self, obj: llvm.Value, attr: llvm.Value) -> llvm.Value:
        return self._call("PyObject_GetAttr", [obj, attr])

    def object_setattr(self, obj: llvm.Value, attr: llvm.Value, value: llvm.Value):
        return self._call("PyObject_SetAttr", [obj, attr, value])

    def object_hasattr_string(self, obj: llvm.Value, name: str) -> llvm.Value:
        return self._call("PyObject_HasAttrString", [obj, self._cstring(name)])

    def object_getitem(self, obj: llvm.Value, key: llvm.Value) -> llvm.Value:
        return self._call("PyObject_GetItem", [obj, key])

    def object_setitem(self, obj: llvm.Value, key: llvm.Value, value: llvm.Value):
        return self._call("PyObject_SetItem", [obj, key, value])

    def object_str(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyObject_Str", [obj])

    def object_repr(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyObject_Repr", [obj])

    def object_isinstance(self, obj: llvm.Value, cls: llvm.Value) -> llvm.Value:
        return self._call("PyObject_IsInstance", [obj, cls])

    def call_method(self, obj: llvm.Value, name: str, args: tuple = ()) -> llvm.Value:
        """`obj.name(*args)`; NULL with the exception set on failure."""
        method = self.object_getattr_string(obj, name)
        result = self.call_function_objargs(method, list(args))
        self.decref(method)
        return result

    def tuple_pack(self, items: list) -> llvm.Value:
        """A new tuple of `items` (the caller keeps its references)."""
        packed = self.tuple_new(len(items))
        for index, item in enumerate(items):
            self.incref(item)
            self.tuple_setitem(packed, index, item)
        return packed

    # ------------------------------------------------------------------ strings

    def string_from_string(self, cstring: llvm.Value) -> llvm.Value:
        return self._call("PyUnicode_FromString", [cstring])

    def string_from_string_and_size(self, cstring: llvm.Value, size: llvm.Value) -> llvm.Value:
        return self._call("PyUnicode_FromStringAndSize", [cstring, size])

    def bytes_from_string_and_size(self, data: llvm.Value, size: llvm.Value) -> llvm.Value:
        return self._call("PyBytes_FromStringAndSize", [data, size])

    def bytes_as_string(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyBytes_AsString", [obj])

    def bytes_size(self, obj: llvm.Value) -> llvm.Value:
        return self._call("PyBytes_Size", [obj])

    def string_from_constant_string(self, text: str) -> llvm.Value:
        return self.string_from_string(self._cstring(text))

    def print_object(self, obj: llvm.Value) -> None:
        """Write `str(obj)` to sys.stdout (no newline): Numba's `print_item` building block."""
        self.decref(self.call_function_objargs(self.borrow_constant(write_stdout), [obj]))

    def print_string(self, text: str) -> None:
        """Write the constant `text` to sys.stdout."""
        self.print_object(self.borrow_constant(text))

    # ------------------------------------------------------------------ lists and dicts

    def list_new(self, size: llvm.Value | int) -> llvm.Value:
        if isinstance(size, int):
            size = llvm.Constant(_SSIZE, size)
        return self._call("PyList_New", [size])

    def list_size(self, lst: llvm.Value) -> llvm.Value:
        return self._call("PyList_Size", [lst])

    def list_getitem(self, lst: llvm.Value, index: llvm.Value | int) -> llvm.Value:
        """Borrowed reference to `lst[index]`."""
        if isinstance(index, int):
            index = llvm.Constant(_SSIZE, index)
        return self._call("PyList_GetItem", [lst, index])

    def list_setitem(self, lst: llvm.Value, index: llvm.Value | int, item: llvm.Value):
        """Store `item` (the reference is stolen) at `lst[index]`."""
        if isinstance(index, int):
            index = llvm.Constant(_SSIZE, index)
        return self._call("PyList_SetItem", [lst, index, item])

    def list_append(self, lst: llvm.Value, item: llvm.Value) -> llvm.Value:
        return self._call("PyList_Append", [lst, item])

    def list_setslice(self, lst: llvm.Value, start, stop, items: llvm.Value) -> llvm.Value:
        """`lst[start:stop] = items` (a list; the caller keeps its reference); 0 or -1."""
        return self._call("PyList_SetSlice", [lst, start, stop, items])

    def dict_new(self, presize: int = 0) -> llvm.Value:
        return self._call("PyDict_New", [])

    def dict_setitem(self, dct: llvm.Value, key: llvm.Value, value: llvm.Value) -> llvm.Value:
        return self._call("PyDict_SetItem", [dct, key, value])

    def dict_setitem_string(self, dct: llvm.Value, key: str, value: llvm.Value) -> llvm.Value:
        return self._call("PyDict_SetItemString", [dct, self._cstring(key), value])

    def dict_pack(self, items: list) -> llvm.Value:
        """A new dict of `(str key, object)` pairs (the caller keeps its references); NULL
        with the exception set when the dict cannot be made."""
        packed = self.dict_new()
        is_made = self.builder.icmp_unsigned("!=", packed, llvm.Constant(_PTR, None))
        with self.builder.if_then(is_made):
            for key, value in items:
                self.dict_setitem_string(packed, key, value)
        return packed

    def dict_getitem_string(self, dct: llvm.Value, key: str) -> llvm.Value:
        """Borrowed reference to `dct[key]`, NULL (no exception) when missing."""
        return self._call("PyDict_GetItemString", [dct, self._cstring(key)])

    # ------------------------------------------------------------------ errors

    def err_set_object(self, exc: type | llvm.Value, value: llvm.Value) -> None:
        if isinstance(exc, type):
            exc = self.borrow_constant(exc)
        self._call("PyErr_SetObject", [exc, value])

    def err_set_none(self, exc: type | llvm.Value) -> None:
        if isinstance(exc, type):
            exc = self.borrow_constant(exc)
        self._call("PyErr_SetNone", [exc])


def write_stdout(obj: Any) -> None:
    import sys

    sys.stdout.write(str(obj))
