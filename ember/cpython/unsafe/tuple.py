"""`tuple_setitem(tup, index, value)` (Numba's `numba.cpython.unsafe.tuple`): a copy of a
homogeneous tuple with one item replaced, at an index known only at run time (not checked)."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.lowering import cgutils
from ember.typing.overload import intrinsic
from ember.typing.signature import Signature


@intrinsic
def tuple_setitem(typingctx: Any, tup: types.Type, index: types.Type, value: types.Type) -> Any:
    """`tup` with item `index` (0 <= index < len(tup), unchecked) set to `value`, converted to
    the tuple's item type."""
    if not isinstance(tup, types.UniTuple):
        raise TypingError(f"tuple_setitem() needs a tuple of one item type, not {tup}")
    if not isinstance(types.unliteral(index), types.Integer):
        raise TypingError(f"tuple_setitem() needs an integer index, not {index}")

    def codegen(context, builder, sig: Signature, args: list) -> llvm.Value:
        packed, position, item = args
        slot = cgutils.alloca_once_value(builder, packed)
        converted = context.cast(builder, item, sig.args[2], tup.dtype)
        position = context.cast(builder, position, sig.args[1], types.intp)
        # A tuple of one item type is laid out as an array of its items.
        items = builder.bitcast(slot, converted.type.as_pointer())
        pointer = builder.gep(items, [position], inbounds=True)
        builder.store(converted, pointer)
        return builder.load(slot)

    return Signature(tup, (tup, index, value)), codegen
