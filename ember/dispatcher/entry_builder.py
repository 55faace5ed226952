"""The state and small helpers every part of a native entry function's code generator
shares: consumes the entry being emitted and CPython's object layout, produces IR snippets."""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from ember.dispatcher.object_layout import (
    _CAPI_SIGNATURES,
    _I8,
    _I32,
    _I64,
    _PTR,
    _PTR_SIZE,
    _SSIZE,
    PyLayout,
    _capi_address,
    _FunctionPointer,
)
from ember.runtime import nrt

_NRT_UNARY = ir.FunctionType(ir.VoidType(), [_PTR])


class EntryBuilder:
    """Emits into one fastcall entry function: its blocks, C-API calls and object fields."""

    def __init__(
        self,
        module: ir.Module,
        function: ir.Function,
        layout: PyLayout,
        fallback: object,
        raise_exception: object,
        defaults: Sequence[object] = (),
        release_gil: bool = False,
        array_boxers: dict | None = None,
        memory_object_new: int | None = None,
    ) -> None:
        self.array_boxers = array_boxers or {}
        self.memory_object_new = (
            _FunctionPointer(ir.FunctionType(_PTR, [_PTR]), memory_object_new)
            if memory_object_new
            else None
        )
        self.defaults = tuple(defaults)
        self.release_gil = release_gil
        self.copied_lists: list = []  # Python list arguments of the call being emitted
        self.module = module
        self.function = function
        self.layout = layout
        self.fallback = fallback
        self.raise_exception = raise_exception
        self.self_arg, self.raw_args, nargsf, self.kwnames_arg = function.args
        entry = function.append_basic_block("entry")
        self.alloca_builder = ir.IRBuilder(entry)
        self.builder = ir.IRBuilder(function.append_basic_block("dispatch"))
        # The entry is a vectorcall function too: its count may carry the flag
        # PY_VECTORCALL_ARGUMENTS_OFFSET (the top bit).
        self.raw_nargs = self.builder.and_(nargsf, ir.Constant(_SSIZE, (1 << 63) - 1), "nargs")
        # The arguments the specializations read: the raw ones, or keyword-folded ones.
        self.args_arg, self.nargs_arg = self.raw_args, self.raw_nargs
        self._entry = entry
        self._capi: dict[str, _FunctionPointer] = {}
        self._overflow_slot: ir.Value | None = None
        self._exc_slot: ir.Value | None = None
        self.fallback_block = function.append_basic_block("fallback")
        self.raise_block = function.append_basic_block("raise")

    def finish_entry_block(self) -> None:
        """Close the block holding the allocas: it continues with the dispatch."""
        self.alloca_builder.position_at_end(self._entry)
        self.alloca_builder.branch(self.function.blocks[1])

    def capi(self, name: str) -> _FunctionPointer:
        if name not in self._capi:
            restype, argtypes = _CAPI_SIGNATURES[name]
            address = _capi_address(name)
            if not address:
                raise RuntimeError(f"C-API function {name} not found")
            self._capi[name] = _FunctionPointer(ir.FunctionType(restype, argtypes), address)
        return self._capi[name]

    def call_capi(self, name: str, args: list[ir.Value]) -> ir.Value:
        return self.builder.call(self.capi(name), args)

    def alloca(self, typ: ir.Type, name: str) -> ir.Value:
        self.alloca_builder.position_at_start(self._entry)
        return self.alloca_builder.alloca(typ, name=name)

    def field_ptr(self, obj: ir.Value, offset: int) -> ir.Value:
        if offset == 0:
            return obj
        return self.builder.gep(obj, [ir.Constant(_I64, offset)], source_etype=_I8, inbounds=True)

    def load_field(self, obj: ir.Value, offset: int, typ: ir.Type, align: int) -> ir.Value:
        return self.builder.load(self.field_ptr(obj, offset), typ=typ, align=align)

    def member_ptr(self, ptr: ir.Value, struct_type: ir.Type, index: int) -> ir.Value:
        """The address of member `index` of the `struct_type` value at `ptr`."""
        return self.builder.gep(
            ptr, [_I32(0), _I32(index)], source_etype=struct_type, inbounds=True
        )

    def call_nrt(self, name: str, meminfo: ir.Value) -> None:
        """The runtime's `nrt.INCREF` or `nrt.DECREF` of a meminfo (NULL: nothing)."""
        address = nrt.runtime().addresses[name]
        self.builder.call(_FunctionPointer(_NRT_UNARY, address), [meminfo])

    def new_block(self, name: str) -> ir.Block:
        return self.function.append_basic_block(name)

    def continue_if(self, cond: ir.Value, fail: ir.Block, name: str) -> None:
        """Branch to ``fail`` unless ``cond``; continue emitting in a fresh block."""
        ok = self.new_block(name)
        self.builder.cbranch(cond, ok, fail)
        self.builder.position_at_end(ok)

    def incref_object(self, obj: ir.Value) -> None:
        if self.layout.inline_incref:
            ptr = self.field_ptr(obj, self.layout.refcnt_offset)
            count = self.builder.load(ptr, typ=_SSIZE, align=8)
            self.builder.store(self.builder.add(count, ir.Constant(_SSIZE, 1)), ptr, align=8)
        else:
            self.call_capi("Py_IncRef", [obj])

    def incref_singleton(self, obj: ir.Value) -> None:
        """``Py_INCREF`` for None/True/False (nothing where they are immortal)."""
        if not self.layout.immortal_singletons:
            self.incref_object(obj)

    def ob_type(self, obj: ir.Value) -> ir.Value:
        return self.load_field(obj, self.layout.type_offset, _PTR, _PTR_SIZE)

    def tuple_item(self, obj: ir.Value, index: int) -> ir.Value:
        offset = self.layout.tuple_items_offset + index * _PTR_SIZE
        return self.load_field(obj, offset, _PTR, _PTR_SIZE)
