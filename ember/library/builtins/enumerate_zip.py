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
from ember.errors import TypingError
from ember.ir import nodes as ir
from ember.lowering import arrays as arr
from ember.lowering.models import OpaqueModel, register_model
from ember.lowering.optional import python_type_name
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
    types.BytesIterator,
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
    if hasattr(typ, "yield_type"):  # a library's iterator (np.ndenumerate)
        return typ
    return getattr(typ, "iterator_type", None)  # a library's iterable (a.flat)


def make_iterator(context, builder, typ: types.Type, value):
    if isinstance(typ, types.StringLiteral):  # zip("ab", ...): the characters become a str
        value = context.cast(builder, value, typ, types.unicode_type)
        typ = types.unicode_type
    iterator = iterator_of(typ)
    if iterator is typ:
        if isinstance(typ, types.Generator):
            _hold_until_exit(context, builder, typ, value)
        return value
    return context.call_implementation(builder, iter, signature(iterator, typ), [value])


def _hold_until_exit(context, builder, typ: types.Type, value) -> None:
    """Keep a reference to a generator that enumerate/zip walk: the variable that held it may
    be released while they still resume it (like `owning_state` does for arrays)."""
    value_llvm = context.value_type(typ)
    slot = arr.alloca_in_entry(builder, value_llvm, name="iter.held")
    arr.store_in_entry(builder, llvm.Constant(value_llvm, None), slot)
    arr.decref(builder, typ, builder.load(slot, typ=value_llvm))
    arr.incref(builder, typ, value)
    builder.store(value, slot)

    def release(exit_builder):
        arr.decref(exit_builder, typ, exit_builder.load(slot, typ=value_llvm))

    arr.at_function_exit(builder, release)


def advance(context, builder, iterator: types.Type, value):
    """(item, valid) from `next` on an inner iterator."""
    pair_type = types.Pair(iterator.yield_type, types.boolean)
    pair = context.call_implementation(builder, next, Signature(pair_type, (iterator,)), [value])
    return builder.extract_value(pair, 0), builder.extract_value(pair, 1)


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
    if len(args) == 2 and not isinstance(types.unliteral(args[1]), types.Integer | types.Boolean):
        raise TypingError(
            f"Only integers supported as start value in enumerate: '{python_type_name(args[1])}' "
            "object cannot be interpreted as an integer"
        )
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
    valid = llvm.Constant(arr.i1, 1 if iterator_type.inners else 0)  # zip() yields nothing
    for index, inner_type in enumerate(iterator_type.inners):
        slot = builder.gep(args[0], [arr.i32_(0), arr.i32_(index)], source_etype=state_type)
        # as CPython, an iterator is advanced only while those before it produced an item
        before = builder.block
        with builder.if_then(valid):
            inner = builder.load(slot, typ=context.value_type(inner_type))
            item, inner_valid = advance(context, builder, inner_type, inner)
            advanced = builder.block
        item_phi = builder.phi(item.type)
        item_phi.add_incoming(item, advanced)
        item_phi.add_incoming(llvm.Constant(item.type, None), before)
        valid_phi = builder.phi(arr.i1)
        valid_phi.add_incoming(inner_valid, advanced)
        valid_phi.add_incoming(llvm.Constant(arr.i1, 0), before)
        value = builder.insert_value(value, item_phi, index)
        valid = valid_phi
    pair = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    return builder.insert_value(builder.insert_value(pair, value, 0), valid, 1)


# ---------------------------------------------------------------------------- unpacking


@registry.typer(ir.ExhaustIter)
def _type_unpack(args, kws):
    """`a, b, c = iterable` for a range, list, string, set, dict, generator or iterator: the
    items, as a tuple (1-d arrays and tuples have their own rules)."""
    source, count = args
    source = types.unliteral(source)  # a string constant unpacks as a string
    if isinstance(source, (types.Array, types.BaseTuple)):
        return None
    iterator = iterator_of(source)
    if iterator is None:
        return None
    return signature(types.UniTuple(iterator.yield_type, count.literal_value), source)


@lower_builtin(ir.ExhaustIter, types.Type)
def unpack_iterable(context, builder, sig, args):
    """Step the iterator once per target, then once more: CPython's ValueErrors when it ends
    early or has items left."""
    source_type = sig.args[0]
    iterator_type = iterator_of(source_type)
    iterator = make_iterator(context, builder, source_type, args[0])
    count = len(sig.return_type)
    item_type = iterator_type.yield_type
    result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    for position in range(count):
        item, valid = advance(context, builder, iterator_type, iterator)
        message = f"not enough values to unpack (expected {count}, got {position})"
        context.guard(builder, builder.not_(valid), ValueError, message)
        arr.incref(builder, item_type, item)  # the step's item is borrowed from the iterator
        result = builder.insert_value(result, item, position)
    _, left_over = advance(context, builder, iterator_type, iterator)
    message = f"too many values to unpack (expected {count})"
    context.guard(builder, left_over, ValueError, message)
    return result
