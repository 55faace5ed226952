"""Dicts in compiled code: `{}`, `dict()`, displays, indexing, methods, views, iteration and
`==`, as `@overload`s over the hash table of ember/library/containers/hashtables.py."""

from __future__ import annotations

import operator

from ember import types
from ember.errors import TypingError
from ember.extending import lower_builtin, lower_cast, lower_getattr, overload, overload_method
from ember.ir import displays
from ember.library.builtins.enumerate_zip import iterator_of
from ember.library.containers import hashtables as ht
from ember.library.containers import literal_containers
from ember.lowering import arrays as refs
from ember.lowering import dicts as table
from ember.lowering.registry import VarArgs
from ember.misc.literal import literal_unroll
from ember.typing.overload import register_jitable
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry


def _is_dict(typ: types.Type) -> bool:
    return isinstance(typ, types.DictType) and typ.is_precise


def _key_fits(d: types.Type, key: types.Type) -> bool:
    if _is_dict(d):
        ht.check_key(d.key_type)
    return _is_dict(d) and ht.converts(key, d.key_type, "key")


# ---------------------------------------------------------------------------- making dicts


def _common(kind: str, members: list) -> types.Type:
    from ember.typing.conversions import unify_pair

    found = types.widened(members[0])
    for member in members[1:]:
        unified = unify_pair(found, types.widened(member))
        if unified is None:
            plain = types.widened(member)
            raise TypingError(
                f"Cannot make a dict of {kind}s {found} and {plain} (Cannot cast {plain} to "
                f"{found}): the {kind}s of a dict must have one type"
            )
        found = unified
    return found


@registry.typer(displays.dict_display)
def _type_dict_display(args, kws):
    if not args:
        return signature(types.empty_dict)
    key_type = _common("key", list(args[::2]))
    ht.check_key(key_type)
    if not _held_by_first_type(list(args[1::2])):
        # under constant string keys, Numba's rule: a literal dict, whose d['a'] keeps the
        # value's own type ({'a': 1, 'b': 2.0}: d['a'] is the int 1, as in Python)
        literal_dict = literal_containers.literal_dict_display(args)
        if literal_dict is not None:
            return signature(literal_dict, *args)
    value_type = _common("value", list(args[1::2]))
    return signature(types.DictType(key_type, value_type), *args)


def _held_by_first_type(values: list) -> bool:
    """Whether the type of the first value holds every other value safely (no value changes
    kind, e.g. a float stored as an int)."""
    from ember.typing.conversions import Conversion, can_convert

    first = types.widened(values[0])
    for value in values[1:]:
        kind = can_convert(types.widened(value), first)
        if kind is None or kind >= Conversion.unsafe:
            return False
    return True


# constant values as literals first: a literal dict's `literal_value` shows them
registry.functions[displays.dict_display][-1].prefer_literal = True


@registry.typer(dict)
def _type_empty_dict(args, kws):
    if not args and not kws:
        return signature(types.empty_dict)
    return None


@lower_builtin(displays.dict_display, VarArgs(types.Type))
@lower_builtin(dict)
def empty_dict(context, builder, sig, args):
    if isinstance(sig.return_type, types.LiteralStrKeyDict):
        return literal_containers.build_literal_dict(context, builder, sig, args)
    return table.allocate(context, builder, sig.return_type)


@overload(dict)
def dict_from(other):
    """`dict(d)` copies a dict; `dict(pairs)` takes (key, value) pairs from an iterable."""
    if _is_dict(other):
        return lambda other: other.copy()
    pair = _pair_type(other)
    if isinstance(pair, types.BaseTuple) and len(pair) == 2:
        ht.check_key(types.unliteral(pair.types[0]))

        def from_pairs(other):
            out = _dict_of_pairs(other)
            for key, value in other:
                out[key] = value
            return out

        return from_pairs
    if isinstance(pair, types.BaseTuple):  # CPython's words (its ValueError), at compile time
        raise TypingError(
            f"dictionary update sequence element has length {len(pair)}; 2 is required"
        )


