"""Sets in compiled code: `set()`, `set(iterable)`, displays, `add`/`discard`/`remove`/`pop`,
`in`, the operators and their methods, comparisons; `@overload`s over the hash table of
ember/library/containers/hashtables.py (iteration and truth are shared with dicts,
ember/library/containers/dicts.py)."""

from __future__ import annotations

import operator

from ember import types
from ember.errors import TypingError
from ember.extending import lower_builtin, overload, overload_method
from ember.ir import displays
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers import hashtables as ht
from ember.lowering import dicts as table
from ember.lowering.registry import VarArgs
from ember.typing.signature import signature
from ember.typing.templates import registry


def _is_set(typ: types.Type) -> bool:
    return isinstance(typ, types.Set) and typ.is_precise


def _item_fits(s: types.Type, item: types.Type) -> bool:
    if _is_set(s):
        ht.check_key(s.dtype)
    return _is_set(s) and ht.converts(item, s.dtype, "set item")


def _same_sets(s: types.Type, other: types.Type) -> bool:
    """Sets of one item type (reflected or not: they share their representation); a set with
    anything else is Numba's TypingError (set operators and methods take sets only)."""
    if not _is_set(s):
        return False
    if not isinstance(other, types.Set):
        raise TypingError(f"All arguments must be Sets, got ({s}, {other})")
    if other.is_precise and s.dtype is not other.dtype:
        raise TypingError(f"All Sets must be of the same type, got ({s}, {other})")
    return _is_set(other)


@registry.typer(displays.set_display)
def _type_set_display(args, kws):
    if not args:
        return signature(types.empty_set)
    from ember.typing.conversions import unify_pair

    found = types.widened(args[0])
    for item in args[1:]:
        unified = unify_pair(found, types.widened(item))
        if unified is None:
            raise TypingError(
                f"Cannot make a set of {found} and {types.widened(item)}: the items of a set "
                "must have one type"
            )
        found = unified
    ht.check_key(found)
    return signature(types.Set(found), *args)


@registry.typer(set)
def _type_empty_set(args, kws):
    if not args and not kws:
        return signature(types.empty_set)
    return None


@lower_builtin(displays.set_display, VarArgs(types.Type))
@lower_builtin(set)
def empty_set(context, builder, sig, args):
    return table.allocate(context, builder, sig.return_type)


def _new_set(prototype):
    raise NotImplementedError("runs only in compiled code")


@registry.typer(_new_set)
def _type_new_set(args, kws):
    """An empty set of the items of `prototype` (a set, or anything iterable)."""
    (prototype,) = args
    if _is_set(prototype):
        return signature(prototype, prototype)
    iterator = iterator_of(prototype)
    if iterator is None:
        return None
    item = types.unliteral(iterator.yield_type)
    ht.check_key(item)
    return signature(types.Set(item), prototype)


@lower_builtin(_new_set, types.Type)
def _lower_new_set(context, builder, sig, args):
    return table.allocate(context, builder, sig.return_type)


@overload(set)
def set_from_iterable(iterable):
    if iterator_of(iterable) is not None:

        def from_iterable(iterable):
            out = _new_set(iterable)
            for item in iterable:
                out.add(item)
            return out

        return from_iterable


# ---------------------------------------------------------------------------- items


@overload_method(types.Set, "add")
def set_add(s, item):
    if _item_fits(s, item):

        def add(s, item):
            k = ht.as_key(s, item)
            h = ht.table_hash(k)
            position, slot = ht.lookup(s, k, h)
            if position >= 0:
                return
            slot, position = ht.slot_for_new(s, h, slot)
            ht.put_key(s, position, h, k)
            ht.set_index(s, slot, position)
            ht.set_used(s, position + 1)
            ht.set_size(s, ht.size(s) + 1)

        return add


def _remover(missing_raises: bool):
    def remove(s, item):
        k = ht.as_key(s, item)
        position, slot = ht.lookup(s, k, ht.table_hash(k))
        if position < 0:
            if missing_raises:
                ht.missing(k)
            return
        ht.forget(s, position, slot)
        ht.take_key(s, position)  # released as the result is dropped

    return remove


_remove = _remover(True)
_discard = _remover(False)


@overload_method(types.Set, "remove")
def set_remove(s, item):
    if _item_fits(s, item):
        return _remove


@overload_method(types.Set, "discard")
def set_discard(s, item):
    if _item_fits(s, item):
        return _discard


@overload_method(types.Set, "pop")
def set_pop(s):
    if _is_set(s):

        def pop(s):
            if ht.size(s) == 0:
                raise KeyError("pop from an empty set")
            position = ht.last_live(s)
            ht.forget(s, position, ht.slot_of(s, ht.hash_at(s, position), position))
            ht.set_used(s, position)  # every entry after it is deleted
            return ht.take_key(s, position)

        return pop


@overload(operator.contains)
def set_contains(s, item):
    if _is_set(s) and ht.converts(item, s.dtype, "set item"):

        def contains(s, item):
            k = ht.as_key(s, item)
            return ht.lookup(s, k, ht.table_hash(k))[0] >= 0

        return contains


@overload_method(types.Set, "clear")
def set_clear(s):
    if _is_set(s):
        return lambda s: ht.clear(s)


