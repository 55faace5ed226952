"""Python lists and sets passed to compiled code (Numba's reflected lists and sets): a Python
list (set) of numbers -> a native list (set) for the call -> its items written back into the
same Python object afterwards.

The native list is built by a compiled `list(array)` (so it gets the runtime's own layout and
destructor); after the call the caller's list takes the native list's items when they differ
from what was passed, and the native list is released.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

from ember import types


@functools.cache
def _builder(item_type: types.Type, container: type = list) -> tuple:
    """A native `list(array)` (or `set(array)`) for 1-d C arrays of `item_type`: (ctypes
    function, array type)."""
    from ember.decorators import njit
    from ember.runtime import boxing as arrayboxing

    array_type = types.Array(item_type, 1, "C")
    compiled = njit(_as_list if container is list else _as_set).compile((array_type,))
    prototype = ctypes.CFUNCTYPE(
        ctypes.c_int32,
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_void_p,
        *arrayboxing.argument_ctypes(array_type),
    )
    return prototype(compiled.address), array_type, compiled


def _as_list(values):
    return list(values)


def _as_set(values):
    return set(values)


# item types whose lists `to_native` builds at C speed (others are filled one item at a time)
BULK_ITEM_TYPES = (
    types.Boolean,
    types.Integer,
    types.Float,
    types.Complex,
    types.UnicodeType,
    types.ClassInstanceType,
)


def to_native(typ: types.List | types.Set, items: list) -> int:
    """A new native list or set (its meminfo, one reference owned by the caller) holding
    `items`."""
    if isinstance(typ.dtype, types.ClassInstanceType):
        return _instances_to_native(typ, items)
    if isinstance(typ.dtype, types.UnicodeType):
        from ember.runtime.string_boxing import list_to_native

        return list_to_native(items)
    import numpy as np

    from ember.library.numpy.support import numpy_dtype

    values = np.asarray(list(items), dtype=numpy_dtype(typ.dtype))
    return array_to_native(typ, values)


def array_to_native(typ: types.List | types.Set, values: Any) -> int:
    """A new native list or set of numbers (its meminfo, one reference owned by the caller)
    holding the items of the 1-d array `values`, whose dtype is that of `typ`'s items."""
    import numpy as np

    from ember.lowering.callconv import ExcInfoRecord
    from ember.runtime import boxing as arrayboxing

    container = set if isinstance(typ, types.Set) else list
    native, array_type, _ = _builder(typ.dtype, container)
    flat: list = []
    arrayboxing.flatten(array_type, np.ascontiguousarray(values), flat)
    meminfo = ctypes.c_void_p(0)
    excinfo = ExcInfoRecord()
    native(ctypes.addressof(meminfo), ctypes.addressof(excinfo), None, *flat)
    return meminfo.value


def write_back(typ: types.List | types.Set, meminfo: int, items: list | set) -> None:
    """Give `items` the native list's contents when the callee changed them (an unchanged list
    keeps its own objects: ints in a list of floats stay ints), then release the native list."""
    if isinstance(typ, types.Set):
        from ember.typed import accessors

        native_items = accessors.box(typ, meminfo)  # takes over the reference
        if native_items != items:
            items.clear()
            items.update(native_items)
        return
    from ember.lowering.lists import HeaderMemory
    from ember.runtime import nrt

    if isinstance(typ.dtype, types.ClassInstanceType):
        _write_back_instances(typ, meminfo, items)
        return
    if isinstance(typ.dtype, types.UnicodeType):
        from ember.runtime.string_boxing import list_write_back

        return list_write_back(meminfo, items)
    header = HeaderMemory.from_address(nrt.data_address(meminfo))
    native_ctype = item_ctype(typ.dtype)
    count = header.size
    storage = nrt.data_address(header.storage) if header.storage and count else 0
    native_items = (native_ctype * count).from_address(storage) if count else []
    convert_item = _PYTHON_ITEM[type(typ.dtype)]
    values = native_values(typ.dtype, native_items, count)
    # compared as they are first (at C speed), then as the native list holds them (1 == 1.0)
    if values != items and values != [convert_item(item) for item in items]:
        items[:] = values  # changed by the callee
    nrt.runtime().decref(meminfo)


