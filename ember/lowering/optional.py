"""Optional(T) values in native code: their data model {data, valid}, the casts to and from
them, and the run-time checks that raise Python's errors when a None is used as a T.

A None is stored with `valid` 0 and zeroed data, so releasing the data of a None (an Optional
array) is a no-op and no path ever reads bits that were never written as a T.
"""

from __future__ import annotations

import operator
from itertools import combinations

from llvmlite import ir as llvm

from ember import types
from ember.ir import nodes as ir
from ember.lowering.models import StructModel, register_model
from ember.lowering.registry import lower_cast

_i1 = llvm.IntType(1)


@register_model(types.Optional)
class OptionalModel(StructModel):
    def __init__(self, fe_type: types.Optional) -> None:
        super().__init__(fe_type, [("data", fe_type.type), ("valid", types.boolean)])


def make_optional(context, builder, opt_type: types.Optional, data, valid) -> llvm.Value:
    result = llvm.Constant(context.value_type(opt_type), llvm.Undefined)
    result = builder.insert_value(result, data, 0)
    return builder.insert_value(result, valid, 1)


def none_value(context, opt_type: types.Optional) -> llvm.Value:
    """The constant None of an Optional type: zeroed data, valid 0."""
    return llvm.Constant(context.value_type(opt_type), None)


def is_valid(builder, value: llvm.Value) -> llvm.Value:
    return builder.extract_value(value, 1)


def unwrap(context, builder, opt_type: types.Optional, value, exc_class: type, message: str):
    """The T inside `value`, raising `exc_class(message)` when it is None."""
    context.guard(builder, builder.not_(is_valid(builder, value)), exc_class, message)
    return builder.extract_value(value, 0)


# ---------------------------------------------------------------------------- casts
# Registered from the most general to the most specific: the last registration that
# matches wins.


@lower_cast(types.Type, types.Optional)
def value_to_optional(context, builder, from_type, to_type, value):
    data = context.cast(builder, value, from_type, to_type.type)
    return make_optional(context, builder, to_type, data, llvm.Constant(_i1, 1))


@lower_cast(types.NoneType, types.Optional)
def none_to_optional(context, builder, from_type, to_type, value):
    return none_value(context, to_type)


@lower_cast(types.Optional, types.Type)
def optional_to_value(context, builder, from_type, to_type, value):
    """Numba's checked cast: a None where a T is required raises TypeError."""
    message = f"expected {from_type.type}, got None"
    data = unwrap(context, builder, from_type, value, TypeError, message)
    return context.cast(builder, data, from_type.type, to_type)


@lower_cast(types.Optional, types.Optional)
def optional_to_optional(context, builder, from_type, to_type, value):
    data = context.cast(builder, builder.extract_value(value, 0), from_type.type, to_type.type)
    return make_optional(context, builder, to_type, data, is_valid(builder, value))


@lower_cast(types.Optional, types.Boolean)
def optional_truth(context, builder, from_type, to_type, value):
    """None is false; otherwise the truth of the value (tested only when there is one)."""
    valid = is_valid(builder, value)
    entry = builder.block
    with builder.if_then(valid):
        data = builder.extract_value(value, 0)
        truth = context.is_true(builder, from_type.type, data)
        tested = builder.block
    result = builder.phi(_i1)
    result.add_incoming(llvm.Constant(_i1, 0), entry)
    result.add_incoming(truth, tested)
    return result


# ---------------------------------------------------------------------------- Python's errors


def python_type_name(typ: types.Type) -> str:
    """The name CPython's error messages give the type of a value of `typ`."""
    typ = types.unliteral(typ)
    if isinstance(typ, types.Optional):  # shown when it holds a value
        typ = typ.type
    for klass, name in _PYTHON_NAMES:
        if isinstance(typ, klass):
            return name
    return str(typ)


_PYTHON_NAMES = (
    (types.NoneType, "NoneType"),
    (types.Boolean, "bool"),
    (types.Integer, "int"),
    (types.Float, "float"),
    (types.Complex, "complex"),
    (types.Array, "numpy.ndarray"),
    (types.BaseTuple, "tuple"),
    (types.List, "list"),
    (types.UnicodeType, "str"),
    (types.BytesType, "bytes"),
    (types.DictType, "dict"),
)

_ORDERING = (operator.lt, operator.le, operator.gt, operator.ge)


def operator_error(expr: ir.Expr, operand_types: list) -> str:
    """CPython's TypeError text for the operator `expr` applied to a None."""
    names = [python_type_name(t) for t in operand_types]
    if isinstance(expr, ir.UnaryOp):
        return f"bad operand type for unary {ir.UNARY_SYMBOLS[expr.fn]}: '{names[0]}'"
    if isinstance(expr, ir.InplaceBinOp):
        symbol = ir.BINOP_SYMBOLS[expr.immutable_fn] + "="
    else:
        symbol = ir.BINOP_SYMBOLS[expr.fn]
    if expr.fn in _ORDERING:
        return f"'{symbol}' not supported between instances of '{names[0]}' and '{names[1]}'"
    if expr.fn is operator.contains:  # `item in container`: the operands are swapped
        return f"argument of type '{names[0]}' is not iterable"
    if expr.fn is operator.pow:
        symbol = "** or pow()"
    return f"unsupported operand type(s) for {symbol}: '{names[0]}' and '{names[1]}'"


def check_operands(context, builder, expr: ir.Expr, operand_types: list, values: list, sig):
    """Raise CPython's TypeError when Optional operands that the operator's implementation
    takes as plain values are None (`x + 1.0` with x None), before any conversion. Several
    Nones at once are tested first, so the message names every None operand."""
    checked = [
        index
        for index, typ in enumerate(operand_types)
        if isinstance(typ, types.Optional) and not isinstance(sig.args[index], types.Optional)
    ]
    subsets = [list(c) for size in range(len(checked), 0, -1) for c in combinations(checked, size)]
    for subset in subsets:
        shown = [types.none if i in subset else t for i, t in enumerate(operand_types)]
        missing = [builder.not_(is_valid(builder, values[i])) for i in subset]
        all_none = missing[0]
        for other in missing[1:]:
            all_none = builder.and_(all_none, other)
        context.guard(builder, all_none, TypeError, operator_error(expr, shown))


def check_subscriptable(context, builder, typ: types.Type, value, storing: bool = False):
    """`x[i]` (or `x[i] = v`) on an Optional x: CPython's TypeError when x is None."""
    what = "does not support item assignment" if storing else "is not subscriptable"
    message = f"'NoneType' object {what}"
    context.guard(builder, builder.not_(is_valid(builder, value)), TypeError, message)


def unwrap_for_attribute(context, builder, opt_type: types.Optional, value, attr: str):
    """`x.attr` on an Optional: the value inside, or CPython's AttributeError for None."""
    message = f"'NoneType' object has no attribute '{attr}'"
    return unwrap(context, builder, opt_type, value, AttributeError, message)
