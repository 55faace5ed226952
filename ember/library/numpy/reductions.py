"""Reductions as methods and functions: sum, prod, min, max, mean, var, std, all, any (over
everything, or along one `axis`), cumsum and cumprod (flat, or along an axis); argmin and argmax
are in arg_extremes.py.

Each is a fold `acc = step(acc, item)` run by `reduce_all` (every element, in C order: a flat
unit-stride loop for C arrays) or `reduce_axis` (a new array of the remaining dimensions).
Types follow NumPy: integer sums and products accumulate in int64 (uint64 for unsigned), means
of integers are float64, min/max of an empty array raise ValueError.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from contextlib import contextmanager

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload, overload_method
from ember.library.numpy.axis_forms import _axis_jit, lanes_along_jit
from ember.library.numpy.support import (
    NUMPY_ERRORS,
    as_type,
    is_none,
    np_typer,
    numpy_dtype,
    parse_dtype,
)
from ember.library.numpy.ufuncs import numpy_context
from ember.lowering import arrays as arr
from ember.lowering.arrays import const
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.loop_metadata import loop_properties, no_vectorization
from ember.lowering.registry import VarArgs, lower_builtin
from ember.runtime import nrt
from ember.typing.signature import signature
from ember.typing.templates import registry

# ---------------------------------------------------------------------------- the engine


def reduce_all(context, builder, array_type, fields, acc_llvm, init, step: Callable,
               memory_order: bool = False, strided_step: Callable | None = None):  # fmt: skip
    """Fold `step(builder, acc, item, flat_index) -> acc` over every element in C order, or
    in memory order when told the fold does not depend on the order (a flat loop over an
    array that is Fortran-contiguous, known from its type or checked at run time; NumPy also
    reduces those in memory order). `strided_step`, when given, replaces `step` in the loops
    through strides, which do not vectorize: a step made to vectorize may be slow alone."""
    slot = arr.alloca_in_entry(builder, acc_llvm, name="reduce.acc")
    builder.store(init, slot)
    flat = array_type.layout == "C" or (memory_order and array_type.layout == "F")
    if flat:
        _fold_flat(context, builder, array_type, fields, slot, acc_llvm, step)
    elif memory_order and array_type.layout == "A" and array_type.ndim > 1:
        # Known only at run time: a Fortran-contiguous array folds in memory order too.
        fortran = arr.is_contiguous(builder, fields, "F")
        with builder.if_else(fortran) as (in_memory_order, in_c_order):
            with in_memory_order:
                _fold_flat(context, builder, array_type, fields, slot, acc_llvm, step)
            with in_c_order:
                _fold_nest(
                    context, builder, array_type, fields, slot, acc_llvm, strided_step or step
                )
    else:
        _fold_nest(context, builder, array_type, fields, slot, acc_llvm, strided_step or step)
    return builder.load(slot, typ=acc_llvm)


def _fold_flat(context, builder, array_type, fields, slot, acc_llvm, step: Callable) -> None:
    """The fold over contiguous memory, in the order the items are stored."""
    element = context.data_type(array_type.dtype)
    with arr.for_range(builder, fields.nitems) as index:
        pointer = builder.gep(fields.data, [index], inbounds=True, source_etype=element)
        item = arr.load_item(builder, array_type.dtype, pointer)
        acc = builder.load(slot, typ=acc_llvm)
        builder.store(step(builder, acc, item, index), slot)


def _fold_nest(context, builder, array_type, fields, slot, acc_llvm, step: Callable) -> None:
    """The fold in C index order, through the strides. A float fold here is not vectorized:
    in order, through strides, it would gather its items only to add them one by one (a sum
    of m[i, ::2] 2.7x slower than a scalar loop)."""
    counter = arr.alloca_in_entry(builder, arr.i64, name="reduce.index")
    builder.store(const(0), counter)
    with arr.loop_nest(builder, fields.shape) as indices:
        pointer = arr.element_pointer(builder, array_type, fields, indices)
        item = arr.load_item(builder, array_type.dtype, pointer)
        index = builder.load(counter, typ=arr.i64)
        acc = builder.load(slot, typ=acc_llvm)
        builder.store(step(builder, acc, item, index), slot)
        builder.store(builder.add(index, const(1)), counter)
        back_edge = builder.block
    if array_type.ndim and isinstance(array_type.dtype, types.Float | types.Complex):
        loop_properties(builder.module, back_edge.terminator, no_vectorization())


def normalize_axis(context, builder, axis, ndim: int):
    """A Python axis (negative counts from the end) as an i64 in [0, ndim); AxisError if not
    (naming the axis when it is a constant: the message is fixed when compiling)."""
    axis = builder.sext(axis, arr.i64) if axis.type.width < 64 else axis
    message = "axis is out of bounds for the array"
    if isinstance(axis, llvm.Constant) and isinstance(axis.constant, int):
        message = f"axis {axis.constant} is out of bounds for array of dimension {ndim}"
    negative = builder.icmp_signed("<", axis, const(0))
    axis = builder.select(negative, builder.add(axis, const(ndim)), axis)
    bad = builder.icmp_unsigned(">=", axis, const(ndim))
    context.guard(builder, bad, np.exceptions.AxisError, message)
    return axis


def _pick(builder, axis, values: list):
    """values[axis] for a runtime axis (a select chain)."""
    result = values[0]
    for k in range(1, len(values)):
        result = builder.select(builder.icmp_signed("==", axis, const(k)), values[k], result)
    return result


def reduce_axis(context, builder, array_type, fields, axis, out_type, acc_llvm, init_fn,
                step: Callable, finish: Callable | None = None,
                line: Callable | None = None):  # fmt: skip
    """A new array of the dimensions other than `axis` (runtime i64), each element the fold of
    `step(builder, acc, item, index_along_axis)` from `init_fn(builder, length)`; `finish(builder,
    acc, length)` maps the final accumulator to the output dtype. `line(builder, base, stride,
    length)`, when given, computes one output element from its items in place of the fold where
    the axis varies fastest (a reduction with a faster shape than one item at a time).

    Each output element folds its items in order along the axis. When that axis varies fastest
    in memory, one fold runs in a register per output element; otherwise the input is streamed
    in memory order into a row of accumulators (a column sum reads rows, not strided columns).
    """
    ndim = array_type.ndim
    length = _pick(builder, axis, fields.shape)
    out_shape = [
        builder.select(
            builder.icmp_signed("<", const(position), axis),
            fields.shape[position],
            fields.shape[position + 1],
        )
        for position in range(ndim - 1)
    ]
    result = arr.allocate(context, builder, out_type, out_shape)
    out = arr.unpack(builder, out_type, result)
    reduction = _AxisReduction(context, builder, array_type, fields, axis, length, out_type, out,
                               out_shape, acc_llvm, init_fn, step, finish)  # fmt: skip
    reduction.line = line
    if ndim == 1:
        reduction.fold_along_axis()
        return result
    fastest = fields.strides[0] if array_type.layout == "F" else fields.strides[-1]
    along_axis_is_fastest = builder.icmp_signed(
        "<=", _magnitude(builder, _pick(builder, axis, fields.strides)),
        _magnitude(builder, fastest),
    )  # fmt: skip
    with builder.if_else(along_axis_is_fastest) as (fold, stream):
        with fold:
            reduction.fold_along_axis()
        with stream:
            reduction.stream_in_memory_order()
    return result


def _accumulator_steps(builder, dense: list, axis, ndim: int) -> list:
    """Per input dimension, how far its index moves in the dense accumulator row: the output
    position's stride, 0 along `axis` (every item of a fold shares one accumulator)."""
    steps = []
    for k in range(ndim):
        before_axis = dense[k] if k < ndim - 1 else const(0)  # only chosen when k < axis
        after_axis = dense[k - 1] if k > 0 else const(0)  # only chosen when k > axis
        step = builder.select(builder.icmp_signed("<", const(k), axis), before_axis, after_axis)
        steps.append(builder.select(builder.icmp_signed("==", const(k), axis), const(0), step))
    return steps


