"""`enumerate` and `zip` over arrays, ranges and other iterators (including each other).
Loaded with the builtins (no NumPy needed): see ember/typing/context.py.

Both are iterators whose state sits in the entry block of the function that made them:
enumerate's {count, inner iterator}, zip's {inner iterators...}; `next` advances the inner
iterators and packs their items into a tuple.
"""

from __future__ import annotations

import inspect

from llvmlite import ir as llvm

from ember import types
from ember.library.builtins.ranges import keep_exhausted
from ember.lowering import arrays as arr
from ember.lowering.models import OpaqueModel, register_model
from ember.lowering.registry import VarArgs, lower_builtin
from ember.typing.signature import Signature, signature
from ember.typing.templates import registry


@register_model(types.EnumerateType)
@register_model(types.ZipType)
class IteratorStateModel(OpaqueModel):
    """A pointer to iterator state in the entry block of the function that made it."""


_ITERATORS = (
    types.ArrayIterator,
    types.ListIterator,
    types.UnicodeIterator,
    types.RangeIteratorType,
    types.EnumerateType,
    types.ZipType,
    types.UniTupleIterator,
    types.HashTableIterator,
    types.Generator,
)


def iterator_of(typ: types.Type) -> types.Type | None:
    """The iterator type `iter(value)` gives for a value of `typ`, or None."""
    if isinstance(typ, _ITERATORS):
        return typ
    if isinstance(typ, types.Array) and typ.ndim >= 1:
        return typ.iterator_type
    if isinstance(typ, types.RangeType):
        return typ.iterator_type
    if isinstance(typ, types.UniTuple):
        return types.UniTupleIterator(typ)
    if isinstance(typ, (types.List, types.HashTable)) and typ.is_precise:
        return typ.iterator_type
    if isinstance(typ, types.DictView):
        return typ.iterator_type
    if isinstance(types.unliteral(typ), types.UnicodeType):
        return types.unicode_type.iterator_type
    return None


def make_iterator(context, builder, typ: types.Type, value):
    if isinstance(typ, types.StringLiteral):  # zip("ab", ...): the characters become a str
        value = context.cast(builder, value, typ, types.unicode_type)
        typ = types.unicode_type
    iterator = iterator_of(typ)
    if iterator is typ:
        return value
    return context.call_implementation(builder, iter, signature(iterator, typ), [value])


def advance(context, builder, iterator: types.Type, value):
    """(item, valid) from `next` on an inner iterator (an exhausted range iterator stays so:
    the program may go on with it after zip stopped)."""
    pair_type = types.Pair(iterator.yield_type, types.boolean)
    pair = context.call_implementation(builder, next, Signature(pair_type, (iterator,)), [value])
    item, valid = builder.extract_value(pair, 0), builder.extract_value(pair, 1)
    if isinstance(iterator, types.RangeIteratorType):
        keep_exhausted(context, builder, iterator, value, valid)
    return item, valid


@registry.typer(iter)
def _type_iter(args, kws):
    if len(args) == 1 and not kws and isinstance(args[0], (types.EnumerateType, types.ZipType)):
        return signature(args[0], args[0])
    return None


@lower_builtin(iter, types.EnumerateType)
@lower_builtin(iter, types.ZipType)
def iterator_iter(context, builder, sig, args):
    return args[0]


# ---------------------------------------------------------------------------- enumerate


