"""Hash-table primitives for lowering dicts and sets: the header behind a table's meminfo, its
index and entry blocks, entry addresses, reallocation and the destructor.

A dict or set value is its meminfo (`HashTableModel`); the meminfo's data is the header

    {i64 size, i64 used, i64 mask, ptr indices, ptr entries, i64 fill, i64 finger}

as in CPython's compact dict: `indices` (a runtime block of `mask + 1` i64 slots) holds -1 for
an empty slot, -2 for a deleted one, else the position of an entry; `entries` (a second block
of `usable(mask)` entries) holds {i64 hash, key, value} (sets: {i64 hash, key}) in insertion
order. `used` entries were appended, `size` of them are live; a deleted entry's hash is -1
(hashes are never -1, as in CPython). An empty `{}` has no blocks yet (mask -1). The table owns
one reference to each live key and value that owns memory; the destructor releases them.

A set lays its table out as CPython's setobject.c does, so it iterates in CPython's order: open
addressing over `mask + 1` entries in place (`used` is `mask + 1`, so readers that walk `used`
entries skipping hash -1 read either kind of table), `indices` holding each slot's state (-1
empty, -2 deleted, else the slot itself), `fill` counting live plus deleted slots and `finger`
where `pop` looks next (ember/library/containers/set_tables.py).
"""

from __future__ import annotations

import ctypes

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as refs
from ember.lowering.models import MeminfoStructModel, OpaqueModel, register_model
from ember.runtime import nrt

i64 = refs.i64
ptr = refs.ptr
_HEADER = llvm.LiteralStructType([i64, i64, i64, ptr, ptr, i64, i64])
SIZE, USED, MASK, INDICES, ENTRIES, FILL, FINGER = range(7)
_HEADER_BYTES = 56
EMPTY, DELETED = -1, -2
DELETED_HASH = -1


class HeaderMemory(ctypes.Structure):
    """The header as Python reads it (boxing a returned set, iterating a typed.Dict)."""

    _fields_ = [
        ("size", ctypes.c_int64),
        ("used", ctypes.c_int64),
        ("mask", ctypes.c_int64),
        ("indices", ctypes.c_void_p),
        ("entries", ctypes.c_void_p),
        ("fill", ctypes.c_int64),
        ("finger", ctypes.c_int64),
    ]


@register_model(types.DictType)
@register_model(types.Set)
class HashTableModel(MeminfoStructModel):
    """A dict or set is its meminfo, whose data is the header above."""

    def __init__(self, fe_type: types.HashTable) -> None:
        super().__init__(fe_type, [("meminfo", types.meminfo_pointer)])


@register_model(types.DictView)
class DictViewModel(MeminfoStructModel):
    """A view is the dict it shows (the same meminfo, one more reference)."""

    def __init__(self, fe_type: types.DictView) -> None:
        super().__init__(fe_type, [("meminfo", types.meminfo_pointer)])


@register_model(types.HashTableIterator)
class HashTableIteratorModel(OpaqueModel):
    """A pointer to {table, next entry index} in the entry block of the function that made it."""


def usable(slots: int) -> int:
    """How many entries a table of `slots` index slots holds before it grows (2/3 full)."""
    return slots * 2 // 3


# ---------------------------------------------------------------------------- header fields