def _pair_type(iterable: types.Type) -> types.Type | None:
    """The type of the items of `iterable`, also for a tuple of pairs whose keys differ only
    as literals (`(("a", 1), ("b", 2))`)."""
    iterator = iterator_of(iterable)
    if iterator is None and isinstance(iterable, types.BaseTuple):
        iterator = iterator_of(types.widened(iterable))
    return iterator.yield_type if iterator is not None else None


def _dict_of_pairs(iterable):
    raise NotImplementedError("runs only in compiled code")


@registry.typer(_dict_of_pairs)
def _type_dict_of_pairs(args, kws):
    key_type, value_type = _pair_type(args[0]).types
    return signature(types.DictType(key_type, value_type), *args)


@lower_builtin(_dict_of_pairs, types.Type)
def _lower_dict_of_pairs(context, builder, sig, args):
    return table.allocate(context, builder, sig.return_type)


@lower_cast(types.DictType, types.Boolean)
@lower_cast(types.Set, types.Boolean)
def table_truth(context, builder, from_type, to_type, value):
    """`if d:` / `if s:`: not empty."""
    return builder.icmp_signed("!=", table.load_field(builder, value, table.SIZE), refs.const(0))


# ---------------------------------------------------------------------------- size and items


@overload(len)
def table_len(t):
    if ht.is_table(t):
        return lambda t: ht.size(t)
    if isinstance(t, types.DictView):
        return lambda t: ht.size(_dict_of(t))


@overload(bool)
def table_bool(t):
    if ht.is_table(t):
        return lambda t: ht.size(t) != 0


@overload(operator.getitem)
def dict_getitem(d, key):
    if _key_fits(d, key):

        def getitem(d, key):
            k = ht.as_key(d, key)
            position, _ = ht.lookup(d, k, ht.table_hash(k))
            if position < 0:
                ht.missing(k)
            return ht.value_at(d, position)

        return getitem


@overload(operator.setitem)
def dict_setitem(d, key, value):
    if _key_fits(d, key) and ht.converts(value, d.value_type, "value"):

        def setitem(d, key, value):
            k = ht.as_key(d, key)
            v = ht.as_value(d, value)
            h = ht.table_hash(k)
            position, slot = ht.lookup(d, k, h)
            if position >= 0:
                ht.replace_value(d, position, v)
                return
            slot, position = ht.slot_for_new(d, h, slot)
            ht.put_entry(d, position, h, k, v)
            ht.set_index(d, slot, position)
            ht.set_used(d, position + 1)
            ht.set_size(d, ht.size(d) + 1)

        return setitem


@overload(operator.delitem)
def dict_delitem(d, key):
    if _key_fits(d, key):

        def delitem(d, key):
            k = ht.as_key(d, key)
            position, slot = ht.lookup(d, k, ht.table_hash(k))
            if position < 0:
                ht.missing(k)
            ht.forget(d, position, slot)
            ht.take_key(d, position)  # released as the results are dropped
            ht.take_value(d, position)

        return delitem


@overload(operator.contains)
def dict_contains(d, key):
    if _is_dict(d) and ht.converts(key, d.key_type, "key"):

        def contains(d, key):
            k = ht.as_key(d, key)
            return ht.lookup(d, k, ht.table_hash(k))[0] >= 0

        return contains
    if isinstance(d, types.DictView) and d.kind == "keys":
        return lambda d, key: key in _dict_of(d)
    if isinstance(d, types.DictView) and d.kind == "values":

        def value_in(d, key):
            for value in d:
                if value == key:
                    return True
            return False

        return value_in
    if isinstance(d, types.DictView) and d.kind == "items":
        if not (isinstance(key, types.BaseTuple) and len(key) == 2):
            return lambda d, key: False  # CPython: only a pair can be an item

        def item_in(d, key):
            table = _dict_of(d)
            return key[0] in table and table[key[0]] == key[1]

        return item_in


# ---------------------------------------------------------------------------- methods


