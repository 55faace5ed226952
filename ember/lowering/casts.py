"""Conversions between types: the one home of every implicit and explicit cast in lowering."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.lowering.float_bounds import record_guard
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.registry import lower_cast

_i1 = llvm.IntType(1)


@lower_cast(types.Literal, types.Type)
def literal_to_any(context, builder, from_type, to_type, value):
    if isinstance(from_type, types.StringLiteral):  # no runtime data until it becomes a value
        from ember.lowering.strings import constant

        value = constant(builder, from_type.literal_value)
    return context.cast(builder, value, from_type.literal_type, to_type)


@lower_cast(types.Type, types.Literal)
def any_to_literal(context, builder, from_type, to_type, value):
    """A value passed where its literal type is expected (a call typed with the constant's
    literal type) is that constant: typing made the literal from its single definition."""
    return context.get_constant(to_type, to_type.literal_value)


@lower_cast(types.Integer, types.Integer)
def integer_to_integer(context, builder, from_type, to_type, value):
    target = context.value_type(to_type)
    if to_type.bitwidth < from_type.bitwidth:
        return builder.trunc(value, target)
    if to_type.bitwidth == from_type.bitwidth:
        return value
    return builder.sext(value, target) if from_type.signed else builder.zext(value, target)


@lower_cast(types.Integer, types.Float)
def integer_to_float(context, builder, from_type, to_type, value):
    target = context.value_type(to_type)
    return builder.sitofp(value, target) if from_type.signed else builder.uitofp(value, target)


@lower_cast(types.Float, types.Integer)
def float_to_integer(context, builder, from_type, to_type, value):
    """Truncate toward zero, then wrap to the target's width, as NumPy's casts give on x86-64
    (`np.uint8(-1.5)` is 255, `np.int8(300.7)` is 44), never poison. Targets of 32 bits or
    fewer except uint32 convert through int32 as NumPy does: beyond it (and for inf) the
    result is int32's minimum before the wrap, 0 for 8 and 16 bits, and NaN gives 0. The
    others convert through int64, saturating beyond it, NaN giving 0; uint64 converts
    [2**63, 2**64) exactly."""
    target = context.value_type(to_type)
    if to_type.bitwidth < 32 or (to_type.bitwidth == 32 and to_type.signed):
        narrow = _int32_conversion(builder, value, nan_gives_zero=to_type.bitwidth == 32)
        return narrow if target.width == 32 else builder.trunc(narrow, target)
    wide_type = llvm.IntType(64)
    wide = _saturating_fptosi(builder, value, wide_type)
    if to_type.bitwidth == 64 and not to_type.signed:
        unsigned = call_intrinsic(
            builder, "llvm.fptoui.sat", [value], wide_type, [wide_type, value.type]
        )
        beyond_int64 = builder.fcmp_ordered(">=", value, llvm.Constant(value.type, 2.0**63))
        wide = builder.select(beyond_int64, unsigned, wide)
    return wide if target.width == 64 else builder.trunc(wide, target)


def _int32_conversion(builder, value, nan_gives_zero: bool):
    """x86's cvttsd2si to int32 (int32's minimum for NaN and |x| >= 2**31; NaN gives 0 if
    `nan_gives_zero`), in IR without poison: one compare and a select (a masked move of the
    vector's lanes), so a loop storing floats into a narrow int array vectorizes as Numba's
    unchecked fptosi does. The minimum's low 16 bits are 0: NaN's result below 32 bits."""
    int32 = llvm.IntType(32)
    in_range = _range_test(builder, value, 2.0**31)
    beyond = int32(-(1 << 31))
    if nan_gives_zero:
        beyond = builder.select(builder.fcmp_unordered("uno", value, value), int32(0), beyond)
    # fptosi of an out-of-range value is poison, but the select then picks `beyond`
    return builder.select(in_range, builder.fptosi(value, int32), beyond)


def _range_test(builder, value, limit: float):
    """`|value| < limit` (false for NaN); recorded so that, once the function is lowered, a
    value proven within the limit (a clamp) is only tested for NaN (float_bounds.py)."""
    magnitude = call_intrinsic(builder, "llvm.fabs", [value])
    in_range = builder.fcmp_ordered("<", magnitude, llvm.Constant(value.type, limit))
    record_guard(builder, in_range)
    return in_range


def _saturating_fptosi(builder, value, wide_type: llvm.IntType):
    """llvm.fptosi.sat's value (NaN gives 0), by fptosi and selects: x86 converts the
    intrinsic one lane at a time, which keeps a loop storing floats into an int array from
    vectorizing."""
    in_range = _range_test(builder, value, 2.0**63)
    zero = llvm.Constant(value.type, 0.0)
    top, bottom = (1 << 63) - 1, -(1 << 63)
    below = builder.select(builder.fcmp_ordered("<", value, zero), wide_type(bottom), wide_type(0))
    saturated = builder.select(builder.fcmp_ordered(">", value, zero), wide_type(top), below)
    # fptosi of an out-of-range value is poison, but the select then picks `saturated`
    return builder.select(in_range, builder.fptosi(value, wide_type), saturated)


@lower_cast(types.Float, types.Float)
def float_to_float(context, builder, from_type, to_type, value):
    target = context.value_type(to_type)
    if to_type.bitwidth > from_type.bitwidth:
        return builder.fpext(value, target)
    return builder.fptrunc(value, target)


@lower_cast(types.Boolean, types.Integer)
def boolean_to_integer(context, builder, from_type, to_type, value):
    return builder.zext(value, context.value_type(to_type))


@lower_cast(types.Boolean, types.Float)
def boolean_to_float(context, builder, from_type, to_type, value):
    return builder.uitofp(value, context.value_type(to_type))


@lower_cast(types.Number, types.Complex)
def real_to_complex(context, builder, from_type, to_type, value):
    part_type = to_type.underlying_float
    if isinstance(from_type, types.Complex):
        real = builder.extract_value(value, 0)
        imag = builder.extract_value(value, 1)
        real = context.cast(builder, real, from_type.underlying_float, part_type)
        imag = context.cast(builder, imag, from_type.underlying_float, part_type)
    else:
        real = context.cast(builder, value, from_type, part_type)
        imag = context.get_constant(part_type, 0.0)
    return make_complex(context, builder, to_type, real, imag)


def make_complex(context, builder, complex_type, real, imag):
    result = llvm.Constant(context.value_type(complex_type), llvm.Undefined)
    result = builder.insert_value(result, real, 0)
    return builder.insert_value(result, imag, 1)


# ---------------------------------------------------------------------------- truthiness


@lower_cast(types.Integer, types.Boolean)
def integer_truth(context, builder, from_type, to_type, value):
    return builder.icmp_unsigned("!=", value, llvm.Constant(value.type, 0))


@lower_cast(types.Float, types.Boolean)
def float_truth(context, builder, from_type, to_type, value):
    return builder.fcmp_unordered("!=", value, llvm.Constant(value.type, 0.0))


@lower_cast(types.Complex, types.Boolean)
def complex_truth(context, builder, from_type, to_type, value):
    part = from_type.underlying_float
    real = float_truth(context, builder, part, to_type, builder.extract_value(value, 0))
    imag = float_truth(context, builder, part, to_type, builder.extract_value(value, 1))
    return builder.or_(real, imag)


@lower_cast(types.NoneType, types.Boolean)
def none_truth(context, builder, from_type, to_type, value):
    return llvm.Constant(_i1, 0)


@lower_cast(types.BaseTuple, types.Boolean)
def tuple_truth(context, builder, from_type, to_type, value):
    return llvm.Constant(_i1, int(len(from_type) > 0))


@lower_cast(types.BaseTuple, types.BaseTuple)
def tuple_to_tuple(context, builder, from_type, to_type, value):
    if len(from_type) != len(to_type):
        raise TypeError(f"cannot convert {from_type} to {to_type}")
    result = llvm.Constant(context.value_type(to_type), llvm.Undefined)
    for index, (src, dst) in enumerate(zip(from_type.types, to_type.types)):
        item = context.cast(builder, builder.extract_value(value, index), src, dst)
        result = builder.insert_value(result, item, index)
    return result


@lower_cast(types.NoneType, types.NoneType)
def none_to_none(context, builder, from_type, to_type, value):
    return value


# ---------------------------------------------------------------------------- pointers


@lower_cast(types.Integer, types.RawPointer)
@lower_cast(types.Integer, types.CPointer)
def integer_to_pointer(context, builder, from_type, to_type, value):
    """An address held as an integer (Numba's rule: extension code returns one as void*;
    `a.ctypes.data` passed where a C function takes a pointer)."""
    return builder.inttoptr(value, context.value_type(to_type))


@lower_cast(types.RawPointer, types.Integer)
def pointer_to_integer(context, builder, from_type, to_type, value):
    """A `void *` (a C function's result) stored as an integer: its address."""
    return builder.ptrtoint(value, context.value_type(to_type))
