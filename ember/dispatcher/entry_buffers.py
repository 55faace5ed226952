"""The native entry's kinds for buffer arguments: a `bytearray` (types.ByteArray) and a
`memoryview` (types.MemoryView) are matched and unboxed as the array over their memory
(borrowed: no meminfo, the object as the parent), as the Python path passes them."""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass
from typing import Any

from llvmlite import ir

_I8 = ir.IntType(8)
_I32 = ir.IntType(32)
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


def emit_match(entry: Any, obj: ir.Value, kind: ByteArrayKind, fail: ir.Block) -> None:
    from ember.dispatcher.object_layout import _object_constant

    same = entry.builder.icmp_unsigned("==", entry.ob_type(obj), _object_constant(bytearray))
    entry.continue_if(same, fail, "bytearray_ok")


def emit_unbox(entry: Any, obj: ir.Value, kind: ByteArrayKind, fail: ir.Block) -> list[ir.Value]:
    size_offset, start_offset = _offsets()
    size = entry.load_field(obj, size_offset, _I64, 8)
    start = entry.load_field(obj, start_offset, _PTR, 8)
    one = ir.Constant(_I64, 1)
    return [ir.Constant(_PTR, None), obj, size, one, start, size, one]


# CPython's memoryobject.h flag bits of a memoryview
_RELEASED, _C_CONTIGUOUS, _F_CONTIGUOUS, _PIL = 0x1, 0x2, 0x4, 0x10
# Py_buffer's fields (the documented struct): buf, obj, len, itemsize, readonly, ndim, format,
# shape, strides, suboffsets
_BUF, _ITEMSIZE, _READONLY, _NDIM, _FORMAT, _SHAPE, _STRIDES = 0, 24, 32, 36, 40, 48, 56


@dataclass(frozen=True)
class MemoryViewKind:
    """A memoryview argument of `ndim` dimensions whose format is one of `formats` (the item
    formats typed as the compiled dtype), with the compiled layout and writability; flattens as
    the array over its memory (meminfo NULL, the memoryview as parent)."""

    ndim: int
    layout: str
    readonly: bool
    formats: tuple[bytes, ...]


def memoryview_kind(typ: Any) -> MemoryViewKind | None:
    """The kind of a MemoryView argument; None where the memoryview layout is not the one this
    module reads or no item format of the dtype is known (the Python path takes those)."""
    formats = _item_formats(typ.dtype)
    if _memoryview_offsets() is None or not formats:
        return None
    return MemoryViewKind(typ.ndim, typ.layout, bool(typ.readonly), formats)


def _item_formats(dtype: Any) -> tuple[bytes, ...]:
    """The buffer formats typed as `dtype`: NumPy's own export of it and the native one-letter
    struct codes (array.array's and cast memoryviews') that NumPy reads as it."""
    import numpy as np

    from ember.dispatcher.typeof import buffer_array
    from ember.library.numpy.support import numpy_dtype

    try:
        exported = [memoryview(np.zeros(1, numpy_dtype(dtype))).format]
    except (TypeError, ValueError, NotImplementedError):
        return ()
    for code in "?bBhHiIlLqQnNefd":
        try:
            view = buffer_array(memoryview(bytes(16)).cast(code))
        except ValueError:  # a code this Python's memoryview cannot cast to
            continue
        if view is not None and view.dtype == numpy_dtype(dtype):
            exported.append(code)
    return tuple(sorted({f.encode() for f in exported}))


@functools.cache
def _memoryview_offsets() -> tuple[int, int] | None:
    """Offsets of a memoryview's flags and of its Py_buffer, found and checked on live views:
    C-ordered, Fortran-ordered, strided, and released ones."""
    import numpy as np

    grid = np.arange(12.0).reshape(3, 4)
    probe = memoryview(grid)
    view = _find_word(probe, grid.ctypes.data)
    if view is None or not _buffer_matches(probe, view):
        return None
    flags_offset = view - 16  # after ob_refcnt, ob_type, ob_size, mbuf, hash: `int flags`
    released = memoryview(grid)
    released.release()
    cases = [
        (probe, _C_CONTIGUOUS),
        (memoryview(grid.T), _F_CONTIGUOUS),
        (memoryview(grid[:, ::2]), 0),
        (memoryview(grid[0]), _C_CONTIGUOUS | _F_CONTIGUOUS),
    ]
    mask = _RELEASED | _C_CONTIGUOUS | _F_CONTIGUOUS | _PIL
    for case, expected in cases:
        flags = ctypes.c_int.from_address(id(case) + flags_offset).value
        if flags & mask != expected or not _buffer_matches(case, view):
            return None
    if not ctypes.c_int.from_address(id(released) + flags_offset).value & _RELEASED:
        return None
    return flags_offset, view