@overload_method(types.DictType, "get")
def dict_get(d, key, default=None):
    if not _key_fits(d, key):
        return None
    if default is None or isinstance(default, types.NoneType):

        def get(d, key, default=None):
            k = ht.as_key(d, key)
            position, _ = ht.lookup(d, k, ht.table_hash(k))
            if position < 0:
                return None
            return ht.value_at(d, position)

        return get
    ht.converts(default, d.value_type, "default")  # Numba's rule: the values' type holds it

    def get_or(d, key, default=None):
        k = ht.as_key(d, key)
        position, _ = ht.lookup(d, k, ht.table_hash(k))
        if position < 0:
            return default
        return ht.value_at(d, position)

    return get_or


@overload_method(types.DictType, "pop")
def dict_pop(d, key, default=None):
    if not _key_fits(d, key):
        return None
    if default is None:

        def pop(d, key):
            k = ht.as_key(d, key)
            position, slot = ht.lookup(d, k, ht.table_hash(k))
            if position < 0:
                ht.missing(k)
            ht.forget(d, position, slot)
            ht.take_key(d, position)
            return ht.take_value(d, position)

        return pop
    if not isinstance(default, types.NoneType):
        ht.converts(default, d.value_type, "default")  # Numba's rule: the values' type holds it

    def pop_or(d, key, default=None):
        k = ht.as_key(d, key)
        position, slot = ht.lookup(d, k, ht.table_hash(k))
        if position < 0:
            return default
        ht.forget(d, position, slot)
        ht.take_key(d, position)
        return ht.take_value(d, position)

    return pop_or


@overload_method(types.DictType, "popitem")
def dict_popitem(d):
    if _is_dict(d):

        def popitem(d):
            if ht.size(d) == 0:
                raise KeyError("popitem(): dictionary is empty")
            position = ht.last_live(d)
            h = ht.hash_at(d, position)
            ht.forget(d, position, ht.slot_of(d, h, position))
            ht.set_used(d, position)  # every entry after it is deleted
            return ht.take_key(d, position), ht.take_value(d, position)

        return popitem


@overload_method(types.DictType, "setdefault")
def dict_setdefault(d, key, default=None):
    if _key_fits(d, key) and default is not None:

        def setdefault(d, key, default=None):
            k = ht.as_key(d, key)
            position, _ = ht.lookup(d, k, ht.table_hash(k))
            if position >= 0:
                return ht.value_at(d, position)
            d[k] = default
            return ht.as_value(d, default)

        return setdefault


def yields_pairs(iterable: types.Type) -> bool:
    """Whether iterating `iterable` gives 2-tuples (every member, for a heterogeneous tuple)."""
    if isinstance(iterable, types.BaseTuple):
        items = iterable.types
    else:  # an iterator yields its items itself; an iterable through its iterator
        iterator = getattr(iterable, "iterator_type", iterable)
        items = (getattr(iterator, "yield_type", None),)
    return all(isinstance(item, types.BaseTuple) and len(item) == 2 for item in items)


@overload_method(types.DictType, "update")
def dict_update(d, other):
    """`d.update(other)`: a dict, or an iterable of (key, value) pairs."""
    if not _is_dict(d):
        return None
    if _is_dict(other):

        def update(d, other):
            for key, value in other.items():
                d[key] = value

        return update
    if not yields_pairs(other):
        return None
    if isinstance(other, types.BaseTuple) and not isinstance(other, types.UniTuple):

        def update_from_tuple(d, other):  # pairs of different types: `((1, "a"), (2, "bc"))`
            for pair in literal_unroll(other):
                d[pair[0]] = pair[1]

        return update_from_tuple

    def update_from_pairs(d, other):
        for key, value in other:
            d[key] = value

    return update_from_pairs


@overload(operator.or_)
def dict_union(d, other):
    """`d | other`: a copy of `d` updated with `other` (Python 3.9)."""
    if _is_dict(d) and _is_dict(other):

        def union(d, other):
            out = d.copy()
            out.update(other)
            return out

        return union


@overload(operator.ior)
def dict_inplace_union(d, other):
    if _is_dict(d) and _is_dict(other):

        def inplace_union(d, other):
            d.update(other)
            return d

        return inplace_union


