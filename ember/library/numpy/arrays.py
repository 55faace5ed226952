"""Arrays in compiled code: attributes (`flags` and `ctypes` too), `len`, iteration, `slice`
objects, NumPy scalar classes and dtypes as values, conversions between array types, and
`x.view(dtype)` of integer and float scalars.

Indexing lives in indexing.py; NumPy functions in the other modules here.
"""

from __future__ import annotations

import collections
import operator

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.dispatcher.typeof import typeof_impl
from ember.errors import TypingError
from ember.extending import intrinsic, overload, overload_attribute, overload_method
from ember.library.numpy.support import (
    _SCALAR_CLASSES,
    numpy_dtype,
    parse_dtype,
    refuse_complex_to_real,
)
from ember.lowering import arrays as arr
from ember.lowering import iterators
from ember.lowering.boxing import NativeValue
from ember.lowering.models import OpaqueModel as _OpaqueModel
from ember.lowering.models import register_model
from ember.lowering.registry import box, lower_builtin, lower_cast, lower_getattr, unbox
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry

# ---------------------------------------------------------------------------- values as types


@typeof_impl.register(np.dtype)
def _typeof_dtype(value):
    from ember.dispatcher.typeof import dtype_value_type

    return dtype_value_type(value)


@typeof_impl.register(type(Ellipsis))
def _typeof_ellipsis(value):
    return types.ellipsis_type


for _scalar_class, _scalar_type in _SCALAR_CLASSES.items():

    @registry.typer(_scalar_class)
    def _type_scalar_class(args, kws, _scalar_type=_scalar_type):
        if len(args) == 1 and not kws and isinstance(types.unliteral(args[0]), types.Number):
            refuse_complex_to_real(f"np.{_scalar_type}", types.unliteral(args[0]), _scalar_type)
            # np.int64(k) is a NumPy scalar: strong beside an array (NEP 50)
            return signature(types.numpy_scalar(_scalar_type), types.unliteral(args[0]))
        if not args and not kws:
            return signature(types.numpy_scalar(_scalar_type))
        return None

    @lower_builtin(_scalar_class, types.Number)
    def _scalar_class_call(context, builder, sig, args):
        return context.cast(builder, args[0], sig.args[0], sig.return_type)

    @lower_builtin(_scalar_class)
    def _scalar_class_zero(context, builder, sig, args):
        return context.get_constant(sig.return_type, 0)


# ---------------------------------------------------------------------------- data models


@register_model(types.ArrayIterator)
class ArrayIteratorModel(_OpaqueModel):
    """A pointer to {array, next index} in the entry block of the function that made it."""


# ---------------------------------------------------------------------------- conversions


@lower_cast(types.Array, types.Array)
def array_to_array(context, builder, from_type, to_type, value):
    """Layout and read-only changes keep the same struct."""
    return value


# ---------------------------------------------------------------------------- attributes


def transposed_type(array_type: types.Array) -> types.Array:
    layout = {"C": "F", "F": "C"}.get(array_type.layout, "A")
    return array_type.copy(layout=layout)


def _parts_array(array_type: types.Array) -> types.Array:
    if isinstance(array_type.dtype, types.Complex):
        layout = "A" if array_type.ndim else "C"
        return array_type.copy(dtype=array_type.dtype.underlying_float, layout=layout)
    return array_type


@registry.register_attr
class ArrayAttributes(AttributeTemplate):
    key = types.Array

    def resolve_shape(self, ty):
        return types.UniTuple(types.int64, ty.ndim)

    def resolve_strides(self, ty):
        return types.UniTuple(types.int64, ty.ndim)

    def resolve_ndim(self, ty):
        return types.int64

    def resolve_size(self, ty):
        return types.int64

    def resolve_itemsize(self, ty):
        return types.int64

    def resolve_nbytes(self, ty):
        return types.int64

    def resolve_dtype(self, ty):
        return types.DType(ty.dtype)

    def resolve_T(self, ty):
        return transposed_type(ty)

    def resolve_real(self, ty):
        return _parts_array(ty)

    def resolve_imag(self, ty):
        if isinstance(ty.dtype, types.Complex):
            return _parts_array(ty)
        return types.Array(ty.dtype, ty.ndim, "C", readonly=True)


