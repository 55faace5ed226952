"""The primitives every list operation is written with (intrinsics over ember/lowering/lists.py),
the checks they share (`_is_list`, `_fits`), and the cast between list kinds.

Reference counts of items that own memory (a list of lists) follow one rule: a slot of the
list holds one reference. `_store_new` fills an empty slot with a new reference, `_take`
empties a slot and hands its reference to the caller, `_load` reads a new reference.
"""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, lower_cast
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.builtins.slices import slice_bounds
from ember.lowering import arrays as refs
from ember.lowering import lists as primitives
from ember.lowering.adopted_arrays import store_new_reference
from ember.typing.conversions import storable, warn_if_unsafe
from ember.typing.signature import signature


def _is_list(typ: types.Type) -> bool:
    return isinstance(typ, types.List) and typ.is_precise


def _fits(list_type: types.Type, item: types.Type, operation: str = "") -> bool:
    """Whether `item` can be stored in the list without losing information; a TypingError
    that says so (after `operation`, Numba's words for it) when it cannot."""
    kind = storable(item, list_type.dtype)
    if kind is None:
        raise TypingError(
            f"{operation}cannot store a {types.unliteral(item)} in a {list_type}: a list keeps "
            "the item type it was made with (make it of the wider type, e.g. [1.0] for floats)"
        )
    warn_if_unsafe(kind, item, list_type.dtype)
    return True


def _index(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


def _refuse_bad_index(index: types.Type, message: str) -> None:
    """A TypingError saying what CPython's TypeError says for an index that can never be one
    (a string or a float), rather than "no implementation"."""
    plain = types.unliteral(index)
    if isinstance(plain, (types.UnicodeType, types.Float, types.Complex)):
        raise TypingError(f"{message}, not {plain}")


# ---------------------------------------------------------------------------- primitives


@intrinsic
def _length(typingctx, xs):
    if isinstance(xs, types.List):
        return signature(types.int64, xs), lambda c, b, sig, args: primitives.length(b, args[0])


@intrinsic
def _check_mutable(typingctx, xs):
    """ValueError when a typed list was made immutable (`_make_immutable`); no code for
    other lists, which cannot be."""

    def codegen(context, builder, sig, args):
        if isinstance(sig.args[0], types.ListType):
            frozen = primitives.is_frozen(builder, args[0])
            context.guard(builder, frozen, ValueError, "list is immutable")
        return context.get_dummy_value(types.none)

    return signature(types.none, xs), codegen


@intrinsic
def _set_length(typingctx, xs, size):
    def codegen(context, builder, sig, args):
        primitives.set_length(builder, args[0], args[1])
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64), codegen


@intrinsic
def _shrink_to(typingctx, xs, size):
    """The length becomes `size` (no more than it was), and the storage shrinks to fit."""

    def codegen(context, builder, sig, args):
        primitives.shrink_to(context, builder, sig.args[0], args[0], args[1])
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64), codegen


@intrinsic
def _new_list(typingctx, prototype, capacity):
    """An empty list of the items of `prototype` (a list, or anything iterable) with room for
    `capacity` items."""
    if isinstance(prototype, types.List):
        list_type = prototype
    else:
        iterator = iterator_of(prototype)
        if iterator is None:
            return None
        list_type = types.List(types.unliteral(iterator.yield_type))

    def codegen(context, builder, sig, args):
        return primitives.allocate(context, builder, sig.return_type, args[1])

    return signature(list_type, prototype, types.int64), codegen


@intrinsic
def empty_list_for(typingctx, item):
    """An empty list for items of `item`'s type (`item` is not stored): `[item]` then
    `.pop()` without compiling `pop`."""
    list_type = types.List(types.unliteral(item))

    def codegen(context, builder, sig, args):
        return primitives.allocate(context, builder, list_type, refs.const(0))

    return signature(list_type, item), codegen


@intrinsic
def _reserve(typingctx, xs, needed):
    def codegen(context, builder, sig, args):
        primitives.reserve(context, builder, sig.args[0], args[0], args[1])
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64), codegen


@intrinsic
def _load(typingctx, xs, index):
    def codegen(context, builder, sig, args):
        return primitives.load_item(context, builder, sig.args[0], args[0], args[1])

    return signature(xs.dtype, xs, types.int64), codegen


@intrinsic
def _take(typingctx, xs, index):
    def codegen(context, builder, sig, args):
        pointer = primitives.item_pointer(context, builder, sig.args[0], args[0], args[1])
        return refs.load_value(builder, sig.args[0].dtype, pointer)

    return signature(xs.dtype, xs, types.int64), codegen


@intrinsic
def _store_new(typingctx, xs, index, item):
    def codegen(context, builder, sig, args):
        xs_type, _, dtype = sig.args
        pointer = primitives.item_pointer(context, builder, xs_type, args[0], args[1])
        store_new_reference(context, builder, dtype, args[2], pointer)
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64, xs.dtype), codegen


@intrinsic
def _move(typingctx, xs, source, target, count):
    def codegen(context, builder, sig, args):
        primitives.move_items(context, builder, sig.args[0], *args)
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64, types.int64, types.int64), codegen


@intrinsic
def _slice_indices(typingctx, index, length):
    """Python's `index.indices(length)` as (start, count, step)."""

    def codegen(context, builder, sig, args):
        result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
        for position, bound in enumerate(slice_bounds(builder, args[0], args[1])):
            result = builder.insert_value(result, bound, position)
        return result

    return signature(types.UniTuple(types.int64, 3), index, types.int64), codegen


@intrinsic
def _release(typingctx, xs, index):
    """Drop the reference slot `index` holds (nothing for items that own no memory)."""

    def codegen(context, builder, sig, args):
        pointer = primitives.item_pointer(context, builder, sig.args[0], args[0], args[1])
        dtype = sig.args[0].dtype
        refs.decref(builder, dtype, refs.load_value(builder, dtype, pointer))
        return context.get_dummy_value(types.none)

    return signature(types.none, xs, types.int64), codegen


# ---------------------------------------------------------------------------- conversions


@lower_cast(types.List, types.List)
def list_to_list(context, builder, from_type, to_type, value):
    """Lists of one item type (reflected, typed or neither) share their representation; an
    empty `[]` of undefined items converts too: its storage holds nothing yet, and its
    destructor must become the one for the items it will hold."""
    if from_type.dtype == to_type.dtype:
        return value
    return primitives.settle_item_type(context, builder, value, to_type)
