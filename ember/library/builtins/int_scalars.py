"""Integer scalars meeting narrower NumPy integers (NumPy 2's rules for Python integers): range
checks that raise NumPy's OverflowError, at compile time for constants and once per operation
(never per element) at run time, and the exact comparison of any scalar with narrow elements.

ember cannot tell a Python int from a NumPy integer scalar, so every integer scalar counts as a
Python int in operations: `uint8_array + 300` raises, as in NumPy 2, instead of wrapping to 44.
Stores (`a[i] = v`) check only constants: a variable wraps, as NumPy wraps the narrow
arithmetic that ember (like Numba) computes in 64 bits.
"""

from __future__ import annotations

import ctypes
import operator

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.codegen.symbols import external_global, publish
from ember.errors import TypingError
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature
from ember.typing.templates import registry

i64 = llvm.IntType(64)
_FALSE = llvm.Constant(llvm.IntType(1), 0)


class IntegerOverflowError(TypingError, OverflowError):
    """A constant integer that does not fit the NumPy integer type it must become (found while
    compiling); an OverflowError, as NumPy raises for the same operation."""


def overflow_message(value: int, dtype: types.Type | str) -> str:
    """NumPy's words for a Python int that does not fit `dtype`."""
    return f"Python integer {value} out of bounds for {dtype}"


def is_narrowing(scalar_type: types.Type, dtype: types.Type) -> bool:
    """True when an integer scalar of `scalar_type` may hold values `dtype` (an integer type)
    cannot: only then is a range check needed."""
    scalar_type = types.unliteral(scalar_type)
    if not (isinstance(scalar_type, types.Integer) and isinstance(dtype, types.Integer)):
        return False
    return scalar_type.minval < dtype.minval or scalar_type.maxval > dtype.maxval


# ---------------------------------------------------------------------------- lowering


def _widened(builder, value, scalar_type: types.Integer):
    if scalar_type.bitwidth == 64:
        return value
    extend = builder.sext if scalar_type.signed else builder.zext
    return extend(value, i64)


def below_and_above(builder, value, scalar_type: types.Type, dtype: types.Integer) -> tuple:
    """(value < dtype's minimum, value > dtype's maximum) as i1s, for an integer `value`."""
    scalar_type = types.unliteral(scalar_type)
    wide = _widened(builder, value, scalar_type)
    below = above = _FALSE
    if scalar_type.minval < dtype.minval:  # a signed scalar: compare as signed
        below = builder.icmp_signed("<", wide, llvm.Constant(i64, dtype.minval))
    if scalar_type.maxval > dtype.maxval:
        compare = builder.icmp_signed if scalar_type.signed else builder.icmp_unsigned
        above = compare(">", wide, llvm.Constant(i64, dtype.maxval))
    return below, above


# The value reported by the last failed check, read when Python builds the exception. Compiled
# code may run without the GIL: two threads failing at once could swap the numbers shown (never
# whether an error is raised).
_offending = ctypes.c_int64(0)


def publish_symbol(symbol: str = "ember.overflow_slot") -> str:
    """Compiled code stores the value that did not fit at this symbol (read back below)."""
    publish(symbol, ctypes.addressof(_offending))
    return symbol


def _overflow_exception(dtype_name: str, unsigned: bool) -> OverflowError:
    value = _offending.value
    if unsigned:
        value &= (1 << 64) - 1
    return OverflowError(overflow_message(value, dtype_name))


def emit_range_check(context, builder, value, scalar_type: types.Type, dtype: types.Type,
                     low: bool = True, high: bool = True):  # fmt: skip
    """Raise NumPy's OverflowError at run time unless the integer `value` fits `dtype` (only
    its low or high end when told; no code when every value of `scalar_type` fits)."""
    if not is_narrowing(scalar_type, dtype):
        return
    scalar_type = types.unliteral(scalar_type)
    if isinstance(value, llvm.Constant):  # a constant of the source: decided now
        number = _constant_value(value, scalar_type)
        if (low and number < dtype.minval) or (high and number > dtype.maxval):
            raise IntegerOverflowError(overflow_message(number, dtype))
        return
    below, above = below_and_above(builder, value, scalar_type, dtype)
    outside = builder.or_(below if low else _FALSE, above if high else _FALSE)
    with builder.if_then(outside, likely=False):
        slot = external_global(builder.module, publish_symbol(), i64)
        builder.store(_widened(builder, value, scalar_type), slot)
        context.raise_error(builder, _overflow_exception, str(dtype), not scalar_type.signed)


def _constant_value(value: llvm.Constant, scalar_type: types.Integer) -> int:
    """The Python int an LLVM integer constant of `scalar_type` stands for."""
    bits = value.constant % (1 << scalar_type.bitwidth)
    if scalar_type.signed and bits >= 1 << (scalar_type.bitwidth - 1):
        bits -= 1 << scalar_type.bitwidth
    return bits


