"""`carray(ptr, shape, dtype=None)` / `farray(...)` in compiled code: an array viewing the memory
a `CPointer` or `voidptr` points at (e.g. a `@cfunc`'s argument); it does not own the memory."""

from __future__ import annotations

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, overload
from ember.lowering import arrays as arr
from ember.misc.carray import carray, farray


def _shape_members(shape: types.Type) -> tuple:
    if isinstance(shape, types.Integer):
        return (shape,)
    if isinstance(shape, types.BaseTuple) and all(isinstance(t, types.Integer) for t in shape):
        return tuple(shape)
    raise TypingError(f"carray()/farray() take an integer or a tuple of integers, not {shape}")


def _element_type(ptr: types.Type, dtype: types.Type) -> types.Type:
    from ember.library.numpy.support import parse_dtype

    wanted = None if isinstance(dtype, types.NoneType) else parse_dtype(dtype)
    if isinstance(ptr, types.CPointer):
        if wanted is not None and wanted != ptr.dtype:
            raise TypingError(f"mismatching dtype '{wanted}' for pointer type '{ptr.dtype}*'")
        return ptr.dtype
    if ptr == types.voidptr:
        if wanted is None:
            raise TypingError("carray()/farray() of a voidptr need dtype=")
        return wanted
    raise TypingError(f"carray()/farray() take a CPointer or voidptr, not {ptr}")


def _view_intrinsic(order: str):
    @intrinsic
    def view(typingctx, ptr, shape, dtype):
        members = _shape_members(shape)
        element = _element_type(ptr, dtype)
        result = types.Array(element, len(members), order)

        def codegen(context, builder, sig, args):
            extents = [
                context.cast(builder, builder.extract_value(args[1], k), t, types.intp)
                if isinstance(sig.args[1], types.BaseTuple)
                else context.cast(builder, args[1], t, types.intp)
                for k, t in enumerate(members)
            ]
            itemsize = arr.itemsize_of(element)
            strides, step = [None] * len(extents), arr.const(itemsize)
            order_of_axes = range(len(extents))
            for k in reversed(order_of_axes) if order == "C" else order_of_axes:
                strides[k] = step
                step = builder.mul(step, extents[k])
            count = arr.const(1)
            for extent in extents:
                count = builder.mul(count, extent)
            null = context.get_constant_null(types.voidptr)
            data = builder.bitcast(args[0], arr.ptr)
            fields = arr.ArrayFields(null, null, count, arr.const(itemsize), data, extents, strides)
            return arr.pack(builder, result, fields)

        return result(ptr, shape, dtype), codegen

    return view


_c_view = _view_intrinsic("C")
_f_view = _view_intrinsic("F")


@overload(carray)
def _carray(ptr, shape, dtype=None):
    return lambda ptr, shape, dtype=None: _c_view(ptr, shape, dtype)


@overload(farray)
def _farray(ptr, shape, dtype=None):
    return lambda ptr, shape, dtype=None: _f_view(ptr, shape, dtype)
