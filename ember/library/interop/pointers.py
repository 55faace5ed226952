"""`types.CPointer(dtype)` in compiled code (Numba's typed C pointers, made by `@intrinsic`s
or received from C): its data model is a typed LLVM pointer, `ptr[i]` reads the i-th item and
`ptr[i] = v` writes it. Written with the extension API."""

from __future__ import annotations

import operator

from ember import types
from ember.extending import intrinsic, models, overload, register_model


@register_model(types.CPointer)
class CPointerModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        pointee = models.model_of(fe_type.dtype).data_type
        super().__init__(dmm, fe_type, pointee.as_pointer())


def _item_pointer(context, builder, pointer_type, pointer, index, index_type):
    offset = context.cast(builder, index, index_type, types.intp)
    pointee = context.get_data_type(pointer_type.dtype)
    return builder.gep(pointer, [offset], source_etype=pointee)


@intrinsic
def pointer_load(typingctx, pointer, index):
    if isinstance(pointer, types.CPointer) and isinstance(index, types.Integer):

        def codegen(context, builder, sig, args):
            item = _item_pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
            return context.unpack_value(builder, sig.args[0].dtype, item)

        return pointer.dtype(pointer, index), codegen


@intrinsic
def pointer_store(typingctx, pointer, index, value):
    if isinstance(pointer, types.CPointer) and isinstance(index, types.Integer):

        def codegen(context, builder, sig, args):
            dtype = sig.args[0].dtype
            item = _item_pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
            converted = context.cast(builder, args[2], sig.args[2], dtype)
            context.pack_value(builder, dtype, converted, item)
            return context.get_dummy_value(types.none)

        return types.none(pointer, index, value), codegen


@overload(operator.getitem)
def cpointer_getitem(pointer, index):
    if isinstance(pointer, types.CPointer) and isinstance(index, types.Integer):
        return lambda pointer, index: pointer_load(pointer, index)


@overload(operator.setitem)
def cpointer_setitem(pointer, index, value):
    if isinstance(pointer, types.CPointer) and isinstance(index, types.Integer):
        return lambda pointer, index, value: pointer_store(pointer, index, value)