@contextmanager
def _memory_order_nest(builder, array_type, shape: list):
    """Loops over every index of `shape`, the last dimension innermost, or for an F-ordered
    array the first (so the items come in memory order); yields the indices in order."""
    if array_type.layout != "F":
        with arr.loop_nest(builder, shape) as indices:
            yield indices
        return
    with arr.loop_nest(builder, shape[::-1]) as reversed_indices:
        yield reversed_indices[::-1]


def _magnitude(builder, value):
    return builder.select(builder.icmp_signed("<", value, const(0)), builder.neg(value), value)


class _AxisReduction:
    """The two loop shapes of `reduce_axis` over one set of operands."""

    def __init__(self, context, builder, array_type, fields, axis, length, out_type, out,
                 out_shape, acc_llvm, init_fn, step, finish) -> None:  # fmt: skip
        self.context, self.builder = context, builder
        self.array_type, self.fields, self.axis, self.length = array_type, fields, axis, length
        self.out_type, self.out, self.out_shape = out_type, out, out_shape
        self.acc_llvm, self.init_fn, self.step = acc_llvm, init_fn, step
        self.finish = finish or (lambda b, acc, length: acc)

    def _store_result(self, acc, indices) -> None:
        b = self.builder
        value = self.finish(b, acc, self.length)
        pointer = arr.element_pointer(b, self.out_type, self.out, indices)
        arr.store_item(b, self.out_type.dtype, value, pointer)

    line: Callable | None = None  # see reduce_axis

    def fold_along_axis(self) -> None:
        b, fields, axis = self.builder, self.fields, self.axis
        stride = _pick(b, axis, fields.strides)
        in_strides = [
            b.select(b.icmp_signed("<", const(p), axis), fields.strides[p], fields.strides[p + 1])
            for p in range(len(self.out_shape))
        ]
        slot = arr.alloca_in_entry(b, self.acc_llvm, name="reduce.acc")
        with arr.loop_nest(b, self.out_shape) as indices:
            base = fields.data
            for index, s in zip(indices, in_strides):
                base = arr.offset_pointer(b, base, b.mul(index, s))
            if self.line is not None:
                value = self.line(b, base, stride, self.length)
                pointer = arr.element_pointer(b, self.out_type, self.out, indices)
                arr.store_item(b, self.out_type.dtype, value, pointer)
            else:
                b.store(self.init_fn(b, self.length), slot)
                with arr.for_range(b, self.length) as k:
                    pointer = arr.offset_pointer(b, base, b.mul(k, stride))
                    item = arr.load_item(b, self.array_type.dtype, pointer)
                    acc = b.load(slot, typ=self.acc_llvm)
                    b.store(self.step(b, acc, item, k), slot)
                self._store_result(b.load(slot, typ=self.acc_llvm), indices)

    def stream_in_memory_order(self) -> None:
        b, acc_llvm = self.builder, self.acc_llvm
        count = arr.product(b, self.out_shape)
        accumulators = self._allocate_accumulators(count)
        data = nrt.emit_data_pointer(b, accumulators)
        with arr.for_range(b, count) as position:
            b.store(self.init_fn(b, self.length),
                    b.gep(data, [position], inbounds=True, source_etype=acc_llvm))  # fmt: skip
        dense = arr.contiguous_strides(b, self.out_shape, 1)
        steps = _accumulator_steps(b, dense, self.axis, self.array_type.ndim)
        with _memory_order_nest(b, self.array_type, self.fields.shape) as indices:
            pointer = arr.element_pointer(b, self.array_type, self.fields, indices)
            item = arr.load_item(b, self.array_type.dtype, pointer)
            position = const(0)
            for index, s in zip(indices, steps):
                position = b.add(position, b.mul(index, s))
            slot = b.gep(data, [position], inbounds=True, source_etype=acc_llvm)
            acc = b.load(slot, typ=acc_llvm)
            b.store(self.step(b, acc, item, _pick(b, self.axis, indices)), slot)
        with arr.loop_nest(b, self.out_shape) as indices:
            position = const(0)
            for index, s in zip(indices, dense):
                position = b.add(position, b.mul(index, s))
            slot = b.gep(data, [position], inbounds=True, source_etype=acc_llvm)
            self._store_result(b.load(slot, typ=acc_llvm), indices)
        nrt.emit_decref(b, accumulators)

    def _allocate_accumulators(self, count):
        """A runtime block of `count` accumulators (its size from LLVM's sizeof idiom)."""
        b = self.builder
        null = llvm.Constant(arr.ptr, None)
        end = b.gep(null, [count], source_etype=self.acc_llvm)
        meminfo = nrt.emit_allocate(b, b.ptrtoint(end, arr.i64))
        failed = b.icmp_unsigned("==", meminfo, null)
        self.context.guard(b, failed, MemoryError, "unable to allocate reduction accumulators")
        return meminfo


