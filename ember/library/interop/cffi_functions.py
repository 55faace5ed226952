"""cffi in compiled code: the functions of an ABI-mode library (`ffi.dlopen`) or of an
out-of-line module registered with `register_module`, typed from their C declarations as
`types.ExternalFunctionPointer`s (by signature), and `ffi.from_buffer(array)`. Also Numba's
`cffi_utils` spelling (`ember.core.typing.cffi_utils`): `map_type`, `register_type`..."""

from __future__ import annotations

import sys
from typing import Any

from ember import types
from ember.dispatcher.typeof import register_typeof_hook
from ember.errors import TypingError
from ember.extending import intrinsic, lower_constant, models, overload_method, register_model
from ember.lowering import arrays as arr
from ember.typing.signature import Signature

_out_of_line: dict[int, tuple[Any, Any, int]] = {}  # id(lib function) -> (it, its ctype, address)
_registered_types: dict[Any, types.Type] = {}  # a cffi ctype -> the ember type users gave it
_reader = None  # a cffi.FFI, which reads the ctype of any cdata


def _ffi() -> Any:
    global _reader
    if _reader is None:
        import cffi

        _reader = cffi.FFI()
    return _reader


def _cdata_base() -> type | None:
    """cffi's cdata class; None while no program has imported cffi (then no cffi value exists)."""
    backend = sys.modules.get("_cffi_backend")
    return None if backend is None else backend._CDataBase


def is_cffi_func(obj: Any) -> bool:
    """Whether `obj` is a cffi function: of an ABI-mode library or a registered module."""
    if id(obj) in _out_of_line:
        return True
    base = _cdata_base()
    if base is None or not isinstance(obj, base):
        return False
    ctype = _ffi().typeof(obj)
    return ctype.kind == "function" or (ctype.kind == "pointer" and ctype.item.kind == "function")


def get_pointer(cffi_func: Any) -> int:
    """The address of a cffi function."""
    registered = _out_of_line.get(id(cffi_func))
    if registered is not None:
        return registered[2]
    return int(_ffi().cast("uintptr_t", cffi_func))


def _function_ctype(cffi_func: Any) -> Any:
    registered = _out_of_line.get(id(cffi_func))
    ctype = registered[1] if registered is not None else _ffi().typeof(cffi_func)
    return ctype.item if ctype.kind == "pointer" else ctype


_PRIMITIVES = {
    "bool": types.boolean, "_Bool": types.boolean, "float": types.float32,
    "double": types.float64,
}  # fmt: skip


def _integer(cname: str) -> types.Type:
    size = _ffi().sizeof(cname)
    unsigned = cname.startswith(("unsigned", "uint", "size_t", "uintptr_t")) or cname in ("_Bool",)
    return types.Integer.from_bitwidth(size * 8, signed=not unsigned)


def map_type(cffi_type: Any, use_record_dtype: bool = False) -> types.Type | Signature:
    """The ember type of a cffi ctype (a Signature for a function type)."""
    registered = _registered_types.get(cffi_type)
    if registered is not None:
        return registered
    kind = cffi_type.kind
    if kind == "function":
        if cffi_type.ellipsis:
            raise TypeError(f"cffi function type {cffi_type.cname} takes variadic arguments")
        arguments = tuple(map_type(a, use_record_dtype) for a in cffi_type.args)
        return Signature(map_type(cffi_type.result, use_record_dtype), arguments)
    if kind == "void":
        return types.none
    if kind == "primitive":
        found = _PRIMITIVES.get(cffi_type.cname)
        return found if found is not None else _integer(cffi_type.cname)
    if kind == "pointer":
        item = cffi_type.item
        if item.kind == "void":
            return types.voidptr
        if item.kind == "function":
            return types.FunctionType(map_type(item, use_record_dtype))
        return types.CPointer(map_type(item, use_record_dtype))
    if kind == "array":  # a fixed-size C array, as a struct member holds one
        return types.NestedArray(map_type(cffi_type.item, use_record_dtype), (cffi_type.length,))
    if kind == "struct" and use_record_dtype:
        return _record(cffi_type)
    raise TypeError(
        f"cffi type {cffi_type.cname} has no ember type: give it one with register_type()"
    )


