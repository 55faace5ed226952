"""Small code-generation helpers for extension code, under Numba's `cgutils` names.

`create_struct_proxy(typ)(context, builder, value=...)` reads and writes the members of a
StructModel-backed value by name; the proxy holds an SSA value (`_getvalue()` returns it), so
writes build a new struct value rather than storing to memory.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.lowering.callconv import alloca_in_entry
from ember.lowering.models import StructModel, model_of

true_bit = llvm.Constant(llvm.IntType(1), 1)
false_bit = llvm.Constant(llvm.IntType(1), 0)


def is_null(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.icmp_unsigned("==", value, llvm.Constant(value.type, None))


def is_not_null(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.icmp_unsigned("!=", value, llvm.Constant(value.type, None))


def get_null_value(typ: llvm.Type) -> llvm.Constant:
    return llvm.Constant(typ, None)


def if_likely(builder: llvm.IRBuilder, condition: llvm.Value) -> Any:
    return builder.if_then(condition, likely=True)


def if_unlikely(builder: llvm.IRBuilder, condition: llvm.Value) -> Any:
    return builder.if_then(condition, likely=False)


def alloca_once(builder: llvm.IRBuilder, typ: llvm.Type, name: str = "") -> llvm.Value:
    """A stack slot allocated once, in the function's entry block."""
    return alloca_in_entry(builder, typ, name)


class _StructProxy:
    """Members of one struct value by name (see `create_struct_proxy`)."""

    _fe_type: types.Type

    def __init__(self, context: Any, builder: llvm.IRBuilder, value: llvm.Value | None = None):
        model = model_of(self._fe_type)
        if not isinstance(model, StructModel):
            raise TypeError(f"{self._fe_type} is not backed by a StructModel")
        object.__setattr__(self, "_context", context)
        object.__setattr__(self, "_builder", builder)
        object.__setattr__(self, "_datamodel", model)
        if value is None:
            value = llvm.Constant(model.value_type, llvm.Undefined)
        object.__setattr__(self, "_value", value)

    def __getattr__(self, name: str) -> llvm.Value:
        model = object.__getattribute__(self, "_datamodel")
        if name not in model.member_names:
            raise AttributeError(f"{self._fe_type} has no member {name!r}")
        return self._builder.extract_value(self._value, model.index_of(name))

    def __setattr__(self, name: str, member: llvm.Value) -> None:
        if name not in self._datamodel.member_names:
            raise AttributeError(f"{self._fe_type} has no member {name!r}")
        index = self._datamodel.index_of(name)
        value = self._builder.insert_value(self._value, member, index)
        object.__setattr__(self, "_value", value)

    def __getitem__(self, index: int) -> llvm.Value:
        return self._builder.extract_value(self._value, index)

    def _getvalue(self) -> llvm.Value:
        return self._value


def create_struct_proxy(fe_type: types.Type) -> type:
    """A class whose instances `(context, builder, value=None)` view a struct value by name."""
    return type(f"StructProxy_{fe_type}", (_StructProxy,), {"_fe_type": fe_type})
