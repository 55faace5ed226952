"""NumPy inner loops generated in LLVM IR around an ember-compiled kernel.

Consumes a kernel's CompileResult and the operand layout of a ufunc or gufunc; produces the
native `void loop(char **args, npy_intp const *dimensions, npy_intp const *steps, void *data)`
NumPy calls, in its own code library (the kernel is linked in and inlined). An exception the
kernel raises becomes the ufunc call's exception (as Numba's ufuncs do): an elementwise loop
skips that element's store and goes on; a gufunc loop stops calling the kernel.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from llvmlite import ir as llvm

from ember import types
from ember.codegen.library import CodeLibrary
from ember.compiler import CompileResult
from ember.lowering import arrays as arr
from ember.lowering import callconv
from ember.lowering.models import model_of
from ember.ufuncs.kernel_errors import NO_ERROR, has_error, keep_first, raise_kernel_error
from ember.ufuncs.threads import emit_parallel_loop

i64, ptr = arr.i64, arr.ptr
LOOP_TYPE = llvm.FunctionType(llvm.VoidType(), [ptr, ptr, ptr, ptr])
# The loop proper: NumPy's arguments and the record that receives the kernel's first error.
BODY_TYPE = llvm.FunctionType(llvm.VoidType(), [ptr, ptr, ptr, ptr, ptr])
_loop_counter = itertools.count(1)


@dataclass(frozen=True)
class Operand:
    """One ufunc operand as the kernel receives it: a scalar of `typ`, or (gufuncs) an array
    view of `typ` whose shape is the core dimensions `core_dims` (indices into NumPy's
    `dimensions[1:]`); `step_base` is the index of its first core stride in `steps`."""

    typ: types.Type
    core_dims: tuple[int, ...] = ()
    step_base: int = 0

    @property
    def dtype(self) -> types.Type:
        return self.typ.dtype if isinstance(self.typ, types.Array) else self.typ


@dataclass
class InnerLoop:
    """A finished inner loop: its address and the library that owns its machine code."""

    address: int
    library: CodeLibrary


def build_inner_loop(
    kernel: CompileResult,
    operands: list[Operand],
    nin: int,
    elementwise: bool,
    parallel: bool,
    core_count: int = 0,
    name: str | None = None,
) -> InnerLoop:
    """The inner loop calling `kernel` once per element (elementwise: inputs in, its result
    stored to the one output) or once per outer index (gufunc: every operand passed);
    `name`: its symbol (the disk cache's, unique to its key), else a numbered one."""
    name = name or f"ember.ufunc_loop.{next(_loop_counter)}.{kernel.symbol}"
    library = CodeLibrary(name)
    library.add_dependency(kernel.library)
    module = library.module
    body = llvm.Function(module, BODY_TYPE, name + ".body")
    body.linkage = "internal"
    callee = llvm.Function(module, callconv.function_type(kernel.signature), kernel.symbol)
    emit = _emit_elementwise if elementwise else _emit_generalized
    emit(body, callee, kernel, operands, nin)
    entry = llvm.Function(module, LOOP_TYPE, name)
    if parallel:
        emit_parallel_loop(entry, body, nin, len(operands), 1 + core_count)
    else:
        _emit_serial_entry(entry, body)
    library.export(name)
    library.finalize()
    return InnerLoop(library.address_of(name), library)


def _loop_arguments(builder: llvm.IRBuilder, function: llvm.Function, count: int):
    """(base pointers, outer steps, outer length) of `count` operands."""
    args, dims, steps = function.args[:3]
    bases = [builder.load(builder.gep(args, [arr.const(k)], source_etype=ptr), typ=ptr)
             for k in range(count)]  # fmt: skip
    outer_steps = [_load_i64(builder, steps, k) for k in range(count)]
    return bases, outer_steps, _load_i64(builder, dims, 0)


def _load_i64(builder: llvm.IRBuilder, base: llvm.Value, index: int) -> llvm.Value:
    return builder.load(builder.gep(base, [arr.const(index)], source_etype=i64), typ=i64)


def _emit_serial_entry(entry: llvm.Function, body: llvm.Function) -> None:
    """NumPy's loop: the body with an error record of its own, raised when it is filled."""
    builder = llvm.IRBuilder(entry.append_basic_block("entry"))
    record = builder.alloca(callconv.EXCINFO_TYPE, name="first_error")
    builder.store(NO_ERROR, record)
    builder.call(body, [*entry.args, record])
    raise_kernel_error(builder, record)
    builder.ret_void()


def _call_kernel(builder, callee, kernel: CompileResult, args: list, first_error):
    """Call the kernel; (whether it raised, its result). The first exception raised is kept
    in `first_error`; a later one is dropped (its payload released)."""
    excinfo = callconv.alloca_in_entry(builder, callconv.EXCINFO_TYPE, name="excinfo")
    raised, result = callconv.call(builder, callee, kernel.signature, args, excinfo)
    with builder.if_then(raised, likely=False):
        keep_first(builder, first_error, excinfo)
    return raised, result


def _emit_elementwise(function, callee, kernel, operands: list[Operand], nin: int) -> None:
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    bases, steps, count = _loop_arguments(builder, function, len(operands))
    itemsizes = [arr.itemsize_of(op.dtype) for op in operands]
    contiguous = llvm.Constant(arr.i1, 1)
    for step, size in zip(steps, itemsizes):
        contiguous = builder.and_(contiguous, builder.icmp_signed("==", step, arr.const(size)))
    # Unit strides get their own copy of the loop, indexed by element, which LLVM vectorizes.
    with builder.if_else(contiguous) as (unit_stride, strided):
        with unit_stride:
            with arr.for_range(builder, count) as index:
                pointers = [builder.gep(base, [index], source_etype=model_of(op.dtype).data_type)
                            for base, op in zip(bases, operands)]  # fmt: skip
                _elementwise_body(builder, callee, kernel, operands, nin, pointers)
        with strided:
            with arr.for_range(builder, count) as index:
                pointers = [arr.offset_pointer(builder, base, builder.mul(index, step))
                            for base, step in zip(bases, steps)]  # fmt: skip
                _elementwise_body(builder, callee, kernel, operands, nin, pointers)
    builder.ret_void()


def _elementwise_body(builder, callee, kernel, operands, nin: int, pointers: list) -> None:
    values = [arr.load_item(builder, op.typ, p) for op, p in zip(operands[:nin], pointers)]
    first_error = builder.function.args[4]
    raised, result = _call_kernel(builder, callee, kernel, values, first_error)
    with builder.if_then(builder.not_(raised), likely=True):
        arr.store_item(builder, operands[nin].typ, result, pointers[nin])


def _emit_generalized(function, callee, kernel, operands: list[Operand], nin: int) -> None:
    builder = llvm.IRBuilder(function.append_basic_block("entry"))
    bases, steps, count = _loop_arguments(builder, function, len(operands))
    dims_arg, steps_arg, first_error = function.args[1], function.args[2], function.args[4]
    with arr.for_range(builder, count) as index:
        # after an exception the remaining iterations do nothing (the call bails out)
        failed = has_error(builder, first_error)
        proceed = builder.append_basic_block("iteration")
        skip = builder.append_basic_block("skipped")
        builder.cbranch(failed, skip, proceed)
        builder.position_at_end(proceed)
        values = []
        for op, base, step in zip(operands, bases, steps):
            pointer = arr.offset_pointer(builder, base, builder.mul(index, step))
            if not isinstance(op.typ, types.Array):
                values.append(arr.load_item(builder, op.typ, pointer))
                continue
            shape = [_load_i64(builder, dims_arg, 1 + dim) for dim in op.core_dims]
            strides = [_load_i64(builder, steps_arg, op.step_base + k)
                       for k in range(len(op.core_dims))]  # fmt: skip
            values.append(_array_view(builder, op.typ, pointer, shape, strides))
        _call_kernel(builder, callee, kernel, values, first_error)
        builder.branch(skip)
        builder.position_at_end(skip)
    builder.ret_void()


def _array_view(builder, array_type: types.Array, data, shape: list, strides: list):
    """A borrowed array over NumPy's buffer (no meminfo, no parent); a `()` operand declared
    as a 1-d array is seen as one element."""
    itemsize = arr.const(arr.itemsize_of(array_type.dtype))
    if not shape and array_type.ndim == 1:
        shape, strides = [arr.const(1)], [itemsize]
    null = llvm.Constant(ptr, None)
    fields = arr.ArrayFields(null, null, arr.product(builder, shape), itemsize, data,
                             shape, strides)  # fmt: skip
    return arr.pack(builder, array_type, fields)
