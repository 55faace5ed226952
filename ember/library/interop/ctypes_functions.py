"""ctypes function objects called from compiled code (a C library's function, a Python callback
made by `ctypes.CFUNCTYPE`, a Cython function's address): typed from `restype`/`argtypes` as a
`types.ExternalFunctionPointer` (one type per signature) and called through their address, as in
Numba; also the ctypes <-> ember type conversions of Numba's `ctypes_utils`."""

from __future__ import annotations

import ctypes
import functools
import weakref
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.dispatcher.typeof import typeof_impl
from ember.errors import LoweringError, TypingError
from ember.lowering.registry import box, lower_cast
from ember.typing.conversions import can_convert
from ember.typing.signature import Signature

_SIMPLE = {
    ctypes.c_bool: types.boolean,
    ctypes.c_int8: types.int8, ctypes.c_int16: types.int16, ctypes.c_int32: types.int32,
    ctypes.c_int64: types.int64, ctypes.c_uint8: types.uint8, ctypes.c_uint16: types.uint16,
    ctypes.c_uint32: types.uint32, ctypes.c_uint64: types.uint64,
    ctypes.c_float: types.float32, ctypes.c_double: types.float64,
    ctypes.c_void_p: types.voidptr, None: types.none,
}  # fmt: skip


def _ember_type(ctype: Any) -> types.Type | None:
    """The ember type of a ctypes type (c_int, c_long... are aliases of the sized ones); a
    pointer to what ember cannot type is a `void *`."""
    found = _SIMPLE.get(ctype)
    if found is None and isinstance(ctype, type) and issubclass(ctype, ctypes._Pointer):
        pointee = _ember_type(ctype._type_)
        return types.voidptr if pointee in (None, types.none) else types.CPointer(pointee)
    return found


def from_ctypes(ctype: Any) -> types.Type:
    """The ember type of a ctypes type (Numba's `ctypes_utils.from_ctypes`)."""
    found = _ember_type(ctype)
    if found is None:
        raise TypeError(f"Unsupported ctypes type: {ctype}")
    return found


def to_ctypes(ember_type: types.Type) -> Any:
    """The ctypes type of an ember type (Numba's `ctypes_utils.to_ctypes`)."""
    if isinstance(ember_type, types.CPointer):
        return ctypes.POINTER(to_ctypes(ember_type.dtype))
    for ctype, typ in _SIMPLE.items():
        if typ == ember_type:
            return ctype
    raise TypeError(f"Cannot convert Numba type '{ember_type}' to ctypes type")


def c_signature(function: Any) -> Signature:
    """The signature compiled code calls a ctypes function object with."""
    name = getattr(function, "__name__", repr(function))
    if function.argtypes is None:  # Numba's TypeError and words
        raise TypeError(
            f"ctypes function {name!r} doesn't define its argument types: set its argtypes "
            "and restype to call it from compiled code"
        )
    members = [_parameter_type(t) for t in (function.restype, *function.argtypes)]
    if None in members or members[0] is types.ffi_forced_object:
        raise TypingError(
            f"the ctypes function {name!r} takes or returns a type compiled code cannot pass "
            "(numbers, booleans, pointers and void are supported, and py_object arguments)"
        )
    return Signature(members[0], tuple(members[1:]))


def _parameter_type(ctype: Any) -> types.Type | None:
    """A C parameter's type: `py_object` is a boxed argument (`ffi_forced_object`)."""
    return types.ffi_forced_object if ctype is ctypes.py_object else _ember_type(ctype)


def get_pointer(function: Any) -> int:
    """The address of a ctypes function object (the `get_pointer` of its type)."""
    return ctypes.cast(function, ctypes.c_void_p).value


def is_ctypes_funcptr(obj: Any) -> bool:
    """Whether `obj` is a ctypes function object (Numba's `ctypes_utils` name)."""
    return isinstance(obj, ctypes._CFuncPtr)


def make_function_type(function: Any) -> types.ExternalFunctionPointer:
    """The type of a ctypes function object: by signature (one type, so one specialization, for
    all functions alike); called through its address, read from the object when passed in and
    fixed when a global."""
    key = id(function)
    known = _types_by_id.get(key)
    if (
        known is not None
        and known[0]() is function
        and known[1] is function.argtypes
        and known[2] is function.restype
    ):
        return known[3]  # a jitted function called again with it: typed without parsing
    found = types.ExternalFunctionPointer(c_signature(function), get_pointer)
    forget = functools.partial(_forget_type, key)
    _types_by_id[key] = (weakref.ref(function, forget), function.argtypes, function.restype, found)
    return found


# id -> (a weak reference to the function, its argtypes, its restype, its type); ctypes
# function objects are unhashable, and callbacks made in a loop must still be freed
_types_by_id: dict[int, tuple] = {}


def _forget_type(key: int, _reference: Any) -> None:
    _types_by_id.pop(key, None)


typeof_impl.register(ctypes._CFuncPtr)(make_function_type)


def c_call_signature(declared: Signature, args: tuple, kws: dict) -> Signature | None:
    """The signature of calling a C function declared `declared` with `args`, or None."""
    if kws or len(args) != len(declared.args):
        return None
    return declared if all(map(_passes_as, args, declared.args)) else None


def _passes_as(actual: types.Type, declared: types.Type) -> bool:
    """Whether a value of `actual` may be passed where C declares `declared`: by an implicit
    conversion, `a.ctypes` where C takes a void pointer or a pointer to `a`'s dtype, or any
    value that boxes where C takes a Python object."""
    from ember.library.numpy.arrays import ArrayCTypes

    if declared is types.ffi_forced_object:
        return True
    if isinstance(actual, types.NamedTuple) and actual.instance_class is ArrayCTypes:
        pointee = actual.types[3].dtype
        return declared == types.voidptr or declared == types.CPointer(pointee)
    if declared == types.voidptr and isinstance(actual, types.Integer):
        return True  # an address: `a.ctypes.data`
    return can_convert(actual, declared) is not None


@box(types.RawPointer)
def _box_address(typ: types.RawPointer, value: llvm.Value, c: Any) -> llvm.Value:
    """A `void *` returned to Python: its address as an int, as ctypes gives for c_void_p."""
    return c.pyapi.long_from_voidptr(value)


@lower_cast(types.NamedTuple, types.RawPointer)
@lower_cast(types.NamedTuple, types.CPointer)
def _array_ctypes_as_pointer(context, builder, from_type, to_type, value):
    """`a.ctypes` passed where C takes a pointer: the array's data, as NumPy's ctypes object
    converts to (ctypes' `_as_parameter_`)."""
    from ember.library.numpy.arrays import ArrayCTypes

    if from_type.instance_class is not ArrayCTypes:
        raise LoweringError(f"no conversion from {from_type} to {to_type}")
    address = builder.extract_value(value, 0)
    return builder.inttoptr(address, context.value_type(to_type))
