"""Flat and indexed iteration over arrays: `a.flat`, `np.ndenumerate(a)` and the read-only,
one-operand `np.nditer(a)`.

`a.flat` of a C-contiguous array is typed as a 1-d C view of the same data (the same meminfo,
shape (a.size,)), so integer indexing, assignment, `len` and iteration work as on any 1-d array.
Other layouts are a TypingError (their elements need not be one item apart).

`np.ndenumerate(a)` is an iterator like `enumerate` over arrays: its state, in the entry block
of the function that made it, is {array, items left, index[ndim]}; `next` yields
(index tuple, element) in C order, advancing the index like an odometer.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload
from ember.lowering import arrays as arr
from ember.lowering.iterators import iternext_pair
from ember.lowering.models import OpaqueModel, register_model
from ember.lowering.registry import lower_builtin, lower_getattr
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry

# ---------------------------------------------------------------------------- a.flat


def flat_type(array_type: types.Array) -> types.Array:
    return array_type.copy(ndim=1, layout="C")


@registry.register_attr
class ArrayFlatAttribute(AttributeTemplate):
    key = types.Array

    def resolve_flat(self, ty):
        if not (ty.layout == "C" or (ty.ndim <= 1 and ty.layout == "F")):
            raise TypingError(
                f"'flat' of a non C-contiguous array ({ty}) is not supported: use "
                "np.ravel(a) to read, or np.ndenumerate(a) to visit every element"
            )
        return flat_type(ty)


@lower_getattr(types.Array, "flat")
def array_flat(context, builder, typ, value):
    fields = arr.unpack(builder, typ, value)
    view = arr.ArrayFields(
        fields.meminfo,
        fields.parent,
        fields.nitems,
        fields.itemsize,
        fields.data,
        [fields.nitems],
        [arr.const(arr.itemsize_of(typ.dtype))],
    )
    arr.nrt_incref_fields(builder, view)
    return arr.pack(builder, flat_type(typ), view)


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
    return None


@lower_builtin(iter, NdEnumerateType)
def ndenumerate_iter(context, builder, sig, args):
    return args[0]


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
        element = arr.load_item(
            builder, array_type.dtype, arr.element_pointer(builder, array_type, fields, index)
        )
        element = context.cast(
            builder, element, array_type.dtype, iterator_type.yield_type.types[1]
        )
        _advance_odometer(builder, index, slots, fields.shape)
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


@overload(np.nditer)
def nditer(op):
    """`np.nditer(a)` read-only, one operand: elements in memory order (NumPy's order='K'),
    each a 0-d array (`x.item()`, `x[()]`)."""
    if not isinstance(op, types.Array):
        raise TypingError(
            f"np.nditer({op}) is not supported: ember's nditer takes one array (iterate "
            "several arrays with zip over their .ravel())"
        )
    if op.layout == "C" or op.ndim <= 1 and op.layout == "F":
        return _c_order
    return _f_order if op.layout == "F" else _strided_order


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
    if not shape or not all(isinstance(extent, types.Integer) for extent in shape):
        raise TypingError(
            f"np.ndindex() takes integers or one non-empty tuple of integers, not {shape}"
        )
    return impl
