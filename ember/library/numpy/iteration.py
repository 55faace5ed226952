"""Indexed iteration over arrays: `np.ndenumerate(a)`, `iter(a.flat)` of arrays that are not
C-contiguous, `np.nditer` and `np.ndindex`.

`np.ndenumerate(a)` is an iterator like `enumerate` over arrays: its state, in the entry block
of the function that made it, is {array, items left, index[ndim]}; `next` yields
(index tuple, element) in C order, advancing the index like an odometer. The iterator of
`a.flat` is the same odometer yielding only the elements.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload
from ember.library.numpy.flat import ArrayFlatType
from ember.lowering import arrays as arr
from ember.lowering.iterators import iternext_pair
from ember.lowering.models import OpaqueModel, register_model
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature
from ember.typing.templates import registry

# ---------------------------------------------------------------------------- np.ndenumerate


class NdEnumerateType(types.Type):
    """`np.ndenumerate(a)`: a pointer to {array, items left, index[ndim]}; yields
    (UniTuple(int64, ndim), element)."""

    def __init__(self, array_type: types.Array) -> None:
        self.array_type = array_type
        self.yield_type = types.Tuple(
            (
                types.UniTuple(types.int64, array_type.ndim),
                types.element_value_type(array_type.dtype),
            )
        )
        super().__init__(f"ndenumerate({array_type})")

    @property
    def key(self):
        return self.array_type

    def _rebuild_args(self) -> tuple:
        return (self.array_type,)


class FlatIteratorType(NdEnumerateType):
    """`iter(a.flat)` of an array that is not C-contiguous: the ndenumerate odometer, yielding
    only the elements."""

    def __init__(self, array_type: types.Array) -> None:
        super().__init__(array_type)
        self.yield_type = types.element_value_type(array_type.dtype)
        self.name = f"iter(flatiter({array_type}))"


@register_model(NdEnumerateType)
class NdEnumerateModel(OpaqueModel):
    """A pointer to the iterator state in the entry block of the function that made it."""


@registry.typer(np.ndenumerate)
def _type_ndenumerate(args, kws):
    if len(args) == 1 and not kws and isinstance(args[0], types.Array):
        return signature(NdEnumerateType(args[0]), args[0])
    return None


@registry.typer(iter)
def _type_iter(args, kws):
    if len(args) == 1 and not kws and isinstance(args[0], NdEnumerateType):
        return signature(args[0], args[0])
    if len(args) == 1 and not kws and isinstance(args[0], ArrayFlatType):
        return signature(args[0].iterator_type, args[0])
    return None


@lower_builtin(iter, NdEnumerateType)
def ndenumerate_iter(context, builder, sig, args):
    return args[0]


@lower_builtin(iter, ArrayFlatType)
def flat_iter(context, builder, sig, args):
    array_type = sig.args[0].array_type
    array = builder.extract_value(args[0], 0)
    return ndenumerate_impl(context, builder, signature(sig.return_type, array_type), [array])


def _state_type(context, array_type: types.Array) -> llvm.LiteralStructType:
    index = llvm.ArrayType(arr.i64, array_type.ndim)
    return llvm.LiteralStructType([context.value_type(array_type), arr.i64, index])


def _slot(builder, state, state_type, *path):
    return builder.gep(state, [arr.i32_(0), *(arr.i32_(p) for p in path)], source_etype=state_type)


@lower_builtin(np.ndenumerate, types.Array)
def ndenumerate_impl(context, builder, sig, args):
    """The state holds a reference to the array until the function returns (or this iterator
    is made again)."""
    array_type, value = sig.args[0], args[0]
    array_llvm = context.value_type(array_type)
    state_type = _state_type(context, array_type)
    state = arr.alloca_in_entry(builder, state_type, name="ndenumerate")
    arr.store_in_entry(builder, llvm.Constant(state_type, None), state)
    array_slot = _slot(builder, state, state_type, 0)
    arr.decref(builder, array_type, builder.load(array_slot, typ=array_llvm))
    arr.incref(builder, array_type, value)
    builder.store(value, array_slot)
    fields = arr.unpack(builder, array_type, value)
    builder.store(fields.nitems, _slot(builder, state, state_type, 1))
    for k in range(array_type.ndim):
        builder.store(arr.const(0), _slot(builder, state, state_type, 2, k))

    def release(exit_builder):
        slot = _slot(exit_builder, state, state_type, 0)
        arr.decref(exit_builder, array_type, exit_builder.load(slot, typ=array_llvm))

    arr.at_function_exit(builder, release)
    return state


@lower_builtin(next, NdEnumerateType)
def ndenumerate_next(context, builder, sig, args):
    iterator_type = sig.args[0]
    array_type = iterator_type.array_type
    ndim = array_type.ndim
    state_type = _state_type(context, array_type)
    state = args[0]
    array_value = builder.load(
        _slot(builder, state, state_type, 0), typ=context.value_type(array_type)
    )
    left_slot = _slot(builder, state, state_type, 1)
    left = builder.load(left_slot, typ=arr.i64)
    valid = builder.icmp_signed(">", left, arr.const(0))
    item_llvm = context.value_type(iterator_type.yield_type)
    before = builder.block
    with builder.if_then(valid, likely=True):
        builder.store(builder.sub(left, arr.const(1)), left_slot)
        fields = arr.unpack(builder, array_type, array_value)
        slots = [_slot(builder, state, state_type, 2, k) for k in range(ndim)]
        index = [builder.load(slot, typ=arr.i64) for slot in slots]
        pointer = arr.element_pointer(builder, array_type, fields, index)
        if isinstance(array_type.dtype, types.Record):  # a view keeping its array alive
            element = arr.record_of_array(builder, array_type.dtype, fields, pointer)
        else:
            element = arr.load_item(builder, array_type.dtype, pointer)
        element_type = types.element_value_type(array_type.dtype)
        element = context.cast(builder, element, array_type.dtype, element_type)
        _advance_odometer(builder, index, slots, fields.shape)
        item = element
        if not isinstance(iterator_type, FlatIteratorType):
            index_type = iterator_type.yield_type.types[0]
            index_value = llvm.Constant(context.value_type(index_type), llvm.Undefined)
            for k in range(ndim):
                index_value = builder.insert_value(index_value, index[k], k)
            item = llvm.Constant(item_llvm, llvm.Undefined)
            item = builder.insert_value(builder.insert_value(item, index_value, 0), element, 1)
        filled = builder.block
    return iternext_pair(context, builder, sig, (item, filled), before, valid)


def _advance_odometer(builder, index: list, slots: list, shape: list) -> None:
    """The next index in C order: the last moves fastest. Its wrap-around, once a row, takes
    a branch (predicted), so consecutive items do not wait on a chain of selects."""
    last = len(index) - 1
    if last < 0:  # a 0-d array: its one item, then the count of items left ends it
        return
    moved = builder.add(index[last], arr.const(1))
    wrapped = builder.icmp_signed(">=", moved, shape[last])
    with builder.if_else(wrapped, likely=False) as (carry_over, same_row):
        with same_row:
            builder.store(moved, slots[last])
        with carry_over:
            builder.store(arr.const(0), slots[last])
            carry = arr.const(1)
            for k in range(last - 1, -1, -1):
                moved = builder.add(index[k], carry)
                wrapped = builder.icmp_signed(">=", moved, shape[k])
                builder.store(builder.select(wrapped, arr.const(0), moved), slots[k])
                carry = builder.zext(wrapped, arr.i64)  # indices stay below their dimension


# ---------------------------------------------------------------------------- np.nditer


@njit
def _nditer_elements(flat):
    """Each element of a 1-d C array as a 0-d array view (what NumPy's nditer yields)."""
    for i in range(flat.size):
        yield flat[i : i + 1].reshape(())


@njit
def _memory_order_elements(a):
    """NumPy's order='K' for any strides: axes from the largest |stride| to the smallest,
    axes with negative strides walked backwards; elements read from a C-order copy."""
    flat = a.ravel()
    nd = a.ndim
    shape = np.empty(nd, np.int64)
    strides = np.empty(nd, np.int64)
    c_stride = np.empty(nd, np.int64)
    step = 1
    for k in range(nd - 1, -1, -1):
        shape[k] = a.shape[k]
        strides[k] = a.strides[k] if a.shape[k] > 1 else 0
        c_stride[k] = step
        step *= a.shape[k]
    axes = np.argsort(-np.abs(strides), kind="mergesort")
    position = np.zeros(nd, np.int64)
    for _ in range(flat.size):
        index = 0
        for k in range(nd):
            axis = axes[k]
            i = position[k]
            if strides[axis] < 0:
                i = shape[axis] - 1 - i
            index += i * c_stride[axis]
        yield flat[index : index + 1].reshape(())
        k = nd - 1
        while k >= 0:
            position[k] += 1
            if position[k] < shape[axes[k]]:
                break
            position[k] = 0
            k -= 1


def _c_order(a):
    if a.size == 0:
        raise ValueError("Iteration of zero-sized operands is not enabled")
    return _nditer_elements(a.ravel())


def _f_order(a):
    if a.size == 0:
        raise ValueError("Iteration of zero-sized operands is not enabled")
    return _nditer_elements(a.T.ravel())  # an F array's memory order is its transpose's C


def _strided_order(a):
    if a.size == 0:
        raise ValueError("Iteration of zero-sized operands is not enabled")
    return _memory_order_elements(a)


def _scalar_order(x):
    return _nditer_elements(np.asarray(x).reshape(1))


def _is_operand(typ) -> bool:
    return isinstance(typ, (types.Array, types.Number, types.Boolean))


@overload(np.nditer)
def nditer(op):
    """`np.nditer(a)` read-only: each element a 0-d array (`x.item()`, `x[()]`). One operand
    (an array or a number) is walked in memory order (NumPy's order='K'); a tuple of operands
    is broadcast together and walked in the C order of the broadcast shape, yielding a tuple
    of 0-d views."""
    if isinstance(op, types.BaseTuple) and len(op) == 1 and _is_operand(op.types[0]):
        return lambda op: np.nditer(op[0])  # NumPy yields the elements, not 1-tuples
    if isinstance(op, types.BaseTuple) and len(op) > 1 and all(map(_is_operand, op)):
        return _several_operands
    if isinstance(op, (types.Number, types.Boolean)):
        return _scalar_order
    if not isinstance(op, types.Array):
        raise TypingError(
            f"np.nditer({op}) is not supported: ember's nditer takes an array, a number or a "
            "tuple of them"
        )
    if op.layout == "C" or op.ndim <= 1 and op.layout == "F":
        return _c_order
    return _f_order if op.layout == "F" else _strided_order


def _several_operands(op):
    arrays = _operand_arrays(op)
    shape = _broadcast_shape(arrays)
    size = 1
    for extent in shape:
        size *= extent
    if size == 0:
        raise ValueError("Iteration of zero-sized operands is not enabled")
    return _broadcast_elements(arrays, shape, size)


@njit
def _broadcast_elements(arrays, shape, size):
    for position in range(size):
        yield _views_at(arrays, shape, position)


def _zero_d(typ: types.Type) -> types.Array:
    dtype = typ.dtype if isinstance(typ, types.Array) else typ
    return types.Array(dtype, 0, "C")


@intrinsic
def _operand_arrays(typingctx, operands):
    """The operands with each number made a new 0-d array (arrays pass as they are)."""
    members = tuple(operands)
    result_members = tuple(
        t if isinstance(t, types.Array) else _zero_d(types.unliteral(t)) for t in members
    )
    result = types.Tuple(result_members)

    def codegen(context, builder, sig, args):
        value = llvm.Constant(context.value_type(result), llvm.Undefined)
        for k, (given, made) in enumerate(zip(members, result_members)):
            member = builder.extract_value(args[0], k)
            if isinstance(given, types.Array):
                arr.incref(builder, given, member)
            else:
                zero_d = arr.allocate(context, builder, made, [])
                item = context.cast(builder, member, given, made.dtype)
                data = arr.unpack(builder, made, zero_d).data
                arr.store_item(builder, made.dtype, item, data)
                member = zero_d
            value = builder.insert_value(value, member, k)
        return value

    return signature(result, operands), codegen


@intrinsic
def _broadcast_shape(typingctx, arrays):
    """The shape the arrays broadcast to (NumPy's rules), or ValueError."""
    members = tuple(arrays)
    ndim = max(t.ndim for t in members)
    result = types.UniTuple(types.intp, ndim)

    def codegen(context, builder, sig, args):
        shapes = [
            arr.unpack(builder, t, builder.extract_value(args[0], k)).shape
            for k, t in enumerate(members)
        ]
        one = arr.const(1)
        value = llvm.Constant(context.value_type(result), llvm.Undefined)
        mismatch = llvm.Constant(arr.i1, 0)
        for axis in range(ndim):
            extent = one
            for shape in shapes:
                position = axis - (ndim - len(shape))
                if position < 0:
                    continue
                other = shape[position]
                clash = builder.and_(
                    builder.icmp_signed("!=", extent, one),
                    builder.and_(
                        builder.icmp_signed("!=", other, one),
                        builder.icmp_signed("!=", other, extent),
                    ),
                )
                mismatch = builder.or_(mismatch, clash)
                extent = builder.select(builder.icmp_signed("==", extent, one), other, extent)
            value = builder.insert_value(value, extent, axis)
        context.guard(builder, mismatch, ValueError, "operands could not be broadcast together")
        return value

    return signature(result, arrays), codegen


@intrinsic
def _views_at(typingctx, arrays, shape, position):
    """A 0-d view of each array's element at C-order `position` of the broadcast `shape` (an
    array's axis of extent 1 stays at 0)."""
    members = tuple(arrays)
    ndim = len(shape)
    result = types.Tuple(tuple(types.Array(t.dtype, 0, "C") for t in members))

    def codegen(context, builder, sig, args):
        index = [None] * ndim
        rest = args[2]
        for axis in range(ndim - 1, -1, -1):
            extent = builder.extract_value(args[1], axis)
            index[axis] = builder.srem(rest, extent)
            rest = builder.sdiv(rest, extent)
        value = llvm.Constant(context.value_type(result), llvm.Undefined)
        for k, array_type in enumerate(members):
            fields = arr.unpack(builder, array_type, builder.extract_value(args[0], k))
            offset = arr.const(0)
            for position in range(array_type.ndim):
                i = index[ndim - array_type.ndim + position]
                moves = builder.icmp_signed("!=", fields.shape[position], arr.const(1))
                step = builder.select(moves, fields.strides[position], arr.const(0))
                offset = builder.add(offset, builder.mul(i, step))
            view = arr.ArrayFields(
                fields.meminfo,
                fields.parent,
                arr.const(1),
                fields.itemsize,
                arr.offset_pointer(builder, fields.data, offset),
            )
            arr.nrt_incref_fields(builder, view)
            value = builder.insert_value(value, arr.pack(builder, result.types[k], view), k)
        return value

    return signature(result, arrays, shape, position), codegen


# ---------------------------------------------------------------------------- np.ndindex


@intrinsic
def _shaped_nothing(typingctx, shape):
    """A read-only boolean array of `shape` (a tuple of integers) whose every element is one
    static byte: strides are zero, so nothing is allocated whatever the shape."""
    members = tuple(shape)
    ndim = len(members)
    result = types.Array(types.boolean, ndim, "A", readonly=True)

    def codegen(context, builder, sig, args):
        one_byte = builder.module.globals.get("ember.ndindex.byte")
        if one_byte is None:
            one_byte = llvm.GlobalVariable(builder.module, arr.i8, "ember.ndindex.byte")
            one_byte.initializer = llvm.Constant(arr.i8, 0)
            one_byte.linkage = "internal"
        extents = [
            context.cast(builder, builder.extract_value(args[0], k), members[k], types.intp)
            for k in range(ndim)
        ]
        count = arr.const(1)
        for extent in extents:
            count = builder.mul(count, extent)
        null = llvm.Constant(arr.ptr, None)
        fields = arr.ArrayFields(
            null, null, count, arr.const(1), one_byte, extents, [arr.const(0)] * ndim
        )
        return arr.pack(builder, result, fields)

    return signature(result, shape), codegen


@njit
def _indices_of(shaped):
    """The index tuples of an array's shape, last index fastest."""
    for index, _ in np.ndenumerate(shaped):
        yield index


def _ndindex_of_tuple(*shape):
    return _indices_of(_shaped_nothing(shape[0]))


def _ndindex_of_ints(*shape):
    return _indices_of(_shaped_nothing(shape))


@overload(np.ndindex)
def ndindex(*shape):
    """`np.ndindex(*shape)` or `np.ndindex(shape)`: each index tuple of the shape, in C order."""
    if len(shape) == 1 and isinstance(shape[0], types.BaseTuple):
        shape, impl = tuple(shape[0]), _ndindex_of_tuple
    else:
        impl = _ndindex_of_ints
    if not all(isinstance(extent, types.Integer) for extent in shape):
        raise TypingError(f"np.ndindex() takes integers or one tuple of integers, not {shape}")
    return impl
