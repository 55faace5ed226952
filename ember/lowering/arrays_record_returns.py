"""Returning a record (a pointer to its bytes) from compiled code: the result slot of a record
return holds the pointer and room for a copy of the bytes; the callee copies the record there
unless it lies in memory its caller owns (an argument), so no caller reads freed memory. Within
a function, the arrays records were read from are released on return (`record_sources`)."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.ir import nodes as ir
from ember.lowering import arrays as arr
from ember.lowering.models import model_of

_i1 = llvm.IntType(1)


def returns_record(return_type: types.Type) -> bool:
    return isinstance(return_type, types.Record)


def result_slot_type(return_type: types.Type) -> llvm.Type:
    """What a caller allocates at `retptr`: the result's data, and for a record room for its
    bytes after the pointer (which then points there)."""
    data_type = model_of(return_type).data_type
    if not returns_record(return_type):
        return data_type
    return llvm.LiteralStructType([data_type, llvm.ArrayType(arr.i8, max(return_type.size, 1))])


def keep_for_caller(builder: llvm.IRBuilder, sig, arguments: list, value, retptr) -> llvm.Value:
    """The record pointer to return: `value` itself when it lies in an argument's bytes (writes
    through it still reach the caller's array, as a record's reference does), else a copy of its
    bytes in the caller's result slot (the array holding it may be freed on return)."""
    record_type = sig.return_type
    inside = llvm.Constant(_i1, 0)
    for arg_type, arg_value in zip(sig.args, arguments):
        inside = builder.or_(inside, _lies_in(builder, arg_type, arg_value, value, record_type))
    copy = builder.gep(retptr, [arr.const(8)], source_etype=arr.i8)
    with builder.if_then(builder.not_(inside)):
        arr.memcpy(builder, copy, value, arr.const(record_type.size))
    return builder.select(inside, value, copy)


def _lies_in(builder, typ: types.Type, value, pointer, record_type: types.Record) -> llvm.Value:
    """Whether the record at `pointer` lies inside the bytes of the value `value` of type `typ`
    (an array, a record, or a tuple of them; anything else: false, so the record is copied)."""
    address = builder.ptrtoint(pointer, arr.i64)
    if isinstance(typ, types.Record):
        start = builder.ptrtoint(value, arr.i64)
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


def record_sources(func_ir: ir.FunctionIR, typemap: dict) -> frozenset[str]:
    """Array variables a record is read from (`r = a[i]`, `r = np.zeros(n, dt)[0]`): a record
    holds no reference to its array, so the lowering releases these on return instead of where
    they die. None in generators (a frame's slots do not survive a yield)."""
    names = set()
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if not isinstance(stmt, ir.Assign):
                continue
            value = stmt.value
            if isinstance(value, ir.Yield):
                return frozenset()
            if (
                isinstance(value, ir.GetItem | ir.StaticGetItem)
                and isinstance(typemap.get(stmt.target.name), types.Record)
                and isinstance(typemap.get(value.value.name), types.Array)
            ):
                names.add(value.value.name)
    return frozenset(names)
