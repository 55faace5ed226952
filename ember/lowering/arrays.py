"""Array primitives for lowering: the fields of an array value, allocation through the runtime,
element addresses, loops, and the reference counting of values that own arrays.

An array value is the struct of `ArrayModel` (ember/lowering/models.py):
{meminfo, parent, nitems, itemsize, data, shape[n], strides[n]}, strides in bytes.

Reference counting follows Numba: every expression result is a new reference, a function's
arguments are borrowed, and a returned value is owned by the caller. Only `meminfo` counts;
NULL (arrays borrowed from Python) makes incref and decref no-ops.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from llvmlite import ir as llvm

from ember import config, types
from ember.lowering.callconv import position_in_entry
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.models import (
    BoundFunctionModel,
    MemInfoPointerModel,
    MeminfoStructModel,
    StructModel,
    model_of,
)
from ember.runtime import nrt

i1 = llvm.IntType(1)
i8 = llvm.IntType(8)
i32 = llvm.IntType(32)
i64 = llvm.IntType(64)
ptr = llvm.PointerType()


def const(value: int) -> llvm.Constant:
    return llvm.Constant(i64, value)


def i32_(value: int) -> llvm.Constant:
    return llvm.Constant(i32, value)


# ---------------------------------------------------------------------------- fields


@dataclass
class ArrayFields:
    """The members of one array value as separate LLVM values."""

    meminfo: llvm.Value
    parent: llvm.Value
    nitems: llvm.Value
    itemsize: llvm.Value
    data: llvm.Value
    shape: list = field(default_factory=list)
    strides: list = field(default_factory=list)


def unpack(builder: llvm.IRBuilder, array_type: types.Array, value: llvm.Value) -> ArrayFields:
    ndim = array_type.ndim
    get = builder.extract_value
    return ArrayFields(
        get(value, 0),
        get(value, 1),
        get(value, 2),
        get(value, 3),
        get(value, 4),
        [get(value, [5, k]) for k in range(ndim)],
        [get(value, [6, k]) for k in range(ndim)],
    )


def pack(builder: llvm.IRBuilder, array_type: types.Array, fields: ArrayFields) -> llvm.Value:
    value = llvm.Constant(model_of(array_type).value_type, llvm.Undefined)
    for index, item in enumerate(
        (fields.meminfo, fields.parent, fields.nitems, fields.itemsize, fields.data)
    ):
        value = builder.insert_value(value, item, index)
    for k in range(array_type.ndim):
        value = builder.insert_value(value, fields.shape[k], [5, k])
        value = builder.insert_value(value, fields.strides[k], [6, k])
    return value


def itemsize_of(dtype: types.Type) -> int:
    """Bytes per element of a NumPy dtype."""
    if _held_by_reference(dtype):
        return dtype.size
    if isinstance(dtype, types.Boolean):
        return 1
    return dtype.bitwidth // 8


def product(builder: llvm.IRBuilder, values: list) -> llvm.Value:
    result = const(1)
    for value in values:
        result = builder.mul(result, value)
    return result


# ---------------------------------------------------------------------------- reference counts

_meminfo_paths: dict[types.Type, tuple] = {}


def meminfo_paths(typ: types.Type) -> tuple:
    """Index paths (for extract_value) to every meminfo a value of `typ` holds."""
    found = _meminfo_paths.get(typ)
    if found is not None:
        return found
    try:
        model = model_of(typ)
    except NotImplementedError:
        model = None
    if isinstance(model, MeminfoStructModel):
        found = ((0,),)
    elif isinstance(model, MemInfoPointerModel):
        found = ((),)  # the value is the meminfo
    elif isinstance(model, StructModel):
        found = tuple(
            (index, *path) for index, member in model.traverse() for path in meminfo_paths(member)
        )
    elif isinstance(model, BoundFunctionModel):
        found = meminfo_paths(typ.this)
    else:
        found = ()
    _meminfo_paths[typ] = found
    return found


def needs_refcount(typ: types.Type) -> bool:
    """Whether values of `typ` own references (arrays, lists, or tuples holding them)."""
    return bool(meminfo_paths(typ))


def _meminfo_at(builder: llvm.IRBuilder, value: llvm.Value, path: tuple) -> llvm.Value:
    return builder.extract_value(value, list(path)) if path else value


def incref(builder: llvm.IRBuilder, typ: types.Type, value: llvm.Value) -> None:
    for path in meminfo_paths(typ):
        nrt.emit_incref(builder, _meminfo_at(builder, value, path))


def decref(builder: llvm.IRBuilder, typ: types.Type, value: llvm.Value) -> None:
    for path in meminfo_paths(typ):
        nrt.emit_decref(builder, _meminfo_at(builder, value, path))


def exchange_references(
    builder: llvm.IRBuilder, typ: types.Type, old: llvm.Value, new: llvm.Value
) -> None:
    """Release `old` and count a new reference of `new` (a slot holding `old` is given `new`),
    meminfo by meminfo, with no atomic operation where both hold the same one: an iterator
    made again over the same array in each turn of an outer loop."""
    for path in meminfo_paths(typ):
        old_meminfo = _meminfo_at(builder, old, path)
        new_meminfo = _meminfo_at(builder, new, path)
        with builder.if_then(builder.icmp_unsigned("!=", old_meminfo, new_meminfo)):
            nrt.emit_decref(builder, old_meminfo)
            nrt.emit_incref(builder, new_meminfo)


def nrt_incref_fields(builder: llvm.IRBuilder, fields: ArrayFields) -> None:
    """A view made from `fields` shares their meminfo: count the new reference."""
    nrt.emit_incref(builder, fields.meminfo)


# ---------------------------------------------------------------------------- allocation


def allocate(
    context, builder: llvm.IRBuilder, array_type: types.Array, shape: list, order: str = "C"
) -> llvm.Value:
    """A new, uninitialized array of `shape` (i64 values) in C (or F) order: a new reference."""
    itemsize = itemsize_of(array_type.dtype)
    negative = llvm.Constant(i1, 0)
    for dim in shape:
        negative = builder.or_(negative, builder.icmp_signed("<", dim, const(0)))
    # Numba's wording (NumPy says "are not allowed"): code written for Numba matches it
    context.guard(builder, negative, ValueError, "negative dimensions not allowed")
    nitems = const(1)
    overflow = llvm.Constant(i1, 0)
    for dim in [*shape, const(itemsize)]:
        pair = call_intrinsic(
            builder, "llvm.umul.with.overflow", [nitems, dim], llvm.LiteralStructType([i64, i1])
        )
        overflow = builder.or_(overflow, builder.extract_value(pair, 1))
        nitems = builder.extract_value(pair, 0)
    nbytes = nitems
    overflow = builder.or_(overflow, builder.icmp_signed("<", nbytes, const(0)))
    context.guard(builder, overflow, ValueError, "array is too big; the size is too large")
    meminfo = nrt.emit_allocate(builder, nbytes)
    failed = builder.icmp_unsigned("==", meminfo, llvm.Constant(ptr, None))
    context.guard(builder, failed, MemoryError, "unable to allocate an array")
    count = product(builder, shape)
    strides = contiguous_strides(builder, shape, itemsize, order)
    fields = ArrayFields(
        meminfo,
        llvm.Constant(ptr, None),
        count,
        const(itemsize),
        nrt.emit_data_pointer(builder, meminfo),
        list(shape),
        strides,
    )
    return pack(builder, array_type, fields)


def contiguous_strides(builder, shape: list, itemsize: int, order: str = "C") -> list:
    strides = [None] * len(shape)
    running = const(itemsize)
    dims = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for k in dims:
        strides[k] = running
        running = builder.mul(running, shape[k])
    return strides


def is_contiguous(builder, fields, order: str = "C"):
    """Run-time check: the strides are those of a contiguous array of `order` ("C" or "F");
    dimensions of size 1 don't count."""
    expected = fields.itemsize
    ok = llvm.Constant(i1, 1)
    axes = range(len(fields.shape) - 1, -1, -1) if order == "C" else range(len(fields.shape))
    for axis in axes:
        dim, stride = fields.shape[axis], fields.strides[axis]
        fine = builder.or_(
            builder.icmp_signed("==", dim, const(1)), builder.icmp_signed("==", stride, expected)
        )
        ok = builder.and_(ok, fine)
        expected = builder.mul(expected, dim)
    return ok


