"""The native entry's kind for `bytearray` arguments (types.ByteArray): matches a bytearray and
unboxes it as the 1-d uint8 array over its bytes (borrowed: no meminfo, the bytearray as the
parent), as the dispatcher's Python path passes it through an ndarray view."""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass
from typing import Any

from llvmlite import ir

_I64 = ir.IntType(64)
_PTR = ir.PointerType()


@dataclass(frozen=True)
class ByteArrayKind:
    """A bytearray argument: flattens as a 1-d array (meminfo, parent, nitems, itemsize, data,
    shape, stride)."""


def bytearray_kind(typ: Any) -> ByteArrayKind | None:
    """The kind of a ByteArray argument; None where CPython's bytearray layout is not the one
    this module reads."""
    return ByteArrayKind() if _offsets() is not None else None


@functools.cache
def _offsets() -> tuple[int, int] | None:
    """Offsets of a bytearray's size (ob_size) and first byte pointer (ob_start), checked on
    live bytearrays (one grown by a deleted prefix, whose start moved)."""
    size_offset = object.__basicsize__
    start_offset = size_offset + 3 * ctypes.sizeof(ctypes.c_void_p)  # ob_alloc, ob_bytes first
    for probe in (bytearray(b"ember bytes"), _moved_start()):
        first = ctypes.addressof((ctypes.c_char * len(probe)).from_buffer(probe))
        size = ctypes.c_ssize_t.from_address(id(probe) + size_offset).value
        start = ctypes.c_void_p.from_address(id(probe) + start_offset).value
        if (size, start) != (len(probe), first):
            return None
    return size_offset, start_offset


def _moved_start() -> bytearray:
    probe = bytearray(b"..prefix gone")
    del probe[:2]  # CPython moves ob_start rather than the bytes
    return probe


def emit_match(entry: Any, obj: ir.Value, fail: ir.Block) -> None:
    from ember.dispatcher.object_layout import _object_constant

    same = entry.builder.icmp_unsigned("==", entry.ob_type(obj), _object_constant(bytearray))
    entry.continue_if(same, fail, "bytearray_ok")


def emit_unbox(entry: Any, obj: ir.Value) -> list[ir.Value]:
    size_offset, start_offset = _offsets()
    size = entry.load_field(obj, size_offset, _I64, 8)
    start = entry.load_field(obj, start_offset, _PTR, 8)
    one = ir.Constant(_I64, 1)
    return [ir.Constant(_PTR, None), obj, size, one, start, size, one]
