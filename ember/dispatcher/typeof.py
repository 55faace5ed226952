"""typeof: the ember type of a Python value, with hard-coded fast paths for the common kinds
and a generic, extensible `typeof_impl` for the rest (seed 003)."""

from __future__ import annotations

import array
import enum
import functools
import sys
from functools import singledispatch
from typing import Any

from ember import types
from ember.dispatcher.reflection import holds_lists
from ember.errors import ArgumentTypeError, ArgumentValueError, NumbaTypeError, TypingError
from ember.types.datetimes import datetime_type_of_dtype
from ember.typing.conversions import unify_pair

_EXACT_TYPES: dict[type, types.Type] = {
    bool: types.boolean,
    float: types.float64,
    complex: types.complex128,
    type(None): types.none,
    str: types.unicode_type,
    bytes: types.bytes_type,
    type(Ellipsis): types.ellipsis_type,
}

_NUMPY_SCALARS: dict[Any, types.Type] = {}


def typeof(value: Any) -> types.Type:
    """The ember type of `value`; raises ValueError when ember cannot type it."""
    found = typeof_or_none(value)
    if found is None:
        raise ValueError(  # Numba's words first: programs match them
            f"Cannot determine Numba type of {type(value)}: ember has no type for a "
            f"{type(value).__name__!r} value"
        )
    return found


def typeof_or_none(value: Any) -> types.Type | None:
    """Hard-coded fast paths first, then the fingerprint cache, then the generic `typeof_impl`."""
    cls = type(value)
    exact = _EXACT_TYPES.get(cls)
    if exact is not None:
        return exact
    if cls is int:
        return _int_type(value)
    if isinstance(value, enum.Enum):  # before the class's getattr, slow on an enum class
        return types.enum_member_type(cls)
    declared = getattr(cls, "_ember_type_", None) or getattr(cls, "_numba_type_", None)
    if isinstance(declared, types.Type):
        return declared
    key = fingerprint(value)
    if key is not None:
        cached = _fingerprint_cache.get(key)
        if cached is not None:
            cache_info.hits += 1
            return cached
        cache_info.misses += 1
    found = _typeof_slow(value, cls)
    if key is not None and found is not None:
        _fingerprint_cache[key] = found
    return found


def _typeof_slow(value: Any, cls: type) -> types.Type | None:
    if cls is tuple:
        members = [typeof_or_none(item) for item in value]
        return None if None in members else types.make_tuple(members)
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):  # a namedtuple
        members = [typeof_or_none(item) for item in value]
        return None if None in members else types.make_named_tuple(members, cls)
    if isinstance(value, list):
        return _typeof_list(value)
    if cls is set or cls is dict:
        return _typeof_set(value) if cls is set else _refuse_dict()
    numpy_type = _typeof_numpy(value, cls)
    if numpy_type is not None:
        return numpy_type
    found = typeof_impl(value)
    if found is None and not _core_library_loaded:
        _load_core_library()  # its modules type more values (ctypes and cffi functions...)
        found = typeof_impl(value)
    if found is None and _is_plain_array_subclass(value):
        return _typeof_array(value)  # np.memmap, user subclasses: passed as their array
    return found


