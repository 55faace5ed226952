"""The hash table of a set laid out and changed as CPython's setobject.c does (open addressing
with 9 linear probes before each perturbed jump, resizing at 60% fill, deleted slots reused on add,
`pop` from a finger), so a set built by the same calls iterates in CPython's order; the layout
is described in ember/lowering/dicts.py. Every function here is compiled with its caller."""

from __future__ import annotations

from ember import types
from ember.extending import intrinsic, register_jitable
from ember.library.containers import hashtables as ht
from ember.lowering import dicts as table
from ember.typing.signature import signature

EMPTY = table.EMPTY
DELETED = table.DELETED
DELETED_HASH = table.DELETED_HASH
MIN_SLOTS = ht.MIN_SLOTS
LINEAR_PROBES = 9
_LOGICAL_SHIFT_MASK = ht.LOGICAL_SHIFT_MASK


# ---------------------------------------------------------------------------- primitives


@intrinsic
def give_blocks(typingctx, s, slots):
    """Fresh empty blocks of `slots` slots for a set whose live items are gone or moved."""

    def codegen(context, builder, sig, args):
        table.give_set_blocks(context, builder, sig.args[0], args[0], args[1])
        return context.get_dummy_value(types.none)

    return signature(types.none, s, types.int64), codegen


@intrinsic
def drop_blocks(typingctx, s):
    def codegen(context, builder, sig, args):
        table.drop_blocks(builder, args[0])
        return context.get_dummy_value(types.none)

    return signature(types.none, s), codegen


@intrinsic
def swap_bodies(typingctx, s, other):
    def codegen(context, builder, sig, args):
        table.swap_bodies(builder, args[0], args[1])
        return context.get_dummy_value(types.none)

    if s == other:
        return signature(types.none, s, other), codegen
    return None


@intrinsic
def move_entry(typingctx, source, position, target, slot):
    def codegen(context, builder, sig, args):
        table.move_entry(context, builder, sig.args[0], *args)
        return context.get_dummy_value(types.none)

    if source == target:
        return signature(types.none, source, types.int64, target, types.int64), codegen
    return None


@intrinsic
def same_table(typingctx, s, other):
    """Whether two sets are one object (`s |= s`)."""

    def codegen(context, builder, sig, args):
        first, second = (builder.extract_value(arg, 0) for arg in args)
        return builder.icmp_unsigned("==", first, second)

    return signature(types.boolean, s, other), codegen


# ---------------------------------------------------------------------------- probing


@register_jitable
def _next_start(slot, perturb, m):
    perturb = (perturb >> 5) & _LOGICAL_SHIFT_MASK
    return (slot * 5 + 1 + perturb) & m, perturb


@register_jitable
def _probes(slot, m):
    """How many slots after `slot` the probe also reads before jumping."""
    return LINEAR_PROBES if slot + LINEAR_PROBES <= m else 0


@register_jitable
def find(s, key, h):
    """The slot holding `key` (hash `h`), or -1."""
    m = ht.mask(s)
    if m < 0:
        return -1
    start = h & m
    perturb = h
    while True:
        for slot in range(start, start + _probes(start, m) + 1):
            state = ht.index_at(s, slot)
            if state == EMPTY:
                return -1
            if state >= 0 and ht.hash_at(s, slot) == h and ht.key_at(s, slot) == key:
                return slot
        start, perturb = _next_start(start, perturb, m)


@register_jitable
def clean_slot(s, h):
    """The first empty slot on `h`'s probe path (CPython's set_insert_clean)."""
    m = ht.mask(s)
    start = h & m
    perturb = h
    while True:
        for slot in range(start, start + _probes(start, m) + 1):
            if ht.index_at(s, slot) == EMPTY:
                return slot
        start, perturb = _next_start(start, perturb, m)


@register_jitable
def _put(s, slot, h, key):
    ht.put_key(s, slot, h, key)
    ht.set_index(s, slot, slot)


