"""Element-wise loops over arrays with NumPy broadcasting: the engine behind operators, ufuncs,
`a[...] = b`, copies and casts.

`elementwise` writes `out[i] = kernel(x[i], y[i], ...)` for every index of `out`, where each
operand is a scalar or an array broadcast to `out`'s shape. When every operand is a C-contiguous
array of exactly `out`'s shape (checked at run time when the types allow it), the loop is one
flat loop over `nitems` with unit-stride typed addresses, which LLVM vectorizes; otherwise it is
a loop nest with byte strides (0 along broadcast dimensions).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as arr
from ember.lowering.arrays import ArrayFields, const, i1, i8


@dataclass
class Operand:
    """One input of an element-wise loop: an array (its fields) or a scalar value."""

    typ: types.Type
    value: llvm.Value
    fields: ArrayFields | None = None

    @property
    def is_array(self) -> bool:
        return isinstance(self.typ, types.Array)

    @property
    def dtype(self) -> types.Type:
        return self.typ.dtype if self.is_array else self.typ


def operand(builder, typ: types.Type, value: llvm.Value) -> Operand:
    if isinstance(typ, types.Array):
        return Operand(typ, value, arr.unpack(builder, typ, value))
    return Operand(typ, value)


# ---------------------------------------------------------------------------- broadcasting


def broadcast_shapes(context, builder, shapes: list[list], message: str | None = None) -> list:
    """The broadcast shape of several shapes (lists of i64); ValueError when incompatible."""
    ndim = max((len(shape) for shape in shapes), default=0)
    out = []
    bad = llvm.Constant(i1, 0)
    for position in range(ndim):
        dims = []
        for shape in shapes:
            k = position - (ndim - len(shape))
            if k >= 0:
                dims.append(shape[k])
        size = const(1)
        for dim in dims:
            size = builder.select(builder.icmp_signed("!=", dim, const(1)), dim, size)
        for dim in dims:
            mismatch = builder.and_(
                builder.icmp_signed("!=", dim, const(1)), builder.icmp_signed("!=", dim, size)
            )
            bad = builder.or_(bad, mismatch)
        out.append(size)
    if len(shapes) > 1:
        context.guard(
            builder, bad, ValueError, message or "operands could not be broadcast together"
        )
    return out


def check_broadcast_to(context, builder, shape: list, target: list, message: str) -> None:
    """ValueError unless `shape` broadcasts to exactly `target` (for assignments)."""
    if len(shape) > len(target):
        # extra leading dimensions are fine only when they are 1
        extra = shape[: len(shape) - len(target)]
        bad = llvm.Constant(i1, 0)
        for dim in extra:
            bad = builder.or_(bad, builder.icmp_signed("!=", dim, const(1)))
        context.guard(builder, bad, ValueError, message)
        shape = shape[len(shape) - len(target) :]
    bad = llvm.Constant(i1, 0)
    for dim, want in zip(shape, target[len(target) - len(shape) :]):
        mismatch = builder.and_(
            builder.icmp_signed("!=", dim, const(1)), builder.icmp_signed("!=", dim, want)
        )
        bad = builder.or_(bad, mismatch)
    context.guard(builder, bad, ValueError, message)


def broadcast_strides(builder, fields: ArrayFields, out_ndim: int) -> list:
    """Byte strides of an array read at `out_ndim`-dimensional indices (0 where broadcast)."""
    ndim = len(fields.shape)
    strides = [const(0)] * out_ndim
    for k in range(min(ndim, out_ndim)):
        dim = fields.shape[ndim - 1 - k]
        stride = fields.strides[ndim - 1 - k]
        one = builder.icmp_signed("==", dim, const(1))
        strides[out_ndim - 1 - k] = builder.select(one, const(0), stride)
    return strides


def strided_pointer(builder, data: llvm.Value, strides: list, indices: list) -> llvm.Value:
    offset = None
    for stride, index in zip(strides, indices):
        term = builder.mul(index, stride)
        offset = term if offset is None else builder.add(offset, term)
    if offset is None:
        return data
    return builder.gep(data, [offset], inbounds=True, source_etype=i8)


# ---------------------------------------------------------------------------- the loop


def elementwise(
    context,
    builder,
    out_type: types.Array,
    out: ArrayFields,
    operands: list[Operand],
    kernel: Callable,
) -> None:
    """out[idx] = kernel(builder, [operand items at idx]) over out's shape; `kernel` returns a
    value of out_type.dtype. Operands must already broadcast to out's shape."""
    ndim = out_type.ndim
    arrays = [op for op in operands if op.is_array]
    flat_ok = (
        out_type.layout in "CF"
        and all(op.typ.layout == out_type.layout and op.typ.ndim == ndim for op in arrays)
        and ndim >= 1
    )
    if flat_ok and arrays:
        same = llvm.Constant(i1, 1)
        for op in arrays:
            for dim, want in zip(op.fields.shape, out.shape):
                same = builder.and_(same, builder.icmp_signed("==", dim, want))
        with builder.if_else(same, likely=True) as (then, otherwise):
            with then:
                _flat_loop(builder, out_type, out, operands, kernel)
            with otherwise:
                _nested_loop(builder, out_type, out, operands, kernel)
    elif flat_ok:
        _flat_loop(builder, out_type, out, operands, kernel)
    else:
        _nested_loop(builder, out_type, out, operands, kernel)