# ---------------------------------------------------------------------------- accumulator types


def sum_type(dtype: types.Type) -> types.Type:
    """NumPy's accumulator for sum/prod/cumsum: small integers widen to the platform int."""
    if isinstance(dtype, types.Boolean):
        return types.int64
    if isinstance(dtype, types.Integer):
        return types.int64 if dtype.signed else types.uint64
    return dtype


def mean_type(dtype: types.Type) -> types.Type:
    if isinstance(dtype, (types.Boolean, types.Integer)):
        return types.float64
    return dtype


def _arith(context, builder, fn, typ, a, b):
    return numpy_context(context).call_implementation(builder, fn, signature(typ, typ, typ), [a, b])


# ---------------------------------------------------------------------------- registration


def require_numbers(name: str, array_type: types.Array) -> None:
    """Reductions take arrays of numbers and booleans: strings and records are refused here."""
    if not isinstance(array_type.dtype, types.Number | types.Boolean):
        raise TypingError(
            f"{name}() of an array of {array_type.dtype} is not supported: ember reduces "
            "arrays of numbers and booleans"
        )


def _reduction(name: str, params: str, result: Callable, lower_all: Callable,
               lower_axis: Callable | None, method: bool = True) -> None:  # fmt: skip
    """Register `np.<name>(a, ...)` and `a.<name>(...)` with typer `result(array_type, *rest)`
    and lowerings for axis=None (`lower_all`) and an integer axis (`lower_axis`)."""

    def typer(a, *rest):
        if not isinstance(a, types.Array):
            return None
        require_numbers(name, a)
        axis = rest[0] if rest else types.none
        if not is_none(axis):
            if lower_axis is None or not isinstance(types.unliteral(axis), types.Integer):
                return None
            if a.ndim == 0:
                raise TypingError(f"{name}: axis given for a 0-d array")
            item = result(a, *rest)
            if a.ndim == 1 or item is None:  # NumPy gives a scalar, not a 0-d array
                return item
            return types.Array(item, a.ndim - 1, "C")
        return result(a, *rest)

    def lower(context, builder, sig, args):
        array_type = sig.args[0]
        fields = arr.unpack(builder, array_type, args[0])
        axis_type = sig.args[1] if len(sig.args) > 1 else types.none
        if is_none(axis_type):
            return lower_all(context, builder, sig, fields, args)
        axis = normalize_axis(
            context,
            builder,
            context.cast(builder, args[1], axis_type, types.int64),
            array_type.ndim,
        )
        if array_type.ndim == 1:  # the axis checked, the whole vector reduces
            return lower_all(context, builder, sig, fields, args)
        return lower_axis(context, builder, sig, fields, axis, args)

    np_typer(getattr(np, name), f"a, {params}" if params else "a")(typer)
    lower_builtin(getattr(np, name), VarArgs(types.Type))(lower)
    if method:
        np_typer((types.Array, name), f"self, {params}" if params else "self")(typer)
        lower_builtin((types.Array, name), VarArgs(types.Type))(lower)


