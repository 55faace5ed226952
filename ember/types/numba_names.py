"""Numba's other names in `numba.types` for ember's types: the platform aliases (`np_intc`,
`c_long`...), the number domains, and the abstract kinds overloads test with isinstance
(`types.IterableType`, `types.Sequence`...), each matching the ember types of that kind."""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from ember.types import scalars
from ember.types.abstract import Type, _InterningMeta
from ember.types.arrays import (  # noqa: F401 - ArrayCompatible, Buffer...: Numba names
    Array,
    ArrayCompatible,
    Buffer,
    ByteArray,
    DType,
    MemoryView,
    PyArray,
    PythonBuffer,
    ellipsis_type,
)
from ember.types.containers import BaseTuple, RangeIteratorType, RangeType
from ember.types.dicts import HashTable
from ember.types.functions import DispatcherType, Function
from ember.types.lists import List
from ember.types.strings import BytesType, UnicodeIterator, UnicodeType


def _c_integer(c_type: Any, signed: bool = True) -> scalars.Integer:
    """The ember integer of a C integer type's size on this platform (NumPy sizes its C-named
    scalar classes the same way; numpy itself is not imported: `import ember` stays light)."""
    return scalars.integer_type(8 * ctypes.sizeof(c_type), signed)


bool = scalars.boolean  # noqa: A001 - Numba's name: `types.bool`
ellipsis = ellipsis_type

# NumPy's C-named scalar classes (`numba.types.np_*`), sized as this platform's NumPy has them.
np_bool_ = scalars.boolean
np_char = scalars.int8
np_uchar = scalars.uint8
np_short, np_ushort = _c_integer(ctypes.c_short), _c_integer(ctypes.c_short, False)
np_intc, np_uintc = _c_integer(ctypes.c_int), _c_integer(ctypes.c_int, False)
np_long, np_ulong = _c_integer(ctypes.c_long), _c_integer(ctypes.c_long, False)
np_longlong = _c_integer(ctypes.c_longlong)
np_ulonglong = _c_integer(ctypes.c_longlong, False)
np_intp, np_uintp = _c_integer(ctypes.c_ssize_t), _c_integer(ctypes.c_ssize_t, False)
np_int_, np_uint = np_intp, np_uintp  # NumPy 2's default integer is pointer-sized
np_int8, np_int16, np_int32, np_int64 = (scalars.int8, scalars.int16, scalars.int32, scalars.int64)
np_uint8, np_uint16 = scalars.uint8, scalars.uint16
np_uint32, np_uint64 = scalars.uint32, scalars.uint64
np_float32 = np_float_ = scalars.float32  # Numba's np_float_ is float32
np_float64 = np_double = scalars.float64
np_complex64, np_complex128 = scalars.complex64, scalars.complex128

# C's fixed-width names (`numba.types.c_*`).
c_bool = scalars.boolean
c_int8, c_int16, c_int32, c_int64 = np_int8, np_int16, np_int32, np_int64
c_uint8, c_uint16, c_uint32, c_uint64 = np_uint8, np_uint16, np_uint32, np_uint64
c_intp, c_uintp = np_intp, np_uintp
c_float32, c_float64 = scalars.float32, scalars.float64

# Python's number classes as compiled code sees them.
py_bool = scalars.boolean
py_int = scalars.int64
py_float = scalars.float64
py_complex = scalars.complex128

np_signed_domain = py_signed_domain = frozenset(scalars.signed_domain)
np_unsigned_domain = frozenset(scalars.unsigned_domain)
np_integer_domain = py_integer_domain = frozenset(scalars.integer_domain)
np_real_domain = py_real_domain = frozenset(scalars.real_domain)
np_complex_domain = py_complex_domain = frozenset(scalars.complex_domain)
np_number_domain = py_number_domain = frozenset(scalars.number_domain)

range_state32_type = RangeType(scalars.int32)
range_iter32_type = RangeIteratorType(scalars.int32)
unsigned_range_state64_type = RangeType(scalars.uint64)
unsigned_range_iter64_type = RangeIteratorType(scalars.uint64)

Dispatcher = DispatcherType  # a jitted function as a value
UnicodeIteratorType = UnicodeIterator


class _KindMeta(_InterningMeta):
    """isinstance(t, Kind) asks the kind's `matches(t)`: ember's types do not inherit Numba's
    abstract classes, so each kind says which ember types it covers. The kinds are also base
    classes of an extension's own types (`class MyView(types.IterableType)`, as in Numba):
    a class that does not define `matches` itself is checked as an ordinary class."""

    def __instancecheck__(cls, value: Any) -> bool:
        if type.__instancecheck__(cls, value):
            return True
        return "matches" in cls.__dict__ and isinstance(value, Type) and cls.matches(value)


class _Kind(Type, metaclass=_KindMeta):
    @staticmethod
    def matches(typ: Type) -> bool:
        raise NotImplementedError


class IterableType(_Kind):
    """Types a `for` loop can iterate (they have an `iterator_type`)."""

    @staticmethod
    def matches(typ: Type) -> bool:
        return hasattr(typ, "iterator_type") or isinstance(typ, BaseTuple)


class IteratorType(_Kind):
    """Iterators (they have a `yield_type`); an iterator iterates itself."""

    @staticmethod
    def matches(typ: Type) -> bool:
        return hasattr(typ, "yield_type")

    @property
    def iterator_type(self) -> Type:
        return self


