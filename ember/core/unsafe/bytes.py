"""`memcpy_region(dst, dst_offset, src, src_offset, nbytes, align)` (Numba's
`numba.core.unsafe.bytes`): copy `nbytes` bytes between raw addresses, no checks."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.typing.intrinsics import intrinsic
from ember.typing.signature import Signature

_BYTE_POINTER = llvm.IntType(8).as_pointer()


def _is_address(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.RawPointer, types.CPointer))


def _byte_pointer(context, builder, typ: types.Type, value: llvm.Value) -> llvm.Value:
    if isinstance(types.unliteral(typ), types.Integer):
        return builder.inttoptr(context.cast(builder, value, typ, types.intp), _BYTE_POINTER)
    return builder.bitcast(value, _BYTE_POINTER)


@intrinsic
def memcpy_region(typingctx: Any, dst, dst_offset, src, src_offset, nbytes, align) -> Any:
    """Copy `nbytes` bytes from address `src + src_offset` to `dst + dst_offset` (addresses as
    integers or pointers, offsets in bytes); `align` must be a constant integer."""
    if not (_is_address(dst) and _is_address(src)):
        raise TypingError(f"memcpy_region() copies between addresses, not {dst} and {src}")
    for name, typ in (("offsets", dst_offset), ("offsets", src_offset), ("nbytes", nbytes)):
        if not isinstance(types.unliteral(typ), types.Integer):
            raise TypingError(f"memcpy_region() {name} must be integers, not {typ}")
    if not isinstance(align, types.IntegerLiteral):
        raise TypingError(f"memcpy_region() align must be a constant integer, not {align}")

    def codegen(context, builder, sig: Signature, args: list) -> llvm.Value:
        dst_ptr, dst_off, src_ptr, src_off, count, _ = args
        kinds = sig.args
        target = builder.gep(
            _byte_pointer(context, builder, kinds[0], dst_ptr),
            [context.cast(builder, dst_off, kinds[1], types.intp)],
        )
        source = builder.gep(
            _byte_pointer(context, builder, kinds[2], src_ptr),
            [context.cast(builder, src_off, kinds[3], types.intp)],
        )
        size = context.cast(builder, count, kinds[4], types.intp)
        memcpy = builder.module.declare_intrinsic(
            "llvm.memcpy", [_BYTE_POINTER, _BYTE_POINTER, size.type]
        )
        builder.call(memcpy, [target, source, size, llvm.Constant(llvm.IntType(1), 0)])
        return context.get_dummy_value(types.none)

    return Signature(types.none, (dst, dst_offset, src, src_offset, nbytes, align)), codegen