# ---------------------------------------------------------------------------- sum, prod


def _sum_like(fn, identity: int):
    def result(a, axis=None, dtype=None):
        return sum_type(a.dtype) if is_none(dtype) else parse_dtype(dtype)

    def step_for(context, acc_type, item_type):
        def step(builder, acc, item, index):
            item = context.cast(builder, item, item_type, acc_type)
            if isinstance(acc_type, types.Boolean):  # dtype=bool: NumPy's add is `or`, mul `and`
                return builder.or_(acc, item) if fn is operator.add else builder.and_(acc, item)
            return _arith(context, builder, fn, acc_type, acc, item)

        return step

    def lower_all(context, builder, sig, fields, args):
        array_type = sig.args[0]
        acc_type = sig.return_type
        init = context.get_constant(acc_type, identity)
        step = step_for(context, acc_type, array_type.dtype)
        return reduce_all(context, builder, array_type, fields, context.value_type(acc_type),
                          init, step, memory_order=True)  # fmt: skip

    def lower_axis(context, builder, sig, fields, axis, args):
        array_type = sig.args[0]
        acc_type = sig.return_type.dtype
        step = step_for(context, acc_type, array_type.dtype)
        return reduce_axis(
            context, builder, array_type, fields, axis, sig.return_type,
            context.value_type(acc_type),
            lambda b, length: context.get_constant(acc_type, identity), step,
        )  # fmt: skip

    return result, lower_all, lower_axis


_reduction("sum", "axis=None, dtype=None", *_sum_like(operator.add, 0))
_reduction("prod", "axis=None, dtype=None", *_sum_like(operator.mul, 1))


# ---------------------------------------------------------------------------- min, max


def _better(builder, dtype, is_max: bool, item, acc):
    """item replaces acc: strictly better, or NaN (NumPy propagates NaN)."""
    better = _strictly_better(builder, dtype, is_max, item, acc)
    if isinstance(dtype, types.Float):
        return builder.or_(better, builder.fcmp_unordered("uno", item, item))
    return better


def _strictly_better(builder, dtype, is_max: bool, item, acc):
    """item > acc for max, item < acc for min (false when either is NaN)."""
    symbol = ">" if is_max else "<"
    if isinstance(dtype, types.Float):
        return builder.fcmp_ordered(symbol, item, acc)
    if isinstance(dtype, types.Complex):
        raise TypingError("min/max of complex arrays is not supported")
    if isinstance(dtype, types.Boolean) or not dtype.signed:
        return builder.icmp_unsigned(symbol, item, acc)
    return builder.icmp_signed(symbol, item, acc)


def _first_item(builder, array_type, fields):
    zero = [const(0)] * array_type.ndim
    return arr.load_item(builder, array_type.dtype,
                         arr.element_pointer(builder, array_type, fields, zero))  # fmt: skip


