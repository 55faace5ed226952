"""NumPy arrays in the boxing wrapper (ember/lowering/boxing.py): when a call needs the
wrapper because of a user type (`@box`/`@unbox`), its array arguments and results cross
through these, built on the runtime's ctypes array layout (ember/runtime/boxing.py).

Calls without user types never use them: the dispatcher marshals arrays itself, faster.
"""

from __future__ import annotations

import ctypes
from typing import Any

from ember import types
from ember.lowering import arrays, cgutils
from ember.lowering.boxing import NativeValue
from ember.lowering.registry import box, unbox


def unbox_array_memory(typ: types.Array, value: Any) -> tuple[Any, int]:
    """(holder, address) of the native array value for an ndarray passed as `typ`; the
    holder keeps the memory alive. TypeError when the value does not fit `typ`."""
    from ember.dispatcher.typeof import typeof_or_none
    from ember.runtime.boxing import flatten, memory_ctype
    from ember.typing.conversions import can_convert

    actual = typeof_or_none(value)
    if not isinstance(actual, types.Array) or can_convert(actual, typ) is None:
        raise TypeError(f"cannot pass {type(value).__name__} {actual} as {typ}")
    fields: list = []
    flatten(typ, value, fields)
    memory = memory_ctype(typ)()
    memory.meminfo, memory.parent, memory.nitems, memory.itemsize, memory.data = fields[:5]
    memory.shape[:] = fields[5 : 5 + typ.ndim]
    memory.strides[:] = fields[5 + typ.ndim :]
    return memory, ctypes.addressof(memory)


def box_array_memory(typ: types.Array, address: int, arguments: tuple | None = None) -> Any:
    """The ndarray for the native array value stored at `address` (takes its reference);
    `arguments`: the call's arguments, which a view no block owns may lie in (an extension's
    @unbox handing out the memory of its object)."""
    import numpy as np

    from ember.runtime.boxing import box as box_memory
    from ember.runtime.boxing import memory_ctype

    memory = memory_ctype(typ).from_address(address)
    parents = () if not memory.parent else (ctypes.cast(memory.parent, ctypes.py_object).value,)
    arguments = arguments or ()
    owners = tuple(value for value in arguments if not isinstance(value, np.ndarray))
    return box_memory(typ, memory, parents + arguments, owners=owners)


@unbox(types.Array)
def unbox_array(typ, obj, c):
    pyapi, builder = c.pyapi, c.builder
    helper = pyapi.unserialize(pyapi.serialize_object(unbox_array_memory))
    typ_obj = pyapi.unserialize(pyapi.serialize_object(typ))
    packed = pyapi.call_function_objargs(helper, [typ_obj, obj])
    pyapi.decref(helper)
    pyapi.decref(typ_obj)
    failed = cgutils.is_null(builder, packed)
    model = c.context.get_data_model(typ)
    slot = cgutils.alloca_once(builder, model.value_type)
    with cgutils.if_likely(builder, builder.not_(failed)):
        address = pyapi.long_as_voidptr(pyapi.tuple_getitem(packed, 1))
        builder.store(c.context.unpack_value(builder, typ, address), slot)

    def release_holder() -> None:
        pyapi.decref(packed)  # NULL-safe; the array memory lived until the call returned

    return NativeValue(builder.load(slot), is_error=failed, cleanup=release_holder)


@box(types.Array)
def box_array(typ, val, c):
    pyapi, builder = c.pyapi, c.builder
    arrays.incref(builder, typ, val)  # the ndarray takes this one; the wrapper drops the caller's
    model = c.context.get_data_model(typ)
    slot = cgutils.alloca_once(builder, model.data_type)
    c.context.pack_value(builder, typ, val, slot)
    helper = pyapi.unserialize(pyapi.serialize_object(box_array_memory))
    typ_obj = pyapi.unserialize(pyapi.serialize_object(typ))
    address = pyapi.long_from_voidptr(slot)
    arguments = pyapi.borrow_none() if c.arguments is None else c.arguments
    result = pyapi.call_function_objargs(helper, [typ_obj, address, arguments])
    for obj in (helper, typ_obj, address):
        pyapi.decref(obj)
    return result