def _is_plain_array_subclass(value: Any) -> bool:
    """An ndarray subclass with no type of its own (masked arrays are refused earlier)."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.ndarray)


_core_library_loaded = False


def _load_core_library() -> None:
    """Register the core library, as the first compilation does: a value may be typed (a
    jitted function's argument, `ember.typeof(x)`) before anything was compiled."""
    global _core_library_loaded
    from ember import library

    library.load_core()
    _core_library_loaded = True


def _typeof_set(items: set) -> types.Type:
    """A Python set passes as a set of its items' type (reflected, as a list): numbers take
    their common type; strings and tuples of them pass too (as in Numba)."""
    if not items:
        raise ArgumentValueError(  # Numba's words first; a ValueError too, as Numba's
            "cannot compute fingerprint of empty set: an empty set has no item type; add an "
            "item before passing it"
        )
    dtype = _typeof_list(list(items)).dtype
    if not _set_item(dtype):
        raise TypingError(
            f"only sets of numbers, strings or tuples of them can be passed from Python (this "
            f"one holds {dtype}): build the set inside the jitted function"
        )
    return types.Set(dtype, reflected=True)


def _set_item(dtype: types.Type) -> bool:
    """Whether a Python set of `dtype` items can be copied into a native set and back."""
    if isinstance(dtype, types.BaseTuple) and not types.is_named_tuple(dtype):
        return all(_set_item(member) for member in dtype.types)
    return isinstance(dtype, (types.Number, types.Boolean, types.UnicodeType))


def _refuse_dict() -> None:
    raise TypingError(
        "a Python dict cannot be passed to compiled code (as in Numba, dicts are not "
        "reflected): pass an ember.typed.Dict, e.g. d = ember.typed.Dict.empty("
        "key_type=ember.types.int64, value_type=ember.types.float64), or build the dict "
        "inside the jitted function"
    )


class _CacheInfo:
    """Counts of fingerprint-cache hits and misses (tests and diagnostics read them)."""

    def __init__(self) -> None:
        self.hits = 0
        self.misses = 0


cache_info = _CacheInfo()
_fingerprint_cache: dict[bytes, types.Type] = {}
_SCALAR_FINGERPRINTS = {bool: b"?", float: b"d", complex: b"D", type(None): b"n", str: b"U"}


def fingerprint(value: Any) -> bytes | None:
    """A short byte string that determines `value`'s type (seed 003), or None when the value
    has no cheap fingerprint (then the generic typeof runs every time)."""
    cls = type(value)
    simple = _SCALAR_FINGERPRINTS.get(cls)
    if simple is not None:
        return simple
    if cls is int:
        return b"l" if -(1 << 63) <= value < (1 << 63) else None
    if cls is tuple:
        parts = [fingerprint(item) for item in value]
        return None if None in parts else b"(" + b"".join(parts) + b")"
    if cls is bytearray or cls is array.array or cls is memoryview:
        return _buffer_fingerprint(value, cls)
    np = sys.modules.get("numpy")
    if np is None:
        return None
    if cls is np.ndarray or cls is np.recarray:  # a recarray passes as its record array
        flags = value.flags
        layout = b"C" if flags.c_contiguous else b"F" if flags.f_contiguous else b"A"
        writable = b"w" if flags.writeable else b"r"
        return b"a" + _dtype_spelling(value.dtype) + bytes([value.ndim]) + layout + writable
    if isinstance(value, np.generic):
        return b"s" + _dtype_spelling(value.dtype)
    return None


def _buffer_fingerprint(value: Any, cls: type) -> bytes:
    """A buffer object's type is decided by its class, item format, dimensions, layout and
    writability."""
    if cls is bytearray:
        return b"Y"
    if cls is array.array:
        return b"y" + value.typecode.encode()
    layout = b"C" if value.c_contiguous else b"F" if value.f_contiguous else b"A"
    writable = b"r" if value.readonly else b"w"
    return b"v" + value.format.encode() + bytes([value.ndim]) + layout + writable


def _dtype_spelling(dtype: Any) -> bytes:
    """Bytes that tell dtypes apart (a structured dtype's `str` is only its size)."""
    if dtype.fields is None:
        return dtype.str.encode()
    key = (dtype, dtype.isalignedstruct)
    spelling = _structured_spellings.get(key)
    if spelling is None:  # str() of a structured dtype runs Python code: ~50 us
        spelling = _structured_spellings[key] = str(dtype).encode()
    return spelling


# Structured dtypes seen, by value (equal dtypes have one spelling; each kept once).
_structured_spellings: dict[tuple, bytes] = {}


def _typeof_list(items: list) -> types.Type:
    """A Python list passes as a list of its items' type (reflected: the callee's changes are
    written back, as Numba does). Numbers take their common type; other items the type of the
    first one, which every item must have (checked item by item as the list is unboxed)."""
    if not items:
        raise ArgumentValueError(  # Numba's words first
            "cannot compute fingerprint of empty list: an empty list has no item type; pass a "
            "NumPy array or a typed List instead"
        )
    classes = set(map(type, items))  # at C speed
    if classes <= _NUMBER_CLASSES or all(map(_is_number_class, classes)):
        return _list_type(_common_number_type(items, classes))
    if len(classes) > 1 and all(isinstance(item, _jitted_function_class()) for item in items):
        names = " and ".join(dict.fromkeys(item.py_func.__name__ for item in items))
        raise TypingError(
            "a list of jitted functions passed from Python must hold one function (as Numba "
            f"types it; this one holds {names}): pass a tuple of them instead"
        )
    if len(classes) > 1:
        odd_first = sorted(classes, key=lambda cls: (cls in _NUMBER_CLASSES, cls.__name__))
        names = " and ".join(cls.__name__ for cls in odd_first[:2])
        raise TypingError(
            f"a list passed from Python must hold items of one type (this one holds {names}): "
            "pass a NumPy array, or build the list inside the jitted function"
        )
    try:
        item_type = typeof_or_none(items[0])
    except TypingError as refused:  # Numba's words first (a ValueError, as typeof's)
        raise UntypableItemError(
            f"Cannot type list element type {type(items[0])}: {refused.msg}"
        ) from None
    if isinstance(item_type, (types.List, types.Set)):
        return _list_type(item_type)  # typed as Numba does; refused when passed (reflection.py)
    if isinstance(item_type, types.BaseTuple) and holds_lists(item_type):
        return _list_type(item_type)  # `[(1, [2])]`: copied item by item (reflection.py)
    if not reflectable_item(item_type):
        raise _unreflectable(items[0], item_type)
    return _list_type(item_type)


class UntypableItemError(TypingError, ValueError):
    """A list passed from Python whose items have no type in compiled code."""


@functools.cache
def _jitted_function_class() -> type:
    from ember.dispatcher.dispatcher import Dispatcher

    return Dispatcher


_NUMBER_CLASSES = frozenset((bool, int, float, complex))
_EXACT_IN_FLOAT = 1 << 53  # ints up to this size are exact as float64
_list_types: dict[types.Type, types.List] = {}


def _list_type(item_type: types.Type) -> types.List:
    found = _list_types.get(item_type)
    if found is None:
        found = _list_types[item_type] = types.List(item_type, reflected=True)
    return found


def _common_number_type(items: list, classes: set) -> types.Type:
    """The type all the numbers of `items` convert to; ints need their range, which min/max
    give when every int fits int64 (otherwise each int is typed on its own, as it may be
    uint64)."""
    if int not in classes:
        return _unified(frozenset(map(_number_class_type, classes)))
    ints = [item for item in items if type(item) is int] if len(classes) > 1 else items
    if classes & {float, complex} and not -_EXACT_IN_FLOAT <= min(ints) <= max(ints) <= (
        _EXACT_IN_FLOAT
    ):
        raise ArgumentTypeError(  # Numba's words: it never unboxes int and float together
            "can't unbox heterogeneous list: it holds ints that a float64 cannot hold exactly "
            "beside floats; pass ints and floats in separate lists (or a NumPy array)"
        )
    if -(1 << 63) <= min(ints) and max(ints) < (1 << 63):
        int_types = {types.int64}
    else:
        int_types = {_int_type(item) for item in ints}
        if None in int_types:
            raise TypingError(
                "a list passed from Python holds int beyond 64 bits: compiled code has no "
                "type for it"
            )
    return _unified(frozenset(int_types.union(map(_number_class_type, classes - {int}))))


def _is_number_class(cls: type) -> bool:
    """A Python number class or a NumPy number/bool scalar class (a list may mix them: values
    read from an array beside Python floats)."""
    if cls in _NUMBER_CLASSES:
        return True
    np = sys.modules.get("numpy")
    if np is None or not issubclass(cls, (np.number, np.bool_)):
        return False
    if issubclass(cls, np.timedelta64):  # a NumPy integer subclass, but not a number here
        return False
    return dtype_to_type(np.dtype(cls)) is not None  # not float16, longdouble


def _number_class_type(cls: type) -> types.Type:
    exact = _EXACT_TYPES.get(cls)
    return exact if exact is not None else dtype_to_type(sys.modules["numpy"].dtype(cls))


@functools.cache
def _unified(number_types: frozenset) -> types.Type:
    """The common type of some number types (as Numba unifies them)."""
    found = None
    for typ in sorted(number_types, key=str):  # one order, whatever the set's
        found = typ if found is None else unify_pair(found, typ)
    return found


def reflectable_item(typ: types.Type | None) -> bool:
    """Whether a list of `typ` can be passed from Python and written back."""
    if isinstance(typ, (types.Number, types.Boolean, types.UnicodeType, types.Array)):
        return not isinstance(typ, types.Array) or not isinstance(typ.dtype, types.Record)
    if isinstance(typ, (types.NPDatetime, types.NPTimedelta)):  # each item of the first's unit
        return True
    if isinstance(typ, (types.ClassInstanceType, types.DispatcherType)):
        return True  # (a jitted function: every item must be that very function)
    if isinstance(typ, types.BaseTuple):
        return all(reflectable_item(member) for member in typ.types)
    from ember.lowering.boxing import extension_boxed

    return typ is not None and extension_boxed(typ)  # through the extension's @unbox/@box


def _unreflectable(item: Any, item_type: types.Type | None) -> Exception:
    return TypingError(
        "only lists of numbers, datetimes, strings, NumPy arrays, tuples of these, one "
        "jitclass's instances or values of an extension's type with @box and @unbox "
        f"can be passed from Python (this one holds {type(item).__name__}"
        f"{'' if item_type is None else f' of type {item_type}'}): pass a NumPy array or an "
        "ember.typed.List instead"
    )


def _int_type(value: int) -> types.Type | None:
    if types.int64.minval <= value <= types.int64.maxval:
        return types.int64
    if 0 <= value <= types.uint64.maxval:
        return types.uint64
    return None


def _typeof_scalar_class(np, value: type) -> types.Type | None:
    """A concrete NumPy scalar class makes numbers (`NumberClass`); an abstract one
    (np.integer, np.floating) serves only as isinstance()'s class."""
    try:
        dtype = np.dtype(value)
    except TypeError:
        return types.Function(value)
    return types.NumberClass(value) if dtype_to_type(dtype) is not None else None


def _typeof_numpy(value: Any, cls: type) -> types.Type | None:
    np = sys.modules.get("numpy")
    if np is None:
        return None
    if cls is np.ndarray or cls is np.recarray:  # a recarray passes as its record array
        return _typeof_array(value)
    if isinstance(value, type) and issubclass(value, np.generic):  # np.float32 as a dtype
        return _typeof_scalar_class(np, value)
    if isinstance(value, np.dtype):  # a dtype as a value: np.empty(n, dtype) inside
        return dtype_value_type(value)
    if isinstance(value, np.void) and value.dtype.fields is not None:
        return _typeof_array(value.reshape(1)).dtype  # a record: its reasons if refused
    if isinstance(value, np.generic):
        if isinstance(value, str):  # np.str_, as `s[i]` gives it: passed as a str
            return types.unicode_type
        scalar = dtype_to_type(value.dtype)
        return None if isinstance(scalar, types.CharSeq) else scalar  # no bytes arguments
    if cls.__name__ == "Generator" and cls.__module__ == "numpy.random._generator":
        return types.npy_rng
    if isinstance(value, np.random.BitGenerator):
        return types.npy_bitgen
    if cls.__name__ == "Polynomial" and cls.__module__ == "numpy.polynomial.polynomial":
        from ember.library.numpy.polynomial import polynomial_type_of

        return polynomial_type_of(value)
    if isinstance(value, np.ma.MaskedArray):  # Numba's words: its mask would be dropped
        raise NumbaTypeError(
            "Unsupported array type: numpy.ma.MaskedArray: compiled code would drop its mask; "
            "pass `values.filled(fill)` or `values.data` with the mask beside it"
        )
    return None


def _typeof_array(array: Any) -> types.Type | None:
    dtype = dtype_to_type(array.dtype)
    if dtype is None:  # say why, rather than "cannot type an ndarray"
        from ember.library.numpy.support import from_numpy_dtype

        from_numpy_dtype(array.dtype)  # raises a TypingError naming the dtype
        return None
    flags = array.flags
    layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
    return types.Array(dtype, array.ndim, layout, readonly=not flags.writeable)


_DTYPE_NAMES = {
    "bool": types.boolean, "int8": types.int8, "int16": types.int16, "int32": types.int32,
    "int64": types.int64, "uint8": types.uint8, "uint16": types.uint16,
    "uint32": types.uint32, "uint64": types.uint64, "float32": types.float32,
    "float64": types.float64, "complex64": types.complex64, "complex128": types.complex128,
}  # fmt: skip


def dtype_value_type(dtype: Any) -> types.DType | None:
    """The type of a dtype passed as a value. np.dtype(object) is one too (numpy-groupies
    passes it along): parse_dtype refuses to make arrays of it."""
    if dtype.kind == "O":
        return types.DType(types.pyobject)
    scalar = dtype_to_type(dtype)
    return None if scalar is None else types.DType(scalar)


def dtype_to_type(dtype: Any) -> types.Type | None:
    """The ember scalar type of a NumPy dtype, or None for unsupported dtypes."""
    if dtype.fields is not None:
        return _record_type(dtype)
    if dtype.byteorder not in "=|" and dtype.byteorder != _native_byteorder():
        return None
    if dtype.kind == "U" and dtype.itemsize:
        return types.UnicodeCharSeq(dtype.itemsize // 4)
    if dtype.kind == "S" and dtype.itemsize:
        return types.CharSeq(dtype.itemsize)
    if dtype.kind in "mM":
        return datetime_type_of_dtype(dtype)
    return _DTYPE_NAMES.get(dtype.name)


def _record_type(dtype: Any) -> types.Record | None:
    """The record type of a structured dtype whose fields are numbers, nested records or
    sub-arrays of those (None for others: strings, objects, ...)."""
    members = []
    for name in dtype.names:  # dtype.fields also holds each title as a key
        field_dtype, offset, *title = dtype.fields[name]
        field_type = _field_type(field_dtype)
        if field_type is None:
            return None
        members.append((name, field_type, offset, title[0] if title else None))
    record = types.Record(members, dtype.itemsize, dtype.isalignedstruct)
    record.remember_dtype(dtype)
    return record


def _field_type(field_dtype: Any) -> types.Type | None:
    if field_dtype.subdtype is None:
        return dtype_to_type(field_dtype)
    return subarray_type(field_dtype)


def subarray_type(field_dtype: Any) -> types.NestedArray | None:
    """The NestedArray of a sub-array dtype; a sub-array of sub-arrays is one array of the
    joined shapes (its bytes are laid out so)."""
    base, shape = field_dtype.subdtype
    if base.subdtype is not None:
        inner = subarray_type(base)
        return None if inner is None else types.NestedArray(inner.dtype, shape + inner.shape)
    element = dtype_to_type(base)
    return None if element is None else types.NestedArray(element, shape)


def _native_byteorder() -> str:
    return "<" if sys.byteorder == "little" else ">"


@singledispatch
def typeof_impl(value: Any) -> types.Type | None:
    """The extensible fallback: `@typeof_impl.register(MyClass)` adds a rule for a class.

    For values of no registered class it asks the instance's own `_ember_type_` /
    `_numba_type_` attribute, then the generic hooks of `register_typeof_hook` (extension
    API, issue 4: for kinds of value that no list of classes can name)."""
    declared = getattr(value, "_ember_type_", None) or getattr(value, "_numba_type_", None)
    if isinstance(declared, types.Type):
        return declared
    for hook in _typeof_hooks:
        found = hook(value)
        if found is not None:
            return found
    return None


_typeof_hooks: list = []


def _numpy_integer_classes() -> tuple:
    np = sys.modules.get("numpy")
    return () if np is None else (np.integer, np.bool_)


@typeof_impl.register(slice)
def _typeof_slice(value: slice) -> types.SliceType | None:
    """Numba's rule: a step of None or 1 is a two-part slice; only integer (or None) parts
    (unboxed by ember/library/builtins/slices.py)."""
    parts = (value.start, value.stop, value.step)
    integral = (int, *_numpy_integer_classes())
    if not all(part is None or isinstance(part, integral) for part in parts):
        return None
    return types.slice2_type if value.step in (None, 1) else types.slice3_type


@typeof_impl.register(bytearray)
def _typeof_bytearray(value: bytearray) -> types.ByteArray:
    return types.ByteArray(types.uint8, 1, "C")


@typeof_impl.register(memoryview)
def _typeof_memoryview(value: memoryview) -> types.MemoryView | None:
    """Numba's rule: the item type of the view's format, its dimensions, layout and
    writability (None for formats NumPy cannot read or items ember has no type for)."""
    view = buffer_array(value)
    dtype = None if view is None else dtype_to_type(view.dtype)
    if dtype is None or isinstance(dtype, types.Record | types.CharSeq | types.UnicodeCharSeq):
        return None
    layout = "C" if value.c_contiguous else "F" if value.f_contiguous else "A"
    return types.MemoryView(dtype, value.ndim, layout, readonly=value.readonly)


@typeof_impl.register(array.array)
def _typeof_python_array(value: array.array) -> types.PyArray | None:
    view = buffer_array(value)
    dtype = None if view is None else dtype_to_type(view.dtype)
    return None if dtype is None else types.PyArray(dtype, 1, "C")


def buffer_array(value: Any) -> Any:
    """The ndarray over a buffer object's memory (sharing it), or None when NumPy cannot view
    it; how bytearray, memoryview and array.array arguments pass to compiled code."""
    import numpy as np

    try:
        return np.asarray(value if isinstance(value, memoryview) else memoryview(value))
    except (TypeError, ValueError, NotImplementedError):
        return None


@typeof_impl.register(types.Type)
def _typeof_type(value: types.Type) -> types.TypeRef:
    """A type passed as a value (`f(n, dtype=float64)`), as a global of it is typed."""
    return types.TypeRef(value)


@typeof_impl.register(types.WrapperAddressProtocol)
def _typeof_wrapper_address(value: Any) -> types.FunctionType:
    """An object that is a C function (Numba's protocol): a first-class function."""
    return types.FunctionType(value.signature())


@typeof_impl.register(enum.EnumMeta)
def _typeof_enum_class(value: type) -> types.EnumClass:
    return types.enum_class_type(value)


def register_typeof_hook(hook: Any) -> Any:
    """Add `hook(value) -> Type | None`, asked (in registration order) for otherwise untyped
    values; `ember.extending.register_typeof_hook` is the public spelling."""
    _typeof_hooks.append(hook)
    return hook


def typeof_constant(value: Any) -> types.Type | None:
    """typeof for compile-time constants seen as globals (NumPy scalars, user classes)."""
    return typeof_or_none(value)
