"""Element-wise loops over arrays with NumPy broadcasting: the engine behind operators, ufuncs,
`a[...] = b`, copies and casts.

`elementwise` writes `out[i] = kernel(x[i], y[i], ...)` for every index of `out`, where each
operand is a scalar or an array broadcast to `out`'s shape. A run-time switch on the strides
along out's innermost (memory-order) axis picks the loop: when each array is contiguous or
broadcast (stride 0) along it, a nest whose inner loop reads at constant steps, broadcast
operands once per row, which LLVM vectorizes (one loop over all items when every array has
out's shape and contiguous layout); otherwise a nest with byte strides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as arr
from ember.lowering import callconv
from ember.lowering.arrays import ArrayFields, const, i1, i8
from ember.lowering.loop_metadata import (
    AccessGroup,
    in_group,
    loop_properties,
    no_vectorization,
    parallel_accesses,
)
from ember.runtime import nrt


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


ASSIGN_SHAPES = "cannot assign slice of shape {} from input of shape {}"  # (target, value)


def check_broadcast_to(context, builder, shape: list, target: list, message: str) -> None:
    """ValueError unless `shape` broadcasts to exactly `target` (for assignments); a message
    with two `{}` names the target's shape and then `shape`, as they are at run time."""
    # extra leading dimensions are fine only when they are 1
    extra = shape[: max(len(shape) - len(target), 0)]
    bad = llvm.Constant(i1, 0)
    for dim in extra:
        bad = builder.or_(bad, builder.icmp_signed("!=", dim, const(1)))
    for dim, want in zip(shape[len(extra) :], target[len(target) - len(shape) + len(extra) :]):
        mismatch = builder.and_(
            builder.icmp_signed("!=", dim, const(1)), builder.icmp_signed("!=", dim, want)
        )
        bad = builder.or_(bad, mismatch)
    if "{}" in message:
        guard_shapes(context, builder, bad, ValueError, message, [target, shape])
    else:
        context.guard(builder, bad, ValueError, message)


