"""Builds a dispatcher's native entry: one generated builtin that matches Python argument types
against every compiled specialization and calls its machine code, falling back to the
dispatcher's Python path for anything else (see native_entry.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ember import types
from ember.codegen.jit import engine
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
    if isinstance(typ, types.BaseTuple):
        members = tuple(value_kind(t) for t in typ.types)
        return None if None in members else members
    return None


def _add_module(llvm_ir: str) -> Callable[[str], int]:
    jit = engine()
    jit.add_module(jit.parse(llvm_ir))
    return jit.address_of


def build_fast_entry(dispatcher: Dispatcher) -> Callable:
    specializations = []
    for args, result in dispatcher.overloads.items():
        arg_kinds = [value_kind(t) for t in args]
        ret_kind = value_kind(result.signature.return_type)
        if ret_kind is None or None in arg_kinds:
            continue
        if not all(native_entry.fast_path_supported(k) for k in arg_kinds):
            continue
        specializations.append((arg_kinds, ret_kind, result.address))
    if not specializations:
        return dispatcher._python_call
    libraries = [result.library for result in dispatcher.overloads.values()]
    return native_entry.compile_entry(
        dispatcher.py_func.__name__,
        specializations,
        dispatcher._python_call,
        raise_static_exception,
        _add_module,
        doc=dispatcher.py_func.__doc__,
        keepalive=libraries,
    )
