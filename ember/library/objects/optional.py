"""Operations on Optional(T) values and None: `is None`, `==`, `in`, `not`, and their crossing
to and from Python (None or the value).

Everything else an Optional meets (arithmetic, calls, attributes) is typed on T and converted
with a run-time check (ember/lowering/optional.py), as Numba does.
"""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

import ember.lowering.arrays
import ember.lowering.numbers  # noqa: F401 - registered first: the rules below override it
from ember import types
from ember.ir.nodes import ExhaustIter
from ember.lowering.boxing import NativeValue
from ember.lowering.optional import is_valid, make_optional, none_value
from ember.lowering.registry import box, lower_builtin, unbox
from ember.typing.signature import Signature, signature
from ember.typing.templates import AbstractTemplate, registry

_i1 = llvm.IntType(1)
_MAYBE_NONE = (types.Optional, types.NoneType)


def _validity(builder, typ: types.Type, value) -> llvm.Value:
    """i1: whether a value of `typ` is not None (a constant unless `typ` is Optional)."""
    if isinstance(typ, types.Optional):
        return is_valid(builder, value)
    return llvm.Constant(_i1, int(not isinstance(typ, types.NoneType)))


# ---------------------------------------------------------------------------- is / is not


for _fn in (operator.is_, operator.is_not):

    @lower_builtin(_fn, types.Optional, types.NoneType)
    @lower_builtin(_fn, types.NoneType, types.Optional)
    def _optional_identity(context, builder, sig, args, _fn=_fn):
        (opt_type, value) = next((t, v) for t, v in zip(sig.args, args) if t is not types.none)
        valid = _validity(builder, opt_type, value)
        return valid if _fn is operator.is_not else builder.not_(valid)


# ---------------------------------------------------------------------------- ==, != and in


def _unwrapped(typ: types.Type) -> types.Type:
    return typ.type if isinstance(typ, types.Optional) else types.unliteral(typ)


def _inner_signature(context, fn, args: tuple) -> Signature | None:
    """The signature of `fn` on the values inside, or None when a side is plain None."""
    inner = tuple(_unwrapped(a) for a in args)
    if any(isinstance(t, types.NoneType) for t in inner):
        return None
    return context.resolve_operator(fn, inner)


def _when_all_valid(context, builder, fn, sig, args, otherwise) -> llvm.Value:
    """`fn` (an operator giving a bool) on the values inside when no operand is None, else
    the i1 `otherwise`; the values are read only when they exist."""
    from ember.typing.context import TypingContext

    inner = _inner_signature(TypingContext(), fn, sig.args)
    if inner is None:
        return otherwise
    all_valid = llvm.Constant(_i1, 1)
    for typ, value in zip(sig.args, args):
        all_valid = builder.and_(all_valid, _validity(builder, typ, value))
    entry = builder.block
    with builder.if_then(all_valid):
        operands = [
            context.cast(
                builder,
                builder.extract_value(v, 0) if isinstance(t, types.Optional) else v,
                _unwrapped(t),
                formal,
            )
            for v, t, formal in zip(args, sig.args, inner.args)
        ]
        result = context.call_implementation(builder, fn, inner, operands)
        computed = builder.block
    phi = builder.phi(_i1)
    phi.add_incoming(otherwise, entry)
    phi.add_incoming(result, computed)
    return phi


