"""Numba's `numba.cpython.unicode` path for extension code that builds or reads strings code
point by code point: `_get_code_point(s, i)` (a uint32), `_codepoint_to_kind(cp)` (1, 2 or 4:
CPython's kinds, as ember's strings use), `_empty_string(kind, length, is_ascii)` and
`_set_code_point(s, i, cp)`; `compile_time_get_string_data(s)` in Python. None is
bounds-checked: `0 <= i < len(s)` is the caller's promise, and a string made by
`_empty_string` must be filled before other code reads it."""

from __future__ import annotations

import ctypes
import sys

from ember import types
from ember.extending import intrinsic, register_jitable
from ember.lowering import strings as primitives

PY_UNICODE_1BYTE_KIND, PY_UNICODE_2BYTE_KIND, PY_UNICODE_4BYTE_KIND = 1, 2, 4
_MAX_UNICODE = 0x10FFFF  # the largest code point (Numba's name; its tests import it)


def _as_int64(context, builder, value, typ):
    return context.cast(builder, value, typ, types.int64)


@intrinsic
def _get_code_point(typingctx, s, index):
    if s is not types.unicode_type or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        position = _as_int64(context, builder, args[1], sig.args[1])
        return primitives.code_point(builder, args[0], position)

    return types.uint32(types.unicode_type, index), codegen


@register_jitable
def _codepoint_to_kind(codepoint):
    if codepoint < 0x100:
        return PY_UNICODE_1BYTE_KIND
    if codepoint < 0x10000:
        return PY_UNICODE_2BYTE_KIND
    return PY_UNICODE_4BYTE_KIND


@intrinsic
def _empty_string(typingctx, kind, length, is_ascii):
    """A new string of `length` code points of `kind` (ember knows ASCII from the kind and
    the characters: `is_ascii` is accepted and not needed)."""
    if not (isinstance(kind, types.Integer) and isinstance(length, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        width = _as_int64(context, builder, args[0], sig.args[0])
        count = _as_int64(context, builder, args[1], sig.args[1])
        return primitives.allocate(context, builder, width, count)

    return types.unicode_type(kind, length, is_ascii), codegen


@intrinsic
def _set_code_point(typingctx, s, index, codepoint):
    if s is not types.unicode_type or not isinstance(index, types.Integer):
        return None
    if not isinstance(codepoint, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        target = args[0]
        position = _as_int64(context, builder, args[1], sig.args[1])
        code = context.cast(builder, args[2], sig.args[2], types.uint32)
        width, base = primitives.kind(builder, target), primitives.data(builder, target)
        primitives.store_code_point(builder, width, base, position, code)
        return context.get_dummy_value(types.none)

    return types.none(s, index, codepoint), codegen


def compile_time_get_string_data(obj: str) -> tuple[bytes, int, int, bool, int]:
    """(the code points' bytes, length, kind, is_ascii, CPython's cached hash or -1) of a
    Python string, as Numba's helper of this name returns them (its kind: 1, 2 or 4 bytes per
    code point, the narrowest that holds the largest)."""
    if not isinstance(obj, str):
        raise TypeError(f"expected a str, got {type(obj).__name__}")
    largest = max(map(ord, obj), default=0)
    kind = (
        PY_UNICODE_1BYTE_KIND
        if largest < 0x100
        else PY_UNICODE_2BYTE_KIND
        if largest < 0x10000
        else PY_UNICODE_4BYTE_KIND
    )
    data = b"".join(ord(c).to_bytes(kind, sys.byteorder) for c in obj)
    return data, len(obj), kind, largest < 0x80, _cached_hash(obj)


def _cached_hash(obj: str) -> int:
    """The hash CPython stored in the string object (-1 until hash() computes it): the field
    after the object header and the length (PyASCIIObject)."""
    if sys.implementation.name != "cpython":
        return hash(obj)
    offset = 2 * ctypes.sizeof(ctypes.c_ssize_t) + ctypes.sizeof(ctypes.c_void_p)
    return ctypes.c_ssize_t.from_address(id(obj) + offset).value