def array_constant(array_type: types.Array, value, module: llvm.Module) -> llvm.Constant:
    """A global (or closure) ndarray as a constant: a frozen read-only copy reached through
    symbols named after its content (meminfo NULL: nothing to count; parent: the copy, for
    boxing), so that cached code finds the copy a new process makes."""
    from ember.codegen.symbols import external_global
    from ember.runtime.boxing import freeze_constant

    frozen, name = freeze_constant(value)
    items = [
        llvm.Constant(ptr, None),
        external_global(module, f"{name}.obj"),
        const(frozen.size),
        const(frozen.itemsize),
        external_global(module, f"{name}.data"),
        llvm.Constant.literal_struct([const(n) for n in frozen.shape]),
        llvm.Constant.literal_struct([const(n) for n in frozen.strides]),
    ]
    return llvm.Constant.literal_struct(items)


# ---------------------------------------------------------------------------- elements


def boundscheck_enabled(context) -> bool:
    """The environment setting when given (it overrides every function), else the option."""
    if config.BOUNDSCHECK is not None:
        return config.BOUNDSCHECK
    return bool(context.options.boundscheck)


def wrap_index(builder: llvm.IRBuilder, index: llvm.Value, index_type, dim: llvm.Value):
    """A Python index as an i64, negative values counted from the end."""
    index_type = types.unliteral(index_type)
    if isinstance(index_type, types.Integer) and not index_type.signed:
        return _to_i64(builder, index, signed=False)
    index = _to_i64(builder, index, signed=True)
    negative = builder.icmp_signed("<", index, const(0))
    return builder.select(negative, builder.add(index, dim), index)