def _extreme_fold(dtype, is_max: bool, first):
    """(initial accumulator, step) of max/min. Floats fold with IEEE maximum/minimum, which
    propagate NaN as NumPy does and which LLVM vectorizes; integers keep the better of two,
    from `first` (the first item), or from each fold's first item when `first` is None."""
    if isinstance(dtype, types.Float):
        identity = llvm.Constant(arr.model_of(dtype).value_type, -math.inf if is_max else math.inf)
        intrinsic = "llvm.maximum" if is_max else "llvm.minimum"
        return identity, lambda b, acc, item, index: call_intrinsic(b, intrinsic, [acc, item])
    if first is not None:
        return first, lambda b, acc, item, index: b.select(
            _better(b, dtype, is_max, item, acc), item, acc
        )

    def step(b, acc, item, index):
        replace = b.or_(b.icmp_signed("==", index, const(0)), _better(b, dtype, is_max, item, acc))
        return b.select(replace, item, acc)

    return llvm.Constant(arr.model_of(dtype).value_type, None), step


def _scalar_extreme_step(dtype, is_max: bool) -> Callable | None:
    """The max/min step of a loop that does not vectorize, for floats: a comparison and a
    select, where IEEE maximum/minimum is a chain of sign and NaN tests (4.8 ns an item
    through a strided view). NaN propagates; of equal items (-0.0 and 0.0) the last stays,
    as in NumPy's own loop."""
    if not isinstance(dtype, types.Float):
        return None
    symbol = ">=" if is_max else "<="

    def step(b, acc, item, index):
        replace = b.or_(b.fcmp_ordered(symbol, item, acc), b.fcmp_unordered("uno", item, item))
        return b.select(replace, item, acc)

    return step


def _extreme(is_max: bool):
    word = "maximum" if is_max else "minimum"

    def result(a, axis=None):
        if isinstance(a.dtype, types.Complex):
            return None  # _complex_extreme below
        return a.dtype

    def check_empty(context, builder, length):
        empty = builder.icmp_signed("==", length, const(0))
        context.guard(
            builder,
            empty,
            ValueError,
            f"zero-size array to reduction operation {word} which has no identity",
        )

    def lower_all(context, builder, sig, fields, args):
        array_type = sig.args[0]
        check_empty(context, builder, fields.nitems)
        if array_type.ndim == 1 and array_type.layout != "C":  # a column, a[::k]: one scan
            # (arg_extremes builds on this module: imported here, when lowering)
            from ember.library.numpy.arg_extremes import scan

            stride = fields.strides[0]

            def item_at(b, k):
                return arr.load_item(
                    b, array_type.dtype, arr.offset_pointer(b, fields.data, b.mul(k, stride))
                )

            return scan(builder, array_type.dtype, is_max, item_at, fields.nitems, True)[0]
        first = _first_item(builder, array_type, fields)
        init, step = _extreme_fold(array_type.dtype, is_max, first)
        return reduce_all(
            context, builder, array_type, fields, init.type, init, step, memory_order=True,
            strided_step=_scalar_extreme_step(array_type.dtype, is_max),
        )  # fmt: skip

    def lower_axis(context, builder, sig, fields, axis, args):
        array_type = sig.args[0]
        check_empty(context, builder, _pick(builder, axis, fields.shape))
        init, step = _extreme_fold(array_type.dtype, is_max, None)
        return reduce_axis(context, builder, array_type, fields, axis, sig.return_type,
                           init.type, lambda b, length: init, step)  # fmt: skip

    return result, lower_all, lower_axis


_reduction("max", "axis=None", *_extreme(True))
_reduction("min", "axis=None", *_extreme(False))
if np.amax is not np.max:  # NumPy 2 keeps amax/amin as separate functions
    _reduction("amax", "axis=None", *_extreme(True), method=False)
    _reduction("amin", "axis=None", *_extreme(False), method=False)


# ---------------------------------------------------------------------------- all, any


def _all_any(is_all: bool):
    def result(a, axis=None):
        return types.boolean

    def step_for(context, dtype):
        def step(b, acc, item, index):
            truth = context.is_true(b, dtype, item)
            return b.and_(acc, truth) if is_all else b.or_(acc, truth)

        return step

    def lower_all(context, builder, sig, fields, args):
        array_type = sig.args[0]
        init = llvm.Constant(arr.i1, int(is_all))
        step = step_for(context, array_type.dtype)
        return reduce_all(
            context, builder, array_type, fields, arr.i1, init, step, memory_order=True
        )

    def lower_axis(context, builder, sig, fields, axis, args):
        array_type = sig.args[0]
        return reduce_axis(
            context, builder, array_type, fields, axis, sig.return_type, arr.i1,
            lambda b, length: llvm.Constant(arr.i1, int(is_all)),
            step_for(context, array_type.dtype),
        )  # fmt: skip

    return result, lower_all, lower_axis


