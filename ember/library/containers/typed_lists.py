"""`ember.typed.List()`, `List(iterable)` and `List.empty_list(item_type)` inside compiled code:
lists of type `ListType` (stored as every list is; they come back to Python as typed Lists). An
empty `List()` is typed by what is later put in it, as `[]` is."""

from __future__ import annotations

import operator

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers.dicts import class_method
from ember.library.containers.lists import empty_list
from ember.library.containers.typed_dicts import container_at, item_type_of
from ember.lowering import arrays as refs
from ember.lowering import lists
from ember.lowering.registry import lower_builtin, lower_getattr
from ember.typed import List, list_accessors
from ember.typed.typedlist import new_list
from ember.typing.overload import overload, overload_method
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry


@registry.typer(List)
def _type_empty_typed_list(args, kws):
    """`List()`: as `[]`, an empty list whose item type later stores decide."""
    if not args and not kws:
        return signature(types.ListType(types.undefined))
    if kws:  # the words of Numba and of Python's list()
        raise TypingError("List() takes no keyword arguments")
    if len(args) > 1:
        raise TypingError(f"List() expected at most 1 argument, got {len(args)}")
    return None


lower_builtin(List)(empty_list)


@intrinsic
def _new_typed_list(typingctx, iterable):
    """An empty typed list of the items of `iterable`."""
    iterator = iterator_of(iterable)
    if iterator is None:
        return None
    item_type = types.unliteral(iterator.yield_type)
    problem = types.unsupported_item(item_type)
    if problem is not None:
        raise TypingError(problem)

    def codegen(context, builder, sig, args):
        return lists.allocate(context, builder, sig.return_type, refs.const(0))

    return signature(types.ListType(item_type), iterable), codegen


@overload(List)
def typed_list(iterable, /):  # positional only: `List(iterable=...)` is refused, as Numba does
    if isinstance(iterable, types.Array) and iterable.ndim == 0:  # its one item, as Numba

        def one_item(iterable, /):
            made = List()
            made.append(iterable[()])
            return made

        return one_item
    if iterator_of(iterable) is None:
        raise TypingError(f"List() argument must be iterable, not {iterable}")

    def filled(iterable, /):
        made = _new_typed_list(iterable)
        for item in iterable:
            made.append(item)
        return made

    return filled


def _compare_with_other(compare):
    """`typed_list < 1` and the other comparisons with a value that is no list: False, even
    for `!=`, as Numba's typed lists answer."""

    def typed_list_vs_other(left, right):
        if isinstance(left, types.ListType) != isinstance(right, types.ListType) and not (
            isinstance(left, types.List) and isinstance(right, types.List)
        ):
            return lambda left, right: False
        return None

    return typed_list_vs_other


for _compare in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne):
    overload(_compare)(_compare_with_other(_compare))


# ---------------------------------------------------------------------------- List.empty_list


def list_empty(item_type, allocated=0):
    """`List.empty_list` as compiled code calls it."""
    return List.empty_list(item_type, allocated)


@overload(list_empty)
@overload(new_list)
def _list_empty_overload(item_type, allocated=0):
    if item_type_of(item_type) is not None:
        return lambda item_type, allocated=0: _empty_list_of(item_type, allocated)
    return None


def _empty_list_of(item_type, allocated):
    raise NotImplementedError("runs only in compiled code")


@registry.typer(_empty_list_of)
def _type_empty_list_of(args, kws):
    if len(args) == 2 and item_type_of(args[0]) is not None:
        return signature(types.ListType(item_type_of(args[0])), args[0], types.intp)
    return None


@lower_builtin(_empty_list_of, types.Type, types.Integer)
def _new_empty_list(context, builder, sig, args):
    """An empty list with room for `allocated` items (RuntimeError when that is negative, with
    Numba's words)."""
    negative = builder.icmp_signed("<", args[1], refs.const(0))
    context.guard(builder, negative, RuntimeError, "expecting *allocated* to be >= 0")
    return lists.allocate(context, builder, sig.return_type, args[1])


class_method(List, "empty_list", list_empty)


# ---------------------------------------------------------------------------- Python's accessors


@registry.typer(list_accessors.list_at)
def _type_list_at(args, kws):
    if len(args) == 2 and isinstance(args[1], types.TypeRef):
        if isinstance(args[1].instance_type, types.List):
            return signature(args[1].instance_type, types.int64, args[1])
    return None


lower_builtin(list_accessors.list_at, types.Integer, types.TypeRef)(container_at)


@registry.typer(list_accessors.list_address)
def _type_list_address(args, kws):
    if len(args) == 1 and isinstance(args[0], types.List):
        return signature(types.int64, args[0])
    return None


@lower_builtin(list_accessors.list_address, types.List)
def _list_address(context, builder, sig, args):
    """The list's meminfo as an integer, with a reference that the Python caller owns."""
    refs.incref(builder, sig.args[0], args[0])
    return builder.ptrtoint(builder.extract_value(args[0], 0), refs.i64)


# ---------------------------------------------------------------------------- Numba's internals


@intrinsic
def _capacity(typingctx, xs):
    def codegen(context, builder, sig, args):
        return lists.capacity(builder, args[0])

    return signature(types.int64, xs), codegen


@intrinsic
def _is_frozen(typingctx, xs):
    def codegen(context, builder, sig, args):
        return lists.is_frozen(builder, args[0])

    return signature(types.boolean, xs), codegen


@intrinsic
def _freeze(typingctx, xs):
    def codegen(context, builder, sig, args):
        lists.freeze(builder, args[0])
        return context.get_dummy_value(types.none)

    return signature(types.none, xs), codegen


@overload_method(types.ListType, "_allocated")
def typed_list_allocated(xs):
    """How many items the list has room for before it grows."""
    return lambda xs: _capacity(xs)


@overload_method(types.ListType, "_is_mutable")
def typed_list_is_mutable(xs):
    return lambda xs: not _is_frozen(xs)


@overload_method(types.ListType, "_make_immutable")
def typed_list_make_immutable(xs):
    """From now on the list's mutating methods raise ValueError("list is immutable")."""
    return lambda xs: _freeze(xs)


@registry.register_attr
class _TypedListAttributes(AttributeTemplate):
    """`typed_list._dtype`: the NumPy dtype of a typed list of numbers (Numba's spelling)."""

    key = types.ListType

    def generic_resolve(self, list_type, attr):
        if attr == "_dtype" and isinstance(list_type.dtype, (types.Number, types.Boolean)):
            return types.DType(list_type.dtype)
        return None


@lower_getattr(types.ListType, "_dtype")
def _lower_typed_list_dtype(context, builder, typ, value):
    return context.get_dummy_value(types.DType(typ.dtype))
