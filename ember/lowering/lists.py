"""List primitives for lowering: the header behind a list's meminfo, allocation with a
destructor, growth by doubling and CPython's shrinking, item addresses and the reference
counts of items.

A list value is its meminfo (`ListModel`); the meminfo's data is the header
{i64 size, i64 capacity, ptr storage, i64 frozen}, where storage is a second runtime block
holding `capacity` items (NULL while the capacity is 0) and `frozen` is nonzero once a typed
list was made immutable (Numba's `_make_immutable`). The header and a short storage are small
blocks (16-byte aligned data right after the header fields): a list of short lists takes half
the memory of aligned ones; the items are found through the storage's data pointer.
The list owns one reference to each item that owns memory (a list of lists); the destructor
releases the items and the storage.
"""

from __future__ import annotations

import ctypes

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as refs
from ember.lowering.adopted_arrays import own_borrowed_arrays
from ember.runtime import nrt

i64 = refs.i64
ptr = refs.ptr
_HEADER = llvm.LiteralStructType([i64, i64, ptr, i64])


class HeaderMemory(ctypes.Structure):
    """The header as Python reads it when it boxes a returned list."""

    _fields_ = [
        ("size", ctypes.c_int64),
        ("capacity", ctypes.c_int64),
        ("storage", ctypes.c_void_p),
        ("frozen", ctypes.c_int64),
    ]


_SIZE, _CAPACITY, _STORAGE, _FROZEN = 0, 1, 2, 3
_HEADER_BYTES = 32
_MIN_GROWTH = 4  # the first append makes room for a few items at once
# Storage from this size is an aligned block: large ones are cached, and vector loops like it.
_SMALL_STORAGE_BELOW = 4096


