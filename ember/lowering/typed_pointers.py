"""Typed pointers for extension code written for Numba: the IRBuilder every lowering receives,
whose `bitcast` of an opaque pointer to a typed one makes the cast (llvmlite would return the
opaque value unchanged, then `load`/`gep` without a type fail with "Load lacks type"); and
`typed`, which gives an array proxy's `data` its item type (`builder.gep(ary.data, [i])`)."""

from __future__ import annotations

from llvmlite import ir as llvm
from llvmlite.ir.instructions import CastInstr


def is_typed_pointer(typ: llvm.Type) -> bool:
    return typ.is_pointer and not typ.is_opaque


def typed(builder: llvm.IRBuilder, pointer: llvm.Value, pointee: llvm.Type) -> llvm.Value:
    """`pointer` as a `pointee*` (a no-op cast in the IR)."""
    if not pointer.type.is_opaque:
        return pointer
    instruction = CastInstr(builder.block, "bitcast", pointer, pointee.as_pointer())
    builder._insert(instruction)
    return instruction


class IRBuilder(llvm.IRBuilder):
    """llvmlite's builder; a pointer cast to a typed pointer type keeps the type it was given,
    as `builder.bitcast(voidptr, ll_int64.as_pointer())` does under Numba."""

    def bitcast(self, value: llvm.Value, typ: llvm.Type, name: str = "") -> llvm.Value:
        if is_typed_pointer(typ) and value.type.is_pointer and value.type.is_opaque:
            return typed(self, value, typ.pointee)
        return super().bitcast(value, typ, name)
