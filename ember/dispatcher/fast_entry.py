"""Builds a dispatcher's native entry: generated code that matches Python argument types against
every compiled specialization and calls its machine code, falling back to the dispatcher's
Python path for anything else (see native_entry.py).

The entry is installed as the `tp_call` slot of the dispatcher's own class, so calling a
jitted function from Python runs no Python-level code on the fast path.
"""

from __future__ import annotations

import ctypes
import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ember import types
from ember.codegen.jit import glue_engine
from ember.dispatcher import native_entry
from ember.lowering.callconv import raise_static_exception

if TYPE_CHECKING:
    from ember.dispatcher.dispatcher import Dispatcher


def value_kind(typ: types.Type) -> Any:
    """The native-entry kind of a type (a name or a tuple of kinds), or None."""
    if isinstance(typ, types.Boolean):
        return "bool"
    if isinstance(typ, (types.Integer, types.Float, types.Complex)):
        return typ.name
    if isinstance(typ, types.NoneType):
        return "none"
    if isinstance(typ, types.Optional):  # returned only: None or a boxed scalar
        inner = value_kind(typ.type)
        return native_entry.OptionalKind(inner) if isinstance(inner, str) else None
    if isinstance(typ, types.ClassType):  # a jitclass passed as an argument: the class
        return native_entry.ConstantKind(typ.jit_class)
    if isinstance(typ, types.DispatcherType):  # a jitted function passed as an argument
        return native_entry.ConstantKind(typ.dispatcher)
    if isinstance(typ, types.BaseTuple) and not types.is_named_tuple(typ):
        members = tuple(value_kind(t) for t in typ.types)
        return None if None in members else members
    if isinstance(typ, types.ClassInstanceType):  # a jitclass box
        from ember.jitclasses.box import instance_kind

        return instance_kind(typ)
    if isinstance(typ, types.DictType):  # an ember.typed.Dict
        from ember.typed.typeddict import dict_kind

        return dict_kind(typ)
    if isinstance(typ, types.List):  # an ember.typed.List (a Python list: the slow path)
        from ember.typed.typedlist import list_kind

        return list_kind(typ)
    if isinstance(typ, types.Array):
        dtype = value_kind(typ.dtype)
        if not isinstance(dtype, str):
            return None
        return native_entry.ArrayKind(dtype, typ.ndim, typ.layout, typ.readonly)
    return None


def _positional_defaults(py_func: Callable) -> tuple | None:
    """Defaults of trailing positional parameters, or None when the fast path cannot bind
    the parameters positionally (*args, keyword-only parameters)."""
    params = inspect.signature(py_func).parameters.values()
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        return None
    return tuple(py_func.__defaults__ or ())


def _specializations(dispatcher: Dispatcher) -> list:
    found = []
    for args, result in dispatcher.overloads.items():
        arg_kinds = [value_kind(t) for t in args]
        ret_kind = value_kind(result.signature.return_type)
        if ret_kind is None or None in arg_kinds:
            continue
        if isinstance(ret_kind, tuple) and _holds_array(ret_kind):
            continue  # arrays inside returned tuples are boxed by the Python path
        if _holds(ret_kind, native_entry.ConstantKind):
            continue  # functions and classes returned are boxed by the Python path
        if not all(native_entry.fast_path_supported(k) for k in arg_kinds):
            continue
        found.append((arg_kinds, ret_kind, result.address))
    return found


def _holds_array(kind: Any) -> bool:
    return _holds(kind, native_entry.ArrayKind)


def _holds(kind: Any, kind_class: type) -> bool:
    if isinstance(kind, tuple):
        return any(_holds(member, kind_class) for member in kind)
    return isinstance(kind, kind_class)


def _array_boxers(dispatcher: Dispatcher) -> dict:
    """One Python boxer per returned array kind: `boxer(result_address, parent_or_None)`."""
    from ember.runtime.boxing import box_at

    boxers = {}
    for result in dispatcher.overloads.values():
        typ = result.signature.return_type
        kind = value_kind(typ)
        if isinstance(kind, native_entry.ArrayKind) and kind not in boxers:
            boxers[kind] = functools.partial(box_at, typ)
    return boxers


@functools.cache
def _capsule_destructor() -> int:
    """`void destructor(PyObject *capsule)`: releases the meminfo a capsule holds; the base
    object of every ndarray that compiled code allocated."""
    from llvmlite import ir as llvm

    from ember.runtime import nrt

    pointer = llvm.PointerType()
    module = llvm.Module(name="ember.capsule_destructor")
    function = llvm.Function(
        module, llvm.FunctionType(llvm.VoidType(), [pointer]), "ember.capsule_destructor"
    )
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    get_pointer = ctypes.cast(ctypes.pythonapi.PyCapsule_GetPointer, ctypes.c_void_p).value
    get_pointer_type = llvm.FunctionType(pointer, [pointer, pointer])
    meminfo = builder.call(
        native_entry._FunctionPointer(get_pointer_type, get_pointer),
        [function.args[0], llvm.Constant(pointer, None)],
    )
    decref = nrt.runtime().addresses[nrt.DECREF]
    builder.call(
        native_entry._FunctionPointer(llvm.FunctionType(llvm.VoidType(), [pointer]), decref),
        [meminfo],
    )
    builder.ret_void()
    jit = glue_engine()
    jit.add_module(jit.parse(str(module)))
    return jit.address_of("ember.capsule_destructor")


class FastEntry:
    """A compiled entry: the builtin (for direct use) and its call-slot wrappers' addresses."""

    def __init__(self, builtin: Callable, tp_call_address: int, vectorcall_address: int) -> None:
        self.builtin = builtin
        self.tp_call_address = tp_call_address
        self.vectorcall_address = vectorcall_address


def build_fast_entry(dispatcher: Dispatcher) -> FastEntry | None:
    """Generate the entry for the dispatcher's current specializations (None if no fast path)."""
    defaults = _positional_defaults(dispatcher.py_func)
    specializations = _specializations(dispatcher) if defaults is not None else []
    if not specializations:
        return None
    fallback = dispatcher._python_call
    boxers = _array_boxers(dispatcher)
    module, symbol = native_entry.build_entry_module(
        dispatcher.py_func.__name__,
        specializations,
        fallback,
        raise_static_exception,
        defaults=defaults,
        release_gil=dispatcher.options.nogil,
        param_names=dispatcher._binder.names,
        array_boxers=boxers,
        capsule_destructor=_capsule_destructor() if boxers else None,
    )
    jit = glue_engine()
    jit.add_module(jit.parse(str(module)))
    keepalive = [
        fallback,
        boxers,
        defaults,
        dispatcher._binder.names,
        [r.library for r in dispatcher.overloads.values()],
    ]
    builtin = native_entry.make_pycfunction(
        jit.address_of(symbol), dispatcher.py_func.__name__, keepalive
    )
    return FastEntry(
        builtin,
        jit.address_of(native_entry.tp_call_symbol(symbol)),
        jit.address_of(native_entry.vectorcall_symbol(symbol)),
    )
