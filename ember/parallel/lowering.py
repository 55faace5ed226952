"""Stage 6a for parfors: the statement becomes a call of the threading layer with a worker that
runs the outlined body over one chunk of a static schedule, then the per-chunk reduction
results are combined in chunk order.

    data    = {start, step, count, nchunks, errors, slots, params..., reduction starts...}
    worker(data, c): lo, hi = do_scheduling(count, nchunks, c)
                     status = body(start + lo*step, start + hi*step, [step,] ...) -> slots[c]
                     (or its exception -> errors[c])
    launch(worker, data, nchunks); if a chunk failed: release the slots and raise the lowest
    failed chunk's exception (the one the serial loop meets first)
    r = combine(...combine(combine(r, slots[0].r), slots[1].r)...)
"""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import config, types
from ember.ir.parfor import Parfor
from ember.library.builtins.ranges import _range_length
from ember.lowering import arrays as refs
from ember.lowering import callconv
from ember.lowering.lower import register_statement_lowerer
from ember.lowering.models import model_of
from ember.lowering.pyapi import PythonAPI
from ember.parallel import reductions as red
from ember.parallel import threading_layer as tl
from ember.runtime import nrt

_i32 = llvm.IntType(32)
_i64 = llvm.IntType(64)
_ptr = llvm.PointerType()
# start, step, count, nchunks, errors (per chunk), slots (per chunk)
_HEADER = [_i64, _i64, _i64, _i64, _ptr, _ptr]
_START, _STEP, _COUNT, _NCHUNKS, _ERRORS, _SLOTS = range(6)
# a chunk's failure: its exception record and the Python exception object it raised, if any
_ERROR_TYPE = llvm.LiteralStructType([callconv.EXCINFO_TYPE, _ptr])
# A loop made from a NumPy call does one item per iteration: below this many items per thread
# waking threads costs more than it saves (tests lower it to exercise the threads)
MIN_ITEMS_PER_CHUNK = 16384


def do_scheduling(count: int, nchunks: int) -> list[tuple[int, int]]:
    """The static schedule: `nchunks` near-equal [lo, hi) pieces of range(count), the first
    `count % nchunks` one longer (the worker computes the same in native code)."""
    size, extra = divmod(count, nchunks)
    pieces = []
    for chunk in range(nchunks):
        lo = chunk * size + min(chunk, extra)
        pieces.append((lo, lo + size + (chunk < extra)))
    return pieces


def lower_parfor(lowerer, parfor: Parfor) -> None:
    context, builder = lowerer.context, lowerer.builder
    body = parfor.gufunc
    lowerer.dependencies.append(body.library)
    sig = body.signature
    bounds = len(sig.args) - len(parfor.params) - len(parfor.reductions)
    value_types = list(sig.args[bounds:])
    data_type = llvm.LiteralStructType([*_HEADER, *(context.value_type(t) for t in value_types)])
    slot_type = llvm.ArrayType(context.data_type(sig.return_type), config.NUM_THREADS)
    errors_type = llvm.ArrayType(_ERROR_TYPE, config.NUM_THREADS)

    nest = parfor.loop_nests[0]
    range_value = lowerer.load(nest.range_var)
    start, stop, step = (builder.extract_value(range_value, k) for k in range(3))
    count = _range_length(builder, start, stop, step)
    nchunks = _chunk_count(builder, count, parfor.lowering.get("min_items", 1))

    data = refs.alloca_in_entry(builder, data_type, name=f"parfor{parfor.id}.data")
    slots = refs.alloca_in_entry(builder, slot_type, name=f"parfor{parfor.id}.slots")
    builder.store(llvm.Constant(slot_type, None), slots)
    errors = refs.alloca_in_entry(builder, errors_type, name=f"parfor{parfor.id}.errors")
    builder.store(llvm.Constant(errors_type, None), errors)
    header_values = (start, step, count, nchunks, errors, slots)
    values = [*header_values, *_argument_values(lowerer, parfor, value_types)]
    for index, value in enumerate(values):
        builder.store(value, _field(builder, data, data_type, index))

    worker = _define_worker(lowerer, parfor, body, data_type, slot_type, bounds)
    one = llvm.Constant(_i64, 1)
    with builder.if_else(builder.icmp_signed("==", nchunks, one)) as (single, several):
        with single:  # no threads to wake for one chunk
            builder.call(worker, [data, llvm.Constant(_i64, 0)])
        with several:
            builder.call(tl.declare_launch(builder.module), [worker, data, nchunks])
    _raise_if_failed(lowerer, sig, errors, errors_type, slots, slot_type, nchunks)
    _combine(lowerer, parfor, sig, slots, slot_type, nchunks)