def _to_i64(builder, value, signed: bool):
    if value.type == i64:
        return value
    if value.type.width > 64:
        return builder.trunc(value, i64)
    return builder.sext(value, i64) if signed else builder.zext(value, i64)


def check_index(context, builder, index: llvm.Value, dim: llvm.Value, always: bool = False):
    """IndexError unless 0 <= index < dim (only with boundscheck, unless `always`)."""
    if always or boundscheck_enabled(context):
        outside = builder.icmp_unsigned(">=", index, dim)
        context.guard(builder, outside, IndexError, "index is out of bounds")


def element_pointer(
    builder: llvm.IRBuilder, array_type: types.Array, fields: ArrayFields, indices: list
) -> llvm.Value:
    """The address of the element at in-range i64 `indices` (one per dimension)."""
    element = element_type(array_type.dtype)
    ndim = array_type.ndim
    if ndim == 0:
        return fields.data
    unit = None
    if array_type.layout == "C":
        unit = ndim - 1
    elif array_type.layout == "F":
        unit = 0
    offset = None
    for k in range(ndim):
        if k == unit:
            continue
        term = builder.mul(indices[k], fields.strides[k])
        offset = term if offset is None else builder.add(offset, term)
    base = fields.data
    if offset is not None:
        base = builder.gep(base, [offset], inbounds=True, source_etype=i8)
    if unit is None:
        return base
    return builder.gep(base, [indices[unit]], inbounds=True, source_etype=element)


def _held_by_reference(dtype: types.Type) -> bool:
    """Records and string elements: a value is a pointer to the element's bytes."""
    return isinstance(dtype, (types.Record, types.UnicodeCharSeq, types.CharSeq))


def element_type(dtype: types.Type) -> llvm.Type:
    """What an array element of `dtype` is in memory (what `gep` steps over): a record's or a
    string's bytes, else the value's data."""
    if _held_by_reference(dtype):
        return llvm.ArrayType(i8, dtype.size)
    return model_of(dtype).data_type


def load_item(builder: llvm.IRBuilder, dtype: types.Type, pointer: llvm.Value) -> llvm.Value:
    """The array element of `dtype` at `pointer`; a record is a view of its bytes holding no
    reference (`record_view` gives it its array's)."""
    if isinstance(dtype, types.Record):
        return record_view(builder, dtype, llvm.Constant(ptr, None), pointer)
    if _held_by_reference(dtype):  # a reference to its bytes
        return pointer
    return load_value(builder, dtype, pointer)