def _record(cffi_type: Any) -> types.Type:
    import numpy as np

    from ember.dispatcher.typeof import typeof

    for name, field in cffi_type.fields:
        if field.bitshift != -1:  # a bit field: NumPy's records have no such member
            raise ValueError(f"field {name!r} has bitshift, this is not supported")
    fields = [(name, field.type, field.offset) for name, field in cffi_type.fields]
    dtype = np.dtype(
        {
            "names": [name for name, _, _ in fields],
            "formats": [_numpy_format(map_type(ctype, True)) for _, ctype, _ in fields],
            "offsets": [offset for _, _, offset in fields],
            "itemsize": _ffi().sizeof(cffi_type),
        },
        align=True,
    )
    return typeof(np.empty(1, dtype)).dtype


def _numpy_format(member: types.Type) -> Any:
    from ember.np.numpy_support import as_dtype

    return as_dtype(member)


def make_function_type(cffi_func: Any) -> types.ExternalFunctionPointer:
    """The type compiled code calls a cffi function as: by signature (one type for all cffi
    functions alike), called through its address."""
    return types.ExternalFunctionPointer(map_type(_function_ctype(cffi_func)), get_pointer)


def register_module(module: Any) -> None:
    """Make the functions of an out-of-line cffi module (`module.lib`) callable from compiled
    code, as Numba's `cffi_utils.register_module`."""
    ffi, lib = module.ffi, module.lib
    for name in dir(lib):
        function = getattr(lib, name)
        try:
            ctype = ffi.typeof(function)
        except TypeError:
            continue  # a constant or a global variable
        if ctype.kind == "function":
            address = int(ffi.cast("uintptr_t", ffi.addressof(lib, name)))
            _out_of_line[id(function)] = (function, ctype, address)


def register_type(cffi_type: Any, numba_type: types.Type) -> None:
    """Type a cffi ctype (a struct, say) as `numba_type` wherever it appears."""
    _registered_types[cffi_type] = numba_type


def is_ffi_instance(obj: Any) -> bool:
    """Whether `obj` is a cffi FFI (`cffi.FFI()` or an out-of-line module's `ffi`)."""
    backend = sys.modules.get("_cffi_backend")
    if backend is None:
        return False
    api = sys.modules.get("cffi.api")
    return isinstance(obj, backend.FFI) or (api is not None and isinstance(obj, api.FFI))


class FFIType(types.Opaque):
    """A cffi FFI object used in compiled code (for its `from_buffer`)."""

    def __init__(self) -> None:
        super().__init__("cffi.FFI")


ffi_type = FFIType()
register_model(FFIType)(models.OpaqueModel)


@lower_constant(FFIType)
def _ffi_constant(context, builder, ty, pyval):
    return context.get_dummy_value(ty)


@register_typeof_hook
def _typeof_cffi(value: Any) -> types.Type | None:
    if is_cffi_func(value):
        return make_function_type(value)
    if is_ffi_instance(value):
        return ffi_type
    return None


@intrinsic
def _buffer_pointer(typingctx, array):
    def codegen(context, builder, sig, args):
        return arr.unpack(builder, sig.args[0], args[0]).data

    return types.CPointer(array.dtype)(array), codegen


@overload_method(FFIType, "from_buffer")
def _from_buffer(ffi, buffer):
    """A pointer to the array's first item, for a C function to read or write in place."""
    if not isinstance(buffer, types.Buffer):
        raise TypingError(f"from_buffer() takes an array or a buffer, not {buffer}")
    if buffer.layout == "A":
        raise TypingError("from_buffer() unsupported on non-contiguous buffers")
    if buffer.ndim > 1 and buffer.layout != "C":
        raise TypingError("from_buffer() only supports multidimensional arrays with C layout")
    return lambda ffi, buffer: _buffer_pointer(buffer)