_reduction("all", "axis=None", *_all_any(True))
_reduction("any", "axis=None", *_all_any(False))


# ---------------------------------------------------------------------------- mean, var, std


def _divide(context, builder, acc_type, value, count):
    """value / count in the accumulator's float type (complex divides both parts)."""
    if isinstance(acc_type, types.Complex):
        part = acc_type.underlying_float
        n = context.cast(builder, count, types.int64, part)
        real = builder.fdiv(builder.extract_value(value, 0), n)
        imag = builder.fdiv(builder.extract_value(value, 1), n)
        return builder.insert_value(builder.insert_value(value, real, 0), imag, 1)
    n = context.cast(builder, count, types.int64, acc_type)
    return builder.fdiv(value, n)


def _mean():
    def result(a, axis=None):
        return mean_type(a.dtype)

    def step_for(context, acc_type, dtype):
        def step(b, acc, item, index):
            return _arith(context, b, operator.add, acc_type, acc,
                          context.cast(b, item, dtype, acc_type))  # fmt: skip

        return step

    def lower_all(context, builder, sig, fields, args):
        array_type = sig.args[0]
        acc_type = sig.return_type
        init = context.get_constant(acc_type, 0)
        total = reduce_all(context, builder, array_type, fields, context.value_type(acc_type),
                           init, step_for(context, acc_type, array_type.dtype),
                           memory_order=True)  # fmt: skip
        return _divide(context, builder, acc_type, total, fields.nitems)

    def lower_axis(context, builder, sig, fields, axis, args):
        array_type = sig.args[0]
        acc_type = sig.return_type.dtype
        return reduce_axis(
            context, builder, array_type, fields, axis, sig.return_type,
            context.value_type(acc_type),
            lambda b, length: context.get_constant(acc_type, 0),
            step_for(context, acc_type, array_type.dtype),
            lambda b, acc, length: _divide(context, b, acc_type, acc, length),
        )  # fmt: skip

    return result, lower_all, lower_axis


_reduction("mean", "axis=None", *_mean())


def _variance(is_std: bool):
    def result(a, axis=None, ddof=0):
        if not isinstance(types.unliteral(ddof), (types.Integer, types.Float)):
            return None
        dtype = mean_type(a.dtype)
        return dtype.underlying_float if isinstance(dtype, types.Complex) else dtype

    def lower_all(context, builder, sig, fields, args):
        array_type = sig.args[0]
        dtype = array_type.dtype
        mean_acc = mean_type(dtype)
        out_type = sig.return_type
        mean_llvm = context.value_type(mean_acc)

        def add(b, acc, item, index):
            return _arith(
                context, b, operator.add, mean_acc, acc, context.cast(b, item, dtype, mean_acc)
            )

        total = reduce_all(context, builder, array_type, fields, mean_llvm,
                           context.get_constant(mean_acc, 0), add, memory_order=True)  # fmt: skip
        mean = _divide(context, builder, mean_acc, total, fields.nitems)

        def squares(b, acc, item, index):
            deviation = _arith(context, b, operator.sub, mean_acc,
                               context.cast(b, item, dtype, mean_acc), mean)  # fmt: skip
            return b.fadd(acc, _abs_squared(b, mean_acc, deviation))

        sum_squares = reduce_all(context, builder, array_type, fields, context.value_type(out_type),
                                 context.get_constant(out_type, 0), squares,
                                 memory_order=True)  # fmt: skip
        ddof = (
            context.cast(builder, args[2], sig.args[2], types.int64) if len(args) > 2 else const(0)
        )
        count = builder.sub(fields.nitems, ddof)
        count = builder.select(builder.icmp_signed("<", count, const(0)), const(0), count)
        variance = _divide(context, builder, out_type, sum_squares, count)
        if is_std:
            return call_intrinsic(builder, "llvm.sqrt", [variance])
        return variance

    return result, lower_all, None


def _abs_squared(builder, typ, value):
    if isinstance(typ, types.Complex):
        real, imag = builder.extract_value(value, 0), builder.extract_value(value, 1)
        return builder.fadd(builder.fmul(real, real), builder.fmul(imag, imag))
    return builder.fmul(value, value)


_reduction("var", "axis=None, ddof=0", *_variance(False))
_reduction("std", "axis=None, ddof=0", *_variance(True))


# ---------------------------------------------------------------------------- cumsum, cumprod