def _meminfo(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.extract_value(value, 0)


def _field(builder: llvm.IRBuilder, value: llvm.Value, index: int) -> llvm.Value:
    header = nrt.emit_small_data_pointer(builder, _meminfo(builder, value))
    return builder.gep(header, [refs.i32_(0), refs.i32_(index)], source_etype=_HEADER)


def length(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.load(_field(builder, value, _SIZE), typ=i64)


def set_length(builder: llvm.IRBuilder, value: llvm.Value, size: llvm.Value) -> None:
    builder.store(size, _field(builder, value, _SIZE))


def capacity(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    """How many items the storage has room for (Numba's `_allocated()`)."""
    return builder.load(_field(builder, value, _CAPACITY), typ=i64)


def is_frozen(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    """Whether the list was made immutable (an i1)."""
    flag = builder.load(_field(builder, value, _FROZEN), typ=i64)
    return builder.icmp_signed("!=", flag, refs.const(0))


def freeze(builder: llvm.IRBuilder, value: llvm.Value) -> None:
    """Make the list immutable: its mutating methods raise ValueError from now on."""
    builder.store(refs.const(1), _field(builder, value, _FROZEN))


def storage_of(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    """The runtime block holding the items (NULL while the capacity is 0)."""
    return builder.load(_field(builder, value, _STORAGE), typ=ptr)


def item_pointer(context, builder, list_type: types.List, value, index: llvm.Value, storage=None):
    """The address of item `index` (below the capacity), in `storage` (loaded if not given)."""
    storage = storage_of(builder, value) if storage is None else storage
    items = nrt.emit_load_data_pointer(builder, storage)
    item_type = context.data_type(list_type.dtype)
    return builder.gep(items, [index], inbounds=True, source_etype=item_type)


def load_item(context, builder, list_type: types.List, value, index: llvm.Value, storage=None):
    """Item `index` as a new reference."""
    pointer = item_pointer(context, builder, list_type, value, index, storage)
    item = refs.load_value(builder, list_type.dtype, pointer)
    refs.incref(builder, list_type.dtype, item)
    return item


def _item_bytes(context, builder, list_type: types.List, count: llvm.Value) -> llvm.Value:
    """`count` items in bytes (LLVM folds the size of the item type)."""
    item_type = context.data_type(list_type.dtype)
    one = builder.gep(llvm.Constant(ptr, None), [refs.const(1)], source_etype=item_type)
    return builder.mul(count, builder.ptrtoint(one, i64))


def _checked_item_bytes(context, builder, list_type: types.List, count: llvm.Value):
    """`count` items in bytes; MemoryError when that does not fit 63 bits (`[0] * 2**62`)."""
    item_type = context.data_type(list_type.dtype)
    one = builder.gep(llvm.Constant(ptr, None), [refs.const(1)], source_etype=item_type)
    product = builder.smul_with_overflow(count, builder.ptrtoint(one, i64))
    overflowed = builder.extract_value(product, 1)
    context.guard(builder, overflowed, MemoryError, "unable to allocate a list")
    return builder.extract_value(product, 0)


def _allocate_storage(context, builder, list_type: types.List, capacity: llvm.Value):
    """A storage block for `capacity` items, or NULL for none (MemoryError when it fails)."""
    wanted = builder.icmp_signed(">", capacity, refs.const(0))
    before = builder.block
    with builder.if_then(wanted):
        size = _checked_item_bytes(context, builder, list_type, capacity)
        small = builder.icmp_unsigned("<", size, refs.const(_SMALL_STORAGE_BELOW))
        with builder.if_else(small, likely=True) as (few_items, many_items):
            with few_items:
                small_block = nrt.emit_allocate_small(builder, size)
                after_small = builder.block
            with many_items:
                aligned_block = nrt.emit_allocate(builder, size)
                after_aligned = builder.block
        block = builder.phi(ptr)
        block.add_incoming(small_block, after_small)
        block.add_incoming(aligned_block, after_aligned)
        failed = builder.icmp_unsigned("==", block, llvm.Constant(ptr, None))
        context.guard(builder, failed, MemoryError, "unable to allocate a list")
        allocated = builder.block
    storage = builder.phi(ptr)
    storage.add_incoming(llvm.Constant(ptr, None), before)
    storage.add_incoming(block, allocated)
    return storage


def settle_item_type(context, builder, value: llvm.Value, list_type: types.List) -> llvm.Value:
    """`[]` made before its item type was known, now a `list_type`: its destructor becomes the
    one that releases `list_type`'s items (it holds none yet, so nothing else changes)."""
    destructor = _destructor(context, builder.module, list_type)
    nrt.emit_set_destructor(builder, _meminfo(builder, value), destructor)
    return value


def allocate(context, builder, list_type: types.List, capacity: llvm.Value) -> llvm.Value:
    """A new empty list with room for `capacity` (>= 0) items: a new reference."""
    meminfo = nrt.emit_allocate_small(builder, refs.const(_HEADER_BYTES))
    failed = builder.icmp_unsigned("==", meminfo, llvm.Constant(ptr, None))
    context.guard(builder, failed, MemoryError, "unable to allocate a list")
    nrt.emit_set_destructor(builder, meminfo, _destructor(context, builder.module, list_type))
    value = builder.insert_value(llvm.Constant(context.value_type(list_type), None), meminfo, 0)
    set_length(builder, value, refs.const(0))
    builder.store(capacity, _field(builder, value, _CAPACITY))
    if isinstance(capacity, llvm.Constant) and capacity.constant == 0:
        storage = llvm.Constant(ptr, None)  # `[]`, whose item type may still be undefined
    else:
        storage = _allocate_storage(context, builder, list_type, capacity)
    builder.store(storage, _field(builder, value, _STORAGE))
    builder.store(refs.const(0), _field(builder, value, _FROZEN))
    return value


def reserve(context, builder, list_type: types.List, value, needed: llvm.Value) -> None:
    """Make room for `needed` items, at least doubling the capacity when it grows."""
    room = capacity(builder, value)
    with builder.if_then(builder.icmp_signed(">", needed, room), likely=False):
        doubled = builder.mul(room, refs.const(2))
        grown = builder.select(builder.icmp_signed(">", needed, doubled), needed, doubled)
        small = builder.icmp_signed("<", grown, refs.const(_MIN_GROWTH))
        grown = builder.select(small, refs.const(_MIN_GROWTH), grown)
        _move_storage(context, builder, list_type, value, grown)


def shrink_to(context, builder, list_type: types.List, value, size: llvm.Value) -> None:
    """Set the length to `size` (any items past it already released).
    As CPython's list_resize, storage the items fill less than half of is given back: the new
    capacity is (size + size // 8 + 6) rounded down to a multiple of 4, none when empty."""
    set_length(builder, value, size)
    room = capacity(builder, value)
    sparse = builder.icmp_signed("<", size, builder.ashr(room, refs.const(1)))
    with builder.if_then(sparse, likely=False):
        spare = builder.add(builder.add(size, builder.ashr(size, refs.const(3))), refs.const(6))
        wanted = builder.and_(spare, refs.const(~3))
        wanted = builder.select(builder.icmp_signed("==", size, refs.const(0)), size, wanted)
        with builder.if_then(builder.icmp_signed("<", wanted, room)):
            _move_storage(context, builder, list_type, value, wanted)


def _move_storage(context, builder, list_type: types.List, value, room: llvm.Value) -> None:
    """Move the items to new storage for `room` (>= the length) items; the old block goes."""
    storage_slot = _field(builder, value, _STORAGE)
    old = builder.load(storage_slot, typ=ptr)
    new = _allocate_storage(context, builder, list_type, room)
    size = length(builder, value)
    with builder.if_then(builder.icmp_signed(">", size, refs.const(0))):
        refs.memcpy(
            builder,
            nrt.emit_load_data_pointer(builder, new),
            nrt.emit_load_data_pointer(builder, old),
            _item_bytes(context, builder, list_type, size),
        )
    nrt.emit_decref(builder, old)  # the items moved: only the old block goes
    builder.store(new, storage_slot)
    builder.store(room, _field(builder, value, _CAPACITY))


def move_items(context, builder, list_type, value, source, target, count) -> None:
    """Move `count` items from index `source` to index `target` (the ranges may overlap)."""
    with builder.if_then(builder.icmp_signed(">", count, refs.const(0))):
        refs.memmove(
            builder,
            item_pointer(context, builder, list_type, value, target),
            item_pointer(context, builder, list_type, value, source),
            _item_bytes(context, builder, list_type, count),
        )


def move_items_between(context, builder, list_type, source, target, count) -> None:
    """Copy the first `count` (> 0) items of list `source` into list `target`'s storage (no
    reference counted)."""
    refs.memcpy(
        builder,
        item_pointer(context, builder, list_type, target, refs.const(0)),
        item_pointer(context, builder, list_type, source, refs.const(0)),
        _item_bytes(context, builder, list_type, count),
    )


def _destructor(context, module: llvm.Module, list_type: types.List) -> llvm.Function:
    """`void dtor(ptr meminfo)` of lists of `list_type`: release the items and the storage."""
    name = f"ember.list.destructor.{list_type.mangling}"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    function = llvm.Function(module, llvm.FunctionType(llvm.VoidType(), [ptr]), name)
    function.linkage = "internal"
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    value = builder.insert_value(
        llvm.Constant(context.value_type(list_type), None), function.args[0], 0
    )
    if refs.needs_refcount(list_type.dtype):
        with refs.for_range(builder, length(builder, value)) as index:
            pointer = item_pointer(context, builder, list_type, value, index)
            refs.decref(
                builder, list_type.dtype, refs.load_value(builder, list_type.dtype, pointer)
            )
    nrt.emit_decref(builder, builder.load(_field(builder, value, _STORAGE), typ=ptr))
    builder.ret_void()
    return function


def build(context, builder, list_type: types.List, items: list) -> llvm.Value:
    """The list display `[items...]` (values already of the item type, new references)."""
    value = allocate(context, builder, list_type, refs.const(len(items)))
    for index, item in enumerate(items):
        pointer = item_pointer(context, builder, list_type, value, refs.const(index))
        item = own_borrowed_arrays(context, builder, list_type.dtype, item)
        refs.store_value(builder, list_type.dtype, item, pointer)
    set_length(builder, value, refs.const(len(items)))
    return value
