"""`np.frombuffer` of a `bytes` value (a read-only 1-d array viewing the bytes, sharing their
storage, which it keeps alive) or of a contiguous array, bytearray or memoryview (a view of its
memory, writable when it is; a copy of a bytearray's or memoryview's), with NumPy's dtype, count
and offset rules and errors; `a.tobytes()`, the reverse: a new `bytes` of the items in C order
(or Fortran order with order='F', or 'A' for a Fortran array)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload, overload_attribute, overload_method
from ember.library.numpy.support import parse_dtype
from ember.lowering import arrays as arr
from ember.lowering import strings as primitives
from ember.typing.signature import signature

_views: dict = {}


def _memory_and_start(builder, source: types.Type, value):
    """The meminfo owning `value`'s memory and a byte pointer to that memory."""
    if isinstance(source, types.BytesType):
        data = primitives.data(builder, value)
        return builder.extract_value(value, 0), data
    fields = arr.unpack(builder, source, value)
    return fields.meminfo, builder.bitcast(fields.data, llvm.IntType(8).as_pointer())


def _buffer_view(element: types.Type, source: types.Type):
    """An intrinsic (buffer, offset, count) -> 1-d array of `count` elements of `element` from
    byte `offset` of `buffer` (bytes, or a C-contiguous array-like: checked by the caller),
    sharing and keeping alive its memory; readonly for bytes and readonly arrays."""
    key = (element, source)
    if key in _views:
        return _views[key]
    readonly = isinstance(source, types.BytesType) or source.readonly
    result = types.Array(element, 1, "C", readonly=readonly)
    itemsize = arr.itemsize_of(element)

    @intrinsic
    def view(typingctx, buffer, offset, count):
        def codegen(context, builder, sig, args):
            value, start, length = args
            arr.incref(builder, sig.args[0], value)  # the view owns a reference
            meminfo, data = _memory_and_start(builder, sig.args[0], value)
            first = builder.gep(data, [start], source_etype=llvm.IntType(8))
            fields = arr.ArrayFields(
                meminfo,
                context.get_constant_null(types.voidptr),
                length,
                arr.const(itemsize),
                builder.bitcast(first, arr.ptr),
                [length],
                [arr.const(itemsize)],
            )
            return _copied_unless_owned(context, builder, result, fields)

        return signature(result, buffer, types.intp, types.intp), codegen

    _views[key] = view
    return view


def _copied_unless_owned(context, builder, result: types.Array, fields: arr.ArrayFields):
    """The view, or a copy of its bytes when no meminfo keeps them alive (a constant `bytes`,
    a bytearray or memoryview argument): the array may outlive them."""
    slot = arr.alloca_in_entry(builder, context.value_type(result), name="frombuffer.view")
    builder.store(arr.pack(builder, result, fields), slot)
    borrowed = builder.icmp_unsigned("==", fields.meminfo, llvm.Constant(fields.meminfo.type, None))
    with builder.if_then(borrowed, likely=False):
        copy = arr.allocate(context, builder, result, fields.shape)
        target = arr.unpack(builder, result, copy)
        nbytes = builder.mul(fields.nitems, fields.itemsize)
        arr.memcpy(builder, target.data, fields.data, nbytes)
        builder.store(copy, slot)
    return builder.load(slot, typ=context.value_type(result))


def _given(argument) -> bool:
    return argument is not None and not isinstance(argument, (types.Omitted, types.NoneType))


def _check_extent(size, itemsize, count, offset):
    """The number of items to view (NumPy's rules and errors)."""
    if offset < 0 or offset > size:
        raise ValueError("offset must be non-negative and no greater than buffer length")
    available = size - offset
    if count < 0:
        if available % itemsize != 0:
            raise ValueError("buffer size must be a multiple of element size")
        return available // itemsize
    if available < count * itemsize:
        raise ValueError("buffer is smaller than requested size")
    return count


_check_extent_jit = njit(_check_extent)


def _element_of(dtype) -> types.Type:
    if isinstance(dtype, types.UnicodeType):
        raise TypingError("If np.frombuffer dtype is a string it must be a string constant.")
    return parse_dtype(dtype) if _given(dtype) else types.float64