def _chunk_count(builder, count, min_items: int) -> llvm.Value:
    """min(count, this thread's num_threads, count // min_items but at least 1) (0 for an
    empty loop)."""
    wanted = builder.call(tl.declare_symbol(builder.module, tl.GET_NUM_THREADS), [])
    if min_items > 1:
        worth = builder.sdiv(count, llvm.Constant(_i64, min_items))
        one = llvm.Constant(_i64, 1)
        worth = builder.select(builder.icmp_signed("<", worth, one), one, worth)
        wanted = builder.select(builder.icmp_signed("<", worth, wanted), worth, wanted)
    limit = llvm.Constant(_i64, config.NUM_THREADS)
    wanted = builder.select(builder.icmp_signed("<", wanted, limit), wanted, limit)
    chunks = builder.select(builder.icmp_signed("<", count, wanted), count, wanted)
    zero = llvm.Constant(_i64, 0)
    return builder.select(builder.icmp_signed("<", chunks, zero), zero, chunks)


def _field(builder, data, data_type, index: int):
    return builder.gep(
        data, [llvm.Constant(_i32, 0), llvm.Constant(_i32, index)], source_etype=data_type
    )


def _argument_values(lowerer, parfor: Parfor, value_types: list) -> list:
    """The parameters (borrowed from this function's variables) and each reduction's start:
    its identity for scalars, the current array for arrays (the body makes private ones)."""
    values = [lowerer.load_as(p, t) for p, t in zip(parfor.params, value_types)]
    for reduction, typ in zip(parfor.reductions, value_types[len(parfor.params) :]):
        if isinstance(typ, types.Array) or reduction.identity is None:  # a last value too
            values.append(lowerer.load_as(reduction.var, typ))
        else:
            values.append(lowerer.context.get_constant(typ, reduction.identity))
    return values


def _define_worker(lowerer, parfor, body, data_type, slot_type, bounds: int) -> llvm.Function:
    """`void worker(ptr data, i64 chunk)`: the body over chunk `chunk` of the schedule."""
    module = lowerer.builder.module
    name = f"{lowerer.symbol}.parfor{parfor.id}.worker"
    worker = llvm.Function(module, tl.WORKER_TYPE, name)
    worker.linkage = "internal"
    data, chunk = worker.args
    builder = llvm.IRBuilder(worker.append_basic_block("entry"))

    def load(index, typ):
        return builder.load(_field(builder, data, data_type, index), typ=typ)

    start, step, count, nchunks = (load(k, _i64) for k in (_START, _STEP, _COUNT, _NCHUNKS))
    size, extra = builder.sdiv(count, nchunks), builder.srem(count, nchunks)
    before = builder.select(builder.icmp_signed("<", chunk, extra), chunk, extra)
    lo = builder.add(builder.mul(chunk, size), before)
    longer = builder.zext(builder.icmp_signed("<", chunk, extra), _i64)
    hi = builder.add(builder.add(lo, size), longer)
    first = builder.add(start, builder.mul(lo, step))
    last = builder.add(start, builder.mul(hi, step))
    arguments = [first, last, step][:bounds]
    sig = body.signature
    for index, typ in enumerate(sig.args[bounds:]):
        arguments.append(load(len(_HEADER) + index, lowerer.context.value_type(typ)))
    callee = lowerer.context.declare_function(module, body.symbol, callconv.function_type(sig))
    excinfo = builder.alloca(callconv.EXCINFO_TYPE, name="excinfo")
    is_error, result = callconv.call(builder, callee, sig, arguments, excinfo)
    with builder.if_else(is_error, likely=False) as (failed, succeeded):
        with failed:
            _note_exception(lowerer.context, builder, excinfo, data, data_type, chunk)
        with succeeded:
            slots = builder.load(_field(builder, data, data_type, _SLOTS), typ=_ptr)
            slot = builder.gep(slots, [llvm.Constant(_i32, 0), chunk], source_etype=slot_type)
            builder.store(model_of(sig.return_type).as_data(builder, result), slot)
    builder.ret_void()
    return worker