def store_item(builder: llvm.IRBuilder, dtype: types.Type, value, pointer: llvm.Value) -> None:
    """Store an array element (records and strings: their bytes are copied)."""
    if isinstance(dtype, types.Record):
        value = record_data(builder, value)
    if _held_by_reference(dtype):  # copies the element's bytes
        memcpy(builder, pointer, value, const(dtype.size))
        return
    store_value(builder, dtype, value, pointer)


def load_value(builder: llvm.IRBuilder, typ: types.Type, pointer: llvm.Value) -> llvm.Value:
    """A value stored in a container's slot (a list item, a dict entry, a class field): its
    model's data, except strings, which are their bytes (a record there is its reference)."""
    if _held_by_reference(typ) and not isinstance(typ, types.Record):
        return pointer
    model = model_of(typ)
    return model.from_data(builder, builder.load(pointer, typ=model.data_type))


def store_value(builder: llvm.IRBuilder, typ: types.Type, value, pointer: llvm.Value) -> None:
    if _held_by_reference(typ) and not isinstance(typ, types.Record):
        memcpy(builder, pointer, value, const(typ.size))
        return
    builder.store(model_of(typ).as_data(builder, value), pointer)


def record_view(
    builder: llvm.IRBuilder, record: types.Record, meminfo, data, parent=None
) -> llvm.Value:
    """The record value at `data` whose memory `meminfo` keeps alive (the caller counts the
    reference), or, with a NULL meminfo, that lies in the Python object `parent` (an ndarray
    or a NumPy record borrowed from Python, adopted if the record is stored: adopted_arrays.py)
    or in memory that outlives the record."""
    value = llvm.Constant(model_of(record).value_type, llvm.Undefined)
    parent = llvm.Constant(ptr, None) if parent is None else parent
    for index, member in enumerate((meminfo, parent, data)):
        value = builder.insert_value(value, member, index)
    return value


def record_of_array(builder: llvm.IRBuilder, record: types.Record, fields: ArrayFields, data):
    """The record at `data` in the array of `fields`: a new reference to the array's memory."""
    nrt.emit_incref(builder, fields.meminfo)
    return record_view(builder, record, fields.meminfo, data, fields.parent)


def record_in_record(builder: llvm.IRBuilder, record: types.Record, outer, data) -> llvm.Value:
    """A nested record at `data` inside the record value `outer`: a new reference to the same
    memory."""
    meminfo = builder.extract_value(outer, 0)
    nrt.emit_incref(builder, meminfo)
    return record_view(builder, record, meminfo, data, builder.extract_value(outer, 1))


def record_data(builder: llvm.IRBuilder, value: llvm.Value) -> llvm.Value:
    """The address of a record value's bytes."""
    return builder.extract_value(value, 2)


def offset_pointer(builder: llvm.IRBuilder, pointer: llvm.Value, offset: llvm.Value):
    """`pointer + offset` bytes (not `inbounds`: views may start before their first element's
    position when they are empty)."""
    return builder.gep(pointer, [offset], source_etype=i8)


def memset_zero(
    builder: llvm.IRBuilder, pointer: llvm.Value, nbytes: llvm.Value, fill: int = 0
) -> None:
    """Zero `nbytes` bytes at `pointer` (or set each to the byte `fill`)."""
    _memory_intrinsic(builder, "llvm.memset.p0.i64", [ptr, i8, i64, i1])(
        pointer, llvm.Constant(i8, fill), nbytes, llvm.Constant(i1, 0)
    )


def memcpy(builder: llvm.IRBuilder, target: llvm.Value, source: llvm.Value, nbytes) -> None:
    """Copy `nbytes` bytes between non-overlapping buffers."""
    _memory_intrinsic(builder, "llvm.memcpy.p0.p0.i64", [ptr, ptr, i64, i1])(
        target, source, nbytes, llvm.Constant(i1, 0)
    )