def _tuple(context, builder, typ, items):
    value = llvm.Constant(context.value_type(typ), llvm.Undefined)
    for index, item in enumerate(items):
        value = builder.insert_value(value, item, index)
    return value


@lower_getattr(types.Array, "shape")
def array_shape(context, builder, typ, value):
    return builder.extract_value(value, 5)


@lower_getattr(types.Array, "strides")
def array_strides(context, builder, typ, value):
    return builder.extract_value(value, 6)


@lower_getattr(types.Array, "ndim")
def array_ndim(context, builder, typ, value):
    return arr.const(typ.ndim)


@lower_getattr(types.Array, "size")
def array_size(context, builder, typ, value):
    return builder.extract_value(value, 2)


@lower_getattr(types.Array, "itemsize")
def array_itemsize(context, builder, typ, value):
    return arr.const(arr.itemsize_of(typ.dtype))


@lower_getattr(types.Array, "nbytes")
def array_nbytes(context, builder, typ, value):
    return builder.mul(builder.extract_value(value, 2), arr.const(arr.itemsize_of(typ.dtype)))


@lower_getattr(types.Array, "dtype")
def array_dtype(context, builder, typ, value):
    return context.get_dummy_value(types.DType(typ.dtype))


@registry.register_attr
class DTypeAttributes(AttributeTemplate):
    """`a.dtype.type` (the scalar class: `a.dtype.type(0)`) and `a.dtype.itemsize`."""

    key = types.DType

    def resolve_type(self, ty):
        try:
            return types.NumberClass(ty.dtype)
        except TypeError:  # no scalar class ember calls (records, fixed-size strings)
            return None

    def resolve_itemsize(self, ty):
        return types.int64


@lower_getattr(types.DType, "type")
def dtype_scalar_class(context, builder, typ, value):
    return context.get_dummy_value(types.NumberClass(typ.dtype))


@lower_getattr(types.DType, "itemsize")
def dtype_itemsize(context, builder, typ, value):
    return arr.const(numpy_dtype(typ.dtype).itemsize)


@overload_attribute(types.DType, "kind")
def dtype_kind(typ):
    """`a.dtype.kind`: NumPy's one-letter kind code ('f', 'i', 'u', 'b', 'c'...)."""
    kind = numpy_dtype(typ.dtype).kind
    return lambda typ: kind


@box(types.DType)
def box_dtype(typ, value, c):
    """A dtype returned to Python is NumPy's dtype object (the type holds it: no data)."""
    obj = c.pyapi.borrow_constant(numpy_dtype(typ.dtype))
    c.pyapi.incref(obj)
    return obj


@unbox(types.DType)
def unbox_dtype(typ, obj, c):
    """A dtype argument carries no data (its type holds it); needed when the call goes through
    a boxing wrapper (a dtype result, a user type among the arguments)."""
    return NativeValue(c.context.get_dummy_value(typ))


@lower_getattr(types.Array, "T")
def array_transpose(context, builder, typ, value):
    fields = arr.unpack(builder, typ, value)
    fields.shape.reverse()
    fields.strides.reverse()
    arr.nrt_incref_fields(builder, fields)
    return arr.pack(builder, transposed_type(typ), fields)


@lower_getattr(types.Array, "real")
def array_real(context, builder, typ, value):
    if not isinstance(typ.dtype, types.Complex):
        arr.incref(builder, typ, value)
        return value
    return _complex_part(builder, typ, value, 0)