@overload_method(types.DictType, "clear")
def dict_clear(d):
    if _is_dict(d):
        return lambda d: ht.clear(d)


@overload_method(types.DictType, "copy")
def dict_copy(d):
    if _is_dict(d):

        def copy(d):
            out = ht.new_table(d)
            if ht.size(d) > 0:
                ht.resize(out, ht.size(d))
            for key, value in d.items():
                out[key] = value
            return out

        return copy


@overload(operator.eq)
def dict_eq(d, other):
    if _is_dict(d) and _is_dict(other):

        def eq(d, other):
            if len(d) != len(other):
                return False
            for key, value in d.items():
                if key not in other:
                    return False
                if not other[key] == value:
                    return False
            return True

        return eq


@overload(operator.ne)
def dict_ne(d, other):
    if _is_dict(d) and _is_dict(other):
        return lambda d, other: not d == other


# Values that never equal a dict in CPython (neither side's __eq__ knows the other).
_NEVER_A_DICT = (
    types.Number,
    types.Boolean,
    types.UnicodeType,
    types.NoneType,
    types.List,
    types.Set,
)


def _never_a_dict(typ) -> bool:
    if isinstance(typ, types.BaseTuple):
        return not isinstance(typ, types.LiteralStrKeyDict)
    return isinstance(types.unliteral(typ), _NEVER_A_DICT) and not _is_dict(typ)


@overload(operator.eq)
def dict_eq_other(d, other):
    if (_is_dict(d) and _never_a_dict(other)) or (_is_dict(other) and _never_a_dict(d)):
        return lambda d, other: False


@overload(operator.ne)
def dict_ne_other(d, other):
    if (_is_dict(d) and _never_a_dict(other)) or (_is_dict(other) and _never_a_dict(d)):
        return lambda d, other: True


# ---------------------------------------------------------------------------- views and iteration


def _view_method(kind: str):
    def typer(d):
        if _is_dict(d):
            return lambda d: _view(d, kind)

    overload_method(types.DictType, kind)(typer)


def _view(d, kind):
    raise NotImplementedError("runs only in compiled code")


@registry.typer(_view)
def _type_view(args, kws):
    d, kind = args
    if _is_dict(d) and isinstance(kind, types.StringLiteral):
        return signature(types.DictView(d, kind.literal_value), *args)
    return None


@lower_builtin(_view, types.DictType, types.Type)
def _lower_view(context, builder, sig, args):
    refs.incref(builder, sig.args[0], args[0])  # the view holds the dict
    return args[0]


for _kind in ("keys", "values", "items"):
    _view_method(_kind)


def _dict_of(view):
    raise NotImplementedError("runs only in compiled code")


@registry.typer(_dict_of)
def _type_dict_of(args, kws):
    if len(args) == 1 and isinstance(args[0], types.DictView):
        return signature(args[0].dict_type, *args)
    return None


@lower_builtin(_dict_of, types.DictView)
def _lower_dict_of(context, builder, sig, args):
    refs.incref(builder, sig.return_type, args[0])
    return args[0]


@registry.typer(iter)
def _type_iter(args, kws):
    if len(args) == 1 and not kws:
        if ht.is_table(args[0]) or isinstance(args[0], types.DictView):
            return signature(args[0].iterator_type, args[0])
    return None


@lower_builtin(iter, types.DictType)
@lower_builtin(iter, types.Set)
def table_iter(context, builder, sig, args):
    return ht.iteration_state(context, builder, sig.args[0], args[0])


@lower_builtin(iter, types.DictView)
def view_iter(context, builder, sig, args):
    dict_type = sig.args[0].dict_type
    return ht.iteration_state(context, builder, dict_type, args[0])


@lower_builtin(next, types.HashTableIterator)
def table_next(context, builder, sig, args):
    return ht.iterator_next(context, builder, sig, args)


# ---------------------------------------------------------------------------- reductions


def _iterable_table(typ: types.Type) -> bool:
    return ht.is_table(typ) or isinstance(typ, types.DictView)


