"""Typing and lowering of jitclass instances in compiled code: fields, properties, methods,
static methods and operator dunders, each resolved through the class's compiled functions.

A method is a jitted function whose first argument is the instance (`Class.jit_methods`);
`obj.m(a)` is typed by compiling it for `(type(obj), type(a))` and lowered as a direct call, so
LLVM inlines it. Operators (`a + b`, `len(a)`, `a[i]`, `x in a`, ...) find the matching dunder.
"""

from __future__ import annotations

import inspect
import operator
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.ir.nodes import INPLACE_OF
from ember.lowering import classes as layout
from ember.lowering.arrays import record_data
from ember.lowering.registry import (
    VarArgs,
    box,
    lower_builtin,
    lower_getattr_generic,
    lower_setattr_generic,
)
from ember.typing.conversions import can_convert
from ember.typing.signature import Signature
from ember.typing.templates import AbstractTemplate, AttributeTemplate, registry

Instance = types.ClassInstanceType


# ---------------------------------------------------------------------------- attributes


def _describe(instance_type: Instance) -> str:
    fields = ", ".join(f"{name}: {t}" for name, t in instance_type.struct.items()) or "none"
    methods = ", ".join(sorted(instance_type.jit_methods)) or "none"
    return f"fields: {fields}; methods: {methods}"


def _no_attribute(instance_type: Instance, attr: str) -> TypingError:
    return TypingError(
        f"jitclass {instance_type.classname} has no attribute '{attr}' "
        f"({_describe(instance_type)}); "
        "declare fields in the spec or as class annotations (`x: float64`)"
    )


@registry.register_attr
class InstanceAttributes(AttributeTemplate):
    key = Instance

    def generic_resolve(self, value_type: Instance, attr: str) -> types.Type | None:
        field_type = value_type.struct.get(attr)
        if field_type is not None:
            return field_type
        accessors = value_type.jit_props.get(attr)
        if accessors is not None:
            return accessors["get"].type_call((value_type,), {}).return_type
        if attr in value_type.jit_methods:
            return types.BoundFunction(value_type, attr)
        static = value_type.jit_static_methods.get(attr)
        if static is not None:
            return types.DispatcherType(static)
        if attr.startswith("__"):
            return None  # dunders the class does not define: Python's behaviour elsewhere
        raise _no_attribute(value_type, attr)

    def resolve_setattr(self, target: Instance, attr: str, value: types.Type) -> Signature:
        value = types.unliteral(value)
        field_type = target.struct.get(attr)
        if field_type is not None:
            if can_convert(value, field_type) is None:
                raise TypingError(
                    f"cannot assign a value of type {value} to field '{attr}' of jitclass "
                    f"{target.classname}, declared as {field_type}"
                )
            return Signature(types.none, (target, field_type))
        accessors = target.jit_props.get(attr)
        if accessors is not None:
            setter = accessors.get("set")
            if setter is None:
                raise TypingError(f"property '{attr}' of jitclass {target.classname} has no setter")
            sig = setter.type_call((target, value), {})
            return Signature(types.none, sig.args)
        raise _no_attribute(target, attr)


@registry.register_attr
class ClassAttributes(AttributeTemplate):
    """`Cls.static_method` on the class used as a value."""

    key = types.ClassType

    def generic_resolve(self, value_type: types.ClassType, attr: str) -> types.Type | None:
        static = value_type.jit_static_methods.get(attr)
        return None if static is None else types.DispatcherType(static)


_NO_DATA = llvm.Constant(llvm.LiteralStructType([]), None)  # the value of a function type
_NULL = llvm.Constant(llvm.PointerType(), None)


@lower_getattr_generic(Instance)
def instance_getattr(context, builder, typ: Instance, value, attr: str):
    if attr in typ.struct:
        field = layout.load_field(builder, typ, value, attr)
        if isinstance(typ.struct[attr], types.Record):  # zeroed until assigned: no bytes yet
            unset = builder.icmp_unsigned("==", record_data(builder, field), _NULL)
            message = f"jitclass field '{attr}' (a record) is read before it is assigned"
            context.guard(builder, unset, AttributeError, message)
        return field
    accessors = typ.jit_props.get(attr)
    if accessors is not None:
        return _call_compiled(context, builder, accessors["get"], (typ,), [value])
    return _NO_DATA  # a static method: a compile-time constant


@lower_getattr_generic(types.ClassType)
def class_getattr(context, builder, typ, value, attr: str):
    return _NO_DATA


