"""`ember.typed.Set()`, `Set(iterable)` and `Set.empty(item_type)` inside compiled code: sets of
type `SetType` (stored as every set is; they come back to Python as typed Sets), and the
typing of the accessors Python's typed Sets call (ember/typed/set_accessors.py)."""

from __future__ import annotations

from ember import types
from ember.extending import intrinsic, lower_builtin, overload
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers import hashtables as ht
from ember.library.containers.typed_dicts import container_at, item_type_of
from ember.lowering import arrays as refs
from ember.lowering import dicts as table
from ember.typed.set_accessors import set_address, set_at
from ember.typed.typedset import Set, new_set
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry


@registry.typer(Set)
def _type_empty_typed_set(args, kws):
    """`Set()`: as `set()`, an empty set whose item type later adds decide."""
    if not args and not kws:
        return signature(types.empty_typed_set)
    return None


@lower_builtin(Set)
def _new_typed_set(context, builder, sig, args):
    return table.allocate(context, builder, sig.return_type)


@intrinsic
def _new_typed_set_of(typingctx, iterable):
    """An empty typed set of the items of `iterable`."""
    iterator = iterator_of(iterable)
    if iterator is None:
        return None
    item_type = types.unliteral(iterator.yield_type)
    ht.check_key(item_type)

    def codegen(context, builder, sig, args):
        return table.allocate(context, builder, sig.return_type)

    return signature(types.SetType(item_type), iterable), codegen


@overload(Set)
def typed_set_from_iterable(iterable):
    def filled(iterable):
        made = _new_typed_set_of(iterable)
        for item in iterable:
            made.add(item)
        return made

    return filled


# ---------------------------------------------------------------------------- Set.empty


def set_empty(item_type):
    """`Set.empty` as compiled code calls it."""
    return Set.empty(item_type)


@overload(set_empty)
@overload(new_set)
def _set_empty_overload(item_type):
    if item_type_of(item_type) is not None:
        return lambda item_type: _empty_set_of(item_type)
    return None


def _empty_set_of(item_type):
    raise NotImplementedError("runs only in compiled code")


@registry.typer(_empty_set_of)
def _type_empty_set_of(args, kws):
    if len(args) == 1 and item_type_of(args[0]) is not None:
        item_type = item_type_of(args[0])
        ht.check_key(item_type)
        return signature(types.SetType(item_type), args[0])
    return None


@lower_builtin(_empty_set_of, types.Type)
def _new_empty_set(context, builder, sig, args):
    return table.allocate(context, builder, sig.return_type)


@registry.register_attr
class _SetClassAttributes(AttributeTemplate):
    """`Set.empty` read from the class `ember.typed.Set` (lowered, as `Dict.empty` is, by
    typed_dicts.py's getter: a function's value is empty whichever function it is)."""

    key = types.Function

    def generic_resolve(self, value_type, attr):
        if attr == "empty" and value_type.typing_key is Set:
            return types.Function(set_empty)
        return None


# ---------------------------------------------------------------------------- Python's accessors


@registry.typer(set_at)
def _type_set_at(args, kws):
    if len(args) == 2 and isinstance(args[1], types.TypeRef):
        if isinstance(args[1].instance_type, types.Set):
            return signature(args[1].instance_type, types.int64, args[1])
    return None


lower_builtin(set_at, types.Integer, types.TypeRef)(container_at)


@registry.typer(set_address)
def _type_set_address(args, kws):
    if len(args) == 1 and isinstance(args[0], types.Set):
        return signature(types.int64, args[0])
    return None


@lower_builtin(set_address, types.Set)
def _set_address(context, builder, sig, args):
    """The set's meminfo as an integer, with a reference that the Python caller owns."""
    refs.incref(builder, sig.args[0], args[0])
    return builder.ptrtoint(builder.extract_value(args[0], 0), refs.i64)


# ---------------------------------------------------------------------------- SetType(item)()


@registry.typer((types.TypeRef, "__call__"))
def _type_set_type_call(args, kws):
    """`SetType(int64)()` where the type is a global: an empty typed set of that type."""
    if len(args) != 1 or kws:
        return None
    set_type = args[0].instance_type
    if isinstance(set_type, types.SetType) and set_type.is_precise:
        return signature(set_type, args[0])
    return None


@lower_builtin((types.TypeRef, "__call__"), types.TypeRef)
def _new_set_of_type(context, builder, sig, args):
    return table.allocate(context, builder, sig.return_type)
