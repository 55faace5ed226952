"""Joining arrays: np.concatenate and np.stack of tuples of arrays, lowered directly: each input
is assigned into its view of the result with the broadcasting assignment of arrays_kernels.py
(tuples of more arrays than UNROLLED_JOIN_LIMIT go to the loop form in axis_forms2.py)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.library.numpy.support import (
    from_numpy_dtype,
    is_array,
    np_typer,
    numpy_dtype,
)
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering.arrays import ArrayFields, const
from ember.lowering.registry import lower_builtin


def _common_dtype(*dtypes) -> types.Type:
    return from_numpy_dtype(np.result_type(*(numpy_dtype(d) for d in dtypes)))


def _join_inputs(arrays) -> tuple | None:
    arrays = types.unliteral(arrays)
    if not isinstance(arrays, types.BaseTuple) or len(arrays) == 0:
        return None
    if not all(is_array(t) for t in arrays.types):
        return None
    ndims = {t.ndim for t in arrays.types}
    if len(ndims) != 1:
        raise TypingError("all the input arrays must have the same number of dimensions")
    return tuple(arrays.types)


# Beyond this many arrays a tuple is joined by a loop over a list of them (axis_forms2): the
# code unrolled over every member grows past what LLVM's register allocator survives (an abort
# at ~25).
UNROLLED_JOIN_LIMIT = 16


def many_arrays(arrays) -> bool:
    """A tuple of more arrays of one type than the unrolled join takes."""
    return (
        isinstance(arrays, types.UniTuple)
        and is_array(arrays.dtype)
        and len(arrays) > UNROLLED_JOIN_LIMIT
    )


@np_typer(np.concatenate, "arrays, axis=0")
def _type_concatenate(arrays, axis):
    if many_arrays(arrays):  # joined by a loop instead (axis_forms2)
        return None
    members = _join_inputs(arrays)
    if members is None or not isinstance(types.unliteral(axis), types.Integer):
        return None
    if members[0].ndim == 0:
        raise TypingError("zero-dimensional arrays cannot be concatenated")
    # NumPy orders the result as its inputs: Fortran when they all are
    fortran = members[0].ndim > 1 and all(m.layout == "F" for m in members)
    dtype = _common_dtype(*(m.dtype for m in members))
    return types.Array(dtype, members[0].ndim, "F" if fortran else "C")


def _view_along(builder, out_type, out: ArrayFields, axis, start, length) -> ArrayFields:
    """out[..., start:start+length, ...] along a run-time `axis`."""
    shape, data = [], out.data
    for k, (dim, stride) in enumerate(zip(out.shape, out.strides)):
        here = builder.icmp_signed("==", axis, const(k))
        shape.append(builder.select(here, length, dim))
        offset = builder.select(here, builder.mul(start, stride), const(0))
        data = arr.offset_pointer(builder, data, offset)
    return ArrayFields(out.meminfo, out.parent, arr.product(builder, shape), out.itemsize, data,
                       shape, list(out.strides))  # fmt: skip


def _joined_inputs(context, builder, sig, args):
    """(member types, result type, the normalized axis, each member's fields) of a join."""
    from ember.library.numpy.reductions import normalize_axis

    members = tuple(sig.args[0].types)
    out_type = sig.return_type
    axis = normalize_axis(context, builder, context.cast(builder, args[1], sig.args[1],
                                                         types.int64), out_type.ndim)  # fmt: skip
    inputs = [arr.unpack(builder, t, builder.extract_value(args[0], i))
              for i, t in enumerate(members)]  # fmt: skip
    return members, out_type, axis, inputs


@lower_builtin(np.concatenate, types.BaseTuple, types.Type)
def np_concatenate(context, builder, sig, args):
    from ember.library.numpy.reductions import _pick

    members, out_type, axis, inputs = _joined_inputs(context, builder, sig, args)
    ndim = out_type.ndim
    first = inputs[0]
    total = const(0)
    bad = [llvm.Constant(arr.i1, 0)] * ndim  # per dimension: its message names it
    for fields in inputs:
        total = builder.add(total, _pick(builder, axis, fields.shape))
        for k in range(ndim):
            differs = builder.icmp_signed("!=", fields.shape[k], first.shape[k])
            off_axis = builder.icmp_signed("!=", axis, const(k))
            bad[k] = builder.or_(bad[k], builder.and_(differs, off_axis))
    for k in range(ndim):
        context.guard(
            builder,
            bad[k],
            ValueError,
            "all the input array dimensions except for the concatenation axis must match: "
            f"input sizes over dimension {k} do not match",
        )
    shape = [builder.select(builder.icmp_signed("==", axis, const(k)), total, first.shape[k])
             for k in range(ndim)]  # fmt: skip
    result = arr.allocate(context, builder, out_type, shape, order=out_type.layout)
    out = arr.unpack(builder, out_type, result)
    start = const(0)
    view_type = out_type.copy(layout="A")
    for member_type, fields, index in zip(members, inputs, range(len(members))):
        length = _pick(builder, axis, fields.shape)
        view = _view_along(builder, out_type, out, axis, start, length)
        kernels.assign(context, builder, view_type, view, member_type,
                       builder.extract_value(args[0], index))  # fmt: skip
        start = builder.add(start, length)
    return result


@np_typer(np.stack, "arrays, axis=0")
def _type_stack(arrays, axis):
    members = _join_inputs(arrays)
    if members is None or not isinstance(types.unliteral(axis), types.Integer):
        return None
    return types.Array(_common_dtype(*(m.dtype for m in members)), members[0].ndim + 1, "C")


@lower_builtin(np.stack, types.BaseTuple, types.Type)
def np_stack(context, builder, sig, args):
    members, out_type, axis, inputs = _joined_inputs(context, builder, sig, args)
    ndim = out_type.ndim
    first = inputs[0]
    bad = llvm.Constant(arr.i1, 0)
    for fields in inputs[1:]:
        for have, want in zip(fields.shape, first.shape):
            bad = builder.or_(bad, builder.icmp_signed("!=", have, want))
    context.guard(builder, bad, ValueError, "all input arrays must have the same shape")
    # the result's shape: the inputs' shape with len(arrays) inserted at `axis`
    count = const(len(members))
    shape = []
    for k in range(ndim):
        before = builder.icmp_signed("<", const(k), axis)
        at = builder.icmp_signed("==", const(k), axis)
        inner = first.shape[k] if k < ndim - 1 else const(1)
        outer = first.shape[k - 1] if k > 0 else const(1)
        shape.append(builder.select(at, count, builder.select(before, inner, outer)))
    result = arr.allocate(context, builder, out_type, shape)
    out = arr.unpack(builder, out_type, result)
    view_type = out_type.copy(ndim=ndim - 1, layout="A")
    for index, (member_type, _fields) in enumerate(zip(members, inputs)):
        # out[(slice,)*axis + (index,)]: drop dimension `axis` at offset index*stride[axis]
        data = out.data
        view_shape, view_strides = [], []
        for k in range(ndim - 1):
            before = builder.icmp_signed("<", const(k), axis)
            view_shape.append(builder.select(before, out.shape[k], out.shape[k + 1]))
            view_strides.append(builder.select(before, out.strides[k], out.strides[k + 1]))
        for k in range(ndim):
            here = builder.icmp_signed("==", axis, const(k))
            offset = builder.select(here, builder.mul(const(index), out.strides[k]), const(0))
            data = arr.offset_pointer(builder, data, offset)
        view = ArrayFields(out.meminfo, out.parent, arr.product(builder, view_shape),
                           out.itemsize, data, view_shape, view_strides)  # fmt: skip
        kernels.assign(context, builder, view_type, view, member_type,
                       builder.extract_value(args[0], index))  # fmt: skip
    return result
