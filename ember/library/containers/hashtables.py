"""The hash table under dicts and sets: primitives over ember/lowering/dicts.py as intrinsics,
and probing, growth and deletion written in Python (compiled with the code that calls them).

Probing follows CPython's: slot `hash & mask`, then `slot * 5 + perturb + 1` with `perturb`
shifted right by 5 each step, so every slot is reached and clustered hashes spread. Keys
compare by their `hash` and `==` overloads, so any key type with both works (strings too).
Reference counts: an entry holds one reference to its key and value; `_take_*` hands that
reference to the caller, `_key_at`/`_value_at` give new ones.
"""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, lower_cast, overload, register_jitable
from ember.lowering import arrays as refs
from ember.lowering import dicts as table
from ember.lowering.adopted_arrays import store_new_reference
from ember.typing.conversions import storable, warn_if_unsafe
from ember.typing.signature import signature

EMPTY = table.EMPTY
DELETED = table.DELETED
DELETED_HASH = table.DELETED_HASH
MIN_SLOTS = 8
LOGICAL_SHIFT_MASK = (1 << 59) - 1  # `>> 5` of an int64 then this: an unsigned shift


def is_table(typ: types.Type) -> bool:
    return isinstance(typ, types.HashTable) and typ.is_precise


def converts(from_type: types.Type, to_type: types.Type, what: str) -> bool:
    """Whether a `from_type` can be stored as a `to_type` key or value without losing
    information; a TypingError that says so when it cannot."""
    kind = storable(from_type, to_type)
    if kind is None:
        plain = types.unliteral(from_type)
        raise TypingError(
            f"cannot use a {plain} as a {what} of type {to_type} (cannot safely cast {plain} "
            f"to {to_type}): a dict or set keeps the types it was made with"
        )
    warn_if_unsafe(kind, from_type, to_type)
    return True


def check_key(key_type: types.Type) -> None:
    problem = types.unsupported_key(key_type)
    if problem is not None:
        raise TypingError(problem)


# ---------------------------------------------------------------------------- header fields


def _field_getter(index: int):
    @intrinsic
    def getter(typingctx, t):
        def codegen(context, builder, sig, args):
            return table.load_field(builder, args[0], index)

        return signature(types.int64, t), codegen

    return getter


def _field_setter(index: int):
    @intrinsic
    def setter(typingctx, t, value):
        def codegen(context, builder, sig, args):
            table.store_field(builder, args[0], index, args[1])
            return context.get_dummy_value(types.none)

        return signature(types.none, t, types.int64), codegen

    return setter


size = _field_getter(table.SIZE)
used = _field_getter(table.USED)
mask = _field_getter(table.MASK)
set_size = _field_setter(table.SIZE)
set_used = _field_setter(table.USED)
fill = _field_getter(table.FILL)
finger = _field_getter(table.FINGER)
set_fill = _field_setter(table.FILL)
set_finger = _field_setter(table.FINGER)


@intrinsic
def index_at(typingctx, t, slot):
    def codegen(context, builder, sig, args):
        return builder.load(table.index_pointer(builder, args[0], args[1]), typ=refs.i64)

    return signature(types.int64, t, types.int64), codegen


@intrinsic
def set_index(typingctx, t, slot, position):
    def codegen(context, builder, sig, args):
        builder.store(args[2], table.index_pointer(builder, args[0], args[1]))
        return context.get_dummy_value(types.none)

    return signature(types.none, t, types.int64, types.int64), codegen


def _member_loader(member: int, new_ref: bool):
    @intrinsic
    def loader(typingctx, t, position):
        def codegen(context, builder, sig, args):
            return table.load_member(context, builder, sig.args[0], *args, member, new_ref)

        return signature(table.member_type(t, member), t, types.int64), codegen

    return loader


hash_at = _member_loader(0, False)
key_at = _member_loader(1, True)
value_at = _member_loader(2, True)
take_key = _member_loader(1, False)
take_value = _member_loader(2, False)


@intrinsic
def set_hash(typingctx, t, position, hash_value):
    def codegen(context, builder, sig, args):
        pointer = table.entry_member(context, builder, sig.args[0], args[0], args[1], 0)
        builder.store(args[2], pointer)
        return context.get_dummy_value(types.none)

    return signature(types.none, t, types.int64, types.int64), codegen


def _put_codegen(context, builder, sig, args):
    """Fill entry args[1] (free) with hash args[2] and new references to the members after."""
    t_type, value = sig.args[0], args[0]
    builder.store(args[2], table.entry_member(context, builder, t_type, value, args[1], 0))
    for member, (typ, item) in enumerate(zip(sig.args[3:], args[3:]), start=1):
        pointer = table.entry_member(context, builder, t_type, value, args[1], member)
        store_new_reference(context, builder, typ, item, pointer)
    return context.get_dummy_value(types.none)


