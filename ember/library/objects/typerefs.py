"""Type expressions in compiled code: `types.float64[:]` and `types.int32[:, ::1]` spell array
types as values (e.g. for `List.empty_list(types.float64[:])`), as at module level."""

from __future__ import annotations

import operator

from ember import types
from ember.lowering.registry import lower_builtin
from ember.types.arrays import array_from_slices
from ember.typing.signature import signature
from ember.typing.templates import registry


def _array_spelled(dtype: types.Type, index: types.Type) -> types.Array | None:
    """`dtype[index]` where each slice is `:` (any layout) or `::1` (the contiguous axis)."""
    slices = index.types if isinstance(index, types.BaseTuple) else (index,)
    if not slices or not all(isinstance(s, types.SliceType) for s in slices):
        return None
    return array_from_slices(
        dtype, tuple(slice(None, None, 1 if s.has_step else None) for s in slices)
    )


@registry.typer(operator.getitem)
def _type_spelled_array(args, kws):
    if len(args) != 2 or not isinstance(args[0], types.TypeRef):
        return None
    dtype = args[0].instance_type
    if not isinstance(dtype, (types.Number, types.Boolean)):
        return None
    array = _array_spelled(dtype, args[1])
    return None if array is None else signature(types.TypeRef(array), *args)


@lower_builtin(operator.getitem, types.TypeRef, types.Type)
def _spelled_array(context, builder, sig, args):
    return context.get_dummy_value(sig.return_type)


# ---------------------------------------------------------------------------- calling a type


@registry.typer((types.TypeRef, "__call__"))
def _type_number_conversion(args, kws):
    """`int64(x)`, `float32(x)`, `boolean(x)`: a number converted to the called number type."""
    if len(args) != 2 or kws:
        return None
    target, value = args[0].instance_type, types.unliteral(args[1])
    if not isinstance(target, (types.Number, types.Boolean)):
        return None
    if not isinstance(value, (types.Number, types.Boolean)):
        return None
    return signature(target, args[0], value)


@lower_builtin((types.TypeRef, "__call__"), types.TypeRef, types.Type)
def _number_conversion(context, builder, sig, args):
    return context.cast(builder, args[1], sig.args[1], sig.return_type)


_CONTAINER_TYPE_CLASSES = (types.ListType, types.DictType, types.UniTuple, types.Tuple)


def _spelled_member(typ: types.Type):
    """What an argument of a spelled container type stands for: a type, a constant count,
    a tuple of types (`types.Tuple((a, b))`), or None."""
    if isinstance(typ, types.TypeRef):
        return typ.instance_type
    if isinstance(typ, types.IntegerLiteral):
        return typ.literal_value
    if isinstance(typ, types.BaseTuple) and all(isinstance(t, types.TypeRef) for t in typ):
        return tuple(t.instance_type for t in typ)
    return None


@registry.typer((types.TypeRef, "__call__"))
def _type_container_type(args, kws):
    """`types.ListType(types.int64)`, `types.DictType(k, v)`, `types.UniTuple(t, 2)`,
    `types.Tuple((a, b))`: a container type spelled in compiled code (e.g. as the value type
    of `Dict.empty`), as at module level."""
    if kws or args[0].instance_type not in _CONTAINER_TYPE_CLASSES:
        return None
    members = [_spelled_member(m) for m in args[1:]]
    if any(m is None for m in members):
        return None
    try:
        made = args[0].instance_type(*members)
    except (TypeError, ValueError):  # wrong members for the class
        return None
    if not isinstance(made, types.Type):
        return None
    return signature(types.TypeRef(made), *args)


# (the member kinds `_spelled_member` takes: a catch-all would take `uint8(x)`'s call too)
@lower_builtin((types.TypeRef, "__call__"), types.TypeRef, types.TypeRef)
@lower_builtin((types.TypeRef, "__call__"), types.TypeRef, types.TypeRef, types.TypeRef)
@lower_builtin((types.TypeRef, "__call__"), types.TypeRef, types.TypeRef, types.IntegerLiteral)
@lower_builtin((types.TypeRef, "__call__"), types.TypeRef, types.BaseTuple)
def _container_type(context, builder, sig, args):
    return context.get_dummy_value(sig.return_type)


# ---------------------------------------------------------------------------- type(x)


@registry.typer(type)
def _type_of_value(args, kws):
    """`type(x)` of a number: its type, which converts when called (`type(x)(0)`); of None:
    NoneType (`isinstance(y, type(None))`)."""
    if len(args) != 1 or kws:
        return None
    value = types.unliteral(args[0])
    if not isinstance(value, (types.Number, types.Boolean, types.NoneType)):
        return None
    return signature(types.TypeRef(value), value)


@lower_builtin(type, types.Type)
def _type_of_value_lowered(context, builder, sig, args):
    return context.get_dummy_value(sig.return_type)


_PYTHON_CLASS_OF = {
    types.Boolean: bool,
    types.Integer: int,
    types.Float: float,
    types.Complex: complex,
}


def _python_class(typ: types.Type) -> type | None:
    """The Python class of the values of a number type (`int` for every integer type)."""
    for type_class, python_class in _PYTHON_CLASS_OF.items():
        if isinstance(typ, type_class):
            return python_class
    return None


for _fn in (operator.is_, operator.is_not):

    @registry.typer(_fn)
    def _type_of_value_is_class(args, kws, _fn=_fn):
        """`type(x) is int`: answered while compiling."""
        if len(args) != 2 or not isinstance(args[0], types.TypeRef):
            return None
        found = _python_class(args[0].instance_type)
        if found is None or not isinstance(getattr(args[1], "typing_key", None), type):
            return None
        return signature(types.boolean, *args)

    @lower_builtin(_fn, types.TypeRef, types.Type)
    def _type_of_value_is_class_lowered(context, builder, sig, args, _fn=_fn):
        answer = _fn(_python_class(sig.args[0].instance_type), sig.args[1].typing_key)
        return context.get_constant(types.boolean, answer)