def _flat_loop(builder, out_type, out, operands, kernel) -> None:
    out_element = arr.model_of(out_type.dtype).data_type
    with arr.for_range(builder, out.nitems) as index:
        items = []
        for op in operands:
            if op.is_array:
                element = arr.model_of(op.dtype).data_type
                pointer = builder.gep(op.fields.data, [index], inbounds=True, source_etype=element)
                items.append(arr.load_item(builder, op.dtype, pointer))
            else:
                items.append(op.value)
        target = builder.gep(out.data, [index], inbounds=True, source_etype=out_element)
        arr.store_item(builder, out_type.dtype, kernel(builder, items), target)


# Every combination of contiguous/broadcast inner strides gets its own loop for up to this many
# array operands (2**n loops); with more, only those with at most one broadcast operand do.
_ALL_PATTERNS_UP_TO = 3
_MAX_MASK_BITS = 62  # operands a run-time i64 bit mask can tell apart


def _nested_loop(builder, out_type, out, operands, kernel) -> None:
    """The loop nest in out's memory order. Where each array's stride along the innermost axis
    is its itemsize (contiguous) or 0 (broadcast), a run-time switch picks a copy of the nest
    whose inner loop reads contiguous operands at a constant step and broadcast ones once per
    row, which LLVM vectorizes; other strides (negative, gapped) take the byte-stride nest."""
    strides = [
        broadcast_strides(builder, op.fields, out_type.ndim) if op.is_array else None
        for op in operands
    ]
    if out_type.ndim == 0 or len(operands) > _MAX_MASK_BITS:
        _strided_nest(builder, out_type, out, operands, strides, kernel)
        return
    inner = 0 if out_type.layout == "F" else out_type.ndim - 1
    pattern, always_broadcast, unknown = _inner_pattern(
        builder, out_type, out, operands, strides, inner
    )
    general = builder.append_basic_block("nest.strided")
    done = builder.append_basic_block("nest.end")
    switch = builder.switch(pattern, general)
    for broadcast in _broadcast_choices(unknown):
        block = builder.append_basic_block("nest.unit_stride")
        switch.add_case(sum(1 << j for j in (*always_broadcast, *broadcast)), block)
        builder.position_at_end(block)
        read_once = {*always_broadcast, *broadcast}
        _row_nest(builder, out_type, out, operands, strides, inner, read_once, kernel)
        builder.branch(done)
    builder.position_at_end(general)
    _strided_nest(builder, out_type, out, operands, strides, kernel)
    builder.branch(done)
    builder.position_at_end(done)


