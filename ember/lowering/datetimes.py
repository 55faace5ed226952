"""datetime64 and timedelta64 values in native code: their int64 data model, boxing, constants
and unit conversions (casts); consumes ember/types/datetimes.py types, produces LLVM values."""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.dispatcher.datetime_entry import scalar_maker
from ember.dispatcher.object_layout import _NUMPY_SCALAR_VALUE_OFFSET
from ember.lowering.boxing import NativeValue
from ember.lowering.models import IntegerModel, register_model
from ember.lowering.registry import box, lower_cast, lower_constant, unbox
from ember.types.datetimes import NAT, linear_factor

_I64 = llvm.IntType(64)
DATETIME_LIKE = (types.NPDatetime, types.NPTimedelta)


@register_model(types.NPDatetime)
@register_model(types.NPTimedelta)
class DatetimeModel(IntegerModel):
    """An int64 count of the type's unit, as NumPy stores it."""

    def __init__(self, fe_type: types.Type) -> None:
        super().__init__(types.int64)
        self.fe_type = fe_type


def nat(value: llvm.Value) -> llvm.Constant:
    return llvm.Constant(value.type, NAT)


def is_nat(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    return builder.icmp_signed("==", value, nat(value))


def nat_if(builder: llvm.IRBuilder, condition: llvm.Value, value: llvm.Value) -> llvm.Value:
    return builder.select(condition, nat(value), value)


# ---------------------------------------------------------------------------- Python objects


@unbox(types.NPDatetime)
@unbox(types.NPTimedelta)
def unbox_datetime(typ, obj, c) -> NativeValue:
    """A NumPy datetime64/timedelta64 scalar (typeof matched its unit) keeps its int64 count
    right after the object header."""
    builder = c.builder
    address = builder.gep(
        obj, [llvm.Constant(_I64, _NUMPY_SCALAR_VALUE_OFFSET)], source_etype=llvm.IntType(8)
    )
    return NativeValue(builder.load(address, typ=_I64))


@box(types.NPDatetime)
@box(types.NPTimedelta)
def box_datetime(typ, value, c):
    pyapi = c.pyapi
    count = pyapi.long_from_longlong(value)
    result = pyapi.call_function_objargs(
        pyapi.borrow_constant(scalar_maker(typ.numpy_kind, typ.unit)), [count]
    )
    pyapi.decref(count)
    return result


@lower_constant(types.NPDatetime)
@lower_constant(types.NPTimedelta)
def datetime_constant(context, builder, typ, pyval):
    return llvm.Constant(_I64, int(np.asarray(pyval).view(np.int64)))


# ---------------------------------------------------------------------------- unit conversions


def convertible(from_type: types.Type, to_type: types.Type) -> bool:
    """Whether `convert_unit` handles this pair (the same kind, units it can relate)."""
    if type(from_type) is not type(to_type):
        return False
    source, target = from_type.unit, to_type.unit
    if linear_factor(source, target) is not None or linear_factor(target, source) is not None:
        return True
    return isinstance(from_type, types.NPDatetime) and source in ("Y", "M") and target != ""


def convert_unit(context, builder, value, from_type, to_type):
    """`value` (a count of from_type's unit) as a count of to_type's unit; NaT stays NaT.
    Finer units multiply; datetimes of years or months become days through the calendar;
    coarser units divide, rounding down (as NumPy's casts)."""
    source, target = from_type.unit, to_type.unit
    factor = linear_factor(source, target)
    if factor == 1:
        return value
    if factor is not None:
        return nat_if(builder, is_nat(builder, value), builder.mul(value, _I64(factor)))
    if isinstance(from_type, types.NPDatetime) and source in ("Y", "M") and target != "":
        months = value if source == "M" else builder.mul(value, _I64(12))
        days = context.compile_internal(
            builder, _days_from_months, types.int64(types.int64), [months]
        )
        days = context.cast(builder, days, types.NPDatetime("D"), types.NPDatetime(target))
        return nat_if(builder, is_nat(builder, value), days)
    inverse = linear_factor(target, source)
    if inverse is not None:
        quotient = context.compile_internal(
            builder, _floor_divide, types.int64(types.int64, types.int64), [value, _I64(inverse)]
        )
        return nat_if(builder, is_nat(builder, value), quotient)
    raise NotImplementedError(f"ember cannot convert {from_type} to {to_type}")


def _days_from_months(months):
    """Days from 1970-01-01 to the first day of the month `months` after January 1970 (the
    proleptic Gregorian calendar, counted from March so that leap days come last)."""
    year = 1970 + months // 12
    month = months % 12 + 1
    if month <= 2:
        year -= 1
    era = year // 400
    year_of_era = year - era * 400
    shifted_month = month + 9 if month <= 2 else month - 3
    day_of_year = (153 * shifted_month + 2) // 5
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _floor_divide(value, divisor):
    return value // divisor


for _class in DATETIME_LIKE:

    @lower_cast(_class, _class)
    def _same_kind(context, builder, from_type, to_type, value):
        return convert_unit(context, builder, value, from_type, to_type)


@lower_cast(types.NPTimedelta, types.NPDatetime)
def timedelta_to_datetime(context, builder, from_type, to_type, value):
    """NumPy's unsafe cast (np.where mixing the two kinds): the count since the epoch."""
    same_unit = types.NPTimedelta(to_type.unit)
    return convert_unit(context, builder, value, from_type, same_unit)


@lower_cast(types.Integer, types.NPTimedelta)
def integer_to_timedelta(context, builder, from_type, to_type, value):
    """An integer in a timedelta loop (`td * 2`, `dt + 1`) counts the timedelta's unit."""
    return context.cast(builder, value, from_type, types.int64)


@lower_cast(types.NPTimedelta, types.Integer)
@lower_cast(types.NPDatetime, types.Integer)
def datetime_to_integer(context, builder, from_type, to_type, value):
    return context.cast(builder, value, types.int64, to_type)


@lower_cast(types.NPTimedelta, types.Boolean)
@lower_cast(types.NPDatetime, types.Boolean)
def datetime_truth(context, builder, from_type, to_type, value):
    """True unless the count is zero (NaT is true), as NumPy's scalars."""
    return builder.icmp_signed("!=", value, _I64(0))