_ENUMERATE_PYSIG = inspect.Signature(
    [
        inspect.Parameter("iterable", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter("start", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    ]
)


@registry.typer(enumerate)
def _type_enumerate(args, kws):
    if set(kws) - {"start"} or not 1 <= len(args) + len(kws) <= 2:
        return None
    if kws:  # enumerate(it, start=k): bound as the second positional argument
        args = (*args, kws["start"])
    inner = iterator_of(args[0])
    if inner is None:
        return None
    if len(args) == 2 and not isinstance(types.unliteral(args[1]), types.Integer):
        return None
    operands = tuple(types.unliteral(a) for a in args)
    if not kws:
        return signature(types.EnumerateType(inner), *operands)
    return Signature(types.EnumerateType(inner), operands, pysig=_ENUMERATE_PYSIG)


def _enumerate_state(context, iterator_type: types.EnumerateType):
    return llvm.LiteralStructType([arr.i64, context.value_type(iterator_type.inner)])


@lower_builtin(enumerate, types.Type, VarArgs(types.Type))
def enumerate_impl(context, builder, sig, args):
    result_type = sig.return_type
    inner = make_iterator(context, builder, sig.args[0], args[0])
    start = arr.const(0)
    if len(args) == 2:
        start = context.cast(builder, args[1], sig.args[1], types.int64)
    state_type = _enumerate_state(context, result_type)
    state = arr.alloca_in_entry(builder, state_type, name="enumerate")
    builder.store(start, builder.gep(state, [arr.i32_(0), arr.i32_(0)], source_etype=state_type))
    builder.store(inner, builder.gep(state, [arr.i32_(0), arr.i32_(1)], source_etype=state_type))
    return state


@lower_builtin(next, types.EnumerateType)
def enumerate_next(context, builder, sig, args):
    iterator_type = sig.args[0]
    state_type = _enumerate_state(context, iterator_type)
    count_slot = builder.gep(args[0], [arr.i32_(0), arr.i32_(0)], source_etype=state_type)
    inner_slot = builder.gep(args[0], [arr.i32_(0), arr.i32_(1)], source_etype=state_type)
    inner = builder.load(inner_slot, typ=context.value_type(iterator_type.inner))
    item, valid = advance(context, builder, iterator_type.inner, inner)
    count = builder.load(count_slot, typ=arr.i64)
    builder.store(builder.add(count, arr.const(1)), count_slot)
    value = llvm.Constant(context.value_type(iterator_type.yield_type), llvm.Undefined)
    value = builder.insert_value(builder.insert_value(value, count, 0), item, 1)
    pair = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    return builder.insert_value(builder.insert_value(pair, value, 0), valid, 1)


# ---------------------------------------------------------------------------- zip


@registry.typer(zip)
def _type_zip(args, kws):
    if kws:
        return None
    inners = [iterator_of(a) for a in args]
    if None in inners:
        return None
    return signature(types.ZipType(tuple(inners)), *args)


def _zip_state(context, iterator_type: types.ZipType):
    return llvm.LiteralStructType([context.value_type(t) for t in iterator_type.inners])


@lower_builtin(zip, VarArgs(types.Type))
def zip_impl(context, builder, sig, args):
    result_type = sig.return_type
    state_type = _zip_state(context, result_type)
    state = arr.alloca_in_entry(builder, state_type, name="zip")
    for index, (typ, value) in enumerate(zip(sig.args, args)):
        inner = make_iterator(context, builder, typ, value)
        slot = builder.gep(state, [arr.i32_(0), arr.i32_(index)], source_etype=state_type)
        builder.store(inner, slot)
    return state


@lower_builtin(next, types.ZipType)
def zip_next(context, builder, sig, args):
    iterator_type = sig.args[0]
    state_type = _zip_state(context, iterator_type)
    value = llvm.Constant(context.value_type(iterator_type.yield_type), llvm.Undefined)
    valid = llvm.Constant(arr.i1, 1 if iterator_type.inners else 0)  # zip() is empty
    for index, inner_type in enumerate(iterator_type.inners):
        # As CPython, an exhausted iterator stops the step: those after it are not advanced
        # (their next item stays theirs) and give a zero item.
        before = builder.block
        with builder.if_then(valid, likely=True):
            slot = builder.gep(args[0], [arr.i32_(0), arr.i32_(index)], source_etype=state_type)
            inner = builder.load(slot, typ=context.value_type(inner_type))
            item, inner_valid = advance(context, builder, inner_type, inner)
            advanced = builder.block
        item_or_zero = builder.phi(item.type)
        item_or_zero.add_incoming(item, advanced)
        item_or_zero.add_incoming(llvm.Constant(item.type, None), before)
        still_valid = builder.phi(arr.i1)
        still_valid.add_incoming(inner_valid, advanced)
        still_valid.add_incoming(llvm.Constant(arr.i1, 0), before)
        value = builder.insert_value(value, item_or_zero, index)
        valid = still_valid
    pair = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    return builder.insert_value(builder.insert_value(pair, value, 0), valid, 1)