def cast_checked(context, builder, value, scalar_type: types.Type, dtype: types.Type):
    """`value` converted to `dtype`, raising NumPy's OverflowError for an integer that does not
    fit (floats convert as NumPy's unsafe casts do)."""
    emit_range_check(context, builder, value, scalar_type, dtype)
    return context.cast(builder, value, types.unliteral(scalar_type), dtype)


def cast_stored(context, builder, value, scalar_type: types.Type, dtype: types.Type):
    """`value` converted for a store into an array of `dtype` (`a[i] = v`): a constant that
    does not fit fails to compile, as NumPy raises for a Python int; a variable converts as
    NumPy casts a NumPy integer and as Numba stores (wrapping), since compiled code cannot
    tell a Python int from a value computed from narrow elements, which NumPy wraps."""
    if isinstance(value, llvm.Constant):
        emit_range_check(context, builder, value, scalar_type, dtype)
    return context.cast(builder, value, types.unliteral(scalar_type), dtype)


def saturate(context, builder, value, scalar_type: types.Type, dtype: types.Integer):
    """`value` clamped into `dtype`'s range, then converted to it."""
    scalar_type = types.unliteral(scalar_type)
    if not is_narrowing(scalar_type, dtype):
        return context.cast(builder, value, scalar_type, dtype)
    below, above = below_and_above(builder, value, scalar_type, dtype)
    narrow = llvm.IntType(dtype.bitwidth)
    inside = builder.trunc(_widened(builder, value, scalar_type), narrow)
    low, high = llvm.Constant(narrow, dtype.minval), llvm.Constant(narrow, dtype.maxval)
    return builder.select(below, low, builder.select(above, high, inside))


# ---------------------------------------------------------------------------- comparisons

COMPARISONS = {
    np.equal: operator.eq, np.not_equal: operator.ne, np.less: operator.lt,
    np.less_equal: operator.le, np.greater: operator.gt, np.greater_equal: operator.ge,
}  # fmt: skip
_MIRRORED = {
    operator.lt: operator.gt, operator.le: operator.ge, operator.gt: operator.lt,
    operator.ge: operator.le, operator.eq: operator.eq, operator.ne: operator.ne,
}  # fmt: skip


def exact_comparison(context, builder, ufunc, position: int, value, scalar_type, dtype):
    """Prepare `element OP scalar` (scalar at `position` 0 or 1) for a scalar that may lie
    outside `dtype`: returns (the scalar saturated into dtype, finish) where `finish(builder,
    result)` replaces the element-wise result by the answer every element gives when the scalar
    is out of range (`uint8 < 300` is always true)."""
    compare = COMPARISONS[ufunc]
    if position == 0:  # `scalar OP element` is `element MIRRORED scalar`
        compare = _MIRRORED[compare]
    below, above = below_and_above(builder, value, scalar_type, dtype)
    # an element is always less than a scalar above the range, and greater than one below it
    when_above = compare(0, 1)
    when_below = compare(1, 0)
    outside = builder.or_(below, above)
    answer = builder.select(
        above, llvm.Constant(llvm.IntType(1), int(when_above)),
        llvm.Constant(llvm.IntType(1), int(when_below)),
    )  # fmt: skip
    clamped = saturate(context, builder, value, scalar_type, dtype)

    def finish(b, result):
        return b.select(outside, answer, result)

    return clamped, finish


# ---------------------------------------------------------------------------- np.clip bounds


def clip_bounds(a, a_min, a_max):
    """(a_min, a_max) in `a`'s integer dtype, as NumPy 2's np.clip takes Python int bounds:
    OverflowError for a minimum above the dtype's range or a maximum below it, and bounds
    beyond the range on their own side saturate (`np.clip(uint8s, -5, 300)` is a no-op).
    Called from compiled code only."""
    raise NotImplementedError("clip_bounds runs in compiled code only")


@registry.typer(clip_bounds)
def _type_clip_bounds(args, kws):
    array, low, high = (types.unliteral(t) for t in args)
    return signature(types.UniTuple(array.dtype, 2), array, low, high)


@lower_builtin(clip_bounds, types.Array, types.Type, types.Type)
def _lower_clip_bounds(context, builder, sig, args):
    array_type, low_type, high_type = sig.args
    dtype = array_type.dtype
    emit_range_check(context, builder, args[1], low_type, dtype, low=False)
    emit_range_check(context, builder, args[2], high_type, dtype, high=False)
    result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    for index, (typ, value) in enumerate(((low_type, args[1]), (high_type, args[2]))):
        result = builder.insert_value(result, saturate(context, builder, value, typ, dtype), index)
    return result
