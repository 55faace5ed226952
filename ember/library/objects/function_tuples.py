"""Tuples of jitted functions indexed at run time: `(f, g)[i]` is a `DispatcherChoice`.

A constant index keeps the one function's own type (compile-time dispatch); a variable index
gives the choice among all the tuple's functions, called through a switch (lowering/first_class).
"""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.lowering.first_class import INDEX
from ember.lowering.registry import lower_builtin
from ember.types.functions import DispatcherChoice, function_members
from ember.typing.signature import signature
from ember.typing.templates import registry


class _FunctionTupleMeta(type):
    def __instancecheck__(cls, typ: object) -> bool:
        return is_function_tuple(typ)


class FunctionTuple(metaclass=_FunctionTupleMeta):
    """Lowering spec matching tuple types whose items are all jitted functions."""


def is_function_tuple(typ: object) -> bool:
    return isinstance(typ, types.BaseTuple) and all(
        function_members(item) is not None for item in typ.types
    )


def _choice_of(tuple_type: types.BaseTuple) -> DispatcherChoice:
    return DispatcherChoice(d for item in tuple_type.types for d in function_members(item))


@registry.typer(operator.getitem)
def _type_function_tuple_getitem(args, kws):
    container, index = (types.unliteral(a) for a in args)
    if is_function_tuple(container) and len(container) and isinstance(index, types.Integer):
        return signature(_choice_of(container), container, index)
    return None


@lower_builtin(operator.getitem, FunctionTuple, types.Integer)
def function_tuple_getitem(context, builder, sig, args):
    """The choice index of item `index` (negative counts from the end; checked)."""
    tuple_type, index_type = sig.args
    container, index = args
    count = llvm.Constant(index.type, len(tuple_type))
    if index_type.signed:
        negative = builder.icmp_signed("<", index, llvm.Constant(index.type, 0))
        index = builder.select(negative, builder.add(index, count), index)
    out_of_range = builder.icmp_unsigned(">=", index, count)
    context.guard(builder, out_of_range, IndexError, "tuple index out of range")
    choice = sig.return_type
    result = llvm.Constant(INDEX, 0)
    for position, item_type in enumerate(tuple_type.types):
        item = context.cast(builder, builder.extract_value(container, position), item_type, choice)
        is_this = builder.icmp_unsigned("==", index, llvm.Constant(index.type, position))
        result = builder.select(is_this, item, result)
    return result
