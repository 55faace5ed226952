"""What Python uses to work on native dicts and sets: direct reads of the native memory (size,
entries; the layout of ember/lowering/dicts.py) and, per dict type, a few accessors compiled
once and called without the dispatcher (see `for_type`)."""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Iterator
from typing import Any

from ember import types
from ember.typed.list_accessors import list_address


def size(meminfo: int) -> int:
    from ember.lowering.dicts import HeaderMemory
    from ember.runtime import nrt

    return HeaderMemory.from_address(nrt.data_address(meminfo)).size


@functools.cache
def _entry_ctype(table_type: types.HashTable) -> type:

    fields = [("hash", ctypes.c_int64), ("key", _member_ctype(table_type.key_type))]
    if table_type.value_type is not None:
        fields.append(("value", _member_ctype(table_type.value_type)))
    return type("entry_memory", (ctypes.Structure,), {"_fields_": fields})


_CHARS = (types.UnicodeCharSeq, types.CharSeq)


def _member_ctype(typ: types.Type) -> type:
    """A member's memory in an entry: a fixed-length str or bytes is kept as its bytes."""
    from ember.dispatcher.pycall import _memory_ctype

    if isinstance(typ, _CHARS):
        return ctypes.c_uint8 * max(typ.size, 1)
    if _extension_boxed(typ):
        return _opaque_ctype(typ)
    return _memory_ctype(typ)


def _extension_boxed(typ: types.Type) -> bool:
    """Whether a member's Python value comes from an extension's @box (a Series of pandas'
    numba extension, say), whose memory only the type's data model describes."""
    from ember.lowering.boxing import user_boxed_item

    return user_boxed_item(typ)


_UNITS = {1: ctypes.c_uint8, 2: ctypes.c_uint16, 4: ctypes.c_uint32, 8: ctypes.c_uint64}


