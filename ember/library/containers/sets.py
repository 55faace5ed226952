"""Sets in compiled code: `set()`, `set(iterable)`, displays, `add`/`discard`/`remove`/`pop`,
`in`, the operators and their methods, comparisons; `@overload`s over the hash table of
ember/library/containers/hashtables.py (iteration and truth are shared with dicts,
ember/library/containers/dicts.py)."""

from __future__ import annotations

import operator

from ember import types
from ember.errors import TypingError
from ember.extending import lower_builtin, overload, overload_method, register_jitable
from ember.ir import displays
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers import hashtables as ht
from ember.library.containers import set_tables as st
from ember.lowering import arrays as refs
from ember.lowering import dicts as table
from ember.lowering.registry import VarArgs
from ember.misc.literal import literal_unroll
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


@registry.typer(displays.constant_set_display)
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


@lower_builtin(displays.constant_set_display, VarArgs(types.Type))
def constant_set_display(context, builder, sig, args):
    """CPython merges the constants' frozenset into the new set: with over four items the
    set first grows to the fewest slots above twice their number."""
    made = table.allocate(context, builder, sig.return_type)
    if len(args) * 5 >= (st.MIN_SLOTS - 1) * 3:
        slots = st.MIN_SLOTS
        while slots <= 2 * len(args):
            slots *= 2
        table.give_set_blocks(context, builder, sig.return_type, made, refs.const(slots))
    return made


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
    if _same_sets_quietly(iterable):
        return lambda iterable: st.copy(iterable)
    if iterator_of(iterable) is not None:

        def from_iterable(iterable):
            out = _new_set(iterable)
            for item in iterable:
                out.add(item)
            return out

        return from_iterable


def _same_sets_quietly(s: types.Type, other: types.Type | None = None) -> bool:
    """Whether `s` (and `other`) are sets of one item type, whose tables merge directly."""
    other = s if other is None else other
    return _is_set(s) and _is_set(other) and s.dtype is other.dtype


# ---------------------------------------------------------------------------- items


@overload_method(types.Set, "add")
def set_add(s, item):
    if _item_fits(s, item):

        def add(s, item):
            k = ht.as_key(s, item)
            st.add_entry(s, k, ht.table_hash(k))

        return add


def _remove(s, item):
    k = ht.as_key(s, item)
    if not st.discard_entry(s, k, ht.table_hash(k)):
        ht.missing(k)


def _discard(s, item):
    k = ht.as_key(s, item)
    st.discard_entry(s, k, ht.table_hash(k))


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
        return lambda s: st.pop(s)


@overload(operator.contains)
def set_contains(s, item):
    if _is_set(s) and ht.converts(item, s.dtype, "set item"):

        def contains(s, item):
            k = ht.as_key(s, item)
            return st.find(s, k, ht.table_hash(k)) >= 0

        return contains


@overload_method(types.Set, "clear")
def set_clear(s):
    if _is_set(s):
        return lambda s: st.clear(s)


@overload_method(types.Set, "copy")
def set_copy(s):
    if _is_set(s):
        return lambda s: st.copy(s)


@overload_method(types.Set, "update")
def set_update(s, other):
    if _same_sets_quietly(s, other):
        return lambda s, other: st.merge(s, other)
    if _is_set(s) and iterator_of(other) is not None:
        if ht.converts(iterator_of(other).yield_type, s.dtype, "set item"):

            def update(s, other):
                for item in other:
                    s.add(item)

            return update


# ---------------------------------------------------------------------------- set algebra

# Each operation follows CPython's algorithm (ember/library/containers/set_tables.py), so its
# result iterates in CPython's order.
_IN_PLACE_METHODS = {
    "difference_update": st.difference_update,
    "intersection_update": st.intersection_update,
    "symmetric_difference_update": st.symmetric_difference_update,
}
_PURE_METHODS = {
    "union": st.union,
    "difference": st.difference,
    "intersection": st.intersection,
    "symmetric_difference": st.symmetric_difference,
}
_OPERATORS = {
    operator.or_: st.union,
    operator.sub: st.difference,
    operator.and_: st.intersection,
    operator.xor: st.symmetric_difference,
}


def _on_same_sets(implementation):
    """An overload giving `implementation` for two sets of one item type."""

    def make(s, other):
        if _same_sets(s, other):
            return lambda s, other: implementation(s, other)

    return make


def _iterable_of_items(s: types.Type, other: types.Type) -> bool:
    """Whether `other` is an iterable that is not a set whose items go into the set `s`."""
    other = types.widened(other)  # ("a", "b"): a tuple of literals iterates as strings
    if not _is_set(s) or isinstance(other, types.Set) or iterator_of(other) is None:
        return False
    return ht.converts(iterator_of(other).yield_type, s.dtype, "set item")


@register_jitable
def _items_as_set(s, other):
    """The items of the iterable `other` as a set of the type of `s`."""
    out = ht.new_table(s)
    for item in other:
        out.add(item)
    return out


@register_jitable
def _issubset(s, other):
    if len(s) > len(other):
        return False
    for item in s:
        if item not in other:
            return False
    return True


@register_jitable
def _isdisjoint(s, other):
    for item in s:
        if item in other:
            return False
    return True


# CPython's algorithms for a set and another iterable (Objects/setobject.c), so that the results
# iterate in its order: the items are added, discarded or looked up in the iterable's order.


@register_jitable
def _union_items(s, other):
    out = st.copy(s)
    for item in other:
        out.add(item)
    return out