for _fn in (operator.eq, operator.ne):

    @registry.function(_fn)
    class OptionalEquality(AbstractTemplate):
        """`x == None`, `opt == 3`: None equals only None, as in Python (never an error)."""

        def generic(self, args, kws):
            if kws or len(args) != 2 or not any(isinstance(a, _MAYBE_NONE) for a in args):
                return None
            plain_none = any(isinstance(_unwrapped(a), types.NoneType) for a in args)
            if not plain_none:
                inner = _inner_signature(self.context, operator.eq, args)
                if inner is None or inner.return_type is not types.boolean:
                    return None
            return signature(types.boolean, *(types.unliteral(a) for a in args))

    @lower_builtin(_fn, types.Type, types.Optional)
    @lower_builtin(_fn, types.Optional, types.Type)
    @lower_builtin(_fn, types.Type, types.NoneType)
    @lower_builtin(_fn, types.NoneType, types.Type)
    def _optional_equality(context, builder, sig, args, _fn=_fn):
        valid = [_validity(builder, t, v) for t, v in zip(sig.args, args)]
        both_none = builder.not_(builder.or_(*valid))
        equal = _when_all_valid(context, builder, operator.eq, sig, args, both_none)
        return equal if _fn is operator.eq else builder.not_(equal)


@registry.function(operator.contains)
class OptionalMembership(AbstractTemplate):
    """`opt in (1, 2, 3)`: a None is in no container of values (False, never an error)."""

    def generic(self, args, kws):
        if kws or len(args) != 2 or not isinstance(args[1], types.Optional):
            return None
        if isinstance(args[0], types.Optional):
            return None  # the container: used as a value, checked (TypeError for None)
        inner = _inner_signature(self.context, operator.contains, args)
        if inner is None or inner.return_type is not types.boolean:
            return None
        return signature(types.boolean, types.unliteral(args[0]), args[1])


@lower_builtin(operator.contains, types.Type, types.Optional)
def optional_membership(context, builder, sig, args):
    return _when_all_valid(context, builder, operator.contains, sig, args, llvm.Constant(_i1, 0))


# ---------------------------------------------------------------------------- not


@registry.typer(operator.not_)
def _type_not_optional(args, kws):
    if len(args) == 1 and isinstance(args[0], types.Optional):
        return signature(types.boolean, args[0])
    return None


# ---------------------------------------------------------------------------- Python


@unbox(types.Optional)
def unbox_optional(typ, obj, c):
    """None, or the value unboxed as T."""
    builder = c.builder
    is_none = builder.icmp_unsigned("==", obj, c.pyapi.borrow_none())
    entry = builder.block
    with builder.if_then(builder.not_(is_none)):
        native = c.unbox(typ.type, obj)
        some = make_optional(c.context, builder, typ, native.value, llvm.Constant(_i1, 1))
        error = native.is_error if native.is_error is not None else llvm.Constant(_i1, 0)
        unboxed = builder.block
    value = builder.phi(c.context.value_type(typ))
    value.add_incoming(none_value(c.context, typ), entry)
    value.add_incoming(some, unboxed)
    is_error = builder.phi(_i1)
    is_error.add_incoming(llvm.Constant(_i1, 0), entry)
    is_error.add_incoming(error, unboxed)
    return NativeValue(value, is_error=is_error)


@box(types.Optional)
def box_optional(typ, val, c):
    """A new reference: None, or the value boxed as T."""
    builder = c.builder
    with builder.if_else(is_valid(builder, val)) as (some, nothing):
        with some:
            boxed = c.box(typ.type, builder.extract_value(val, 0))
            boxed_block = builder.block
        with nothing:
            none = c.pyapi.make_none()
            none_block = builder.block
    result = builder.phi(boxed.type)
    result.add_incoming(boxed, boxed_block)
    result.add_incoming(none, none_block)
    return result


# ---------------------------------------------------------------------------- unpacking


@registry.typer(ExhaustIter)
def _type_unpack_optional(args, kws):
    """`a, b = t` where t may be None (its None branch returned earlier): unpacks the tuple,
    TypeError if it is None after all."""
    source, count = args
    if not isinstance(source, types.Optional):
        return None
    inner = source.type
    if isinstance(inner, types.BaseTuple) and len(inner) == count.literal_value:
        return signature(inner, source)
    return None


@lower_builtin(ExhaustIter, types.Optional)
def unpack_optional(context, builder, sig, args):
    value = context.cast(builder, args[0], sig.args[0], sig.return_type)
    ember.lowering.arrays.incref(builder, sig.return_type, value)  # the tuple is new here
    return value
