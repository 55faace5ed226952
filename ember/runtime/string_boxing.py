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


BYTES_DATA_OFFSET = bytes.__basicsize__ - 1  # PyBytesObject's ob_sval (its size: LENGTH_OFFSET)


@functools.cache
def bytes_layout_verified() -> bool:
    """Whether a `bytes` object's length and bytes are where the native entry reads them."""
    probe = b"ember \x00\xff bytes"
    length = ctypes.c_ssize_t.from_address(id(probe) + LENGTH_OFFSET).value
    stored = ctypes.string_at(id(probe) + BYTES_DATA_OFFSET, len(probe))
    return length == len(probe) and stored == probe


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


@functools.cache
def _list_boxer():
    """`PyObject *box(ptr header)`: a Python list of `str` from a list of strings' header
    (ember/lowering/lists.py), generated once; NULL with an exception set on failure."""
    from llvmlite import ir as llvm

    from ember.codegen.jit import engine
    from ember.lowering import arrays as refs
    from ember.lowering import strings
    from ember.lowering.pyapi import PythonAPI

    jit = engine()
    module = llvm.Module(name="ember_box_string_list")
    module.triple, module.data_layout = jit.triple, jit.data_layout
    function = llvm.Function(module, llvm.FunctionType(refs.ptr, [refs.ptr]), "box_string_list")
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    pyapi = PythonAPI(None, builder, [])
    header = function.args[0]
    size = builder.load(header, typ=refs.i64)
    storage = builder.load(
        builder.gep(header, [refs.const(16)], source_etype=refs.i8), typ=refs.ptr
    )
    result = pyapi.list_new(size)
    null = llvm.Constant(refs.ptr, None)
    with builder.if_then(builder.icmp_unsigned("==", result, null), likely=False):
        builder.ret(null)
    with refs.for_range(builder, size) as index:
        items = nrt.emit_load_data_pointer(builder, storage)
        pointer = builder.gep(items, [index], source_etype=strings.STRING)
        item = builder.load(pointer, typ=strings.STRING)
        width = builder.trunc(strings.kind(builder, item), refs.i32)
        text = pyapi.unicode_from_kind_and_data(
            width, strings.data(builder, item), strings.length(builder, item)
        )
        with builder.if_then(builder.icmp_unsigned("==", text, null), likely=False):
            pyapi.decref(result)
            builder.ret(null)
        pyapi.list_setitem(result, index, text)
    builder.ret(result)
    compiled = jit.parse(str(module))
    compiled.verify()
    jit.optimize(compiled)
    jit.add_module(compiled)
    return ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p)(jit.address_of("box_string_list"))


def box_list(meminfo: int) -> list:
    """A Python list of the strings of a returned list; releases the list's reference."""
    try:
        return _list_boxer()(nrt.data_address(meminfo))
    finally:
        nrt.runtime().decref(meminfo)