@lower_getattr(types.Array, "imag")
def array_imag(context, builder, typ, value):
    if isinstance(typ.dtype, types.Complex):
        return _complex_part(builder, typ, value, 1)
    result_type = types.Array(typ.dtype, typ.ndim, "C", readonly=True)
    shape = arr.unpack(builder, typ, value).shape
    result = arr.allocate(context, builder, result_type, shape)
    fields = arr.unpack(builder, result_type, result)
    nbytes = builder.mul(fields.nitems, fields.itemsize)
    arr.memset_zero(builder, fields.data, nbytes)
    return result


def _complex_part(builder, typ, value, part):
    fields = arr.unpack(builder, typ, value)
    half = arr.itemsize_of(typ.dtype) // 2
    if part:
        fields.data = arr.offset_pointer(builder, fields.data, arr.const(half))
    fields.itemsize = arr.const(half)
    arr.nrt_incref_fields(builder, fields)
    return arr.pack(builder, _parts_array(typ), fields)


# ---------------------------------------------------------------------------- len, iter, next


@registry.typer(len)
def _type_len(args, kws):
    if len(args) == 1 and not kws and isinstance(args[0], types.Array):
        if args[0].ndim == 0:
            raise TypingError("len() of a 0-d array (an unsized object)")
        return signature(types.int64, args[0])
    return None


@lower_builtin(len, types.Array)
def array_len(context, builder, sig, args):
    return builder.extract_value(args[0], [5, 0])


@registry.typer(iter)
def _type_iter(args, kws):
    if len(args) == 1 and not kws and isinstance(args[0], types.Array):
        if args[0].ndim == 0:
            raise TypingError("iteration over a 0-d array")
        return signature(args[0].iterator_type, args[0])
    return None


@lower_builtin(iter, types.Array)
def array_iter(context, builder, sig, args):
    return iterators.owning_state(context, builder, sig.args[0], args[0])


@lower_builtin(next, types.ArrayIterator)
def array_iternext(context, builder, sig, args):
    iterator_type = sig.args[0]
    array_type = iterator_type.array_type
    array_llvm = context.value_type(array_type)
    state_type = llvm.LiteralStructType([array_llvm, arr.i64])
    state = args[0]
    array_value = builder.load(
        builder.gep(state, [arr.i32_(0), arr.i32_(0)], source_etype=state_type), typ=array_llvm
    )
    index_slot = builder.gep(state, [arr.i32_(0), arr.i32_(1)], source_etype=state_type)
    index = builder.load(index_slot, typ=arr.i64)
    fields = arr.unpack(builder, array_type, array_value)
    valid = builder.icmp_signed("<", index, fields.shape[0])
    before = builder.block
    with builder.if_then(valid, likely=True):
        builder.store(builder.add(index, arr.const(1), flags=("nsw",)), index_slot)
        item = item_at(context, builder, array_type, fields, index)
        filled = builder.block
    return iterators.iternext_pair(context, builder, sig, (item, filled), before, valid)


def item_at(context, builder, array_type: types.Array, fields, index):
    """`a[index]` along the first axis for an in-range index: an element, or a view (a new
    reference) of the remaining dimensions."""
    if array_type.ndim == 1:
        pointer = arr.element_pointer(builder, array_type, fields, [index])
        item = arr.load_item(builder, array_type.dtype, pointer)
        return context.cast(
            builder, item, array_type.dtype, types.element_value_type(array_type.dtype)
        )
    view_type = types.ArrayIterator(array_type).yield_type
    offset = builder.mul(index, fields.strides[0])
    view = arr.ArrayFields(
        fields.meminfo,
        fields.parent,
        arr.product(builder, fields.shape[1:]),
        fields.itemsize,
        arr.offset_pointer(builder, fields.data, offset),
        fields.shape[1:],
        fields.strides[1:],
    )
    arr.nrt_incref_fields(builder, view)
    return arr.pack(builder, view_type, view)


# ---------------------------------------------------------------------------- truth


