"""`str` arguments and results in the native entry: an exact compact `str` is copied into a new
runtime block in its own kind (1, 2 or 4 bytes per code point, read from CPython's object layout
as ember/runtime/string_boxing.py does), released after the call; a returned string becomes a
`str` through `PyUnicode_FromKindAndData`, releasing the returned reference."""

from __future__ import annotations

from llvmlite import ir

from ember.dispatcher.entry_builder import EntryBuilder
from ember.dispatcher.object_layout import (
    _I32,
    _I64,
    _PTR,
    STRING_FIELDS,
    _FunctionPointer,
    _object_constant,
)
from ember.lowering.arrays import memcpy
from ember.runtime import nrt, string_boxing

_NULL = ir.Constant(_PTR, None)
_ALLOCATE = ir.FunctionType(_PTR, [_I64])
_DECREF = ir.FunctionType(ir.VoidType(), [_PTR])


class StringArgumentCodegen(EntryBuilder):
    """Matches, copies and releases `str` arguments and boxes `str` results."""

    def emit_match_string(self, obj: ir.Value, fail: ir.Block) -> None:
        """An exact `str` in the compact layout with a known kind (others: `fail`)."""
        b = self.builder
        self.continue_if(
            b.icmp_unsigned("==", self.ob_type(obj), _object_constant(str)), fail, "str_ok"
        )
        state = self._string_state(obj)
        compact = b.and_(b.lshr(state, _I32(5)), _I32(1))
        kind = b.and_(b.lshr(state, _I32(2)), _I32(7))
        usable = b.and_(
            b.icmp_unsigned("!=", compact, _I32(0)), b.icmp_unsigned("!=", kind, _I32(0))
        )
        self.continue_if(usable, fail, "str_layout_ok")

    def emit_unbox_string(self, obj: ir.Value, copies: list, fail: ir.Block) -> list[ir.Value]:
        """The native fields of a new copy of the matched `str` at `obj`; its meminfo joins
        `copies` (released after the call). Out of memory: `fail` (the Python path)."""
        b = self.builder
        state = self._string_state(obj)
        kind = b.zext(b.and_(b.lshr(state, _I32(2)), _I32(7)), _I64)
        is_ascii = b.trunc(b.and_(b.lshr(state, _I32(6)), _I32(1)), ir.IntType(1))
        offset = b.select(
            is_ascii,
            _I64(string_boxing.ASCII_DATA_OFFSET),
            _I64(string_boxing.COMPACT_DATA_OFFSET),
        )
        source = b.gep(obj, [offset], source_etype=ir.IntType(8), inbounds=True)
        length = self.load_field(obj, string_boxing.LENGTH_OFFSET, _I64, 8)
        nbytes = b.mul(length, kind)
        size = b.select(b.icmp_signed(">", nbytes, _I64(0)), nbytes, _I64(1))
        allocate = _FunctionPointer(_ALLOCATE, nrt.runtime().addresses[nrt.ALLOCATE_SMALL])
        meminfo = b.call(allocate, [size])
        self.emit_release_strings(copies, when=b.icmp_unsigned("==", meminfo, _NULL))
        self.continue_if(b.icmp_unsigned("!=", meminfo, _NULL), fail, "str_copy_ok")
        data = self.load_field(meminfo, 8, _PTR, 8)
        memcpy(b, data, source, nbytes)
        copies.append(meminfo)
        return [meminfo, data, length, kind]

    def emit_release_strings(self, copies: list, when: ir.Value | None = None) -> None:
        """Release the argument copies (the callee took references to what it keeps)."""
        if not copies:
            return
        b = self.builder
        decref = _FunctionPointer(_DECREF, nrt.runtime().addresses[nrt.DECREF])
        if when is None:
            for meminfo in copies:
                b.call(decref, [meminfo])
            return
        with b.if_then(when, likely=False):
            for meminfo in copies:
                b.call(decref, [meminfo])

    def emit_box_string(self, ptr: ir.Value) -> ir.Value:
        """`str` of the string returned at `ptr` (NULL with the error set on failure); the
        returned reference is released."""
        b = self.builder
        memory = ir.LiteralStructType(STRING_FIELDS)
        meminfo, data, length, kind = (
            b.load(b.gep(ptr, [_I32(0), _I32(i)], source_etype=memory, inbounds=True), typ=t)
            for i, t in enumerate(STRING_FIELDS)
        )
        text = self.call_capi("PyUnicode_FromKindAndData", [b.trunc(kind, _I32), data, length])
        with b.if_then(b.icmp_unsigned("!=", meminfo, _NULL)):
            decref = _FunctionPointer(_DECREF, nrt.runtime().addresses[nrt.DECREF])
            b.call(decref, [meminfo])
        return text

    def _string_state(self, obj: ir.Value) -> ir.Value:
        return self.load_field(obj, string_boxing.STATE_OFFSET, _I32, 4)
