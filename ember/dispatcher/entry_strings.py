"""`str` and `bytes` arguments and results in the native entry: an exact compact `str` is copied
into a new runtime block in its own kind (1, 2 or 4 bytes per code point, read from CPython's
object layout as ember/runtime/string_boxing.py does), `bytes` in kind 1, released after the
call; a returned string becomes a `str` through `PyUnicode_FromKindAndData` (`bytes`:
`PyBytes_FromStringAndSize`), releasing the returned reference."""

from __future__ import annotations

from llvmlite import ir

from ember.dispatcher.entry_builder import EntryBuilder
from ember.dispatcher.object_layout import (
    _I32,
    _I64,
    _PTR,
    STRING_FIELDS,
    StringKind,
    _FunctionPointer,
    _object_constant,
)
from ember.lowering.arrays import memcpy
from ember.runtime import nrt, string_boxing

_NULL = ir.Constant(_PTR, None)
_ALLOCATE = ir.FunctionType(_PTR, [_I64])


class DeferredString:
    """A `str` argument (alone or in a tuple) whose copy is made once nothing else can send
    the call elsewhere."""

    def __init__(self, obj: ir.Value, kind: StringKind) -> None:
        self.obj = obj
        self.kind = kind


class StringArgumentCodegen(EntryBuilder):
    """Matches, copies and releases `str` arguments and boxes `str` results."""

    deferred_strings: list[DeferredString]

    def defer_string(self, obj: ir.Value, kind: StringKind) -> DeferredString:
        placeholder = DeferredString(obj, kind)
        self.deferred_strings.append(placeholder)
        return placeholder

    def emit_copy_deferred_strings(self, copied_lists: list) -> dict:
        """{placeholder: native fields} of the deferred strings' copies. Out of memory: the
        copies and `copied_lists` are released and the call takes the Python path."""
        copies: dict = {}
        for placeholder in self.deferred_strings:
            fields = self.emit_unbox_string(placeholder, copies, copied_lists)
            copies[placeholder] = fields
        return copies

    def emit_match_string(self, obj: ir.Value, kind: StringKind, fail: ir.Block) -> None:
        """An exact `str` in the compact layout with a known kind, or an exact `bytes` (others:
        `fail`)."""
        b = self.builder
        if kind.of_bytes:
            same = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(bytes))
            self.continue_if(same, fail, "bytes_ok")
            return
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

    def emit_unbox_string(
        self, placeholder: DeferredString, copies: dict, copied_lists: list
    ) -> list[ir.Value]:
        """The native fields {meminfo, data, length, kind} of a new copy of the matched `str`
        or `bytes`. Out of memory: the copies made so far and the lists are released and the
        call takes the Python path (which raises MemoryError)."""
        b = self.builder
        obj = placeholder.obj
        if placeholder.kind.of_bytes:
            kind = _I64(1)
            offset = _I64(string_boxing.BYTES_DATA_OFFSET)
        else:
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
        out_of_memory = self.new_block("str_out_of_memory")
        with b.goto_block(out_of_memory):
            self.emit_release_strings([fields[0] for fields in copies.values()])
            self._release(copied_lists)
            b.branch(self.fallback_block)
        self.continue_if(b.icmp_unsigned("!=", meminfo, _NULL), out_of_memory, "str_copied")
        data = self.load_field(meminfo, 8, _PTR, 8)
        memcpy(b, data, source, nbytes)
        return [meminfo, data, length, kind]

    def emit_release_strings(self, meminfos: list) -> None:
        """Release the argument copies (the callee took references to what it keeps)."""
        if not meminfos:  # no strings: no need to compile the runtime for its address
            return
        for meminfo in meminfos:
            self.call_nrt(nrt.DECREF, meminfo)

    def emit_box_string(self, string_kind: StringKind, ptr: ir.Value) -> ir.Value:
        """`str` (or `bytes`) of the string returned at `ptr` (NULL with the error set on
        failure); the returned reference is released."""
        b = self.builder
        memory = ir.LiteralStructType(STRING_FIELDS)
        meminfo, data, length, kind = (
            b.load(self.member_ptr(ptr, memory, i), typ=t) for i, t in enumerate(STRING_FIELDS)
        )
        if string_kind.of_bytes:  # kind 1
            text = self.call_capi("PyBytes_FromStringAndSize", [data, length])
        else:
            text = self.call_capi("PyUnicode_FromKindAndData", [b.trunc(kind, _I32), data, length])
        with b.if_then(b.icmp_unsigned("!=", meminfo, _NULL)):
            self.call_nrt(nrt.DECREF, meminfo)
        return text

    def _string_state(self, obj: ir.Value) -> ir.Value:
        return self.load_field(obj, string_boxing.STATE_OFFSET, _I32, 4)
