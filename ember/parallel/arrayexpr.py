"""Array expressions under parallel=True: the fused element-wise loop of `a * b + c` split into
equal chunks of the flat index space and run on the threading layer, when every array operand
has the result's shape and layout (checked at run time) and the result is large enough to pay
for a parallel region; otherwise the serial loop of `arrays_kernels.elementwise` runs.

    data   = {nitems, nchunks, exception id, out data, operand data pointers or scalars...}
    inner(retptr, excinfo, env, data, c)   the native calling convention, so the expression may
                                           raise (ZeroDivisionError) as serial code does
    worker(data, c)                        calls inner, records an exception id
"""

from __future__ import annotations

from llvmlite import ir as llvm

from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering import callconv
from ember.parallel import threading_layer as tl

_i32 = llvm.IntType(32)
_i64 = llvm.IntType(64)
_ptr = llvm.PointerType()
_HEADER = [_i64, _i64, _i32, _ptr]  # nitems, nchunks, exception id, out data
_NITEMS, _NCHUNKS, _EXC, _OUT = range(4)
MIN_PARALLEL_ITEMS = 1 << 15  # below this, starting threads costs more than it saves

_counter = iter(range(1 << 62))


def parallel_enabled(context) -> bool:
    options = context.options.parallel
    return options is not None and options.numpy


def elementwise(context, builder, out_type, out, operands, kernel, release_on_error) -> None:
    """`arrays_kernels.elementwise`, in parallel where the operands allow it. On an exception
    in a worker, `release_on_error(builder)` runs before the exception propagates."""
    arrays = [op for op in operands if op.is_array]
    flat_types = out_type.layout in "CF" and out_type.ndim >= 1 and all(
        op.typ.layout == out_type.layout and op.typ.ndim == out_type.ndim for op in arrays
    )  # fmt: skip
    # scalar operands computed at run time take the serial loop (only constants are passed on)
    scalars_constant = all(
        isinstance(op.value, llvm.Constant) for op in operands if not op.is_array
    )
    if not (flat_types and scalars_constant):
        kernels.elementwise(context, builder, out_type, out, operands, kernel)
        return
    eligible = builder.icmp_signed(">=", out.nitems, arr.const(MIN_PARALLEL_ITEMS))
    for op in arrays:
        for dim, want in zip(op.fields.shape, out.shape):
            eligible = builder.and_(eligible, builder.icmp_signed("==", dim, want))
    with builder.if_else(eligible, likely=True) as (parallel, serial):
        with parallel:
            _launch(context, builder, out_type, out, operands, kernel, release_on_error)
        with serial:
            kernels.elementwise(context, builder, out_type, out, operands, kernel)


def _launch(context, builder, out_type, out, operands, kernel, release_on_error) -> None:
    slots = [op.fields.data if op.is_array else op.value for op in operands]
    data_type = llvm.LiteralStructType([*_HEADER, *(value.type for value in slots)])
    data = arr.alloca_in_entry(builder, data_type, name="arrayexpr.data")
    wanted = builder.call(tl.declare_symbol(builder.module, tl.GET_NUM_THREADS), [])
    values = [out.nitems, wanted, llvm.Constant(_i32, 0), out.data, *slots]
    for index, value in enumerate(values):
        builder.store(value, _field(builder, data, data_type, index))
    inner = _define_inner(context, builder.module, out_type, operands, kernel, data_type)
    worker = _define_worker(builder.module, inner, data_type)
    builder.call(tl.declare_launch(builder.module), [worker, data, wanted])
    exc = builder.load(_field(builder, data, data_type, _EXC), typ=_i32)
    with builder.if_then(builder.icmp_signed("!=", exc, llvm.Constant(_i32, 0)), likely=False):
        release_on_error(builder)
        builder.store(exc, builder.function.args[1])
        builder.ret(llvm.Constant(_i32, callconv.STATUS_EXCEPTION))


def _field(builder, data, data_type, index: int):
    indices = [llvm.Constant(_i32, 0), llvm.Constant(_i32, index)]
    return builder.gep(data, indices, source_etype=data_type)


def _define_inner(context, module, out_type, operands, kernel, data_type) -> llvm.Function:
    """The chunk's loop, in the native calling convention (status, excinfo)."""
    fnty = llvm.FunctionType(_i32, [_ptr, _ptr, _ptr, _ptr, _i64])
    inner = llvm.Function(module, fnty, f"ember.arrayexpr.chunk.{next(_counter)}")
    inner.linkage = "internal"
    data, chunk = inner.args[3], inner.args[4]
    builder = llvm.IRBuilder(inner.append_basic_block("entry"))

    def load(index, typ):
        return builder.load(_field(builder, data, data_type, index), typ=typ)

    nitems, nchunks = load(_NITEMS, _i64), load(_NCHUNKS, _i64)
    size, extra = builder.sdiv(nitems, nchunks), builder.srem(nitems, nchunks)
    before = builder.select(builder.icmp_signed("<", chunk, extra), chunk, extra)
    lo = builder.add(builder.mul(chunk, size), before)
    hi = builder.add(
        builder.add(lo, size), builder.zext(builder.icmp_signed("<", chunk, extra), _i64)
    )
    out_data = load(_OUT, _ptr)
    # constants stay constants (`c ** 2` must become `c * c` as in the serial loop)
    sources = [
        op.value
        if not op.is_array and isinstance(op.value, llvm.Constant)
        else load(len(_HEADER) + k, data_type.elements[len(_HEADER) + k])
        for k, op in enumerate(operands)
    ]
    out_element = context.data_type(out_type.dtype)
    with arr.for_range(builder, hi, start=lo) as index:
        items = []
        for op, source in zip(operands, sources):
            if op.is_array:
                element = context.data_type(op.dtype)
                pointer = builder.gep(source, [index], inbounds=True, source_etype=element)
                items.append(arr.load_item(builder, op.dtype, pointer))
            else:
                items.append(source)
        target = builder.gep(out_data, [index], inbounds=True, source_etype=out_element)
        arr.store_item(builder, out_type.dtype, kernel(builder, items), target)
    builder.ret(llvm.Constant(_i32, callconv.STATUS_OK))
    return inner


def _define_worker(module, inner, data_type) -> llvm.Function:
    """`void worker(ptr data, i64 chunk)`: runs the chunk, records its exception id."""
    worker = llvm.Function(module, tl.WORKER_TYPE, f"{inner.name}.worker")
    worker.linkage = "internal"
    data, chunk = worker.args
    builder = llvm.IRBuilder(worker.append_basic_block("entry"))
    excinfo = builder.alloca(_i32)
    null = llvm.Constant(_ptr, None)
    status = builder.call(inner, [null, excinfo, null, data, chunk])
    failed = builder.icmp_signed("!=", status, llvm.Constant(_i32, callconv.STATUS_OK))
    with builder.if_then(failed, likely=False):
        exc_slot = _field(builder, data, data_type, _EXC)
        builder.atomic_rmw("xchg", exc_slot, builder.load(excinfo), "monotonic")
    builder.ret_void()
    return worker