class SimpleIterableType(IterableType):
    """An extension's iterable type whose iterator type is given: `(name, iterator_type)`."""

    matches = IterableType.matches

    def __init__(self, name: str, iterator_type: Type) -> None:
        self._iterator_type = iterator_type
        super().__init__(name)

    @property
    def iterator_type(self) -> Type:
        return self._iterator_type


class SimpleIteratorType(IteratorType):
    """An extension's iterator type whose item type is given: `(name, yield_type)`."""

    matches = IteratorType.matches

    def __init__(self, name: str, yield_type: Type) -> None:
        self._yield_type = yield_type
        super().__init__(name)

    @property
    def yield_type(self) -> Type:
        return self._yield_type


class Container(_Kind):
    """Lists, sets and dicts."""

    @staticmethod
    def matches(typ: Type) -> bool:
        return isinstance(typ, (List, HashTable))


class Sequence(_Kind):
    """Lists (Numba's sequences: indexable, sized)."""

    @staticmethod
    def matches(typ: Type) -> bool:
        return isinstance(typ, List)


MutableSequence = Sequence


class Sized(_Kind):
    """Types `len()` accepts."""

    @staticmethod
    def matches(typ: Type) -> bool:
        sized = (List, HashTable, BaseTuple, Array, UnicodeType, BytesType, RangeType)
        return isinstance(typ, sized)


class ConstSized(_Kind):
    """Tuples: their length is part of the type."""

    @staticmethod
    def matches(typ: Type) -> bool:
        return isinstance(typ, BaseTuple)


class DTypeSpec(_Kind):
    """Types that stand for a NumPy dtype: `a.dtype` and NumPy's scalar classes (`np.float64`),
    which `numba.core.typing.npydecl.parse_dtype` turns into the scalar type."""

    @staticmethod
    def matches(typ: Type) -> bool:
        if isinstance(typ, DType):
            return True
        if isinstance(typ, Function) and "numpy" in sys.modules:  # no NumPy: no NumPy class
            from ember.library.numpy.support import scalar_class_type

            key = typ.typing_key
            return (
                getattr(key, "__module__", None) == "numpy" and scalar_class_type(key) is not None
            )
        return False


class Hashable(_Kind):
    """Types usable as dict keys and set items."""

    @staticmethod
    def matches(typ: Type) -> bool:
        if isinstance(typ, BaseTuple):
            return all(Hashable.matches(member) for member in typ.types)
        return isinstance(typ, (scalars.Number, scalars.Boolean, UnicodeType, BytesType))


class StarArgTuple(_Kind):
    """Numba's type of a `*args` tuple handed to an overload function as one argument. ember
    hands an overload function the `*args` types one by one, so no type is one of these."""

    @staticmethod
    def matches(typ: Type) -> bool:
        return False


class StarArgUniTuple(StarArgTuple):
    """Numba's homogeneous `*args` tuple; as StarArgTuple, no ember type is one."""


class Bytes(_Kind):
    """Numba's `Bytes(uint8, 1, "C", readonly=True)`, the type of `bytes`: ember's one bytes
    type (`bytes_type`); isinstance matches it."""

    def __new__(cls, dtype: Type, ndim: int, layout: str, readonly: bool = False) -> Any:
        if (dtype, ndim, layout) != (scalars.uint8, 1, "C"):
            raise TypeError(f"ember's bytes are uint8, 1d, C; not {dtype}, {ndim}d, {layout}")
        from ember.types.strings import bytes_type

        return bytes_type

    @staticmethod
    def matches(typ: Type) -> bool:
        return isinstance(typ, BytesType)


_IMPORTED = {"annotations", "ctypes", "sys", "Any", "scalars", "Type", "Array", "BaseTuple"}
_IMPORTED |= {"DType", "Function", "_InterningMeta"}
_IMPORTED |= {"ellipsis_type", "RangeIteratorType", "RangeType", "HashTable", "List"}
_IMPORTED |= {"DispatcherType", "BytesType", "UnicodeIterator", "UnicodeType"}
__all__ = [name for name in dir() if not name.startswith("_") and name not in _IMPORTED]

_NOT_IN_EMBER = {
    "float16": "half-precision floats are not supported",
    "f2": "half-precision floats are not supported",
    "np_float16": "half-precision floats are not supported",
    "c_float16": "half-precision floats are not supported",
    "Object": "object-mode values are all `types.pyobject`",
    "ffi": "cffi functions are not supported (use ctypes)",
}


def late_name(module: str, name: str) -> Any:
    """A name computed on first use (`numpy_version`: importing ember does not import NumPy),
    else the AttributeError for a `numba.types` name ember has no counterpart for."""
    if name == "numpy_version":
        import numpy as np

        return tuple(int(part) for part in np.__version__.split(".")[:2])
    if name in _NUMBA_SUBMODULES:  # `types.npytypes.Array` in an overload: ember.types.Array
        import sys

        return sys.modules[module]
    raise missing_name(module, name)


# Numba's submodules of `numba.core.types`, whose names ember.types holds itself
_NUMBA_SUBMODULES = frozenset({"npytypes", "misc", "iterators", "common", "function_type"})


def missing_name(module: str, name: str) -> AttributeError:
    """The error for a `numba.types` name ember has no counterpart for, saying why."""
    reason = _NOT_IN_EMBER.get(name)
    if reason is None:
        return AttributeError(f"module {module!r} has no attribute {name!r}")
    return AttributeError(f"{module}.{name} does not exist in ember: {reason}")
