"""Returning a record ({meminfo, data}, ember/library/numpy/records.py) from compiled code: a
record holding no reference (NULL meminfo) is returned as it is when it lies in an argument's
bytes, else as a copy of its bytes in a new block it owns, so no caller reads freed memory."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as arr
from ember.runtime import nrt

_i1 = llvm.IntType(1)


def returns_record(return_type: types.Type) -> bool:
    return isinstance(return_type, types.Record)


def keep_for_caller(builder: llvm.IRBuilder, sig, arguments: list, value) -> llvm.Value:
    """The record to return: `value` itself when it owns a reference to its memory or lies in
    an argument's bytes (writes through it still reach the caller's array, as a record's
    reference does), else a copy of its bytes in a new block (its array may be freed on
    return)."""
    record_type = sig.return_type
    meminfo = builder.extract_value(value, 0)
    pointer = arr.record_data(builder, value)
    kept = builder.icmp_unsigned("!=", meminfo, llvm.Constant(arr.ptr, None))
    for arg_type, arg_value in zip(sig.args, arguments):
        kept = builder.or_(kept, _lies_in(builder, arg_type, arg_value, pointer, record_type))
    before = builder.block
    with builder.if_then(builder.not_(kept)):
        copied = nrt.emit_allocate_small(builder, arr.const(max(record_type.size, 1)))
        data = nrt.emit_small_data_pointer(builder, copied)
        arr.memcpy(builder, data, pointer, arr.const(record_type.size))
        copy = arr.record_view(builder, record_type, copied, data)
        copied_block = builder.block
    result = builder.phi(value.type)
    result.add_incoming(value, before)
    result.add_incoming(copy, copied_block)
    return result


def _lies_in(builder, typ: types.Type, value, pointer, record_type: types.Record) -> llvm.Value:
    """Whether the record at `pointer` lies inside the bytes of the value `value` of type `typ`
    (an array, a record, or a tuple of them; anything else: false, so the record is copied)."""
    address = builder.ptrtoint(pointer, arr.i64)
    if isinstance(typ, types.Record):
        start = builder.ptrtoint(arr.record_data(builder, value), arr.i64)
        return _within(builder, address, start, builder.add(start, arr.const(typ.size)))
    if isinstance(typ, types.Array) and isinstance(typ.dtype, types.Record):
        low, high = _byte_bounds(builder, typ, arr.unpack(builder, typ, value))
        return _within(builder, address, low, high)
    if isinstance(typ, types.BaseTuple):
        inside = llvm.Constant(_i1, 0)
        for index, member in enumerate(typ.types):
            member_value = builder.extract_value(value, index)
            found = _lies_in(builder, member, member_value, pointer, record_type)
            inside = builder.or_(inside, found)
        return inside
    return llvm.Constant(_i1, 0)


def _within(builder, address, low, high) -> llvm.Value:
    return builder.and_(
        builder.icmp_unsigned(">=", address, low), builder.icmp_unsigned("<", address, high)
    )


def _byte_bounds(builder, typ: types.Array, fields: arr.ArrayFields) -> tuple:
    """[low, high) of the bytes the array's elements cover (strides of either sign); an empty
    array covers nothing."""
    start = builder.ptrtoint(fields.data, arr.i64)
    low, high = start, builder.add(start, fields.itemsize)
    zero = arr.const(0)
    for extent, stride in zip(fields.shape, fields.strides):
        reach = builder.mul(builder.sub(extent, arr.const(1)), stride)
        negative = builder.icmp_signed("<", reach, zero)
        low = builder.add(low, builder.select(negative, reach, zero))
        high = builder.add(high, builder.select(negative, zero, reach))
    empty = builder.icmp_signed("==", fields.nitems, zero)
    return low, builder.select(empty, low, high)