def _opaque_ctype(typ: types.Type) -> type:
    """Bytes of the size and alignment of `typ`'s data model, so the entry's other fields
    stay where the compiled code puts them."""
    from ember.lowering.context import CPUContext

    context = CPUContext()
    data_type = context.data_type(typ)
    size = context.get_abi_sizeof(data_type)
    unit = _UNITS.get(context.get_abi_alignment(data_type))
    if unit is None:
        raise TypeError(f"ember cannot read native {typ} values of a dict from Python")
    return unit * max(size // ctypes.sizeof(unit), 1)


@functools.cache
def _reader(typ: types.Type, kept_value: bool = False) -> Any:
    """The function turning a member's memory (as a ctypes field reads it) into its Python
    value, chosen once per type: numbers are read by ctypes already, and deciding per item
    costs more than the read (`isinstance` over the kinds of types)."""
    if isinstance(typ, types.Boolean):
        return bool
    if isinstance(typ, (types.Integer, types.Float)):
        return None  # as it is
    if kept_value:
        return functools.partial(_kept_value, typ)
    return functools.partial(_box_member, typ)


def _box_member(typ: types.Type, memory: Any) -> Any:
    """A kept key or value for Python; a fixed-length str or bytes as NumPy reads it (str or
    bytes without the trailing NULs)."""
    from ember.dispatcher.pycall import box_kept

    if isinstance(typ, types.UnicodeCharSeq):
        return bytes(memory)[: typ.size].decode("utf-32-le").rstrip("\0")
    if isinstance(typ, types.CharSeq):
        return bytes(memory)[: typ.size].rstrip(b"\0")
    if _extension_boxed(typ):
        return _box_extension_member(typ, memory)
    return box_kept(typ, memory)


def _box_extension_member(typ: types.Type, memory: Any) -> Any:
    """Through the type's @box, compiled (the entry keeps its reference)."""
    from ember.lowering.boxing import item_boxer

    return item_boxer(typ)(ctypes.addressof(memory), 0)


def entries(table_type: types.HashTable, meminfo: int, pairs: bool = True) -> Iterator:
    """The live (key, value) pairs (sets: (item, None)) of a native table, in order, or its
    keys alone (not `pairs`). Read from a view of the entries written so far, checked after
    each item: the table may grow or move between items (Numba's typed dicts, unlike Python's,
    go on when changed during iteration: so does this)."""
    from ember.lowering.dicts import DELETED_HASH, HeaderMemory
    from ember.runtime import nrt

    header = HeaderMemory.from_address(nrt.data_address(meminfo))
    entry_ctype = _entry_ctype(table_type)
    step = ctypes.sizeof(entry_ctype)
    read_key, read_value = _member_readers(table_type)
    position = 0
    while position < header.used:
        used, storage = header.used, header.entries
        address = nrt.data_address(storage) + position * step
        if not pairs and _word_key_format(table_type.key_type):  # read as one list, yielded
            hashes, keys = _hashes_and_number_keys(table_type, address, used - position, step)
            for entry_hash, key in zip(hashes, keys):
                position += 1
                if entry_hash != DELETED_HASH:
                    yield key
                    if header.used != used or header.entries != storage:
                        break  # grown or moved: a new view from the next position
            continue
        block = (entry_ctype * (used - position)).from_address(address)
        for entry in block:
            position += 1
            if entry.hash != DELETED_HASH:
                if not pairs:
                    yield entry.key if read_key is None else read_key(entry.key)
                else:
                    yield _pair(entry, read_key, read_value)
                if header.used != used or header.entries != storage:
                    break  # grown or moved: a new view from the next position


@functools.cache
def _word_key_format(key_type: types.Type) -> str | None:
    """The memoryview format of a 64-bit number key ('q', 'Q', 'd'), None for another key."""
    if isinstance(key_type, types.Float) and key_type.bitwidth == 64:
        return "d"
    if isinstance(key_type, types.Integer) and key_type.bitwidth == 64:
        return "q" if key_type.signed else "Q"
    return None


def _hashes_and_number_keys(table_type, address: int, count: int, step: int) -> tuple:
    """The hashes and keys of `count` entries from `address`, as Python lists: a 64-bit
    number key follows the hash in each entry (8-byte words, `step` bytes apart)."""
    words = memoryview((ctypes.c_char * (count * step)).from_address(address)).cast("B")
    stride = step // 8
    key_format = _word_key_format(table_type.key_type)
    return words.cast("q")[0::stride].tolist(), words.cast(key_format)[1::stride].tolist()


def snapshot(table_type: types.HashTable, meminfo: int) -> list:
    """The live (key, value) pairs (sets: (item, None)) of a native table, in order, read at
    once (`keys()`, `items()`, `==`, repr: no Python code runs between items)."""
    from ember.lowering.dicts import DELETED_HASH, HeaderMemory
    from ember.runtime import nrt

    header = HeaderMemory.from_address(nrt.data_address(meminfo))
    if header.used == 0:
        return []
    block = (_entry_ctype(table_type) * header.used).from_address(nrt.data_address(header.entries))
    read_key, read_value = _member_readers(table_type)
    return [_pair(entry, read_key, read_value) for entry in block if entry.hash != DELETED_HASH]


def _member_readers(table_type: types.HashTable) -> tuple:
    """(key reader, value reader) of `_reader`; the value's is False for a set (no values)."""
    value_type = table_type.value_type
    read_value = False if value_type is None else _reader(value_type, kept_value=True)
    return _reader(table_type.key_type), read_value


def _pair(entry: Any, read_key: Any, read_value: Any) -> tuple:
    key = entry.key if read_key is None else read_key(entry.key)
    if read_value is False:
        return key, None
    return key, (entry.value if read_value is None else read_value(entry.value))


def _kept_value(value_type: types.Type, memory: Any) -> Any:
    """A dict's value for Python: a list value is the dict's own list (a typed List sharing
    it, as in Numba), anything else is boxed."""
    from ember.dispatcher.pycall import box_kept

    if _extension_boxed(value_type):
        return _box_extension_member(value_type, memory)
    if not isinstance(value_type, types.List):
        return box_kept(value_type, memory)
    from ember.runtime import nrt
    from ember.typed.typedlist import List

    nrt.runtime().incref(memory.meminfo)
    return List._from_meminfo(value_type, memory.meminfo)


def box(table_type: types.HashTable, meminfo: int) -> Any:
    """A returned dict as an `ember.typed.Dict`, a typed set (`SetType`) as an `ember.typed.Set`,
    another set as a Python set; takes over the reference the native value holds."""
    if isinstance(table_type, types.DictType):
        from ember.typed.typeddict import Dict

        return Dict._from_meminfo(table_type, meminfo)
    if isinstance(table_type, types.SetType):
        from ember.typed.typedset import Set

        return Set._from_meminfo(table_type, meminfo)
    from ember.runtime import nrt

    items = {item for item, _ in snapshot(table_type, meminfo)}
    nrt.runtime().decref(meminfo)
    return items


# ---------------------------------------------------------------------------- compiled accessors


def dict_at(address, dict_type_ref):
    """The native dict whose meminfo is at `address` (an int), borrowed from the Python
    `typed.Dict` that the caller keeps alive during the call."""
    raise NotImplementedError("runs only in compiled code: ember/library/containers/typed_dicts.py")


def empty_dict(dict_type_ref):
    raise NotImplementedError("runs only in compiled code: ember/library/containers/typed_dicts.py")


class Accessors:
    """The operations Python runs on dicts of one type: jitted functions that take the dict
    as its meminfo address, so their calls take the dispatcher's fast native entry (a few
    tens of nanoseconds) whatever the key and value types."""

    def __init__(self, dict_type: types.DictType) -> None:
        from ember.decorators import njit

        typ = dict_type  # a constant of the functions below
        self.shares_values = isinstance(dict_type.value_type, types.List)

        def getitem(address, key):
            return dict_at(address, typ)[key]

        def getitem_address(address, key):  # a value that is a list: shared
            return list_address(dict_at(address, typ)[key])

        def get(address, key):
            return dict_at(address, typ).get(key)

        def setitem(address, key, value):
            dict_at(address, typ)[key] = value

        def delitem(address, key):
            del dict_at(address, typ)[key]

        def contains(address, key):
            return key in dict_at(address, typ)

        def popitem(address):
            return dict_at(address, typ).popitem()

        def new():
            return empty_dict(typ)

        self.getitem = njit(getitem)
        self.getitem_address = njit(getitem_address)
        # a value or None (missing): unless None is a value or values are shared lists
        none_is_value = isinstance(dict_type.value_type, (types.Optional, types.NoneType))
        self.get = None if none_is_value or self.shares_values else njit(get)
        self.setitem = njit(setitem)
        self.delitem = njit(delitem)
        self.contains = njit(contains)
        self.popitem = njit(popitem)
        self._new = njit(new)

    def new(self) -> int:
        """A new empty native dict: its meminfo, one reference owned by the caller."""
        made = self._new()  # an ember.typed.Dict
        meminfo, made._meminfo = made._meminfo, 0  # taken from the wrapper
        return meminfo


@functools.cache
def for_type(dict_type: types.DictType) -> Accessors:
    return Accessors(dict_type)