@lower_cast(types.Array, types.Boolean)
def array_truth(context, builder, from_type, to_type, value):
    """`if a:`: the truth of the only element; NumPy's ValueError for any other size."""
    fields = arr.unpack(builder, from_type, value)
    empty = builder.icmp_signed("==", fields.nitems, arr.const(0))
    context.guard(
        builder,
        empty,
        ValueError,
        "The truth value of an empty array is ambiguous. "
        "Use `array.size > 0` to check that an array is not empty.",
    )
    not_one = builder.icmp_signed("!=", fields.nitems, arr.const(1))
    context.guard(
        builder,
        not_one,
        ValueError,
        "The truth value of an array with more than one element is ambiguous. "
        "Use a.any() or a.all()",
    )
    zero = [arr.const(0)] * from_type.ndim
    item = arr.load_item(
        builder, from_type.dtype, arr.element_pointer(builder, from_type, fields, zero)
    )
    return context.is_true(builder, from_type.dtype, item)


# ---------------------------------------------------------------------------- identity


@registry.typer(operator.is_)
@registry.typer(operator.is_not)
def _type_array_identity(args, kws):
    if len(args) == 2 and all(isinstance(a, types.Array) for a in args):
        return signature(types.boolean, *args)
    return None


def _array_identity(negate: bool):
    """`a is b`: one array type, one data pointer, one shape and strides (Numba's rule: a view
    that covers the same items the same way counts as the same array)."""

    def lower(context, builder, sig, args):
        left_type, right_type = sig.args
        if left_type != right_type:
            return llvm.Constant(llvm.IntType(1), int(negate))
        left = arr.unpack(builder, left_type, args[0])
        right = arr.unpack(builder, right_type, args[1])
        same = builder.icmp_unsigned(
            "==",
            builder.ptrtoint(left.data, arr.const(0).type),
            builder.ptrtoint(right.data, arr.const(0).type),
        )
        for a, b in zip(left.shape + left.strides, right.shape + right.strides):
            same = builder.and_(same, builder.icmp_signed("==", a, b))
        return builder.not_(same) if negate else same

    return lower


lower_builtin(operator.is_, types.Array, types.Array)(_array_identity(False))
lower_builtin(operator.is_not, types.Array, types.Array)(_array_identity(True))


# ---------------------------------------------------------------------------- np.dtype(...)


@registry.typer(np.dtype)
def _type_np_dtype(args, kws):
    """`np.dtype('int64')`, `np.dtype(np.float32)`, `np.dtype(a.dtype)`: known while compiling."""
    if len(args) != 1 or kws:
        return None
    if isinstance(args[0], types.DType):  # np.dtype(object) too: passing it on is fine
        return signature(args[0], args[0])
    if isinstance(args[0], types.StringLiteral) and args[0].literal_value in ("O", "object"):
        return signature(types.DType(types.pyobject), args[0])
    try:
        return signature(types.DType(parse_dtype(args[0], None)), args[0])
    except TypingError:
        return None


@lower_builtin(np.dtype, types.Any)
def _np_dtype_call(context, builder, sig, args):
    return context.get_dummy_value(sig.return_type)


# ---------------------------------------------------------------------------- dtype comparisons


def _same_dtype(a: types.Type, b: types.Type) -> bool | None:
    """Whether two dtype-like operands (`a.dtype`, `np.float32`) name one dtype; None
    unless one of them is a dtype object and the other names a dtype."""
    if not (isinstance(a, types.DType) or isinstance(b, types.DType)):
        return None
    try:
        return _dtype_named(a) == _dtype_named(b)
    except TypingError:
        return None


def _dtype_named(typ: types.Type) -> types.Type:
    """parse_dtype's answer, and pyobject for np.dtype(object) (which it refuses)."""
    if isinstance(typ, types.DType) and typ.dtype is types.pyobject:
        return types.pyobject
    return parse_dtype(typ, None)