@box(types.ClassType)
def box_class(typ, value, c) -> llvm.Value:
    """A jitclass returned to Python is the class itself (not its constructor)."""
    obj = c.pyapi.borrow_constant(typ.jit_class)
    c.pyapi.incref(obj)
    return obj


@lower_setattr_generic(Instance)
def instance_setattr(context, builder, sig: Signature, args: list, attr: str) -> None:
    target_type = sig.args[0]
    if attr in target_type.struct:
        layout.store_field(context, builder, target_type, args[0], attr, args[1])
    else:
        _call_compiled(context, builder, target_type.jit_props[attr]["set"], sig.args, args)


def _call_compiled(context, builder, dispatcher: Any, arg_types: tuple, args: list) -> Any:
    target = dispatcher.compiled_for_call(tuple(arg_types))
    return context.call_compiled(builder, target, args)


# ---------------------------------------------------------------------------- methods

_method_names: set[str] = set()


def register_method_name(name: str) -> None:
    """Make `obj.name(...)` typeable and lowerable for jitclass instances (once per name;
    each class answers only for the methods it has)."""
    if name in _method_names:
        return
    _method_names.add(name)
    key = (Instance, name)
    template = type(f"JitclassMethod_{name}", (_MethodTemplate,), {"key": key, "method": name})
    registry.register_global(key, template)
    lower_builtin(key, Instance, VarArgs(types.Type))(_method_lowering(name))


class _MethodTemplate(AbstractTemplate):
    method: str

    def generic(self, args: tuple, kws: dict) -> Signature | None:
        this = args[0]
        dispatcher = this.jit_methods.get(self.method) if isinstance(this, Instance) else None
        if dispatcher is None:
            return None
        sig = dispatcher.type_call(args, kws)
        if sig is None:
            return None
        return Signature(sig.return_type, sig.args, pysig=inspect.signature(dispatcher.py_func))


def _method_lowering(name: str):
    def lower_method(context, builder, sig: Signature, args: list) -> Any:
        target = sig.args[0].jit_methods[name].compiled_for_call(tuple(sig.args))
        result = context.call_compiled(builder, target, args)
        return context.cast(builder, result, target.signature.return_type, sig.return_type)

    return lower_method


# ---------------------------------------------------------------------------- operators

# operator function -> (dunder, reflected dunder or None); `x in obj` is contains(obj, x)
_BINARY = {
    operator.add: ("__add__", "__radd__"),
    operator.sub: ("__sub__", "__rsub__"),
    operator.mul: ("__mul__", "__rmul__"),
    operator.truediv: ("__truediv__", "__rtruediv__"),
    operator.floordiv: ("__floordiv__", "__rfloordiv__"),
    operator.mod: ("__mod__", "__rmod__"),
    operator.pow: ("__pow__", "__rpow__"),
    operator.matmul: ("__matmul__", "__rmatmul__"),
    operator.lshift: ("__lshift__", "__rlshift__"),
    operator.rshift: ("__rshift__", "__rrshift__"),
    operator.and_: ("__and__", "__rand__"),
    operator.or_: ("__or__", "__ror__"),
    operator.xor: ("__xor__", "__rxor__"),
    operator.iadd: ("__iadd__", None),
    operator.isub: ("__isub__", None),
    operator.imul: ("__imul__", None),
    operator.itruediv: ("__itruediv__", None),
    operator.ifloordiv: ("__ifloordiv__", None),
    operator.imod: ("__imod__", None),
    operator.ipow: ("__ipow__", None),
    operator.imatmul: ("__imatmul__", None),
    operator.ilshift: ("__ilshift__", None),
    operator.irshift: ("__irshift__", None),
    operator.iand: ("__iand__", None),
    operator.ior: ("__ior__", None),
    operator.ixor: ("__ixor__", None),
    operator.eq: ("__eq__", "__eq__"),
    operator.ne: ("__ne__", "__ne__"),
    operator.lt: ("__lt__", "__gt__"),
    operator.le: ("__le__", "__ge__"),
    operator.gt: ("__gt__", "__lt__"),
    operator.ge: ("__ge__", "__le__"),
    operator.getitem: ("__getitem__", None),
    operator.setitem: ("__setitem__", None),
    operator.contains: ("__contains__", None),
}
_UNARY = {
    operator.neg: "__neg__",
    operator.pos: "__pos__",
    operator.invert: "__invert__",
    len: "__len__",
    hash: "__hash__",
    abs: "__abs__",
}
SUPPORTED_DUNDERS = (
    {d for pair in _BINARY.values() for d in pair if d}
    | set(_UNARY.values())
    | {"__init__", "__call__", "__bool__", "__str__", "__repr__", "__iter__"}
    | {"__complex__", "__float__", "__int__", "__index__"}  # class_protocols: conversions
)