def memmove(builder: llvm.IRBuilder, target: llvm.Value, source: llvm.Value, nbytes) -> None:
    """Copy `nbytes` bytes between buffers that may overlap."""
    _memory_intrinsic(builder, "llvm.memmove.p0.p0.i64", [ptr, ptr, i64, i1])(
        target, source, nbytes, llvm.Constant(i1, 0)
    )


def _memory_intrinsic(builder: llvm.IRBuilder, name: str, arg_types: list):
    function = builder.module.globals.get(name)
    if function is None:
        function = llvm.Function(
            builder.module, llvm.FunctionType(llvm.VoidType(), arg_types), name
        )
    return lambda *args: builder.call(function, list(args))


# ---------------------------------------------------------------------------- loops


@contextmanager
def for_range(
    builder: llvm.IRBuilder, count: llvm.Value, start: llvm.Value | None = None
) -> Iterator[llvm.Value]:
    """`for index in range(start, count)` around the body emitted inside the `with`."""
    before = builder.block
    header = builder.append_basic_block("loop.header")
    body = builder.append_basic_block("loop.body")
    after = builder.append_basic_block("loop.end")
    builder.branch(header)
    builder.position_at_end(header)
    index = builder.phi(i64, name="loop.index")
    index.add_incoming(start if start is not None else const(0), before)
    builder.cbranch(builder.icmp_signed("<", index, count), body, after)
    builder.position_at_end(body)
    yield index
    index.add_incoming(builder.add(index, const(1), flags=("nsw",)), builder.block)
    builder.branch(header)
    builder.position_at_end(after)


@contextmanager
def loop_nest(builder: llvm.IRBuilder, counts: list) -> Iterator[list]:
    """Nested loops over every index tuple of `counts`, the last index varying fastest."""
    if not counts:
        yield []
        return
    with for_range(builder, counts[0]) as first:
        with loop_nest(builder, counts[1:]) as rest:
            yield [first, *rest]


def alloca_in_entry(builder: llvm.IRBuilder, typ: llvm.Type, name: str = "") -> llvm.Value:
    """An entry-block alloca of `typ`, as an opaque `ptr` (address with `source_etype`/`typ`)."""
    saved = builder.block
    position_in_entry(builder)
    slot = builder.alloca(typ, name=name)
    slot.type = ptr  # llvmlite types allocas as typed pointers; address it opaquely
    builder.position_at_end(saved)
    return slot


def store_in_entry(builder: llvm.IRBuilder, value: llvm.Value, slot: llvm.Value) -> None:
    """Store `value` into `slot` at the end of the entry block (before its terminator)."""
    saved = builder.block
    position_in_entry(builder)
    builder.store(value, slot)
    builder.position_at_end(saved)


# ---------------------------------------------------------------------------- function exits

_exit_actions: dict[int, list] = {}


def at_function_exit(builder: llvm.IRBuilder, action) -> None:
    """Run `action(builder)` before every return of the current function (normal or raising):
    iterator states hold the arrays they walk until the function ends."""
    _exit_actions.setdefault(id(builder.function), []).append(action)


def take_exit_actions(function: llvm.Function) -> list:
    """The actions registered by `at_function_exit` for `function` (they are emitted once)."""
    return _exit_actions.pop(id(function), [])


def release_at_exits(builder: llvm.IRBuilder, function: llvm.Function, owned: list) -> None:
    """Emit the exit actions before each `ret`; before exception returns also release every
    owned variable slot in `owned` ((slot, type) pairs; slots hold a reference or zero)."""
    from ember.lowering.callconv import STATUS_EXCEPTION

    actions = take_exit_actions(function)
    if not actions and not owned:
        return
    for block in list(function.blocks):
        if not block.is_terminated:
            continue
        terminator = block.terminator
        if terminator.opname != "ret" or not terminator.operands:
            continue
        status = terminator.operands[0]
        raising = isinstance(status, llvm.Constant) and status.constant == STATUS_EXCEPTION
        if not actions and not raising:
            continue
        builder.position_before(terminator)
        if raising:
            for slot, typ in owned:
                decref(builder, typ, builder.load(slot))
        for action in actions:
            action(builder)