def meminfo(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.extract_value(value, 0)


def field_pointer(builder: llvm.IRBuilder, value: llvm.Value, index: int) -> llvm.Value:
    header = nrt.emit_data_pointer(builder, meminfo(builder, value))
    return builder.gep(header, [refs.i32_(0), refs.i32_(index)], source_etype=_HEADER)


def load_field(builder: llvm.IRBuilder, value: llvm.Value, index: int) -> llvm.Value:
    typ = ptr if index in (INDICES, ENTRIES) else i64
    return builder.load(field_pointer(builder, value, index), typ=typ)


def store_field(builder: llvm.IRBuilder, value: llvm.Value, index: int, new) -> None:
    builder.store(new, field_pointer(builder, value, index))


def entry_type(context, table_type: types.HashTable) -> llvm.Type:
    members = [i64, context.data_type(table_type.key_type)]
    if table_type.value_type is not None:
        members.append(context.data_type(table_type.value_type))
    return llvm.LiteralStructType(members)


def index_pointer(builder: llvm.IRBuilder, value: llvm.Value, slot: llvm.Value) -> llvm.Value:
    block = nrt.emit_data_pointer(builder, load_field(builder, value, INDICES))
    return builder.gep(block, [slot], inbounds=True, source_etype=i64)


def entry_member(context, builder, table_type, value, position, member: int) -> llvm.Value:
    """The address of member `member` (0 hash, 1 key, 2 value) of entry `position`."""
    block = nrt.emit_data_pointer(builder, load_field(builder, value, ENTRIES))
    return builder.gep(
        block,
        [position, refs.i32_(member)],
        inbounds=True,
        source_etype=entry_type(context, table_type),
    )


def member_type(table_type: types.HashTable, member: int) -> types.Type:
    return (types.int64, table_type.key_type, table_type.value_type)[member]


def load_member(context, builder, table_type, value, position, member: int, new_ref: bool):
    """Member `member` of entry `position`; a new reference when `new_ref`."""
    typ = member_type(table_type, member)
    pointer = entry_member(context, builder, table_type, value, position, member)
    item = refs.load_value(builder, typ, pointer)
    if new_ref:
        refs.incref(builder, typ, item)
    return item


# ---------------------------------------------------------------------------- allocation


def _entries_bytes(context, builder, table_type, count: llvm.Value) -> llvm.Value:
    one = builder.gep(
        llvm.Constant(ptr, None), [refs.const(1)], source_etype=entry_type(context, table_type)
    )
    return builder.mul(count, builder.ptrtoint(one, i64))


def _allocate_block(context, builder, nbytes: llvm.Value) -> llvm.Value:
    block = nrt.emit_allocate(builder, nbytes)
    failed = builder.icmp_unsigned("==", block, llvm.Constant(ptr, None))
    context.guard(builder, failed, MemoryError, "unable to allocate a dict or set")
    return block


def allocate(context, builder, table_type: types.HashTable) -> llvm.Value:
    """A new empty table with no blocks yet: a new reference."""
    block = _allocate_block(context, builder, refs.const(_HEADER_BYTES))
    if table_type.is_precise:
        nrt.emit_set_destructor(builder, block, destructor(context, builder.module, table_type))
    value = builder.insert_value(llvm.Constant(context.value_type(table_type), None), block, 0)
    for index, initial in ((SIZE, 0), (USED, 0), (MASK, -1), (FILL, 0), (FINGER, 0)):
        store_field(builder, value, index, refs.const(initial))
    store_field(builder, value, INDICES, llvm.Constant(ptr, None))
    store_field(builder, value, ENTRIES, llvm.Constant(ptr, None))
    return value


def settle_types(context, builder, value: llvm.Value, table_type: types.HashTable):
    """`{}` made before its member types were known, now a `table_type`: it holds nothing yet,
    so only its destructor changes."""
    nrt.emit_set_destructor(
        builder, meminfo(builder, value), destructor(context, builder.module, table_type)
    )
    return value


def reallocate(context, builder, table_type, value, slots: llvm.Value) -> None:
    """Give the table `slots` (a power of two) empty index slots and room for `usable(slots)`
    entries, moving the live entries to the front of the new block in order; the caller then
    fills the index slots again. Ownership of keys and values moves with the entries."""
    index_bytes = builder.mul(slots, refs.const(8))
    indices = _allocate_block(context, builder, index_bytes)
    refs.memset_zero(builder, nrt.emit_data_pointer(builder, indices), index_bytes, fill=0xFF)
    capacity = builder.sdiv(builder.mul(slots, refs.const(2)), refs.const(3))
    entries = _allocate_block(
        context, builder, _entries_bytes(context, builder, table_type, capacity)
    )
    new_block = nrt.emit_data_pointer(builder, entries)
    old_entries = load_field(builder, value, ENTRIES)
    layout = entry_type(context, table_type)
    kept_slot = refs.alloca_in_entry(builder, i64, "kept")
    builder.store(refs.const(0), kept_slot)
    with refs.for_range(builder, load_field(builder, value, USED)) as position:
        hash_value = load_member(context, builder, table_type, value, position, 0, False)
        with builder.if_then(builder.icmp_signed("!=", hash_value, refs.const(DELETED_HASH))):
            kept = builder.load(kept_slot, typ=i64)
            source = entry_member(context, builder, table_type, value, position, 0)
            target = builder.gep(new_block, [kept], inbounds=True, source_etype=layout)
            builder.store(builder.load(source, typ=layout), target)
            builder.store(builder.add(kept, refs.const(1)), kept_slot)
    nrt.emit_decref(builder, old_entries)
    nrt.emit_decref(builder, load_field(builder, value, INDICES))
    store_field(builder, value, INDICES, indices)
    store_field(builder, value, ENTRIES, entries)
    store_field(builder, value, USED, builder.load(kept_slot, typ=i64))
    store_field(builder, value, MASK, builder.sub(slots, refs.const(1)))


def destructor(context, module: llvm.Module, table_type: types.HashTable) -> llvm.Function:
    """`void dtor(ptr meminfo)` of tables of `table_type`: release the live keys and values,
    then the two blocks."""
    name = f"ember.hashtable.destructor.{table_type.mangling}"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    function = llvm.Function(module, llvm.FunctionType(llvm.VoidType(), [ptr]), name)
    function.linkage = "internal"
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    value = builder.insert_value(
        llvm.Constant(context.value_type(table_type), None), function.args[0], 0
    )
    owned = [
        member
        for member in (1, 2)
        if member_type(table_type, member) is not None
        and refs.needs_refcount(member_type(table_type, member))
    ]
    if owned:
        release_entries(context, builder, table_type, value, owned)
    nrt.emit_decref(builder, load_field(builder, value, INDICES))
    nrt.emit_decref(builder, load_field(builder, value, ENTRIES))
    builder.ret_void()
    return function


def release_entries(context, builder, table_type, value, members=(1, 2)) -> None:
    """Drop the references the live entries hold in `members` (1 keys, 2 values)."""
    members = [m for m in members if member_type(table_type, m) is not None]
    with refs.for_range(builder, load_field(builder, value, USED)) as position:
        hash_value = load_member(context, builder, table_type, value, position, 0, False)
        with builder.if_then(builder.icmp_signed("!=", hash_value, refs.const(DELETED_HASH))):
            for member in members:
                item = load_member(context, builder, table_type, value, position, member, False)
                refs.decref(builder, member_type(table_type, member), item)


# ---------------------------------------------------------------------------- set tables


def give_set_blocks(context, builder, table_type, value, slots: llvm.Value) -> None:
    """Give a set `slots` (a power of two) empty slots in place, releasing its old blocks,
    which must hold no live entries (their items moved away or released): every state
    empty, every entry's hash -1 (so readers skip it)."""
    index_bytes = builder.mul(slots, refs.const(8))
    indices = _allocate_block(context, builder, index_bytes)
    refs.memset_zero(builder, nrt.emit_data_pointer(builder, indices), index_bytes, fill=0xFF)
    entry_bytes = _entries_bytes(context, builder, table_type, slots)
    entries = _allocate_block(context, builder, entry_bytes)
    refs.memset_zero(builder, nrt.emit_data_pointer(builder, entries), entry_bytes, fill=0xFF)
    drop_blocks(builder, value)
    store_field(builder, value, INDICES, indices)
    store_field(builder, value, ENTRIES, entries)
    store_field(builder, value, USED, slots)
    store_field(builder, value, MASK, builder.sub(slots, refs.const(1)))


def drop_blocks(builder, value) -> None:
    """Release a table's blocks (their live items already moved away or released): the table
    has no slots then."""
    nrt.emit_decref(builder, load_field(builder, value, INDICES))
    nrt.emit_decref(builder, load_field(builder, value, ENTRIES))
    store_field(builder, value, INDICES, llvm.Constant(ptr, None))
    store_field(builder, value, ENTRIES, llvm.Constant(ptr, None))
    store_field(builder, value, USED, refs.const(0))
    store_field(builder, value, MASK, refs.const(-1))


def swap_bodies(builder, first, second) -> None:
    """Exchange the contents of two tables of one type (CPython's set_swap_bodies): each
    keeps its identity and its `finger`."""
    for index in (SIZE, USED, MASK, INDICES, ENTRIES, FILL):
        held = load_field(builder, first, index)
        store_field(builder, first, index, load_field(builder, second, index))
        store_field(builder, second, index, held)


def move_entry(context, builder, table_type, source, position, target, slot) -> None:
    """Copy entry `position` of `source` into entry `slot` of `target` as it is (its
    references move with it: the caller forgets the source's), marking that slot live."""
    layout = entry_type(context, table_type)
    source_entry = entry_member(context, builder, table_type, source, position, 0)
    moved = builder.load(source_entry, typ=layout)
    builder.store(moved, entry_member(context, builder, table_type, target, slot, 0))
    builder.store(slot, index_pointer(builder, target, slot))