def _cumulative(name: str, fn, identity: int) -> None:
    def typer(a):
        if not isinstance(a, types.Array):
            return None
        require_numbers(name, a)
        return types.Array(sum_type(a.dtype), 1, "C")

    def lower(context, builder, sig, args):
        array_type = sig.args[0]
        out_type = sig.return_type
        acc_type = out_type.dtype
        fields = arr.unpack(builder, array_type, args[0])
        result = arr.allocate(context, builder, out_type, [fields.nitems])
        out = arr.unpack(builder, out_type, result)
        element = context.data_type(acc_type)

        def step(b, acc, item, index):
            acc = _arith(context, b, fn, acc_type, acc, context.cast(b, item, array_type.dtype,
                                                                    acc_type))  # fmt: skip
            pointer = b.gep(out.data, [index], inbounds=True, source_etype=element)
            arr.store_item(b, acc_type, acc, pointer)
            return acc

        reduce_all(context, builder, array_type, fields, context.value_type(acc_type),
                   context.get_constant(acc_type, identity), step)  # fmt: skip
        return result

    np_typer(getattr(np, name), "a")(typer)
    lower_builtin(getattr(np, name), types.Array)(lower)
    np_typer((types.Array, name), "self")(typer)
    lower_builtin((types.Array, name), types.Array)(lower)


_cumulative("cumsum", operator.add, 0)
_cumulative("cumprod", operator.mul, 1)


@functools.cache
def _cumulative_axis_impl(product: bool, dtype_name: str):
    """cumsum/cumprod along an axis: each slice along it combined with the running result."""
    np_type = np.dtype(dtype_name).type

    def cumulative(a, axis):
        if not -a.ndim <= axis < a.ndim:
            raise np.exceptions.AxisError("axis is out of bounds for the array")
        out = np.empty(a.shape, np_type)
        source = np.moveaxis(a, axis, 0)
        target = np.moveaxis(out, axis, 0)
        if source.shape[0]:
            target[0] = source[0]
        for i in range(1, source.shape[0]):
            target[i] = target[i - 1] * source[i] if product else target[i - 1] + source[i]
        return out

    return cumulative


def _register_cumulative_axis(name: str, product: bool) -> None:
    def select(a, axis):
        if not (isinstance(a, types.Array) and a.ndim >= 1):
            return None
        if not isinstance(types.unliteral(axis), types.Integer):
            return None
        require_numbers(name, a)
        return _cumulative_axis_impl(product, numpy_dtype(sum_type(a.dtype)).name)

    overload(getattr(np, name), jit_options=NUMPY_ERRORS)(select)
    overload_method(types.Array, name, jit_options=NUMPY_ERRORS)(select)


_register_cumulative_axis("cumsum", product=False)
_register_cumulative_axis("cumprod", product=True)


@functools.cache
def _cumulative_dtype_impl(product: bool, dtype_name: str, flat: bool):
    """cumsum/cumprod with `dtype=`: the items converted to it first, as NumPy accumulates."""
    np_type = np.dtype(dtype_name).type
    along = njit(**NUMPY_ERRORS)(_cumulative_axis_impl(product, dtype_name))
    if flat:
        return lambda a, axis=None, dtype=None: along(a.ravel().astype(np_type), 0)
    return lambda a, axis=None, dtype=None: along(a.astype(np_type), axis)


def _register_cumulative_dtype(name: str, product: bool) -> None:
    def select(a, axis=None, dtype=None):
        axis, dtype = as_type(axis), as_type(dtype)
        if isinstance(dtype, types.NoneType) or not isinstance(a, types.Array):
            return None
        flat = isinstance(axis, types.NoneType)
        if not (flat or isinstance(types.unliteral(axis), types.Integer)):
            return None
        require_numbers(name, a)
        result = parse_dtype(dtype)
        return _cumulative_dtype_impl(product, numpy_dtype(result).name, flat)

    overload(getattr(np, name), jit_options=NUMPY_ERRORS)(select)
    overload_method(types.Array, name, jit_options=NUMPY_ERRORS)(select)


_register_cumulative_dtype("cumsum", product=False)
_register_cumulative_dtype("cumprod", product=True)


# ---------------------------------------------------------------------------- x in a


@registry.typer(operator.contains)
def _type_contains(args, kws):
    container, item = args
    if isinstance(container, types.Array) and isinstance(types.unliteral(item), types.Number):
        return signature(types.boolean, container, types.unliteral(item))
    return None


