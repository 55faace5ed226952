"""What Python uses to work on a native list held by an `ember.typed.List`: direct reads of
its header and items (the layout of ember/lowering/lists.py) and, per list type, accessors
compiled once that take the list as its meminfo address (the dispatcher's fast native entry)."""

from __future__ import annotations

import ctypes
import functools

from ember import types


def size(meminfo: int) -> int:
    """The list header's size (len() of a typed List is this one read)."""
    data_address, size_offset = _header_reader()
    return ctypes.c_int64.from_address(data_address(meminfo) + size_offset).value


@functools.cache
def _header_reader() -> tuple:
    """The runtime's data-address reader and the size field's offset in the list header
    (imported at first use: `import ember.typed` does not load the runtime)."""
    from ember.lowering.lists import HeaderMemory
    from ember.runtime.nrt import data_address

    return data_address, HeaderMemory.size.offset


def items(list_type: types.List, meminfo: int) -> list:
    """The items of the native list as Python values (a snapshot; the list keeps its own)."""
    from ember.dispatcher import pycall, reflection
    from ember.lowering.lists import HeaderMemory
    from ember.runtime import nrt

    dtype = list_type.dtype
    if isinstance(dtype, (types.Boolean, types.Integer, types.Float)):
        header = HeaderMemory.from_address(nrt.data_address(meminfo))
        if not header.size:
            return []
        item_ctype = reflection.item_ctype(dtype)
        storage = (item_ctype * header.size).from_address(nrt.data_address(header.storage))
        return reflection.native_values(dtype, storage, header.size)
    nrt.runtime().incref(meminfo)  # boxing a list takes over one reference
    return pycall.box_list(list_type, meminfo, (), None)


# ---------------------------------------------------------------------------- compiled accessors


def list_at(address, list_type_ref):
    """The native list whose meminfo is at `address` (an int), borrowed from the Python
    `typed.List` that the caller keeps alive during the call."""
    raise NotImplementedError("runs only in compiled code (library/containers/typed_lists.py)")


def list_address(items):
    """The meminfo address of a list, with one new reference for the Python caller."""
    raise NotImplementedError("runs only in compiled code (library/containers/typed_lists.py)")


class Accessors:
    """The operations Python runs on lists of one type, compiled once."""

    def __init__(self, list_type: types.List) -> None:
        from ember.decorators import njit
        from ember.typed import List

        typ = list_type  # constants of the functions below
        item = list_type.dtype
        self.shares_items = isinstance(item, types.List)  # inner lists: shared, not boxed

        def getitem(address, index):
            return list_at(address, typ)[index]

        def getitem_address(address, index):  # an item that is itself a list: shared
            return list_address(list_at(address, typ)[index])

        def setitem(address, index, value):
            list_at(address, typ)[index] = value

        def delitem(address, index):
            del list_at(address, typ)[index]

        def insert(address, index, value):
            list_at(address, typ).insert(index, value)

        def append(address, value):
            list_at(address, typ).append(value)

        def extend(address, other):
            list_at(address, typ).extend(list_at(other, typ))

        def pop(address, index):
            return list_at(address, typ).pop(index)

        def clear(address):
            list_at(address, typ).clear()

        def sort(address):
            list_at(address, typ).sort()

        def reverse(address):
            list_at(address, typ).reverse()

        def new(allocated):
            return list_address(List.empty_list(item, allocated))

        self.getitem = njit(getitem)
        self.getitem_address = njit(getitem_address)
        self.setitem = njit(setitem)
        self.delitem = njit(delitem)
        self.insert = njit(insert)
        self.append = njit(append)
        self.extend = njit(extend)
        self.pop = njit(pop)
        self.clear = njit(clear)
        self.sort = njit(sort)
        self.reverse = njit(reverse)
        self.new = njit(new)


@functools.cache
def for_type(list_type: types.List) -> Accessors:
    return Accessors(list_type)
