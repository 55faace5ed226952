"""`target='parallel'` for ufuncs: an inner loop that splits each call's outer dimension into
one chunk per thread and runs the serial loop on them through the threading layer that parfors
use (`ember/parallel/threading_layer.py`: one pool, and `ember.set_num_threads` applies).

The loop's `data` points to `ThreadSettings` (thread count, least work worth splitting).
Each chunk keeps the first exception its kernel calls raise; the first chunk's that has one
is raised after the join.
"""

from __future__ import annotations

import ctypes

from llvmlite import ir as llvm

from ember import config
from ember.lowering import arrays as arr
from ember.lowering import callconv
from ember.parallel import threading_layer as tl
from ember.ufuncs.kernel_errors import NO_ERROR, has_error, keep_first, raise_kernel_error

i64, ptr = arr.i64, arr.ptr

# Below this many elements (outer length times core sizes) a call runs on one thread: starting
# a thread costs tens of microseconds.
MIN_PARALLEL_WORK = 32768


class ThreadSettings(ctypes.Structure):
    """What a parallel inner loop reads at each call (the loop's `data` argument)."""

    _fields_ = [("threads", ctypes.c_int64), ("min_work", ctypes.c_int64)]


def default_settings() -> ThreadSettings:
    return ThreadSettings(max(1, config.NUM_THREADS), MIN_PARALLEL_WORK)


def _chunk_type(nargs: int, ndims: int) -> llvm.LiteralStructType:
    """One thread's work: {serial loop, args[nargs], dimensions[ndims], steps, data, its
    first error}."""
    return llvm.LiteralStructType(
        [ptr, llvm.ArrayType(ptr, nargs), llvm.ArrayType(i64, ndims), ptr, ptr,
         callconv.EXCINFO_TYPE]
    )  # fmt: skip


def _gep(builder: llvm.IRBuilder, base, indices: list, etype) -> llvm.Value:
    """A GEP as an opaque pointer (llvmlite types GEPs with typed pointers)."""
    address = builder.gep(base, indices, source_etype=etype)
    address.type = ptr
    return address


def _emit_worker(module: llvm.Module, serial: llvm.Function, chunk_type) -> llvm.Function:
    """`void worker(chunk *chunks, i64 c)`: runs the loop body over chunk c (the threading
    layer's worker signature)."""
    worker = llvm.Function(module, tl.WORKER_TYPE, serial.name + ".worker")
    worker.linkage = "internal"
    builder = llvm.IRBuilder(worker.append_basic_block("entry"))
    chunks, index = worker.args
    chunk = _gep(builder, chunks, [index], chunk_type)

    def field(index: int):
        return _gep(builder, chunk, [arr.i32_(0), arr.i32_(index)], chunk_type)

    steps = builder.load(field(3), typ=ptr)
    data = builder.load(field(4), typ=ptr)
    builder.call(serial, [field(1), field(2), steps, data, field(5)])
    builder.ret_void()
    return worker