def _find_word(obj: Any, value: int) -> int | None:
    for offset in range(object.__basicsize__, type(obj).__basicsize__, 8):
        if ctypes.c_void_p.from_address(id(obj) + offset).value == value:
            return offset
    return None


def _buffer_matches(probe: memoryview, view: int) -> bool:
    """Whether the Py_buffer at `view` describes `probe` as Python sees it."""
    base = id(probe) + view

    def read(ctype: Any, offset: int) -> Any:
        return ctype.from_address(base + offset).value

    shape = read(ctypes.c_void_p, _SHAPE)
    strides = read(ctypes.c_void_p, _STRIDES)
    return (
        read(ctypes.c_ssize_t, _ITEMSIZE) == probe.itemsize
        and read(ctypes.c_int, _READONLY) == probe.readonly
        and read(ctypes.c_int, _NDIM) == probe.ndim
        and ctypes.string_at(read(ctypes.c_void_p, _FORMAT)) == probe.format.encode()
        and list((ctypes.c_ssize_t * probe.ndim).from_address(shape)) == list(probe.shape)
        and list((ctypes.c_ssize_t * probe.ndim).from_address(strides)) == list(probe.strides)
    )


def emit_match_memoryview(entry: Any, obj: ir.Value, kind: MemoryViewKind, fail: ir.Block) -> None:
    """Continue only for a live memoryview typed as `kind`: its dimensions, writability,
    contiguity (as typeof decides the layout) and item format."""
    from ember.dispatcher.object_layout import _object_constant

    b = entry.builder
    flags_offset, view = _memoryview_offsets()
    same = b.icmp_unsigned("==", entry.ob_type(obj), _object_constant(memoryview))
    entry.continue_if(same, fail, "memoryview_ok")
    mask = _RELEASED | _C_CONTIGUOUS | _PIL | (0 if kind.layout == "C" else _F_CONTIGUOUS)
    wanted = {"C": _C_CONTIGUOUS, "F": _F_CONTIGUOUS, "A": 0}[kind.layout]
    flags = b.and_(entry.load_field(obj, flags_offset, _I32, 4), ir.Constant(_I32, mask))
    checks = [
        (flags, wanted),
        (entry.load_field(obj, view + _NDIM, _I32, 4), kind.ndim),
        (entry.load_field(obj, view + _READONLY, _I32, 4), int(kind.readonly)),
    ]
    entry.continue_if(_all_equal(b, checks), fail, "memoryview_shape_ok")
    text = entry.load_field(obj, view + _FORMAT, _PTR, 8)
    known = ir.Constant(ir.IntType(1), 0)
    for spelling in kind.formats:
        chars = [entry.load_field(text, k, _I8, 1) for k in range(len(spelling) + 1)]
        known = b.or_(known, _all_equal(b, list(zip(chars, spelling + b"\0"))))
    entry.continue_if(known, fail, "memoryview_format_ok")


def _all_equal(b: ir.IRBuilder, pairs: list[tuple[ir.Value, int]]) -> ir.Value:
    """Whether every loaded value equals its constant."""
    result = ir.Constant(ir.IntType(1), 1)
    for value, constant in pairs:
        result = b.and_(result, b.icmp_unsigned("==", value, ir.Constant(value.type, constant)))
    return result


def emit_unbox_memoryview(
    entry: Any, obj: ir.Value, kind: MemoryViewKind, fail: ir.Block
) -> list[ir.Value]:
    """The array over the memoryview's memory, borrowed (the memoryview is its parent)."""
    b = entry.builder
    view = _memoryview_offsets()[1]
    shape = entry.load_field(obj, view + _SHAPE, _PTR, 8)
    strides = entry.load_field(obj, view + _STRIDES, _PTR, 8)
    extents = [entry.load_field(shape, 8 * k, _I64, 8) for k in range(kind.ndim)]
    steps = [entry.load_field(strides, 8 * k, _I64, 8) for k in range(kind.ndim)]
    nitems = ir.Constant(_I64, 1)
    for extent in extents:
        nitems = b.mul(nitems, extent)
    itemsize = entry.load_field(obj, view + _ITEMSIZE, _I64, 8)
    data = entry.load_field(obj, view + _BUF, _PTR, 8)
    return [ir.Constant(_PTR, None), obj, nitems, itemsize, data, *extents, *steps]


BufferKind = ByteArrayKind | MemoryViewKind