def _inner_pattern(builder, out_type, out, operands, strides, inner) -> tuple:
    """(i64 bit mask of the operands broadcast along `inner`, or -1 when some stride is neither
    0 nor the itemsize or the axis is empty; operands broadcast whatever the shapes; the others)."""
    fits = builder.and_(
        builder.icmp_signed(">", out.shape[inner], const(0)),
        builder.icmp_signed("==", out.strides[inner], const(arr.itemsize_of(out_type.dtype))),
    )
    mask = const(0)
    always_broadcast, unknown = [], []
    for position, op in enumerate(operands):
        if not op.is_array:
            continue
        stride = strides[position][inner]
        if isinstance(stride, llvm.Constant) and stride.constant == 0:  # an axis it lacks
            always_broadcast.append(position)
            continue
        unknown.append(position)
        zero = builder.icmp_signed("==", stride, const(0))
        unit = builder.icmp_signed("==", stride, const(arr.itemsize_of(op.dtype)))
        fits = builder.and_(fits, builder.or_(zero, unit))
        mask = builder.or_(mask, builder.shl(builder.zext(zero, arr.i64), const(position)))
    mask = builder.or_(mask, const(sum(1 << j for j in always_broadcast)))
    return builder.select(fits, mask, const(-1)), always_broadcast, unknown


def _broadcast_choices(positions: list) -> Iterator[tuple]:
    """The sets of operands broadcast along the inner axis that get their own loop."""
    largest = len(positions) if len(positions) <= _ALL_PATTERNS_UP_TO else 1
    for size in range(largest + 1):
        yield from itertools.combinations(positions, size)


def _row_nest(builder, out_type, out, operands, strides, inner, broadcast, kernel) -> None:
    """Loops over out's outer axes (in memory order) around a unit-stride loop along `inner`;
    the operands at positions `broadcast` are read once per row."""
    outer = [k for k in range(out_type.ndim) if k != inner]
    outer_shape = [out.shape[k] for k in outer]
    with _loop_nest_in_memory_order(builder, out_type.layout, outer_shape) as indices:

        def row_start(data, data_strides):
            return strided_pointer(builder, data, [data_strides[k] for k in outer], indices)

        rows = [
            row_start(op.fields.data, op_strides) if op.is_array else None
            for op, op_strides in zip(operands, strides)
        ]
        out_row = row_start(out.data, out.strides)
        once = {j: arr.load_item(builder, operands[j].dtype, rows[j]) for j in broadcast}
        with arr.for_range(builder, out.shape[inner]) as index:
            items = []
            for position, op in enumerate(operands):
                if not op.is_array:
                    items.append(op.value)
                elif position in once:
                    items.append(once[position])
                else:
                    pointer = _unit_step(builder, rows[position], op.dtype, index)
                    items.append(arr.load_item(builder, op.dtype, pointer))
            target = _unit_step(builder, out_row, out_type.dtype, index)
            arr.store_item(builder, out_type.dtype, kernel(builder, items), target)


def _unit_step(builder, row: llvm.Value, dtype: types.Type, index: llvm.Value) -> llvm.Value:
    """The address of item `index` of a contiguous row (a constant byte step LLVM vectorizes)."""
    offset = builder.mul(index, const(arr.itemsize_of(dtype)), flags=("nsw",))
    return builder.gep(row, [offset], inbounds=True, source_etype=i8)


def _strided_nest(builder, out_type, out, operands, strides, kernel) -> None:
    with _loop_nest_in_memory_order(builder, out_type.layout, out.shape) as indices:
        items = []
        for op, op_strides in zip(operands, strides):
            if op.is_array:
                pointer = strided_pointer(builder, op.fields.data, op_strides, indices)
                items.append(arr.load_item(builder, op.dtype, pointer))
            else:
                items.append(op.value)
        target = arr.element_pointer(builder, out_type, out, indices)
        arr.store_item(builder, out_type.dtype, kernel(builder, items), target)


@contextmanager
def _loop_nest_in_memory_order(builder, layout: str, shape: list) -> Iterator[list]:
    """Indices over `shape`, the last varying fastest, or the first for a Fortran-ordered
    output: consecutive iterations then write consecutive addresses."""
    if layout != "F":
        with arr.loop_nest(builder, shape) as indices:
            yield indices
        return
    with arr.loop_nest(builder, shape[::-1]) as reversed_indices:
        yield reversed_indices[::-1]


# ---------------------------------------------------------------------------- overlap and copies