def _note_exception(context, builder, excinfo, data, data_type, chunk) -> None:
    """The chunk's exception record to its own entry of `errors` (no other chunk writes
    there). An exception object raised by Python code (an objmode block, a first-class
    function) waits in this worker thread's slot: it moves to the entry too, for the launching
    thread to raise."""
    record = builder.load(excinfo, typ=callconv.EXCINFO_TYPE)
    errors = builder.load(_field(builder, data, data_type, _ERRORS), typ=_ptr)
    entry = builder.gep(errors, [chunk], source_etype=_ERROR_TYPE)
    builder.store(record, _field(builder, entry, _ERROR_TYPE, 0))
    exc_id = builder.extract_value(record, 0)
    from_python = builder.icmp_signed("==", exc_id, llvm.Constant(_i32, _python_exception_id()))
    with builder.if_then(from_python, likely=False):
        pyapi = PythonAPI(context, builder, [])
        gil = pyapi.gil_ensure()
        taken = pyapi.call_function_objargs(
            pyapi.borrow_constant(callconv.take_python_exception), []
        )
        builder.store(taken, _field(builder, entry, _ERROR_TYPE, 1))
        pyapi.gil_release(gil)


def _python_exception_id() -> int:
    return callconv.static_exceptions.register(callconv.PythonExceptionRaised, ())


def _slot_value(builder, sig, slots, slot_type, chunk) -> llvm.Value:
    slot = builder.gep(slots, [llvm.Constant(_i32, 0), chunk], source_etype=slot_type)
    model = model_of(sig.return_type)
    return model.from_data(builder, builder.load(slot, typ=model.data_type))


def _raise_if_failed(lowerer, sig, errors, errors_type, slots, slot_type, nchunks) -> None:
    """A failed chunk: release what the others returned and the other failures' payloads,
    raise the lowest failed chunk's exception (within a chunk the iterations run in order, so
    it is the exception the serial loop raises)."""
    builder, context = lowerer.builder, lowerer.context
    # the join synchronizes: each chunk's entry is written before the launch returns
    chosen = refs.alloca_in_entry(builder, _ERROR_TYPE, name="parfor.failure")
    builder.store(llvm.Constant(_ERROR_TYPE, None), chosen)
    zero = llvm.Constant(_i32, 0)
    with refs.for_range(builder, nchunks) as chunk:
        entry = builder.load(
            builder.gep(errors, [llvm.Constant(_i32, 0), chunk], source_etype=errors_type),
            typ=_ERROR_TYPE,
        )
        failed = builder.icmp_signed("!=", builder.extract_value(entry, (0, 0)), zero)
        with builder.if_then(failed, likely=False):
            chosen_id = builder.gep(
                chosen, [llvm.Constant(_i32, k) for k in (0, 0, 0)], source_etype=_ERROR_TYPE
            )
            first = builder.icmp_signed("==", builder.load(chosen_id, typ=_i32), zero)
            with builder.if_else(first) as (kept, dropped):
                with kept:
                    builder.store(entry, chosen)
                with dropped:
                    _release_failure(context, builder, entry)
    failure = builder.load(chosen, typ=_ERROR_TYPE)
    record = builder.extract_value(failure, 0)
    exc_id = builder.extract_value(record, 0)
    with builder.if_then(builder.icmp_signed("!=", exc_id, zero), likely=False):
        with refs.for_range(builder, nchunks) as chunk:
            value = _slot_value(builder, sig, slots, slot_type, chunk)
            refs.decref(builder, sig.return_type, value)  # unfilled slots hold NULLs: no-ops
        _hold_python_exception(lowerer, builder.extract_value(failure, 1))
        callconv.return_exception_record(builder, builder.function, record)