@lower_builtin(operator.contains, types.Array, types.Number)
def array_contains(context, builder, sig, args):
    from ember.library.numpy.ufuncs import apply_loop, prepare_scalars, resolve_loop

    array_type, item_type = sig.args
    loop = resolve_loop(np.equal, (array_type, item_type))
    fields = arr.unpack(builder, array_type, args[0])
    context = numpy_context(context)
    # `300 in uint8s` is False: the item is compared exactly, never wrapped to the dtype
    (_, item_type), (_, item), finish = prepare_scalars(
        context, builder, loop, (array_type, item_type), [None, args[1]]
    )

    def step(b, acc, element, index):
        equal = apply_loop(context, b, loop, (array_type.dtype, item_type), [element, item])
        return b.or_(acc, finish(b, equal))

    return reduce_all(context, builder, array_type, fields, arr.i1,
                      llvm.Constant(arr.i1, 0), step, memory_order=True)  # fmt: skip


# ---------------------------------------------------------------------------- extremes of a scalar


def _scalar_extreme(a, axis=None):
    if axis is not None and axis != 0 and axis != -1:
        raise np.exceptions.AxisError("axis is out of bounds for a scalar")
    return a


def _register_scalar_extreme(function) -> None:
    """np.min/np.max/np.amin/np.amax of one number, bool, datetime or timedelta: itself."""

    @overload(function, jit_options=NUMPY_ERRORS)
    def select(a, axis=None):
        scalar = (types.Number, types.Boolean, types.NPDatetime, types.NPTimedelta)
        if isinstance(types.unliteral(a), scalar):
            return _scalar_extreme
        return None


for _function in {np.min, np.max, np.amin, np.amax}:
    _register_scalar_extreme(_function)


# ---------------------------------------------------------------------------- complex extremes


def complex_better(x, best, is_max):
    """NumPy's order of complex numbers: by real part, then by imaginary part."""
    if is_max:
        return x.real > best.real or (x.real == best.real and x.imag > best.imag)
    return x.real < best.real or (x.real == best.real and x.imag < best.imag)


complex_better_jit = njit(**NUMPY_ERRORS)(complex_better)


def _best_complex_index(line, is_max):
    """The index of the first best item of a non-empty 1-d complex `line`, or of its first
    NaN (in either part: NumPy propagates it)."""
    best = 0
    for k in range(line.shape[0]):
        x = line[k]
        if x != x:
            return k
        if complex_better_jit(x, line[best], is_max):
            best = k
    return best


_best_complex_index_jit = njit(**NUMPY_ERRORS)(_best_complex_index)


@functools.cache
def _complex_extreme(is_max: bool, arg: bool, along: bool, vector: bool = False):
    """max/min (`arg`: argmax/argmin) of a complex array, whole or along one axis (of a
    `vector`: the whole vector, once the axis is checked)."""
    word = ("argmax" if is_max else "argmin") if arg else ("maximum" if is_max else "minimum")
    empty = (
        f"attempt to get {word} of an empty sequence"
        if arg
        else f"zero-size array to reduction operation {word} which has no identity"
    )
    if not along:

        def whole(a, axis=None):
            if vector:
                _axis_jit(axis, 1)
            if a.size == 0:
                raise ValueError(empty)
            line = a.ravel()
            k = _best_complex_index_jit(line, is_max)
            return k if arg else line[k]

        return whole

    def along_axis(a, axis=None):
        ax = _axis_jit(axis, a.ndim)
        if a.shape[ax] == 0:
            raise ValueError(empty)
        lanes, shape = lanes_along_jit(a, ax)
        out = np.empty(lanes.shape[0], np.int64 if arg else a.dtype)
        for i in range(lanes.shape[0]):
            k = _best_complex_index_jit(lanes[i], is_max)
            out[i] = k if arg else lanes[i, k]
        return out.reshape(shape)

    return along_axis


def _register_complex_extreme(function, is_max: bool, arg: bool, method: str | None) -> None:
    def select(a, axis=None):
        if not (isinstance(a, types.Array) and isinstance(a.dtype, types.Complex)):
            return None
        axis = as_type(axis)
        if is_none(axis):
            return _complex_extreme(is_max, arg, False)
        if not isinstance(types.unliteral(axis), types.Integer):
            return None
        return _complex_extreme(is_max, arg, a.ndim > 1, a.ndim == 1)

    overload(function, jit_options=NUMPY_ERRORS)(select)
    if method:
        overload_method(types.Array, method, jit_options=NUMPY_ERRORS)(select)


_register_complex_extreme(np.max, True, False, "max")
_register_complex_extreme(np.min, False, False, "min")
_register_complex_extreme(np.argmax, True, True, "argmax")
_register_complex_extreme(np.argmin, False, True, "argmin")
if np.amax is not np.max:
    _register_complex_extreme(np.amax, True, False, None)
    _register_complex_extreme(np.amin, False, False, None)