def guard_shapes(context, builder, condition, exc_class, template: str, shapes: list) -> None:
    """Raise `exc_class(template)` when `condition` holds, the k-th `{}` of the template
    replaced by shapes[k] (lists of i64 known at run time: callconv.ShapesText). In a loop
    that defers its checks, the template's text with `...` for the shapes."""
    deferred = context.deferred_checks
    if deferred is not None and deferred.deferring(builder):
        context.guard(builder, condition, exc_class, template.replace("{}", "(...)"))
        return
    with builder.if_then(condition, likely=False):
        if deferred is not None and deferred.raises_first(builder):
            deferred.raise_pending(builder)
        ints = [dim for shape in shapes for dim in shape]
        payload = nrt.emit_allocate(builder, const(callconv.PAYLOAD_SLOT_SIZE * max(len(ints), 1)))
        with builder.if_then(builder.icmp_unsigned("==", payload, payload.type(None)), False):
            context.raise_error(builder, MemoryError, "cannot allocate an exception")
        data = nrt.emit_data_pointer(builder, payload)
        for k, dim in enumerate(ints):
            offset = const(k * callconv.PAYLOAD_SLOT_SIZE)
            builder.store(dim, builder.gep(data, [offset], source_etype=i8))
        text = callconv.ShapesText(template, tuple(len(shape) for shape in shapes))
        exc_id = callconv.static_exceptions.register(exc_class, (text,))
        record = llvm.Constant(callconv.EXCINFO_TYPE, [exc_id, None])
        record = builder.insert_value(record, payload, 1)
        callconv.return_exception_record(builder, builder.function, record)


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
    value of out_type.dtype. Operands must already broadcast to out's shape, and each must
    either not overlap out or be out's very view (each item read just before it is written):
    `assign` and ufuncs' `fill_output` copy other operands first, as NumPy does. The loops
    are marked free of loop-carried dependences on that ground."""
    strides = [
        broadcast_strides(builder, op.fields, out_type.ndim) if op.is_array else None
        for op in operands
    ]
    if out_type.ndim == 0 or len(operands) > _MAX_MASK_BITS:
        _Nest(out_type, out, operands, strides, kernel, None).strided(builder)
        return
    flat = _flat(builder, out_type, out, operands)
    nest = _Nest(out_type, out, operands, strides, kernel, flat)
    pattern, always_broadcast, unknown = nest.inner_pattern(builder)
    general = builder.append_basic_block("nest.strided")
    done = builder.append_basic_block("nest.end")
    switch = builder.switch(pattern, general)
    for broadcast in _broadcast_choices(unknown, out_type.ndim):
        read_once = {*always_broadcast, *broadcast}
        block = builder.append_basic_block("nest.unit_step")
        switch.add_case(sum(1 << position for position in read_once), block)
        builder.position_at_end(block)
        nest.rows(builder, read_once)
        builder.branch(done)
    builder.position_at_end(general)
    nest.strided(builder)
    builder.branch(done)
    builder.position_at_end(done)


# Operands (arrays) up to which each one broadcast along the inner axis gets its own loop; with
# more, only the loop for none broadcast is emitted (each loop is compiled and vectorized).
_VERSIONED_OPERANDS = 3
_MAX_MASK_BITS = 62  # operand positions an i64 bit mask can tell apart


def _broadcast_choices(positions: list, ndim: int) -> list[tuple]:
    """The sets of operands broadcast along the inner axis that get their own loop: none, and
    each single one when out has several axes (in one axis, only an array of one item is
    broadcast: the strided nest serves it)."""
    if len(positions) > _VERSIONED_OPERANDS or ndim < 2:
        return [()]
    return [(), *((position,) for position in positions)]


def _flat(builder, out_type, out, operands) -> llvm.Value | None:
    """Run-time test that out and every array operand have the same shape and (by their types)
    the same contiguous layout: the nest is then one loop over all items; None if never."""
    ndim = out_type.ndim
    arrays = [op for op in operands if op.is_array]
    if out_type.layout not in "CF":
        return None
    if not all(op.typ.layout == out_type.layout and op.typ.ndim == ndim for op in arrays):
        return None
    same = llvm.Constant(i1, 1)
    for op in arrays:
        for dim, want in zip(op.fields.shape, out.shape):
            same = builder.and_(same, builder.icmp_signed("==", dim, want))
    return same


@dataclass
class _Nest:
    """The loops of one element-wise operation, in out's memory order (the last axis varies
    fastest, or the first for a Fortran-ordered out)."""

    out_type: types.Array
    out: ArrayFields
    operands: list[Operand]
    strides: list  # per operand: byte strides broadcast to out's shape (None for a scalar)
    kernel: Callable
    flat: llvm.Value | None  # see `_flat`

    @property
    def inner(self) -> int:
        return 0 if self.out_type.layout == "F" else self.out_type.ndim - 1

    def inner_pattern(self, builder) -> tuple:
        """(an i64 that selects the loop: the bit mask of the operands broadcast along the
        inner axis, 0 for a flat nest, -1 for the strided nest; operands broadcast whatever
        the shapes; the others). The unit-step loops need out contiguous along the inner axis
        and each operand contiguous or broadcast along it."""
        inner, out = self.inner, self.out
        rows_fit = builder.icmp_signed("==", out.strides[inner], _itemsize(self.out_type.dtype))
        mask = const(0)
        always_broadcast, unknown = [], []
        for position, (op, op_strides) in enumerate(zip(self.operands, self.strides)):
            if not op.is_array:
                continue
            stride = op_strides[inner]
            if isinstance(stride, llvm.Constant) and stride.constant == 0:  # an axis it lacks
                always_broadcast.append(position)
                continue
            unknown.append(position)
            zero = builder.icmp_signed("==", stride, const(0))
            unit = builder.icmp_signed("==", stride, _itemsize(op.dtype))
            rows_fit = builder.and_(rows_fit, builder.or_(zero, unit))
            mask = builder.or_(mask, builder.shl(builder.zext(zero, arr.i64), const(position)))
        mask = builder.or_(mask, const(sum(1 << position for position in always_broadcast)))
        if self.flat is not None:
            rows_fit = builder.or_(rows_fit, self.flat)
            mask = builder.select(self.flat, const(0), mask)
        pattern = builder.select(rows_fit, mask, const(-1))
        return pattern, always_broadcast, unknown

    def rows(self, builder, read_once: set) -> None:
        """Loops over the outer axes around a unit-step loop along the inner one, in which
        the operands at `read_once` (broadcast along it) are read once per row; with no such
        operand and a flat nest, one row of all items."""
        out, inner = self.out, self.inner
        outer = [k for k in range(self.out_type.ndim) if k != inner]
        outer_shape = [out.shape[k] for k in outer]
        length = out.shape[inner]
        if self.flat is not None and not read_once:
            outer_shape = [builder.select(self.flat, const(1), dim) for dim in outer_shape]
            length = builder.select(self.flat, out.nitems, length)
        with _loop_nest_in_memory_order(builder, self.out_type.layout, outer_shape) as indices:

            def row_start(data, data_strides):
                return strided_pointer(builder, data, [data_strides[k] for k in outer], indices)

            rows, items = [], []
            for position, (op, op_strides) in enumerate(zip(self.operands, self.strides)):
                row = row_start(op.fields.data, op_strides) if op.is_array else None
                rows.append(row)
                once = position in read_once
                items.append(arr.load_item(builder, op.dtype, row) if once else op.value)
            out_row = row_start(out.data, out.strides)
            group = AccessGroup(builder.module)
            with arr.for_range(builder, length) as index:
                for position, op in enumerate(self.operands):
                    if op.is_array and position not in read_once:
                        pointer = _advance(builder, rows[position], index, _itemsize(op.dtype))
                        load = lambda: arr.load_item(builder, op.dtype, pointer)  # noqa: E731
                        items[position] = in_group(builder, group, load)
                value = self.kernel(builder, list(items))
                target = _advance(builder, out_row, index, _itemsize(self.out_type.dtype))
                store = lambda: arr.store_item(builder, self.out_type.dtype, value, target)  # noqa: E731
                in_group(builder, group, store)
                back_edge = builder.block
            loop_properties(builder.module, back_edge.terminator, parallel_accesses(group))

    def strided(self, builder) -> None:
        """The general nest: every operand addressed by its byte strides. Not vectorized: its
        unit-stride cases run in `rows`."""
        out_type, out = self.out_type, self.out
        with _loop_nest_in_memory_order(builder, out_type.layout, out.shape) as indices:
            items = []
            for op, op_strides in zip(self.operands, self.strides):
                if op.is_array:
                    pointer = strided_pointer(builder, op.fields.data, op_strides, indices)
                    items.append(arr.load_item(builder, op.dtype, pointer))
                else:
                    items.append(op.value)
            target = arr.element_pointer(builder, out_type, out, indices)
            arr.store_item(builder, out_type.dtype, self.kernel(builder, items), target)
            back_edge = builder.block
        if out_type.ndim > 0:
            loop_properties(builder.module, back_edge.terminator, no_vectorization())


def _itemsize(dtype: types.Type) -> llvm.Value:
    return const(arr.itemsize_of(dtype))


def _advance(builder, row: llvm.Value, index: llvm.Value, step: llvm.Value) -> llvm.Value:
    """row + index * step bytes (a constant step is a unit-stride access LLVM vectorizes)."""
    offset = builder.mul(index, step, flags=("nsw",))
    return builder.gep(row, [offset], inbounds=True, source_etype=i8)


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
        ASSIGN_SHAPES,
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