@overload(sorted)
def table_sorted(iterable, reverse=False):
    if _iterable_table(iterable):
        return lambda iterable, reverse=False: sorted(list(iterable), reverse=reverse)


def _extreme(symbol: str):
    def select(iterable):
        if _iterable_table(iterable) and isinstance(iterable.iterator_type.yield_type, _REAL):
            return _extreme_impls[symbol]

    return select


_REAL = (types.Integer, types.Float, types.Boolean)


def _min_of(iterable):
    return min(list(iterable))


def _max_of(iterable):
    return max(list(iterable))


_extreme_impls = {"min": _min_of, "max": _max_of}
overload(min)(_extreme("min"))
overload(max)(_extreme("max"))


@overload(sum)
def table_sum(iterable, start=0):
    if _iterable_table(iterable) and isinstance(iterable.iterator_type.yield_type, _REAL):

        def total(iterable, start=0):
            result = start
            for item in iterable:
                result += item
            return result

        return total


# ---------------------------------------------------------------------------- dict.fromkeys


def dict_fromkeys(keys, value=None):
    """`dict.fromkeys` as compiled code calls it."""
    return dict.fromkeys(keys, value)


@overload(dict_fromkeys)
def _dict_fromkeys(keys, value=None):
    if iterator_of(keys) is None:
        return None

    def fromkeys(keys, value=None):
        made = {}
        for key in keys:
            made[key] = value
        return made

    return fromkeys


def class_method(owner: type, attr: str, function) -> None:
    """Make `owner.attr` in compiled code the library function `function` (`dict.fromkeys`,
    `Dict.empty`, `List.empty_list`), whose own `@overload` compiles the calls."""

    class _ClassMethod(AttributeTemplate):
        key = types.Function

        def generic_resolve(self, value_type, name):
            if name == attr and value_type.typing_key is owner:
                return types.Function(function)
            return None

    registry.register_attr(_ClassMethod)

    @lower_getattr(types.Function, attr)
    def _lower_class_method(context, builder, typ, value):
        return context.get_dummy_value(types.Function(function))


class_method(dict, "fromkeys", dict_fromkeys)


# ---------------------------------------------------------------------------- views as sets

# `d.keys() & other` (and |, -, ^; `d.items()` too): a new set, as CPython's views give
_VIEW_SET_OPERATIONS = {
    operator.and_: lambda a, b: set(a) & set(b),
    operator.or_: lambda a, b: set(a) | set(b),
    operator.sub: lambda a, b: set(a) - set(b),
    operator.xor: lambda a, b: set(a) ^ set(b),
}


def _set_like_view(typ: types.Type) -> bool:
    return isinstance(typ, types.DictView) and typ.kind in ("keys", "items")


def _view_set_operation(implementation):
    def view_operation(a, b):
        if not (_set_like_view(a) or _set_like_view(b)):
            return None
        if iterator_of(a) is None or iterator_of(b) is None:
            return None
        return implementation

    return view_operation


for _operation, _implementation in _VIEW_SET_OPERATIONS.items():
    overload(_operation)(_view_set_operation(_implementation))


def _set_likes(a, b) -> bool:
    """A keys or items view and another one, or a set: compared as sets, as CPython does."""
    set_like = (_set_like_view(a) or isinstance(a, types.Set)) and (
        _set_like_view(b) or isinstance(b, types.Set)
    )
    return set_like and (_set_like_view(a) or _set_like_view(b))


@register_jitable
def _same_members(a, b):
    if len(a) != len(b):
        return False
    for member in a:
        if member not in b:
            return False
    return True


@overload(operator.eq)
def view_eq(a, b):
    if _set_likes(a, b):
        return _same_members


@overload(operator.ne)
def view_ne(a, b):
    if _set_likes(a, b):
        return lambda a, b: not _same_members(a, b)


@overload(reversed)
def dict_reversed(d):
    """`reversed(d)` (or of a view): the keys (values, items) from the last inserted."""
    if _is_dict(d) or isinstance(d, types.DictView):
        return lambda d: reversed(list(d))
    return None
