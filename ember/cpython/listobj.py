"""Numba's `numba.cpython.listobj.ListInstance`: what lowering code written for Numba reads from
a reflected list value (its size, capacity, item storage and items), over ember's list layout
(ember/lowering/lists.py)."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.lowering import lists
from ember.runtime import nrt

__all__ = ["ListInstance"]


class ListInstance:
    """`ListInstance(context, builder, list_type, value)`: read access to a list in lowering."""

    def __init__(self, context: Any, builder: llvm.IRBuilder, list_type: types.List, value) -> None:
        self._context = context
        self._builder = builder
        self._ty = list_type
        self._value = value

    @property
    def value(self) -> llvm.Value:
        return self._value

    @property
    def dtype(self) -> types.Type:
        return self._ty.dtype

    @property
    def meminfo(self) -> llvm.Value:
        return self._builder.extract_value(self._value, 0)

    @property
    def size(self) -> llvm.Value:
        return lists.length(self._builder, self._value)

    @property
    def allocated(self) -> llvm.Value:
        return lists.capacity(self._builder, self._value)

    @property
    def data(self) -> llvm.Value:
        """The address of the first item (NULL while the list has no storage)."""
        builder = self._builder
        storage = lists.storage_of(builder, self._value)
        null = llvm.Constant(storage.type, None)
        slot = builder.alloca(storage.type)
        builder.store(null, slot)
        with builder.if_then(builder.icmp_unsigned("!=", storage, null)):
            builder.store(nrt.emit_load_data_pointer(builder, storage), slot)
        return builder.load(slot)

    def _item_pointer(self, index: llvm.Value) -> llvm.Value:
        return lists.item_pointer(self._context, self._builder, self._ty, self._value, index)

    def getitem(self, index: llvm.Value) -> llvm.Value:
        """Item `index` (in range: unchecked, as Numba's), borrowed from the list."""
        return self._context.unpack_value(self._builder, self._ty.dtype, self._item_pointer(index))