def _frombuffer_of_array(buffer, dtype):
    element = _element_of(dtype)
    view = _buffer_view(element, buffer)
    itemsize = arr.itemsize_of(element)
    source_itemsize = arr.itemsize_of(buffer.dtype)
    if not isinstance(buffer, types.Array):  # a Python buffer (bytearray, memoryview...)
        if buffer.layout != "C" or buffer.ndim != 1:
            raise TypingError("np.frombuffer: the buffer must be 1-d and contiguous")

        def frombuffer_python(buffer, dtype=None, count=-1, offset=0):
            # A copy (by the view): the argument's memory has no reference count to keep it
            # alive (NumPy returns a view; writes to this array do not reach the buffer).
            nbytes = len(buffer) * source_itemsize
            return view(buffer, offset, _check_extent_jit(nbytes, itemsize, count, offset))

        return frombuffer_python
    contiguous = buffer.layout == "C"

    def frombuffer(buffer, dtype=None, count=-1, offset=0):
        if not contiguous and not buffer.flags.c_contiguous:
            raise ValueError("ndarray is not C-contiguous")
        nbytes = buffer.size * source_itemsize
        return view(buffer, offset, _check_extent_jit(nbytes, itemsize, count, offset))

    return frombuffer


@overload(np.frombuffer)
def np_frombuffer(buffer, dtype=None, count=-1, offset=0):
    if isinstance(buffer, types.Buffer):
        return _frombuffer_of_array(buffer, dtype)
    if not isinstance(buffer, types.BytesType):
        raise TypingError(
            f'Argument "buffer" must be buffer-like (bytes, bytearray, memoryview or a '
            f"contiguous array), not {buffer}"
        )
    element = _element_of(dtype)
    view = _buffer_view(element, buffer)
    itemsize = arr.itemsize_of(element)

    def frombuffer(buffer, dtype=None, count=-1, offset=0):
        return view(buffer, offset, _check_extent_jit(len(buffer), itemsize, count, offset))

    return frombuffer


# ---------------------------------------------------------------------------- memoryview


def _memoryview_attribute(name: str, body):
    @overload_attribute(types.MemoryView, name)
    def attribute(view):
        return body(view)


_memoryview_attribute("shape", lambda view: lambda view: np.asarray(view).shape)
_memoryview_attribute("strides", lambda view: lambda view: np.asarray(view).strides)
_memoryview_attribute("ndim", lambda view: lambda view: np.asarray(view).ndim)
_memoryview_attribute("itemsize", lambda view: lambda view: np.asarray(view).itemsize)
_memoryview_attribute("nbytes", lambda view: lambda view: np.asarray(view).nbytes)
_memoryview_attribute(
    "readonly", lambda view: (lambda view: True) if view.readonly else (lambda view: False)
)
_memoryview_attribute("c_contiguous", lambda view: lambda view: np.asarray(view).flags.c_contiguous)
_memoryview_attribute("f_contiguous", lambda view: lambda view: np.asarray(view).flags.f_contiguous)
_memoryview_attribute(
    "contiguous",
    lambda view: (
        lambda view: np.asarray(view).flags.c_contiguous or np.asarray(view).flags.f_contiguous
    ),
)


# ---------------------------------------------------------------------------- a.tobytes()


@intrinsic
def _bytes_of_c_array(typingctx, a):
    """A new `bytes` holding the memory of the C-contiguous array `a`."""

    def codegen(context, builder, sig, args):
        fields = arr.unpack(builder, sig.args[0], args[0])
        size = builder.mul(fields.nitems, fields.itemsize)
        result = primitives.allocate(context, builder, arr.const(1), size)
        arr.memcpy(builder, primitives.data(builder, result), fields.data, size)
        return result

    return signature(types.bytes_type, a), codegen


def _tobytes_c(a, order="C"):
    return _bytes_of_c_array(np.ascontiguousarray(a))


def _tobytes_f(a, order="C"):
    return _bytes_of_c_array(np.ascontiguousarray(a.T))  # F order of `a` is C order of a.T


_tobytes_c_jit, _tobytes_f_jit = njit(_tobytes_c), njit(_tobytes_f)


def _tobytes_any(a, order="C"):
    if order == "C" or (order == "A" and not a.flags.f_contiguous):
        return _tobytes_c_jit(a)
    if order in ("F", "A"):
        return _tobytes_f_jit(a)
    raise ValueError("order must be one of 'C', 'F', 'A'")


@overload_method(types.Array, "tobytes")
def _select_tobytes(a, order="C"):
    if not isinstance(a.dtype, types.Number | types.Boolean):
        raise TypingError(f"a.tobytes() of an array of {a.dtype} is not supported")
    chosen = order.literal_value if isinstance(order, types.StringLiteral) else None
    if a.ndim < 2 or chosen == "C" or (chosen == "A" and a.layout == "C"):
        return _tobytes_c
    if chosen == "F" or (chosen == "A" and a.layout == "F"):
        return _tobytes_f
    return _tobytes_any