@overload(operator.eq)
def _dtype_equal(a, b):
    same = _same_dtype(a, b)
    if same is not None:
        return lambda a, b: same  # known while compiling: branches on it fold away


@overload(operator.ne)
def _dtype_not_equal(a, b):
    same = _same_dtype(a, b)
    if same is not None:
        return lambda a, b: not same


# ---------------------------------------------------------------------------- flags

#: What `a.flags` gives compiled code: the contiguity flags Numba supports, read by attribute.
ArrayFlags = collections.namedtuple("ArrayFlags", ["c_contiguous", "f_contiguous", "contiguous"])


@njit
def _is_c_contiguous(a):
    """NumPy's rule: strides of the non-unit axes follow from the item size, last axis fastest;
    an empty array is contiguous."""
    expected = a.itemsize
    contiguous = True
    for axis in range(a.ndim - 1, -1, -1):
        extent = a.shape[axis]
        if extent == 0:
            return True
        if extent != 1:
            contiguous = contiguous and a.strides[axis] == expected
            expected *= extent
    return contiguous


def _flags(a):
    c_contiguous = _is_c_contiguous(a)
    return ArrayFlags(c_contiguous, _is_c_contiguous(a.T), c_contiguous)  # F: C of the transpose


@overload_attribute(types.Array, "flags")
def _array_flags(a):
    return _flags


# ---------------------------------------------------------------------------- ctypes

#: What `a.ctypes` gives compiled code: the data address (an integer, as NumPy's `.data`), the
#: shape, the strides and the dtype (which C pointer it may be passed as).
ArrayCTypes = collections.namedtuple("ArrayCTypes", ["data", "shape", "strides", "dtype"])


@intrinsic
def _data_address(typingctx, a):
    """The address of the array's first element, as an integer."""
    if not isinstance(a, types.Array):
        return None

    def codegen(context, builder, sig, args):
        return builder.ptrtoint(builder.extract_value(args[0], 4), arr.i64)

    return signature(types.intp, a), codegen


def _ctypes(a):
    return ArrayCTypes(_data_address(a), a.shape, a.strides, a.dtype)


@overload_attribute(types.Array, "ctypes")
def _array_ctypes(a):
    return _ctypes


# ---------------------------------------------------------------------------- scalar views


@intrinsic
def _bitcast(typingctx, value, dtype):
    """The bits of a number read as another number type of the same width."""
    target = parse_dtype(dtype)
    source = types.unliteral(value)
    if not all(isinstance(t, (types.Integer, types.Float)) for t in (source, target)):
        return None
    if source.bitwidth != target.bitwidth:
        raise TypingError(
            f"cannot view {source} as {target}: Changing the dtype of a 0d array is only "
            f"supported if the itemsize is unchanged ({source.bitwidth // 8} bytes, "
            f"{target.bitwidth // 8} bytes)"
        )

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], context.value_type(target))

    return signature(target, source, dtype), codegen


def _scalar_view(x, dtype):
    return _bitcast(x, dtype)


@overload_method(types.Integer, "view")
def _integer_view(x, dtype):
    return _scalar_view


@overload_method(types.Float, "view")
def _float_view(x, dtype):
    return _scalar_view


# ---------------------------------------------------------------------------- np.int8(seq)


def _scalar_class_of_sequence(scalar_class):
    """NumPy's scalar classes called on a sequence or an array build an array of that dtype
    (np.int8((1.0, 2.5)) is array([1, 2], int8)); on a 0-d array, the scalar it holds."""

    def overload_call(value):
        if isinstance(value, types.Array) and value.ndim == 0:
            return lambda value: scalar_class(value[()])
        if isinstance(value, (types.BaseTuple, types.List, types.Array)):
            return lambda value: np.array(value).astype(scalar_class)
        return None

    return overload_call


for _scalar_class in _SCALAR_CLASSES:
    overload(_scalar_class)(_scalar_class_of_sequence(_scalar_class))