def _operator_target(fn: Any, args: tuple) -> tuple[Any, bool] | None:
    """(the dunder's dispatcher, whether the operands are swapped) for `fn(*args)`."""
    if fn in _UNARY:
        if len(args) == 1 and isinstance(args[0], Instance):
            found = args[0].jit_methods.get(_UNARY[fn])
            return None if found is None else (found, False)
        return None
    forward, reflected = _BINARY[fn]
    if isinstance(args[0], Instance) and forward in args[0].jit_methods:
        return args[0].jit_methods[forward], False
    if reflected and len(args) == 2 and isinstance(args[1], Instance):
        found = args[1].jit_methods.get(reflected)
        if found is not None:
            return found, True
    return None


def _operator_typer(fn: Any):
    def type_operator(args: tuple, kws: dict) -> Signature | None:
        target = None if kws else _operator_target(fn, args)
        if target is None:
            return None
        dispatcher, swapped = target
        call_args = args[::-1] if swapped else args
        sig = dispatcher.type_call(call_args, {})
        if sig is None or len(sig.args) != len(args):
            return None
        if fn is operator.setitem:
            return Signature(types.none, sig.args)
        return Signature(sig.return_type, sig.args[::-1] if swapped else sig.args)

    return type_operator


# An in-place operator on an instance whose class lacks the in-place dunder is the plain one.
_PLAIN_OF_INPLACE = {inplace: plain for plain, inplace in INPLACE_OF.items()}


def _operator_lowering(fn: Any):
    def lower_operator(context, builder, sig: Signature, args: list) -> Any:
        found = _operator_target(fn, sig.args)
        if found is None and fn in _PLAIN_OF_INPLACE:  # `x <<= y` typed as `x << y`
            return _operator_lowering(_PLAIN_OF_INPLACE[fn])(context, builder, sig, args)
        dispatcher, swapped = found
        arg_types, values = tuple(sig.args), list(args)
        if swapped:
            arg_types, values = arg_types[::-1], values[::-1]
        target = dispatcher.compiled_for_call(arg_types)
        result = context.call_compiled(builder, target, values)
        if fn is operator.setitem:
            return result
        result = context.cast(builder, result, target.signature.return_type, sig.return_type)
        if fn is hash and isinstance(sig.return_type, types.Integer):  # CPython's rule
            minus_one = llvm.Constant(result.type, -1)
            is_minus_one = builder.icmp_signed("==", result, minus_one)
            result = builder.select(is_minus_one, llvm.Constant(result.type, -2), result)
        return result

    return lower_operator


def _register_operators() -> None:
    # The library's generic lowerings (NumPy's `a @ b` takes any two types) first: a later
    # registration wins, and these must win for instances.
    from ember.typing.context import _load_library

    _load_library()
    for fn in (*_BINARY, *_UNARY):
        registry.typer(fn)(_operator_typer(fn))
        lower = _operator_lowering(fn)
        if fn in _UNARY:
            lower_builtin(fn, Instance)(lower)
        else:
            if _BINARY[fn][1] is not None:
                lower_builtin(fn, types.Type, Instance)(lower)
            lower_builtin(fn, Instance, VarArgs(types.Type))(lower)


_register_operators()


@registry.typer(operator.is_)
@registry.typer(operator.is_not)
def _type_identity(args: tuple, kws: dict) -> Signature | None:
    if len(args) == 2 and all(isinstance(a, types.ManagedStruct) for a in args):
        return Signature(types.boolean, args)  # jitclass instances and structrefs alike
    return None


def _identity_lowering(negate: bool):
    def lower_identity(context, builder, sig, args):
        same = builder.icmp_unsigned(
            "==", builder.extract_value(args[0], 0), builder.extract_value(args[1], 0)
        )
        return builder.not_(same) if negate else same

    return lower_identity


lower_builtin(operator.is_, types.ManagedStruct, types.ManagedStruct)(_identity_lowering(False))
lower_builtin(operator.is_not, types.ManagedStruct, types.ManagedStruct)(_identity_lowering(True))


from ember.library.objects import class_protocols  # noqa: E402, F401 - truth, str/repr, iteration