@overload_method(types.Set, "copy")
def set_copy(s):
    if _is_set(s):

        def copy(s):
            out = _new_set(s)
            if ht.size(s) > 0:
                ht.resize(out, ht.size(s))
            for item in s:
                out.add(item)
            return out

        return copy


@overload_method(types.Set, "update")
def set_update(s, other):
    if _is_set(s) and iterator_of(other) is not None:
        if ht.converts(iterator_of(other).yield_type, s.dtype, "set item"):

            def update(s, other):
                for item in other:
                    s.add(item)

            return update


# ---------------------------------------------------------------------------- set algebra


@overload_method(types.Set, "difference_update")
def set_difference_update(s, other):
    if _same_sets(s, other):

        def difference_update(s, other):
            for item in other:
                s.discard(item)

        return difference_update


@overload_method(types.Set, "intersection_update")
def set_intersection_update(s, other):
    if _same_sets(s, other):

        def intersection_update(s, other):
            gone = _new_set(s)
            for item in s:
                if item not in other:
                    gone.add(item)
            for item in gone:
                s.discard(item)

        return intersection_update


@overload_method(types.Set, "symmetric_difference_update")
def set_symmetric_difference_update(s, other):
    if _same_sets(s, other):

        def symmetric_difference_update(s, other):
            for item in other.copy():  # `s ^= s` must see the items it removes
                if item in s:
                    s.discard(item)
                else:
                    s.add(item)

        return symmetric_difference_update


def _copy_then(method_name: str):
    """A binary operation as a copy of the left set changed by `method_name`."""

    def make(s, other):
        if _same_sets(s, other):
            return getattr(_Methods, method_name)

    return make


class _Methods:
    """The pure set operations, each a copy changed in place."""

    @staticmethod
    def update(s, other):
        out = s.copy()
        out.update(other)
        return out

    @staticmethod
    def difference_update(s, other):
        out = s.copy()
        out.difference_update(other)
        return out

    @staticmethod
    def intersection_update(s, other):
        out = _new_set(s)
        for item in s:
            if item in other:
                out.add(item)
        return out

    @staticmethod
    def symmetric_difference_update(s, other):
        out = s.copy()
        out.symmetric_difference_update(other)
        return out


_PURE = {
    "union": "update",
    "difference": "difference_update",
    "intersection": "intersection_update",
    "symmetric_difference": "symmetric_difference_update",
}
_OPERATORS = {
    operator.or_: "update",
    operator.sub: "difference_update",
    operator.and_: "intersection_update",
    operator.xor: "symmetric_difference_update",
}
_IN_PLACE_OPERATORS = {
    operator.ior: "update",
    operator.isub: "difference_update",
    operator.iand: "intersection_update",
    operator.ixor: "symmetric_difference_update",
}

for _name, _method in _PURE.items():
    overload_method(types.Set, _name)(_copy_then(_method))
for _operator, _method in _OPERATORS.items():
    overload(_operator)(_copy_then(_method))


def _in_place_operator(method_name: str):
    def make(s, other):
        if _same_sets(s, other):
            return _in_place_impls[method_name]

    return make


def _ior(s, other):
    s.update(other)
    return s


def _isub(s, other):
    s.difference_update(other)
    return s


def _iand(s, other):
    s.intersection_update(other)
    return s


def _ixor(s, other):
    s.symmetric_difference_update(other)
    return s


_in_place_impls = {
    "update": _ior,
    "difference_update": _isub,
    "intersection_update": _iand,
    "symmetric_difference_update": _ixor,
}
for _operator, _method in _IN_PLACE_OPERATORS.items():
    overload(_operator)(_in_place_operator(_method))


# ---------------------------------------------------------------------------- comparisons


def _issubset(s, other):
    if len(s) > len(other):
        return False
    for item in s:
        if item not in other:
            return False
    return True


def _isdisjoint(s, other):
    for item in s:
        if item in other:
            return False
    return True


@overload_method(types.Set, "issubset")
def set_issubset(s, other):
    if _same_sets(s, other):
        return _issubset


@overload_method(types.Set, "issuperset")
def set_issuperset(s, other):
    if _same_sets(s, other):
        return lambda s, other: other.issubset(s)


@overload_method(types.Set, "isdisjoint")
def set_isdisjoint(s, other):
    if _same_sets(s, other):
        return _isdisjoint


@overload(operator.eq)
def set_eq(s, other):
    if _same_sets(s, other):
        return lambda s, other: len(s) == len(other) and s.issubset(other)


@overload(operator.ne)
def set_ne(s, other):
    if _same_sets(s, other):
        return lambda s, other: not s == other


@overload(operator.le)
def set_le(s, other):
    if _same_sets(s, other):
        return lambda s, other: s.issubset(other)


@overload(operator.lt)
def set_lt(s, other):
    if _same_sets(s, other):
        return lambda s, other: len(s) < len(other) and s.issubset(other)


@overload(operator.ge)
def set_ge(s, other):
    if _same_sets(s, other):
        return lambda s, other: other.issubset(s)


@overload(operator.gt)
def set_gt(s, other):
    if _same_sets(s, other):
        return lambda s, other: len(s) > len(other) and other.issubset(s)
