"""`ember.typed.List()`, `List(iterable)` and `List.empty_list(item_type)` inside compiled code:
ordinary lists (an empty `List()` is typed by what is later put in it, as `[]` is)."""

from __future__ import annotations

from ember import types
from ember.extending import lower_getattr
from ember.library.lists import empty_list
from ember.lowering import arrays as refs
from ember.lowering import lists as primitives
from ember.lowering.registry import lower_builtin
from ember.typed import List
from ember.typing.overload import overload
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry


@registry.typer(List)
def _type_empty_typed_list(args, kws):
    """`List()`: as `[]`, an empty list whose item type later stores decide."""
    if not args and not kws:
        return signature(types.List(types.undefined))
    return None


lower_builtin(List)(empty_list)


@overload(List)
def typed_list(iterable):
    def filled(iterable):
        return list(iterable)

    return filled


def list_empty_list(item_type, allocated=0):
    """`List.empty_list` as compiled code calls it."""
    return List.empty_list(item_type, allocated)


@registry.typer(list_empty_list)
def _type_empty_list_of(args, kws):
    if kws or not 1 <= len(args) <= 2 or not isinstance(args[0], types.TypeRef):
        return None
    return signature(types.List(args[0].instance_type), *args)


@lower_builtin(list_empty_list, types.TypeRef)
@lower_builtin(list_empty_list, types.TypeRef, types.Integer)
def new_typed_list(context, builder, sig, args):
    return primitives.allocate(context, builder, sig.return_type, refs.const(0))


@registry.register_attr
class _ListClassAttributes(AttributeTemplate):
    """`List.empty_list` read from the class `ember.typed.List`."""

    key = types.Function

    def generic_resolve(self, value_type, attr):
        if attr == "empty_list" and value_type.typing_key is List:
            return types.Function(list_empty_list)
        return None


@lower_getattr(types.Function, "empty_list")
def _lower_list_class_empty(context, builder, typ, value):
    return context.get_dummy_value(types.Function(list_empty_list))