@intrinsic
def put_entry(typingctx, t, position, hash_value, key, value):
    members = (t.key_type, t.value_type)
    return signature(types.none, t, types.int64, types.int64, *members), _put_codegen


@intrinsic
def put_key(typingctx, t, position, hash_value, key):
    return signature(types.none, t, types.int64, types.int64, t.key_type), _put_codegen


@intrinsic
def replace_value(typingctx, t, position, value):
    """Store a new reference to `value` in entry `position`, releasing the old value."""

    def codegen(context, builder, sig, args):
        value_type = sig.args[0].value_type
        pointer = table.entry_member(context, builder, sig.args[0], args[0], args[1], 2)
        refs.decref(builder, value_type, refs.load_value(builder, value_type, pointer))
        store_new_reference(context, builder, value_type, args[2], pointer)
        return context.get_dummy_value(types.none)

    return signature(types.none, t, types.int64, t.value_type), codegen


@intrinsic
def reallocate(typingctx, t, slots):
    def codegen(context, builder, sig, args):
        table.reallocate(context, builder, sig.args[0], args[0], args[1])
        return context.get_dummy_value(types.none)

    return signature(types.none, t, types.int64), codegen


@intrinsic
def release_all(typingctx, t):
    """Drop every live entry's references (the caller then empties the table)."""

    def codegen(context, builder, sig, args):
        table.release_entries(context, builder, sig.args[0], args[0])
        return context.get_dummy_value(types.none)

    return signature(types.none, t), codegen


@intrinsic
def new_table(typingctx, prototype):
    """A new empty table of `prototype`'s type."""

    def codegen(context, builder, sig, args):
        return table.allocate(context, builder, sig.return_type)

    return signature(prototype, prototype), codegen


def _convert(context, builder, sig, args):
    """args[1] converted to the return type: a new reference (the result is a variable)."""
    converted = context.cast(builder, args[1], sig.args[1], sig.return_type)
    refs.incref(builder, sig.return_type, converted)
    return converted


@intrinsic
def as_key(typingctx, t, key):
    """`key` converted to the table's key type."""
    return signature(t.key_type, t, key), _convert


@intrinsic
def as_value(typingctx, t, value):
    return signature(t.value_type, t, value), _convert


@lower_cast(types.DictType, types.DictType)
@lower_cast(types.Set, types.Set)
def table_to_table(context, builder, from_type, to_type, value):
    """An empty `{}`/`set()` of undefined members converts (it holds nothing yet), and a
    reflected set to a set of its items (one representation)."""
    same_items = isinstance(from_type, types.Set) and from_type.dtype is to_type.dtype
    if from_type is to_type or same_items:
        return value
    return table.settle_types(context, builder, value, to_type)


# ---------------------------------------------------------------------------- probing


def carried_by_exceptions(typ: types.Type) -> bool:
    """Whether a raised exception can take a run-time value of `typ` back to Python as its
    argument: numbers, strings, bytes, datetimes and tuples of those."""
    if isinstance(typ, types.BaseTuple):
        return all(carried_by_exceptions(member) for member in typ)
    carried = (types.Number, types.Boolean, types.UnicodeType, types.Bytes)
    return isinstance(types.unliteral(typ), (*carried, types.NPDatetime, types.NPTimedelta))


def missing(key):
    """Raise CPython's `KeyError(key)` (with a constant message for keys an exception cannot
    carry)."""
    raise KeyError(key)


@overload(missing)
def _missing_overload(key):
    if carried_by_exceptions(key):

        def raise_with_key(key):
            raise KeyError(key)

        return raise_with_key

    def raise_without_key(key):
        raise KeyError("key not found")

    return raise_without_key


@register_jitable
def table_hash(key):
    """The key's hash as the table keeps it: never -1, which marks a deleted entry."""
    h = hash(key)
    if h == -1:
        h = -2
    return h


@register_jitable
def lookup(t, key, h):
    """(position of the entry holding `key` or -1, the index slot pointing at it or the first
    free slot for it); (-1, -1) when the table has no slots yet."""
    m = mask(t)
    if m < 0:
        return -1, -1
    slot = h & m
    perturb = h
    free = -1
    while True:
        position = index_at(t, slot)
        if position == EMPTY:
            return -1, (slot if free < 0 else free)
        if position == DELETED:
            if free < 0:
                free = slot
        elif hash_at(t, position) == h and key_at(t, position) == key:
            return position, slot
        perturb = (perturb >> 5) & LOGICAL_SHIFT_MASK
        slot = (slot * 5 + perturb + 1) & m


@register_jitable
def empty_slot(t, h):
    """The first empty index slot on `h`'s probe path (a table with no deleted slots)."""
    m = mask(t)
    slot = h & m
    perturb = h
    while index_at(t, slot) != EMPTY:
        perturb = (perturb >> 5) & LOGICAL_SHIFT_MASK
        slot = (slot * 5 + perturb + 1) & m
    return slot