@register_jitable
def _discard_items(s, other):
    for item in other:
        s.discard(item)
    if ht.mask(s) >= 0 and ht.fill(s) - ht.size(s) > ht.mask(s) // 4:
        st.resize(s, st._growth(ht.size(s)))


@register_jitable
def _difference_items(s, other):
    out = st.copy(s)
    _discard_items(out, other)
    return out


@register_jitable
def _intersection_items(s, other):
    out = ht.new_table(s)
    for item in other:
        if item in s:
            out.add(item)
    return out


@register_jitable
def _intersection_update_items(s, other):
    st.swap_bodies(s, _intersection_items(s, other))


@register_jitable
def _isdisjoint_items(s, other):
    for item in other:
        if item in s:
            return False
    return True


@register_jitable
def _issuperset_items(s, other):
    for item in other:
        if item not in s:
            return False
    return True


@register_jitable
def _symmetric_difference_items(s, other):
    out = _items_as_set(s, other)
    st.symmetric_difference_update(out, s)
    return out


def _through_a_set(implementation):
    """CPython's way for the other methods: the iterable's items made a set first."""
    return register_jitable(lambda s, other: implementation(s, _items_as_set(s, other)))


_ITERABLE_METHODS = {
    "union": _union_items,
    "difference": _difference_items,
    "difference_update": _discard_items,
    "intersection": _intersection_items,
    "intersection_update": _intersection_update_items,
    "symmetric_difference": _symmetric_difference_items,
    "symmetric_difference_update": _through_a_set(st.symmetric_difference_update),
    "isdisjoint": _isdisjoint_items,
    "issuperset": _issuperset_items,
    "issubset": _through_a_set(_issubset),
}


def _on_sets_or_iterables(name, implementation):
    """Method `name`'s overload: `implementation` for two sets of one item type, and CPython's
    way for a set and any iterable of its items (its methods take iterables; its operators
    take sets only, as here)."""

    def make(s, other):
        if _iterable_of_items(s, other):
            return _ITERABLE_METHODS[name]
        if _same_sets(s, other):
            return lambda s, other: implementation(s, other)

    return make


for _name, _implementation in {**_IN_PLACE_METHODS, **_PURE_METHODS}.items():
    overload_method(types.Set, _name)(_on_sets_or_iterables(_name, _implementation))
for _operator, _implementation in _OPERATORS.items():
    overload(_operator)(_on_same_sets(_implementation))


# Several (or no) iterables, as CPython's set methods take them (Objects/setobject.c): union
# and update add each in turn to one copy, difference discards each in turn from the first
# difference, intersection intersects the result with each in turn.


@register_jitable
def _update_each(out, others):
    """`out.update(x)` for each `x` of the tuple `others` (each may have its own type)."""
    for other in literal_unroll(others):
        out.update(other)


@register_jitable
def _discard_each(out, others):
    for other in literal_unroll(others):
        out.difference_update(other)


@register_jitable
def _intersect_each(out, others):
    for other in literal_unroll(others):
        out = out.intersection(other)
    return out


def _several_iterables(others: tuple) -> bool:
    return len(others) != 1


def _union_multi(s, *others):
    if _is_set(s) and _several_iterables(others):

        def union(s, *others):
            out = st.copy(s)
            _update_each(out, others)
            return out

        return union


def _update_multi(s, *others):
    if _is_set(s) and _several_iterables(others):
        return lambda s, *others: _update_each(s, others)


def _difference_multi(s, *others):
    if _is_set(s) and _several_iterables(others):

        def difference(s, *others):
            if len(others) == 0:
                return st.copy(s)
            out = s.difference(others[0])
            _discard_each(out, others[1:])
            return out

        return difference


def _difference_update_multi(s, *others):
    if _is_set(s) and _several_iterables(others):
        return lambda s, *others: _discard_each(s, others)


def _intersection_multi(s, *others):
    if _is_set(s) and _several_iterables(others):

        def intersection(s, *others):
            if len(others) == 0:
                return st.copy(s)
            return _intersect_each(s.intersection(others[0]), others[1:])

        return intersection


def _intersection_update_multi(s, *others):
    if _is_set(s) and _several_iterables(others):

        def intersection_update(s, *others):
            if len(others) > 0:
                st.swap_bodies(s, _intersect_each(s.intersection(others[0]), others[1:]))

        return intersection_update


for _name, _overload in {
    "union": _union_multi,
    "update": _update_multi,
    "difference": _difference_multi,
    "difference_update": _difference_update_multi,
    "intersection": _intersection_multi,
    "intersection_update": _intersection_update_multi,
}.items():
    overload_method(types.Set, _name)(_overload)


def _in_place(implementation):
    def apply(s, other):
        implementation(s, other)
        return s

    return register_jitable(apply)


_IN_PLACE_OPERATORS = {
    operator.ior: _in_place(st.merge),
    operator.isub: _in_place(st.difference_update),
    operator.iand: _in_place(st.intersection_update),
    operator.ixor: _in_place(st.symmetric_difference_update),
}
for _operator, _implementation in _IN_PLACE_OPERATORS.items():
    overload(_operator)(_on_same_sets(_implementation))


# ---------------------------------------------------------------------------- comparisons


@register_jitable
def _issuperset(s, other):
    return other.issubset(s)


for _name, _implementation in {
    "issubset": _issubset,
    "issuperset": _issuperset,
    "isdisjoint": _isdisjoint,
}.items():
    overload_method(types.Set, _name)(_on_sets_or_iterables(_name, _implementation))


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
