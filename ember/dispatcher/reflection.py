"""Python lists and sets passed to compiled code (Numba's reflected lists and sets): a Python
list (set) -> a native list (set) for the call -> its items written back into the same Python
object afterwards. Lists cross through generated code (reflected_lists.py).

A native set (and a typed.List of numbers) is built by a compiled `set(array)` (`list(array)`),
so it gets the runtime's own layout and destructor; after the call the caller's set takes the
native set's items when they differ from what was passed, and the native set is released.
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
    return reflector(typ).to_native(items)


def reflector(typ: types.List | types.Set) -> Any:
    """What passes Python containers of `typ`: `to_native(items) -> meminfo` and
    `write_back(meminfo, items)`."""
    if isinstance(typ.dtype, (types.List, types.Set)):
        raise TypeError(f"cannot reflect element of reflected container: {typ}\n{_NESTED_HINT}")
    if isinstance(typ, types.List):
        if holds_lists(typ.dtype):
            return _tuples_of_lists_reflector(typ)
        from ember.dispatcher import reflected_lists

        return reflected_lists.converters(typ)
    return _set_reflector(typ)


def holds_lists(item_type: types.Type) -> bool:
    """Whether list items of `item_type` are tuples holding lists (`[(1, [2])]`)."""
    if isinstance(item_type, types.List):
        return True
    if isinstance(item_type, types.BaseTuple):
        return any(holds_lists(member) for member in item_type.types)
    return False


@functools.cache
def _tuples_of_lists_reflector(typ: types.List) -> _TuplesOfListsReflector:
    return _TuplesOfListsReflector(typ)


class _TuplesOfListsReflector:
    """Python lists of tuples holding lists (`[(1, [2])]`), which Numba passes too: a native
    list filled one compiled `append` per item (each inner list copied in as an argument is);
    after the call the Python list takes the native items when they differ (an inner list
    the callee changed comes back as a new list in a new tuple; Numba drops such changes)."""

    def __init__(self, typ: types.List) -> None:
        self.typ = typ

    def to_native(self, items: list) -> int:
        from ember.typed import list_accessors

        accessors = list_accessors.for_type(types.ListType(self.typ.dtype))
        meminfo = accessors.new(len(items))
        try:
            for item in items:
                accessors.append(meminfo, item)
        except BaseException:
            from ember.runtime import nrt

            nrt.runtime().decref(meminfo)
            raise
        return meminfo

    def write_back(self, meminfo: int, items: list) -> None:
        from ember.dispatcher.pycall import box_list

        native_items = box_list(self.typ, meminfo, (), None)  # takes over the reference
        if native_items != items:
            items[:] = native_items


_NESTED_HINT = (
    "a list of lists (or sets) cannot be passed from Python, as in Numba: pass an "
    "ember.typed.List (numba.typed.List) of typed Lists, or a 2-d NumPy array"
)


@functools.cache
def _set_reflector(typ: types.Set) -> _SetReflector:
    """One per set type (a set passed twice to a call is recognized by its reflector)."""
    return _SetReflector(typ)


class _SetReflector:
    """Python sets of numbers through a native `set(array)`; of other items (strings,
    tuples) one compiled `add` per item."""

    def __init__(self, typ: types.Set) -> None:
        self.typ = typ

    def to_native(self, items: set) -> int:
        import numpy as np

        from ember.library.numpy.support import numpy_dtype

        if not isinstance(self.typ.dtype, (types.Number, types.Boolean)):
            return self._added_one_by_one(items)
        values = np.asarray(list(items), dtype=numpy_dtype(self.typ.dtype))
        return array_to_native(self.typ, values)

    def _added_one_by_one(self, items: set) -> int:
        from ember.typed import set_accessors

        accessors = set_accessors.for_type(types.SetType(self.typ.dtype))
        meminfo = accessors.new()  # a typed set has the layout of every native set
        try:
            for item in items:
                accessors.add(meminfo, item)
        except BaseException:
            from ember.runtime import nrt

            nrt.runtime().decref(meminfo)
            raise
        return meminfo

    def write_back(self, meminfo: int, items: set) -> None:
        """Give `items` the native set's contents when the callee changed them, then
        release the native set."""
        from ember.typed import accessors

        native_items = accessors.box(self.typ, meminfo)  # takes over the reference
        if native_items != items:
            items.clear()
            items.update(native_items)


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
_PYTHON_VALUE = {  # a native item as Python sees it
    types.Boolean: bool,
    types.Integer: int,
    types.Float: float,
    types.Complex: lambda item: complex(item.re, item.im),
}