def _release_failure(context, builder, entry) -> None:
    """A failure not raised: its payload and Python exception object are dropped."""
    nrt.emit_decref(builder, builder.extract_value(entry, (0, 1)))
    exception = builder.extract_value(entry, 1)
    with builder.if_then(builder.icmp_unsigned("!=", exception, llvm.Constant(_ptr, None))):
        pyapi = PythonAPI(context, builder, [])
        gil = pyapi.gil_ensure()
        pyapi.decref(exception)
        pyapi.gil_release(gil)


def _hold_python_exception(lowerer, exception) -> None:
    """A Python exception object a worker passed on goes to this thread's slot."""
    builder = lowerer.builder
    with builder.if_then(builder.icmp_unsigned("!=", exception, llvm.Constant(_ptr, None))):
        pyapi = PythonAPI(lowerer.context, builder, [])
        gil = pyapi.gil_ensure()
        keeper = pyapi.borrow_constant(callconv.keep_python_exception)
        pyapi.decref(pyapi.call_function_objargs(keeper, [exception]))
        pyapi.decref(exception)
        pyapi.gil_release(gil)


def _combine(lowerer, parfor: Parfor, sig, slots, slot_type, nchunks) -> None:
    """Fold each chunk's partial results into the reduction variables, in chunk order (one
    chunk at a time for all of them: a last value's choice reads its leader's value before
    the chunk's)."""
    context, builder = lowerer.context, lowerer.builder
    accumulators, typemap = {}, lowerer.typemap
    for reduction in parfor.reductions:
        typ = typemap[reduction.var.name]
        accumulator = refs.alloca_in_entry(builder, context.value_type(typ), name="parfor.acc")
        builder.store(lowerer.borrowed(typ, lowerer.load(reduction.var)), accumulator)
        accumulators[reduction.var.name] = accumulator
    with refs.for_range(builder, nchunks) as chunk:
        value = _slot_value(builder, sig, slots, slot_type, chunk)
        parts = {}
        for position, reduction in enumerate(parfor.reductions):
            part = builder.extract_value(value, position)
            typ = typemap[reduction.var.name]
            parts[reduction.var.name] = context.cast(
                builder, part, sig.return_type.types[position], typ
            )
        taken = {
            r.var.name: _chunk_replaces(lowerer, r, parts, accumulators)
            for r in parfor.reductions
            if r.kind == "last"
        }
        for reduction in parfor.reductions:
            name = reduction.var.name
            typ, part = typemap[name], parts[name]
            current = builder.load(accumulators[name], typ=context.value_type(typ))
            if name in taken:
                combined = builder.select(taken[name], part, current)
                refs.decref(builder, typ, builder.select(taken[name], current, part))
            else:
                helper = red.combine_helper(reduction.kind, reduction.inplace)
                target = helper.compile((typ, typ))
                combined = context.call_compiled(builder, target, [current, part])
                refs.decref(builder, typ, current)
                refs.decref(builder, typ, part)
            builder.store(combined, accumulators[name])
    for reduction in parfor.reductions:
        typ = typemap[reduction.var.name]
        result = builder.load(accumulators[reduction.var.name], typ=context.value_type(typ))
        if refs.needs_refcount(typ):
            refs.decref(builder, typ, lowerer.load(reduction.result))
        lowerer.store(reduction.result.name, result)


def _chunk_replaces(lowerer, reduction, parts: dict, accumulators: dict):
    """i1: whether this chunk's value of a last value replaces the one so far: the chunk
    assigned it and, for a conditional extreme, its leader compares so with the leader's
    value so far."""
    context, builder, typemap = lowerer.context, lowerer.builder, lowerer.typemap
    assigned = _as_bit(builder, parts[reduction.flag])
    if reduction.compare is None:
        return assigned
    leader, symbol = reduction.compare
    typ = typemap[leader]
    so_far = builder.load(accumulators[leader], typ=context.value_type(typ))
    test = red.compare_helper(symbol).compile((typ, typ))
    holds = context.call_compiled(builder, test, [parts[leader], so_far])
    return builder.and_(assigned, _as_bit(builder, holds))


def _as_bit(builder, value):
    if value.type.width == 1:
        return value
    return builder.icmp_unsigned("!=", value, llvm.Constant(value.type, 0))


register_statement_lowerer(Parfor, lower_parfor)