@register_jitable
def _growth(live):
    return live * 2 if live > 50000 else live * 4


# ---------------------------------------------------------------------------- changes


@register_jitable
def resize(s, wanted):
    """Move the live items to a table of the fewest slots (at least 8) above `wanted`,
    in slot order, dropping deleted slots (CPython's set_table_resize)."""
    slots = MIN_SLOTS
    while slots <= wanted:
        slots *= 2
    live = ht.size(s)
    old_mask = ht.mask(s)
    if slots == old_mask + 1 and slots == MIN_SLOTS and ht.fill(s) == live:
        return  # nothing deleted to drop: CPython keeps its small table as it is
    fresh = ht.new_table(s)
    give_blocks(fresh, slots)
    for position in range(old_mask + 1):
        if ht.index_at(s, position) >= 0:
            move_entry(s, position, fresh, clean_slot(fresh, ht.hash_at(s, position)))
    ht.set_size(fresh, live)
    ht.set_fill(fresh, live)
    swap_bodies(s, fresh)
    ht.set_used(fresh, 0)  # its entries moved: its destructor frees only the blocks


@register_jitable
def _ensure_blocks(s):
    if ht.mask(s) < 0:
        give_blocks(s, MIN_SLOTS)


@register_jitable
def add_entry(s, key, h):
    """Add `key` (hash `h`) unless present, into the last deleted slot on its path if any
    (CPython's set_add_entry); whether it was added."""
    _ensure_blocks(s)
    m = ht.mask(s)
    start = h & m
    perturb = h
    free = -1
    while True:
        for slot in range(start, start + _probes(start, m) + 1):
            state = ht.index_at(s, slot)
            if state == EMPTY:
                ht.set_size(s, ht.size(s) + 1)
                if free >= 0:
                    _put(s, free, h, key)
                    return True
                _put(s, slot, h, key)
                ht.set_fill(s, ht.fill(s) + 1)
                if ht.fill(s) * 5 >= m * 3:
                    resize(s, _growth(ht.size(s)))
                return True
            if state == DELETED:
                free = slot  # the last one on the path, as CPython takes
            elif ht.hash_at(s, slot) == h and ht.key_at(s, slot) == key:
                return False
        start, perturb = _next_start(start, perturb, m)


@register_jitable
def discard_entry(s, key, h):
    """Remove `key` (hash `h`) if present, leaving a deleted slot; whether it was there."""
    slot = find(s, key, h)
    if slot < 0:
        return False
    ht.set_index(s, slot, DELETED)
    ht.set_hash(s, slot, DELETED_HASH)
    ht.set_size(s, ht.size(s) - 1)
    ht.take_key(s, slot)  # released as the result is dropped
    return True


@register_jitable
def pop(s):
    """Remove and return the first live item from the finger on (CPython's set_pop)."""
    if ht.size(s) == 0:
        raise KeyError("pop from an empty set")
    m = ht.mask(s)
    slot = ht.finger(s) & m
    while ht.index_at(s, slot) < 0:
        slot += 1
        if slot > m:
            slot = 0
    ht.set_index(s, slot, DELETED)
    ht.set_hash(s, slot, DELETED_HASH)
    ht.set_size(s, ht.size(s) - 1)
    ht.set_finger(s, slot + 1)
    return ht.take_key(s, slot)


@register_jitable
def clear(s):
    """Release every item and go back to no slots (CPython's set_clear_internal)."""
    ht.release_all(s)
    drop_blocks(s)
    ht.set_size(s, 0)
    ht.set_fill(s, 0)