def native_values(dtype: types.Type, native_items: Any, count: int) -> list:
    """The items of a native list as Python values (numbers through NumPy, at C speed)."""
    if count and isinstance(dtype, (types.Boolean, types.Integer, types.Float)):
        import numpy as np

        from ember.library.numpy.support import numpy_dtype

        return np.frombuffer(native_items, dtype=numpy_dtype(dtype), count=count).tolist()
    convert = _PYTHON_VALUE[type(dtype)]
    return [convert(item) for item in native_items]


def item_ctype(dtype: types.Type) -> Any:
    """The ctypes type of a number as a native list holds it."""
    return _ITEM_CTYPES[type(dtype)](dtype)


def _integer_ctype(typ: types.Integer) -> Any:
    return getattr(ctypes, f"c_{'' if typ.signed else 'u'}int{typ.bitwidth}")


def _complex_ctype(typ: types.Complex) -> Any:
    part = ctypes.c_float if typ.bitwidth == 64 else ctypes.c_double
    return type("complex_item", (ctypes.Structure,), {"_fields_": [("re", part), ("im", part)]})


_ITEM_CTYPES = {
    types.Boolean: lambda typ: ctypes.c_uint8,
    types.Integer: _integer_ctype,
    types.Float: lambda typ: ctypes.c_float if typ.bitwidth == 32 else ctypes.c_double,
    types.Complex: _complex_ctype,
}
_PYTHON_ITEM = {  # a Python item as the native list holds it
    types.Boolean: bool,
    types.Integer: int,
    types.Float: float,
    types.Complex: complex,
}
_PYTHON_VALUE = {  # a native item as Python sees it
    types.Boolean: bool,
    types.Integer: int,
    types.Float: float,
    types.Complex: lambda item: complex(item.re, item.im),
}


# ---------------------------------------------------------------------------- jitclass instances


class _InstanceItem(ctypes.Structure):
    _fields_ = [("meminfo", ctypes.c_void_p), ("data", ctypes.c_void_p)]


@functools.cache
def _instance_list_maker(list_type: types.List) -> tuple:
    """A native function making a list of `list_type` with room for n items (size 0)."""
    from ember.decorators import njit
    from ember.extending import intrinsic
    from ember.lowering import lists
    from ember.typing.signature import signature

    @intrinsic
    def allocate(typingctx, count):
        def codegen(context, builder, sig, args):
            return lists.allocate(context, builder, list_type, args[0])

        return signature(list_type, count), codegen

    def make(count):
        return allocate(count)

    compiled = njit(make).compile((types.int64,))
    prototype = ctypes.CFUNCTYPE(
        ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64
    )
    return prototype(compiled.address), compiled


def _instances_to_native(typ: types.List, items: list) -> int:
    """The native list holds a reference to each box's instance (the boxes keep theirs)."""
    from ember.lowering.callconv import ExcInfoRecord
    from ember.lowering.lists import HeaderMemory
    from ember.runtime import nrt

    make, _ = _instance_list_maker(typ)
    meminfo = ctypes.c_void_p(0)
    make(ctypes.addressof(meminfo), ctypes.addressof(ExcInfoRecord()), None, max(len(items), 1))
    header = HeaderMemory.from_address(nrt.data_address(meminfo.value))
    if items:
        slots = (_InstanceItem * len(items)).from_address(nrt.data_address(header.storage))
        incref = nrt.runtime().incref
        for slot, box in zip(slots, items):
            incref(box._meminfo)
            slot.meminfo, slot.data = box._meminfo, box._data
    header.size = len(items)
    return meminfo.value


def _write_back_instances(typ: types.List, meminfo: int, items: list) -> None:
    """The caller's list takes the native list's instances when they changed; boxes of
    instances it already held are kept (same objects), new ones are boxed."""
    from ember.lowering.lists import HeaderMemory
    from ember.runtime import nrt

    header = HeaderMemory.from_address(nrt.data_address(meminfo))
    count = header.size
    slots = (_InstanceItem * count).from_address(nrt.data_address(header.storage)) if count else []
    native = [slot.meminfo for slot in slots]
    if native != [box._meminfo for box in items]:
        known = {box._meminfo: box for box in items}
        runtime = nrt.runtime()
        boxed = []
        for address in native:
            box = known.get(address)
            if box is None:  # an instance the callee put in: the new box takes a reference
                runtime.incref(address)
                box = typ.dtype.class_type.jit_class._from_native(address)
            boxed.append(box)
        items[:] = boxed
    nrt.runtime().decref(meminfo)