def extent(builder, fields: ArrayFields) -> tuple:
    """[low, high) byte addresses an array's elements occupy (as i64), low == high if empty."""
    low = builder.ptrtoint(fields.data, arr.i64)
    high = low
    empty = llvm.Constant(i1, 0)
    for dim, stride in zip(fields.shape, fields.strides):
        span = builder.mul(builder.sub(dim, const(1)), stride)
        negative = builder.icmp_signed("<", span, const(0))
        low = builder.add(low, builder.select(negative, span, const(0)))
        high = builder.add(high, builder.select(negative, const(0), span))
        empty = builder.or_(empty, builder.icmp_signed("==", dim, const(0)))
    high = builder.add(high, fields.itemsize)
    return low, builder.select(empty, low, high)


def may_overlap(builder, a: ArrayFields, b: ArrayFields) -> llvm.Value:
    a_low, a_high = extent(builder, a)
    b_low, b_high = extent(builder, b)
    return builder.and_(
        builder.icmp_unsigned("<", a_low, b_high), builder.icmp_unsigned("<", b_low, a_high)
    )


def copy_array(
    context,
    builder,
    src_type: types.Array,
    src: llvm.Value,
    dtype: types.Type | None = None,
    order: str = "C",
) -> llvm.Value:
    """A new C (or F) array with the elements of `src` (cast to `dtype`): a new reference."""
    dtype = dtype or src_type.dtype
    out_type = types.Array(dtype, src_type.ndim, order)
    fields = arr.unpack(builder, src_type, src)
    result = arr.allocate(context, builder, out_type, fields.shape, order=order)
    out = arr.unpack(builder, out_type, result)
    cast = _caster(context, src_type.dtype, dtype)
    if order == "F":  # iterate in the source's index order, writing F addresses
        _nested_loop(builder, out_type, out, [Operand(src_type, src, fields)], cast)
    else:
        elementwise(context, builder, out_type, out, [Operand(src_type, src, fields)], cast)
    return result


def _caster(context, from_type, to_type):
    return lambda builder, items: context.cast(builder, items[0], from_type, to_type)


def assign(
    context,
    builder,
    target_type: types.Array,
    target: ArrayFields,
    value_type: types.Type,
    value: llvm.Value,
) -> None:
    """`target[...] = value` with NumPy's broadcasting and (unsafe) casting."""
    if not isinstance(value_type, types.Array):
        item = context.cast(builder, value, value_type, target_type.dtype)
        elementwise(context, builder, target_type, target, [], lambda b, items: item)
        return
    source = arr.unpack(builder, value_type, value)
    check_broadcast_to(
        context,
        builder,
        source.shape,
        target.shape,
        "could not broadcast input array into the target shape",
    )
    if value_type.ndim > target_type.ndim:  # drop leading 1-dims
        drop = value_type.ndim - target_type.ndim
        source.shape, source.strides = source.shape[drop:], source.strides[drop:]
        value_type = value_type.copy(ndim=target_type.ndim, layout="A")
        value = arr.pack(builder, value_type, source)
    overlap = builder.and_(
        may_overlap(builder, target, source), builder.not_(_same_layout(builder, target, source))
    )
    cast = _caster(context, value_type.dtype, target_type.dtype)
    with builder.if_else(overlap, likely=False) as (then, otherwise):
        with then:
            temp_type = value_type.copy(layout="C", readonly=False)
            temp = copy_array(context, builder, value_type, value)
            temp_fields = arr.unpack(builder, temp_type, temp)
            elementwise(
                context,
                builder,
                target_type,
                target,
                [Operand(temp_type, temp, temp_fields)],
                cast,
            )
            arr.decref(builder, temp_type, temp)
        with otherwise:
            elementwise(
                context, builder, target_type, target, [Operand(value_type, value, source)], cast
            )


def _same_layout(builder, a: ArrayFields, b: ArrayFields) -> llvm.Value:
    """Same data pointer and strides: each element is read where it is written (safe)."""
    same = builder.icmp_unsigned(
        "==", builder.ptrtoint(a.data, arr.i64), builder.ptrtoint(b.data, arr.i64)
    )
    if len(a.strides) != len(b.strides):
        return llvm.Constant(i1, 0)
    for x, y in zip(a.strides, b.strides):
        same = builder.and_(same, builder.icmp_signed("==", x, y))
    return same
