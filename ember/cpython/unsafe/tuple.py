"""Numba's `numba.cpython.unsafe.tuple`: `tuple_setitem(tup, index, value)`, a copy of a
homogeneous tuple with one item replaced at an index known only at run time (not checked), and
`build_full_slice_tuple(n)`, a tuple of n full slices for indexing an array's first n axes."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.lowering import cgutils
from ember.misc.literal import literally
from ember.typing.intrinsics import intrinsic
from ember.typing.overload import overload
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


def build_full_slice_tuple(size: int) -> tuple:
    """A tuple of `size` full slices (`(slice(None),) * size`): indexes every item of the first
    `size` dimensions. `size` must be known while compiling (a constant or `literally(n)`)."""
    return (slice(None),) * size


@overload(build_full_slice_tuple, prefer_literal=True)
def _build_full_slice_tuple(size: types.Type) -> Any:
    if not isinstance(types.unliteral(size), types.Integer):
        raise TypingError(f"build_full_slice_tuple() needs an integer size, not {size}")
    if not isinstance(size, types.IntegerLiteral):
        return lambda size: build_full_slice_tuple(literally(size))
    count = size.literal_value
    if count < 0:
        raise TypingError(f"build_full_slice_tuple() needs a size >= 0, not {count}")
    return _full_slices_impl(count)


def _full_slices_impl(count: int) -> Any:
    """`def impl(size): return (slice(None), ...)` with `count` items: a tuple's length is part
    of its type, so each size gets its own source."""
    items = "".join("slice(None), " for _ in range(count))
    namespace: dict = {}
    exec(f"def impl(size):\n    return ({items})\n", namespace)
    return namespace["impl"]
