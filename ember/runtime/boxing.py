"""Arrays between Python and compiled code on the ctypes call path (ember/dispatcher/pycall.py).

Unboxing: an ndarray argument is borrowed, never copied: meminfo NULL, parent = the ndarray's
address, and its size, itemsize, data pointer, shape and strides (any strides: views, negative
steps, Fortran order).

Boxing a returned array:
- meminfo NULL and parent == an argument array with the same data, shape and strides: that very
  ndarray object (identity is preserved);
- meminfo NULL, parent set: a view of that argument (the view's base keeps it alive);
- meminfo set (compiled code allocated it, or it is a view of such memory): an ndarray over the
  runtime's memory, without a copy, whose base owns the reference the compiled function
  returned and gives it back to the runtime when NumPy drops the array.
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from ember import types

_POINTERS = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]


def argument_ctypes(typ: types.Array) -> list:
    return _POINTERS + [ctypes.c_int64] * (2 * typ.ndim)


_memory_types: dict[int, type] = {}


def memory_ctype(typ: types.Array) -> type:
    """The ctypes Structure of an array value stored at retptr (ArrayModel's data layout)."""
    found = _memory_types.get(typ.ndim)
    if found is None:
        dims = ctypes.c_int64 * typ.ndim
        fields = [
            ("meminfo", ctypes.c_void_p),
            ("parent", ctypes.c_void_p),
            ("nitems", ctypes.c_int64),
            ("itemsize", ctypes.c_int64),
            ("data", ctypes.c_void_p),
            ("shape", dims),
            ("strides", dims),
        ]
        found = type(f"array{typ.ndim}d_memory", (ctypes.Structure,), {"_fields_": fields})
        _memory_types[typ.ndim] = found
    return found


# ---------------------------------------------------------------------------- unboxing


def _data_address_slow(array: Any) -> int:
    return array.ctypes.data


def _data_address_fast(array: Any) -> int:
    """PyArrayObject.data, right after the object header (public NumPy C struct layout)."""
    return ctypes.c_void_p.from_address(id(array) + _DATA_OFFSET).value or 0


_DATA_OFFSET = 2 * ctypes.sizeof(ctypes.c_void_p)
_data_address = None


def data_address(array: Any) -> int:
    global _data_address
    if _data_address is None:
        import numpy as np

        probe = np.arange(3.0)[1:]
        fast = _data_address_fast(probe) == probe.ctypes.data
        _data_address = _data_address_fast if fast else _data_address_slow
    return _data_address(array)


def flatten(typ: types.Array, value: Any, out: list) -> None:
    """Append the native arguments of an ndarray passed as `typ`."""
    out.append(None)
    out.append(id(value))
    out.append(value.size)
    out.append(value.itemsize)
    out.append(data_address(value))
    out.extend(value.shape)
    out.extend(value.strides)


# ---------------------------------------------------------------------------- boxing


class _RuntimeMemory:
    """Exposes runtime-owned memory to NumPy; releases its reference when NumPy is done."""

    __slots__ = ("__array_interface__", "meminfo", "__weakref__")

    def __init__(self, meminfo: int, interface: dict) -> None:
        self.meminfo = meminfo
        self.__array_interface__ = interface

    def __del__(self) -> None:
        if _decref:  # (None once the interpreter's shutdown has cleared this module)
            _decref[0](self.meminfo)

    @property
    def refcount(self) -> int:
        """The runtime's count of references to this memory (as Numba's `MemInfo.refcount`)."""
        from ember.runtime.nrt import refcount

        return refcount(self.meminfo)

    @property
    def data(self) -> int:
        """The address of the memory's data (as Numba's `MemInfo.data`)."""
        from ember.runtime.nrt import data_address

        return data_address(self.meminfo)


_decref: list = []  # the runtime's ctypes decref, bound before the first array is boxed


class _BorrowedView:
    """A view of an argument array: keeps the argument alive."""

    __slots__ = ("__array_interface__", "base")

    def __init__(self, base: Any, interface: dict) -> None:
        self.base = base
        self.__array_interface__ = interface


_dtypes: dict[types.Type, Any] = {}


def _numpy_dtype(dtype: types.Type) -> Any:
    found = _dtypes.get(dtype)
    if found is None:
        from ember.library.numpy.support import numpy_dtype

        found = _dtypes[dtype] = numpy_dtype(dtype)
    return found


def _interface(typ: types.Array, memory: Any, shape: tuple, strides: tuple) -> dict:
    interface = {
        "version": 3,
        "typestr": _numpy_dtype(typ.dtype).str,
        "data": (memory.data or 0, bool(typ.readonly)),
        "shape": shape,
        "strides": strides,
    }
    return interface


def _with_fields(typ: types.Array, array: Any) -> Any:
    """A record array as its structured dtype (the interface's typestr says only '|V<size>',
    and NumPy's `descr` cannot spell out-of-order fields)."""
    return array.view(typ.dtype.dtype) if isinstance(typ.dtype, types.Record) else array


def box(
    typ: types.Array, memory: Any, inputs: tuple, memo: dict | None = None, owners: tuple = ()
) -> Any:
    """The ndarray for an array value the compiled function returned (a new reference).
    `memo` maps the arrays already boxed for this result, so that an array returned twice
    (in a tuple) is one ndarray. `owners`: arguments an extension's @unbox took apart (an
    awkward Array), whose memory an array value no block owns may view: the ndarray keeps
    them alive (Numba returns such a view with no owner at all)."""
    import numpy as np

    shape = tuple(memory.shape)
    strides = tuple(memory.strides)
    if memory.meminfo:
        if not _decref:
            from ember.runtime.nrt import runtime

            _decref.append(runtime().decref)
        key = (memory.meminfo, memory.data, shape, strides, typ)
        if memo is not None and key in memo:
            _decref[0](memory.meminfo)  # this copy's reference is not needed
            return memo[key]
        adopted = _adopted_parent(memory)
        if adopted is not None and _views_all_of(adopted, typ, memory, shape, strides):
            _decref[0](memory.meminfo)  # the ndarray itself stands for the value
            return adopted
        owner = _RuntimeMemory(memory.meminfo, _interface(typ, memory, shape, strides))
        result = _with_fields(typ, np.asarray(owner))
        if memo is not None:
            memo[key] = result
        return result
    parent = _find_parent(memory.parent, inputs)
    is_parent = parent is not None  # the value's own parent object, not just its memory's
    if parent is None:  # a record's sub-array field: a view of the argument holding it
        parent = _holder_of(memory.data or 0, inputs, owners)
    if parent is None:  # foreign memory (carray over a pointer): a view owning nothing, as Numba
        return _with_fields(
            typ, np.asarray(_BorrowedView(None, _interface(typ, memory, shape, strides)))
        )
    if parent is owners:
        view = np.asarray(_BorrowedView(owners, _interface(typ, memory, shape, strides)))
        return _with_fields(typ, view)
    if is_parent and _views_all_of(parent, typ, memory, shape, strides):
        return parent
    view = _with_fields(
        typ, np.asarray(_BorrowedView(parent, _interface(typ, memory, shape, strides)))
    )
    if typ.readonly or not parent.flags.writeable:
        view.flags.writeable = False
    return view


def _holder_of(address: int, inputs: tuple, owners: tuple = ()) -> Any:
    """The argument (an ndarray or a NumPy record) or frozen global array whose bytes hold
    `address`; else `owners` (extension arguments, which hold memory of their own) when there
    are any; else None: memory no runtime block owns and no argument holds is foreign (a
    `carray` over a pointer), since every array the call makes carries its block."""
    import numpy as np
    from numpy.lib.array_utils import byte_bounds

    for value in (*inputs, *_named_constants.values()):
        if isinstance(value, np.void):
            value = np.asarray(value)  # its bytes, in place
        if isinstance(value, np.ndarray) and value.size:
            low, high = byte_bounds(value)
            if low <= address < high:
                return value
    return owners or None


def box_record(typ: types.Record, memory: Any) -> Any:
    """A returned record ({meminfo, data}, RecordModel): a copy of its bytes as a NumPy record
    (np.record, a np.void whose fields read as attributes too), as Numba returns. Its reference
    (a record kept alive by its memory's meminfo) is released; one holding none lies in an
    argument or in foreign memory."""
    import numpy as np

    holder = np.empty(1, typ.dtype)
    ctypes.memmove(holder.ctypes.data, memory.data, typ.size)
    if memory.meminfo:
        from ember.runtime.nrt import runtime

        runtime().decref(memory.meminfo)
    return holder.view(np.recarray)[0]


def _views_all_of(parent: Any, typ: types.Array, memory: Any, shape, strides) -> bool:
    """Whether the value is the ndarray `parent` itself (a read-only view of a writable
    array, `np.broadcast_to(a, a.shape)`, is not)."""
    return (
        parent.shape == shape
        and parent.strides == strides
        and data_address(parent) == (memory.data or 0)
        and parent.dtype == _numpy_dtype(typ.dtype)
        and not (typ.readonly and parent.flags.writeable)
    )


def _adopted_parent(memory: Any) -> Any:
    """The ndarray held by the meminfo of an array adopted from Python (stored in a jitclass
    field or a container: ember/lowering/adopted_arrays.py; an 8-byte block holding the
    ndarray's address, which is also the value's parent), else None."""
    from ember.runtime import nrt

    if not memory.parent or nrt.data_size(memory.meminfo) != 8:
        return None
    if ctypes.c_void_p.from_address(nrt.data_address(memory.meminfo)).value != memory.parent:
        return None
    return ctypes.cast(memory.parent, ctypes.py_object).value


def box_at(typ: types.Array, address: int, parent: Any, *arguments: Any) -> Any:
    """Box the array value a native entry left at `address` (its parent: an argument or None;
    without one, the call's `arguments`, whose memory it may view); takes over the value's
    reference."""
    memory = memory_ctype(typ).from_address(address)
    return box(typ, memory, arguments if parent is None else (parent,))


_constants: dict[int, Any] = {}  # frozen copies of global arrays, by address, kept alive


def freeze(array: Any) -> Any:
    """A read-only C-contiguous copy of a global array for compiled code to embed; it lives as
    long as the process (compiled code holds its address)."""
    import numpy as np

    frozen = np.array(array, order="C", copy=True)
    frozen.flags.writeable = False
    _constants[id(frozen)] = frozen
    return frozen


_named_constants: dict[str, Any] = {}  # the same frozen copies, by content


def freeze_constant(array: Any) -> tuple[Any, str]:
    """(frozen copy, symbol prefix) of a global array; compiled code reaches the copy through
    the symbols `<prefix>.obj` (the ndarray) and `<prefix>.data` (its data)."""
    import hashlib

    import numpy as np

    contiguous = np.asarray(array, order="C")
    digest = hashlib.blake2b(digest_size=12)
    # the dtype's descr tells apart structured dtypes of one size ('|V8' for both)
    digest.update(f"{contiguous.dtype.descr}{contiguous.shape}".encode())
    digest.update(contiguous.tobytes())
    name = f"ember.const.{digest.hexdigest()}"
    frozen = _named_constants.get(name)
    if frozen is None:
        frozen = _named_constants[name] = freeze(contiguous)
    from ember.codegen.symbols import publish

    publish(f"{name}.obj", id(frozen))
    publish(f"{name}.data", frozen.ctypes.data)
    return frozen, name


def named_constant(name: str) -> Any:
    """The frozen array published under the symbol prefix `name` (None if unknown)."""
    return _named_constants.get(name)


def _find_parent(address: int | None, values: Any) -> Any:
    if not address:
        return None
    if address in _constants:
        return _constants[address]
    ndarray = sys.modules["numpy"].ndarray
    for value in values:
        if isinstance(value, ndarray) and id(value) == address:
            return value
        if isinstance(value, (tuple, list)):  # a tuple's member, a reflected list's item
            found = _find_parent(address, value)
            if found is not None:
                return found
    return None