@register_jitable
def resize(t, wanted):
    """Room for at least `wanted` live entries: fresh blocks, deleted entries dropped."""
    slots = MIN_SLOTS
    while slots * 2 // 3 < wanted:
        slots *= 2
    reallocate(t, slots)
    for position in range(used(t)):
        set_index(t, empty_slot(t, hash_at(t, position)), position)


@register_jitable
def slot_for_new(t, h, slot):
    """The index slot and entry position for a new key whose lookup gave `slot`, growing the
    table first when its entries are used up."""
    position = used(t)
    if position >= (mask(t) + 1) * 2 // 3:
        resize(t, size(t) * 3 if size(t) > 0 else 1)
        position = used(t)
        slot = empty_slot(t, h)
    return slot, position


@register_jitable
def forget(t, position, slot):
    """Mark entry `position` (found through index `slot`) deleted; its references are the
    caller's to take or release."""
    set_index(t, slot, DELETED)
    set_hash(t, position, DELETED_HASH)
    set_size(t, size(t) - 1)


@register_jitable
def last_live(t):
    """The position of the last live entry (the table is not empty)."""
    position = used(t) - 1
    while hash_at(t, position) == DELETED_HASH:
        position -= 1
    return position


@register_jitable
def slot_of(t, h, position):
    """The index slot that points at entry `position` of hash `h`."""
    m = mask(t)
    slot = h & m
    perturb = h
    while index_at(t, slot) != position:
        perturb = (perturb >> 5) & LOGICAL_SHIFT_MASK
        slot = (slot * 5 + perturb + 1) & m
    return slot


@register_jitable
def clear(t):
    release_all(t)
    for slot in range(mask(t) + 1):
        set_index(t, slot, EMPTY)
    set_used(t, 0)
    set_size(t, 0)


# ---------------------------------------------------------------------------- iteration


def _state_type(context, table_type):
    """{table, next entry position, size when iteration began}"""
    return llvm.LiteralStructType([context.value_type(table_type), refs.i64, refs.i64])


def iteration_state(context, builder, table_type, value):
    from ember.lowering import iterators

    size_now = table.load_field(builder, value, table.SIZE)
    return iterators.owning_state(context, builder, table_type, value, extra=[size_now])


def iterator_next(context, builder, sig, args):
    """`next` of a table iterator: the next live entry's key, value or (key, value)."""
    from ember.lowering import iterators

    iterator_type = sig.args[0]
    table_type = iterator_type.table_type
    state_type = _state_type(context, table_type)
    value = builder.load(
        builder.gep(args[0], [refs.i32_(0), refs.i32_(0)], source_etype=state_type),
        typ=context.value_type(table_type),
    )
    began = builder.gep(args[0], [refs.i32_(0), refs.i32_(2)], source_etype=state_type)
    changed = builder.icmp_signed(
        "!=", builder.load(began, typ=refs.i64), table.load_field(builder, value, table.SIZE)
    )
    what = "dictionary" if isinstance(table_type, types.DictType) else "Set"
    context.guard(builder, changed, RuntimeError, f"{what} changed size during iteration")
    position_slot = builder.gep(args[0], [refs.i32_(0), refs.i32_(1)], source_etype=state_type)
    search = builder.append_basic_block("table.next.search")
    check = builder.append_basic_block("table.next.check")
    found_block = builder.append_basic_block("table.next.found")
    done = builder.append_basic_block("table.next.done")
    builder.branch(search)
    builder.position_at_end(search)
    position = builder.load(position_slot, typ=refs.i64)
    more = builder.icmp_signed("<", position, table.load_field(builder, value, table.USED))
    builder.cbranch(more, check, done)
    builder.position_at_end(check)
    builder.store(builder.add(position, refs.const(1)), position_slot)
    hash_value = table.load_member(context, builder, table_type, value, position, 0, False)
    live = builder.icmp_signed("!=", hash_value, refs.const(DELETED_HASH))
    builder.cbranch(live, found_block, search)
    builder.position_at_end(found_block)
    item = _entry_item(context, builder, iterator_type, value, position)
    builder.branch(done)
    builder.position_at_end(done)
    before = search
    return iterators.iternext_pair(context, builder, sig, (item, found_block), before, more)


def _entry_item(context, builder, iterator_type, value, position):
    table_type = iterator_type.table_type
    load = table.load_member
    if iterator_type.kind == "keys":
        return load(context, builder, table_type, value, position, 1, True)
    if iterator_type.kind == "values":
        return load(context, builder, table_type, value, position, 2, True)
    pair = llvm.Constant(context.value_type(iterator_type.yield_type), llvm.Undefined)
    for index, member in enumerate((1, 2)):
        item = load(context, builder, table_type, value, position, member, True)
        pair = builder.insert_value(pair, item, index)
    return pair