@register_jitable
def merge(s, other):
    """Add every item of the set `other` to `s` (CPython's set_merge: one resize up front,
    then a straight copy of the table into an empty one of the same size)."""
    if same_table(s, other) or ht.size(other) == 0:
        return
    _ensure_blocks(s)
    if (ht.fill(s) + ht.size(other)) * 5 >= ht.mask(s) * 3:
        resize(s, (ht.size(s) + ht.size(other)) * 2)
    other_mask = ht.mask(other)
    if ht.fill(s) == 0:
        same_layout = ht.mask(s) == other_mask and ht.fill(other) == ht.size(other)
        for position in range(other_mask + 1):
            if ht.index_at(other, position) >= 0:
                h = ht.hash_at(other, position)
                key = ht.as_key(s, ht.key_at(other, position))
                _put(s, position if same_layout else clean_slot(s, h), h, key)
        ht.set_size(s, ht.size(other))
        ht.set_fill(s, ht.size(other))
        return
    for position in range(other_mask + 1):
        if ht.index_at(other, position) >= 0:
            add_entry(s, ht.as_key(s, ht.key_at(other, position)), ht.hash_at(other, position))


@register_jitable
def copy(s):
    out = ht.new_table(s)
    merge(out, s)
    return out


@register_jitable
def intersection(s, other):
    """The items of both, added in the slot order of the smaller (of `other` on a tie)."""
    out = ht.new_table(s)
    if same_table(s, other):
        merge(out, s)
        return out
    if ht.size(other) > ht.size(s):
        _add_found(out, s, other)
    else:
        _add_found(out, other, s)
    return out


@register_jitable
def _add_found(out, walked, looked_in):
    for position in range(ht.mask(walked) + 1):
        if ht.index_at(walked, position) >= 0:
            h = ht.hash_at(walked, position)
            key = ht.key_at(walked, position)
            if find(looked_in, key, h) >= 0:
                add_entry(out, ht.as_key(out, key), h)


@register_jitable
def intersection_update(s, other):
    kept = intersection(s, other)
    swap_bodies(s, kept)


@register_jitable
def _discard_items_of(s, other):
    for position in range(ht.mask(other) + 1):
        if ht.index_at(other, position) >= 0:
            discard_entry(s, ht.key_at(other, position), ht.hash_at(other, position))


@register_jitable
def difference_update(s, other):
    """CPython's set_difference_update_internal: through the intersection when `other` is
    over 8 times larger, then a resize when over a quarter of the slots are deleted."""
    if same_table(s, other):
        clear(s)
        return
    if (ht.size(other) >> 3) > ht.size(s):
        _discard_items_of(s, intersection(s, other))
    else:
        _discard_items_of(s, other)
    if ht.mask(s) >= 0 and ht.fill(s) - ht.size(s) > ht.mask(s) // 4:
        resize(s, _growth(ht.size(s)))


@register_jitable
def difference(s, other):
    """CPython's set_difference: a copy made smaller when `s` is over 4 times larger than
    `other`, else the items of `s` not in `other` added in its slot order."""
    if (ht.size(s) >> 2) > ht.size(other):
        out = copy(s)
        difference_update(out, other)
        return out
    out = ht.new_table(s)
    for position in range(ht.mask(s) + 1):
        if ht.index_at(s, position) >= 0:
            h = ht.hash_at(s, position)
            key = ht.key_at(s, position)
            if find(other, key, h) < 0:
                add_entry(out, key, h)
    return out


@register_jitable
def symmetric_difference_update(s, other):
    if same_table(s, other):
        clear(s)
        return
    for position in range(ht.mask(other) + 1):
        if ht.index_at(other, position) >= 0:
            h = ht.hash_at(other, position)
            key = ht.as_key(s, ht.key_at(other, position))
            if not discard_entry(s, key, h):
                add_entry(s, key, h)


@register_jitable
def symmetric_difference(s, other):
    """CPython's order: a copy of `other` changed by the items of `s`."""
    out = ht.new_table(s)
    merge(out, other)
    symmetric_difference_update(out, s)
    return out


@register_jitable
def union(s, other):
    out = copy(s)
    merge(out, other)
    return out
