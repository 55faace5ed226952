"""`to_fixed_tuple(array, length)` (Numba's `numba.np.unsafe.ndarray`): the first `length` items of
a 1-D array as a tuple, whose length the compiler must know: `length` is typed as a literal."""

from __future__ import annotations

from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError, UnsupportedError
from ember.lowering import arrays
from ember.misc.literal import literally
from ember.typing.intrinsics import intrinsic
from ember.typing.overload import overload
from ember.typing.signature import Signature


def to_fixed_tuple(array: Any, length: int) -> tuple:
    """A tuple of the first `length` items of the 1-D `array` (`length` a compile-time
    constant, or an argument of the jitted caller, which then compiles per value)."""
    if length > len(array):
        raise ValueError(_TOO_LONG)
    return tuple(array[:length])


_TOO_LONG = "to_fixed_tuple(): length exceeds the size of the array"


@overload(to_fixed_tuple, prefer_literal=True)
def _to_fixed_tuple(array: types.Type, length: types.Type) -> Any:
    if not (isinstance(array, types.Array) and array.ndim == 1):
        ndim = getattr(array, "ndim", None)
        raise TypingError(
            f"to_fixed_tuple() needs a 1-D array, not {array}: Not supported on array.ndim={ndim}"
        )
    if not isinstance(types.unliteral(length), types.Integer):
        raise TypingError(f"to_fixed_tuple() needs an integer length, not {length}")
    if not isinstance(length, types.IntegerLiteral):
        return lambda array, length: to_fixed_tuple(array, literally(length))
    if length.literal_value < 0:
        raise TypingError(f"to_fixed_tuple() needs a length >= 0, not {length.literal_value}")

    def impl(array, length):
        if length > len(array):
            raise ValueError(_TOO_LONG)
        return _first_items(array, length)

    return impl


@intrinsic(prefer_literal=True)
def _first_items(typingctx: Any, array: types.Array, length: types.IntegerLiteral) -> Any:
    """The tuple of `array[0]`, ..., `array[length - 1]`, loaded without bounds checks."""
    if not isinstance(length, types.IntegerLiteral):
        return None
    count = length.literal_value
    tuple_type = types.UniTuple(array.dtype, count)

    def codegen(context, builder, sig: Signature, args: list) -> llvm.Value:
        fields = arrays.unpack(builder, array, args[0])
        packed = llvm.Constant(context.value_type(tuple_type), llvm.Undefined)
        for index in range(count):
            pointer = arrays.element_pointer(builder, array, fields, [arrays.const(index)])
            item = arrays.load_item(builder, array.dtype, pointer)
            packed = builder.insert_value(packed, item, index)
        return packed

    return Signature(tuple_type, (array, length)), codegen


def empty_inferred(shape: Any) -> Any:
    """Numba's array whose dtype is inferred from later stores: not supported by ember."""
    raise UnsupportedError(_NO_EMPTY_INFERRED)


_NO_EMPTY_INFERRED = (
    "empty_inferred() (an array typed by the values later stored in it) is not supported: "
    "use np.empty(shape, dtype) with the dtype spelled out"
)


@overload(empty_inferred)
def _empty_inferred(shape: types.Type) -> Any:
    raise UnsupportedError(_NO_EMPTY_INFERRED)
