"""`a.flat` in compiled code: the array's elements by their C-order (row-major) position.

Of a C-contiguous array `a.flat` is a 1-d C view of the same data, so it indexes, assigns and
iterates as any 1-d array does. Of other layouts it is an `ArrayFlatType` holding the array:
`len`, iteration (an odometer over the index, ember/library/numpy/iteration.py) and indexing by
an integer, a slice or an integer array (a copy, as NumPy gives), and assignment through them.
"""

from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, overload, register_jitable
from ember.lowering import arrays as arr
from ember.lowering.models import StructModel, register_model
from ember.lowering.registry import lower_getattr
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry


def flat_is_view(array_type: types.Array) -> bool:
    """Whether the array's memory order is its C order: then `a.flat` is a plain 1-d view."""
    return array_type.layout == "C" or (array_type.ndim <= 1 and array_type.layout == "F")


class ArrayFlatType(types.Type):
    """`a.flat` of an array whose C order is not its memory order: {array}."""

    def __init__(self, array_type: types.Array) -> None:
        self.array_type = array_type
        super().__init__(f"flatiter({array_type})")

    @property
    def key(self):
        return self.array_type

    def _rebuild_args(self) -> tuple:
        return (self.array_type,)

    @property
    def iterator_type(self) -> types.Type:
        from ember.library.numpy.iteration import FlatIteratorType

        return FlatIteratorType(self.array_type)


@register_model(ArrayFlatType)
class ArrayFlatModel(StructModel):
    """The array itself (its one reference)."""

    def __init__(self, fe_type: ArrayFlatType) -> None:
        super().__init__(fe_type, [("array", fe_type.array_type)])


@registry.register_attr
class ArrayFlatAttribute(AttributeTemplate):
    key = types.Array

    def resolve_flat(self, ty):
        if flat_is_view(ty):
            return ty.copy(ndim=1, layout="C")
        return ArrayFlatType(ty)


@lower_getattr(types.Array, "flat")
def array_flat(context, builder, typ, value):
    fields = arr.unpack(builder, typ, value)
    if not flat_is_view(typ):
        arr.nrt_incref_fields(builder, fields)
        holder = llvm.Constant(context.value_type(ArrayFlatType(typ)), llvm.Undefined)
        return builder.insert_value(holder, value, 0)
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
    return arr.pack(builder, typ.copy(ndim=1, layout="C"), view)


# ---------------------------------------------------------------------------- helpers


@intrinsic
def _array_of(typingctx, flat):
    """The array behind `a.flat` (a new reference)."""
    if not isinstance(flat, ArrayFlatType):
        return None

    def codegen(context, builder, sig, args):
        array = builder.extract_value(args[0], 0)
        arr.incref(builder, sig.return_type, array)
        return array

    return signature(flat.array_type, flat), codegen


@intrinsic
def _c_order_index(typingctx, position, shape):
    """The index tuple of the element at C-order `position` (0 <= position < size) of an
    array of `shape`: the last index moves fastest."""
    ndim = len(shape)
    result = types.UniTuple(types.intp, ndim)

    def codegen(context, builder, sig, args):
        rest = context.cast(builder, args[0], sig.args[0], types.intp)
        index = [None] * ndim
        for k in range(ndim - 1, 0, -1):
            extent = builder.extract_value(args[1], k)
            index[k] = builder.srem(rest, extent)
            rest = builder.sdiv(rest, extent)
        if ndim:
            index[0] = rest
        value = llvm.Constant(context.value_type(result), llvm.Undefined)
        for k in range(ndim):
            value = builder.insert_value(value, index[k], k)
        return value

    return signature(result, position, shape), codegen


@register_jitable
def _position(index, size):
    """A flat index, negative counted from the end, checked as NumPy checks it."""
    position = index + size if index < 0 else index
    if position < 0 or position >= size:
        raise IndexError("index out of bounds for the flat iterator (its size)")
    return position


@register_jitable
def _positions(selector, size):
    """The C-order positions a slice or an integer array picks, as a 1-d int64 array."""
    return np.arange(size)[selector].ravel()


def _is_int_array(index) -> bool:
    return isinstance(index, types.Array) and isinstance(index.dtype, types.Integer)


# ---------------------------------------------------------------------------- len, [], []=


@overload(len)
def flat_len(flat):
    if isinstance(flat, ArrayFlatType):
        return lambda flat: _array_of(flat).size
    return None


@overload(operator.getitem)
def flat_getitem(flat, index):
    if not isinstance(flat, ArrayFlatType):
        return None
    if isinstance(index, types.Integer):

        def get_one(flat, index):
            a = _array_of(flat)
            return a[_c_order_index(_position(index, a.size), a.shape)]

        return get_one
    if isinstance(index, types.SliceType) or _is_int_array(index):

        def get_many(flat, index):
            a = _array_of(flat)
            positions = _positions(index, a.size)
            out = np.empty(positions.size, a.dtype)
            for k in range(positions.size):
                out[k] = a[_c_order_index(positions[k], a.shape)]
            return out

        return get_many
    raise TypingError(
        f"a.flat[{index}] is not supported: index a.flat with an integer, a slice or an "
        "integer array"
    )


@overload(operator.setitem)
def flat_setitem(flat, index, value):
    if not isinstance(flat, ArrayFlatType):
        return None
    if isinstance(index, types.Integer):

        def set_one(flat, index, value):
            a = _array_of(flat)
            a[_c_order_index(_position(index, a.size), a.shape)] = value

        return set_one
    if not (isinstance(index, types.SliceType) or _is_int_array(index)):
        raise TypingError(
            f"a.flat[{index}] = ... is not supported: assign through an integer, a slice or "
            "an integer array"
        )
    if isinstance(value, (types.Array, types.BaseTuple, types.List)):

        def set_cycling(flat, index, value):
            """NumPy repeats the values over the positions when there are fewer of them."""
            a = _array_of(flat)
            positions = _positions(index, a.size)
            values = np.asarray(value).ravel()
            if values.size == 0:
                return
            for k in range(positions.size):
                a[_c_order_index(positions[k], a.shape)] = values[k % values.size]

        return set_cycling

    def set_many(flat, index, value):
        a = _array_of(flat)
        positions = _positions(index, a.size)
        for k in range(positions.size):
            a[_c_order_index(positions[k], a.shape)] = value

    return set_many
