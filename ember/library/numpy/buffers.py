"""`np.frombuffer` of a `bytes` value: a read-only 1-d array viewing the bytes (sharing their
storage, which it keeps alive), with NumPy's dtype, count and offset rules and errors."""

from __future__ import annotations

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic, overload
from ember.library.numpy.support import parse_dtype
from ember.lowering import arrays as arr
from ember.lowering import strings as primitives
from ember.typing.signature import signature

_views: dict = {}


def _bytes_view(element: types.Type):
    """An intrinsic (buffer, offset, count) -> readonly array of `count` elements of `element`
    from byte `offset` of `buffer` (one per element type)."""
    if element in _views:
        return _views[element]
    result = types.Array(element, 1, "C", readonly=True)
    itemsize = arr.itemsize_of(element)

    @intrinsic
    def view(typingctx, buffer, offset, count):
        def codegen(context, builder, sig, args):
            buffer_value, start, length = args
            arr.incref(builder, sig.args[0], buffer_value)  # the view owns a reference
            meminfo = builder.extract_value(buffer_value, 0)
            first = builder.gep(
                primitives.data(builder, buffer_value), [start], source_etype=llvm.IntType(8)
            )
            fields = arr.ArrayFields(
                meminfo,
                context.get_constant_null(types.voidptr),
                length,
                arr.const(itemsize),
                builder.bitcast(first, arr.ptr),
                [length],
                [arr.const(itemsize)],
            )
            return arr.pack(builder, result, fields)

        return signature(result, buffer, types.intp, types.intp), codegen

    _views[element] = view
    return view


def _given(argument) -> bool:
    return argument is not None and not isinstance(argument, (types.Omitted, types.NoneType))


@overload(np.frombuffer)
def np_frombuffer(buffer, dtype=None, count=-1, offset=0):
    if not isinstance(buffer, types.BytesType):
        return None
    element = parse_dtype(dtype) if _given(dtype) else types.float64
    view = _bytes_view(element)
    itemsize = arr.itemsize_of(element)

    def frombuffer(buffer, dtype=None, count=-1, offset=0):
        size = len(buffer)
        if offset < 0 or offset > size:
            raise ValueError("offset must be non-negative and no greater than buffer length")
        available = size - offset
        if count < 0:
            if available % itemsize != 0:
                raise ValueError("buffer size must be a multiple of element size")
            count = available // itemsize
        elif available < count * itemsize:
            raise ValueError("buffer is smaller than requested size")
        return view(buffer, offset, count)

    return frombuffer
