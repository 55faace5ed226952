"""Strings between Python and compiled code on the ctypes call path (ember/dispatcher/pycall.py):
a `str` argument is copied into a runtime block in CPython's own kind (1, 2 or 4 bytes per code
point, read from the compact object layout where the probe below confirms it), and a returned
string becomes a `str` through `PyUnicode_FromKindAndData`, releasing the block's reference."""

from __future__ import annotations

import ctypes
import functools
from typing import Any

from ember.runtime import nrt

ARGUMENT_CTYPES = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]


class StringMemory(ctypes.Structure):
    """StringModel's layout (ember/lowering/strings.py)."""

    _fields_ = [
        ("meminfo", ctypes.c_void_p),
        ("data", ctypes.c_void_p),
        ("length", ctypes.c_int64),
        ("kind", ctypes.c_int64),
    ]


# CPython 3.11's compact str layout: PyASCIIObject {refcnt, type, length, hash, state, wstr}
# (48 bytes) then, for non-ASCII text, utf8_length, utf8, wstr_length (72 bytes in all).
LENGTH_OFFSET = 16
STATE_OFFSET = 32
ASCII_DATA_OFFSET = 48
COMPACT_DATA_OFFSET = 72


def _layout_of(text: str) -> tuple[int, int] | None:
    """(kind, data address) read from a compact str object, or None for other layouts."""
    state = ctypes.c_uint32.from_address(id(text) + STATE_OFFSET).value
    kind, compact, ascii_ = (state >> 2) & 7, (state >> 5) & 1, (state >> 6) & 1
    if not compact or kind not in (1, 2, 4):
        return None
    return kind, id(text) + (ASCII_DATA_OFFSET if ascii_ else COMPACT_DATA_OFFSET)


@functools.cache
def layout_verified() -> bool:
    """Whether `_layout_of` reads this interpreter's strings correctly."""
    from ember.lowering.strings import canonical_bytes

    for probe in ("ascii text", "caf\xe9", "\u20ac uro", "\U0001f600 emoji"):
        found = _layout_of(probe)
        kind, raw = canonical_bytes(probe)
        if found is None or found[0] != kind or ctypes.string_at(found[1], len(raw)) != raw:
            return False
    return True


def to_native(text: str) -> list:
    """The flattened native fields of a new string holding `text` (the caller releases the
    meminfo, the first field, after the call)."""
    layout = _layout_of(text) if layout_verified() and type(text) is str else None
    if layout is None:
        from ember.lowering.strings import canonical_bytes

        kind, raw = canonical_bytes(text)
        address = ctypes.cast(ctypes.c_char_p(raw), ctypes.c_void_p).value
    else:
        kind, address = layout
    nbytes = len(text) * kind
    runtime = nrt.runtime()
    meminfo = runtime.allocate(max(nbytes, 1))
    if not meminfo:
        raise MemoryError("unable to allocate a string")
    data = nrt.data_address(meminfo)
    ctypes.memmove(data, address, nbytes)
    return [meminfo, data, len(text), kind]


_from_kind_and_data = ctypes.pythonapi.PyUnicode_FromKindAndData
_from_kind_and_data.restype = ctypes.py_object
_from_kind_and_data.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ssize_t]


def box(memory: Any) -> str:
    """The `str` of a returned string value; takes over (releases) its reference."""
    try:
        return _from_kind_and_data(memory.kind, memory.data, memory.length)
    finally:
        if memory.meminfo:
            nrt.runtime().decref(memory.meminfo)