def emit_parallel_loop(
    entry: llvm.Function, serial: llvm.Function, nin: int, nargs: int, ndims: int
) -> None:
    """Fill `entry` (NumPy's loop signature) with the split-and-join around `serial` (the
    loop body: NumPy's arguments and an error record)."""
    module = entry.module
    chunk_type = _chunk_type(nargs, ndims)
    worker = _emit_worker(module, serial, chunk_type)
    args, dims, steps, data = entry.args
    builder = llvm.IRBuilder(entry.append_basic_block("entry"))
    settings = [builder.load(builder.gep(data, [arr.const(k)], source_etype=i64), typ=i64)
                for k in range(2)]  # fmt: skip
    threads, min_work = settings
    wanted = builder.call(tl.declare_symbol(module, tl.GET_NUM_THREADS), [])
    threads = builder.select(builder.icmp_signed("<", wanted, threads), wanted, threads)
    dimensions = [_load(builder, dims, k) for k in range(ndims)]
    count = dimensions[0]
    work = arr.product(builder, dimensions)
    threads = builder.select(builder.icmp_signed("<", count, threads), count, threads)
    serial_only = builder.or_(
        builder.icmp_signed("<", work, min_work), builder.icmp_signed("<", threads, arr.const(2))
    )
    serial_only = builder.or_(serial_only, _outputs_feed_inputs(builder, entry, nin, nargs))
    first_error = builder.alloca(callconv.EXCINFO_TYPE, name="first_error")
    builder.store(NO_ERROR, first_error)
    with builder.if_then(serial_only, likely=False):
        builder.call(serial, [args, dims, steps, data, first_error])
        raise_kernel_error(builder, first_error)
        builder.ret_void()
    chunks = builder.alloca(chunk_type, size=threads, name="chunks")
    chunks.type = ptr  # addressed opaquely, as ember's other allocas
    per_thread = builder.sdiv(builder.add(count, builder.sub(threads, arr.const(1))), threads)
    with arr.for_range(builder, threads) as thread:
        start = builder.mul(thread, per_thread)
        stop = builder.add(start, per_thread)
        stop = builder.select(builder.icmp_signed("<", count, stop), count, stop)
        length = builder.sub(stop, start)
        length = builder.select(builder.icmp_signed("<", length, arr.const(0)), arr.const(0),
                                length)  # fmt: skip
        chunk = _gep(builder, chunks, [thread], chunk_type)
        _fill_chunk(builder, chunk, chunk_type, serial, args, steps, data, start, length,
                    dimensions, nargs)  # fmt: skip
    builder.call(tl.declare_launch(module), [worker, chunks, threads])
    with arr.for_range(builder, threads) as thread:
        chunk = _gep(builder, chunks, [thread], chunk_type)
        error = _gep(builder, chunk, [arr.i32_(0), arr.i32_(5)], chunk_type)
        with builder.if_then(has_error(builder, error), likely=False):
            keep_first(builder, first_error, error)
    raise_kernel_error(builder, first_error)
    builder.ret_void()


def _outputs_feed_inputs(builder: llvm.IRBuilder, entry, nin: int, nargs: int) -> llvm.Value:
    """Whether this call must stay sequential: NumPy's reductions and accumulations call the
    loop with an output of step 0, or with an input that trails the output it writes."""
    args, dims, steps, _ = entry.args
    count = _load(builder, dims, 0)
    spans = []
    for k in range(nargs):
        base = builder.load(builder.gep(args, [arr.const(k)], source_etype=ptr), typ=ptr)
        start = builder.ptrtoint(base, i64)
        step = _load(builder, steps, k)
        end = builder.add(start, builder.mul(builder.sub(count, arr.const(1)), step))
        low = builder.select(builder.icmp_signed("<", start, end), start, end)
        high = builder.select(builder.icmp_signed("<", start, end), end, start)
        spans.append((start, step, low, high))
    unsafe = llvm.Constant(arr.i1, 0)
    for out_start, out_step, out_low, out_high in spans[nin:]:
        unsafe = builder.or_(unsafe, builder.icmp_signed("==", out_step, arr.const(0)))
        for start, step, low, high in spans[:nin]:
            overlap = builder.and_(
                builder.icmp_signed("<=", low, out_high), builder.icmp_signed("<=", out_low, high)
            )
            same = builder.and_(
                builder.icmp_signed("==", start, out_start),
                builder.icmp_signed("==", step, out_step),
            )
            unsafe = builder.or_(unsafe, builder.and_(overlap, builder.not_(same)))
    return unsafe


def _load(builder: llvm.IRBuilder, base, index: int) -> llvm.Value:
    return builder.load(builder.gep(base, [arr.const(index)], source_etype=i64), typ=i64)


def _fill_chunk(builder, chunk, chunk_type, serial, args, steps, data, start, length,
                dimensions: list, nargs: int) -> None:  # fmt: skip
    def field(*path: int):
        return _gep(builder, chunk, [arr.i32_(0), *map(arr.i32_, path)], chunk_type)

    builder.store(serial, field(0))
    for k in range(nargs):
        base = builder.load(builder.gep(args, [arr.const(k)], source_etype=ptr), typ=ptr)
        offset = builder.mul(start, _load(builder, steps, k))
        builder.store(arr.offset_pointer(builder, base, offset), field(1, k))
    builder.store(length, field(2, 0))
    for k, dim in enumerate(dimensions[1:], start=1):
        builder.store(dim, field(2, k))
    builder.store(steps, field(3))
    builder.store(data, field(4))
    builder.store(NO_ERROR, field(5))
