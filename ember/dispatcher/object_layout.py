"""What the native entry knows of its values: value kinds and the native convention's
flattening, CPython and NumPy object layouts (probed and verified at run time), and C-API
addresses. Consumes nothing; produces the facts native_entry.py generates code from."""

from __future__ import annotations

import ctypes
import sys
import sysconfig
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeAlias

from llvmlite import ir

from ember.dispatcher.datetime_entry import DatetimeKind, is_datetime_dtype_name
from ember.dispatcher.entry_buffers import BufferKind, ByteArrayKind, MemoryViewKind
from ember.dispatcher.entry_records import RECORD_FIELDS, RecordKind, void_layout_verified
from ember.dispatcher.entry_slices import SliceKind

Kind: TypeAlias = str | tuple["Kind", ...]
"""A value kind: a scalar kind name or a (possibly nested) tuple of kinds."""


@dataclass(frozen=True)
class ExactScalarKind:
    """An int64, uint64, float64 or complex128 argument matched by its exact class: Python's
    number (`numpy=False`) or NumPy's scalar (`numpy=True`), which compile apart (NumPy's
    promotion keeps a NumPy scalar strong: types.np_int64). A plain scalar kind name takes
    either (a dispatcher with explicit signatures converts one to the other)."""

    name: str
    numpy: bool

    def python_class(self) -> type | None:
        if self.numpy:
            return numpy_scalar_type(self.name)
        return {"int64": int, "float64": float, "complex128": complex}.get(self.name)


Specialization: TypeAlias = tuple[Sequence[Kind], Kind, str | int]
"""``(arg_kinds, ret_kind, target)``; target is a symbol name or a function address."""

AddModule: TypeAlias = Callable[[str], Callable[[str], int]]
"""Takes LLVM IR text, JIT-compiles it, and returns a ``symbol -> address`` lookup."""

METH_KEYWORDS = 0x0002
METH_FASTCALL = 0x0080

_INT_KINDS: dict[str, tuple[int, bool]] = {
    "int8": (8, True),
    "int16": (16, True),
    "int32": (32, True),
    "int64": (64, True),
    "uint8": (8, False),
    "uint16": (16, False),
    "uint32": (32, False),
    "uint64": (64, False),
}
_SCALAR_KINDS = frozenset(_INT_KINDS) | {
    "float32",
    "float64",
    "bool",
    "complex64",
    "complex128",
    "none",
}
# Kinds whose Python values can be recognised by an exact type / identity check.
_FAST_PATH_SCALARS = frozenset({"int64", "float64", "bool", "complex128", "none"})

_PTR = ir.PointerType()
_I8 = ir.IntType(8)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_F32 = ir.FloatType()
_F64 = ir.DoubleType()
_SSIZE = ir.IntType(ctypes.sizeof(ctypes.c_ssize_t) * 8)
_LONGLONG = ir.IntType(ctypes.sizeof(ctypes.c_longlong) * 8)
_PTR_SIZE = ctypes.sizeof(ctypes.c_void_p)


# --------------------------------------------------------------------------------------------
# Kinds and the native calling convention
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DtypeObject:
    """The dtype of a structured (record) or fixed-width string array's kind: an argument's
    descr must equal it (the very object first, then by value), and new results get it."""

    dtype: Any  # a numpy.dtype


@dataclass(frozen=True)
class SetKind:
    """A returned (reflected) set of `item` kinds: its meminfo (ember/lowering/dicts.py's
    table); boxed as a Python set. Only returned: set arguments take the Python path."""

    item: Any


@dataclass(frozen=True, eq=False)
class GeneratorKind:
    """A returned generator: its meminfo (the state block), boxed by calling `boxer(meminfo,
    *arguments)` (ember/dispatcher/generators.py), which keeps the call's arguments alive, as
    the suspended body may borrow their memory. Only returned. Equal kinds: the same boxer."""

    boxer: Callable[..., object]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GeneratorKind) and other.boxer is self.boxer

    def __hash__(self) -> int:
        return id(self.boxer)


@dataclass(frozen=True)
class ArrayKind:
    """A NumPy array argument: dtype name (or DtypeObject), dimensions, layout ('C', 'F',
    'A'), writability.

    Flattens like ember's array data model: meminfo (NULL: borrowed), parent (the ndarray),
    nitems, itemsize, data, shape[ndim], strides[ndim].
    """

    dtype: str | DtypeObject
    ndim: int
    layout: str
    readonly: bool


@dataclass(frozen=True)
class StringKind:
    """A `str` (or, `of_bytes`, a `bytes`) argument or result: ember's string model {meminfo,
    data, length, kind} (bytes: kind 1); an argument is copied into a new block the entry
    releases after the call (entry_strings.py)."""

    of_bytes: bool = False


STRING_FIELDS = [_PTR, _PTR, _I64, _I64]


@dataclass(frozen=True)
class OptionalKind:
    """A result that is None or a scalar or string of kind ``inner``: memory
    ``{inner, i8 valid}`` (ember's Optional data model). Only returned: arguments never have
    this kind."""

    inner: str | StringKind


class NamedTupleKind(tuple):
    """A namedtuple: the member kinds (it is laid out, matched and unboxed as a tuple of
    them) and its class, which an argument must be exactly and a result is made by."""

    named: type

    def __new__(cls, members: tuple, named: type) -> NamedTupleKind:
        kind = super().__new__(cls, members)
        kind.named = named
        return kind

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, NamedTupleKind)
            and self.named is other.named
            and tuple.__eq__(self, other)
        )

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((id(self.named), tuple(self)))


class ConstantKind:
    """An argument that must be this very object (a jitted function or class passed as a value):
    matched by identity, it has no native values. One kind per live object (equal kinds are the
    same kind).

    The object is held weakly and matched through `cell`, which holds its address until it
    dies: an entry must not keep a function made at run time alive, nor match another object
    later given the same address. Generated code reads the cell for as long as it exists, so a
    cleared cell is kept for good."""

    _live: dict[int, ConstantKind] = {}
    _retired_cells: list = []

    def __new__(cls, value: object) -> ConstantKind:
        found = cls._live.get(id(value))
        if found is not None and found.value is value:
            return found
        kind = super().__new__(cls)
        kind._address = id(value)
        kind.cell = ctypes.c_void_p(kind._address)
        try:
            kind._ref = weakref.ref(value, kind._forget)
        except TypeError:  # no weak references to it: held, as the kinds of its type are
            kind._ref = lambda: value
        cls._live[kind._address] = kind
        return kind

    def _forget(self, _ref: object) -> None:
        self.cell.value = None  # NULL: never an argument
        kinds = type(self)  # (not the module global: this may run at interpreter shutdown)
        kinds._retired_cells.append(self.cell)
        if kinds._live.get(self._address) is self:
            del kinds._live[self._address]

    @property
    def value(self) -> object:
        return self._ref()

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ConstantKind)
            and other._address == self._address
            and other.value is self.value is not None
        )

    def __hash__(self) -> int:
        return self._address

    def __repr__(self) -> str:
        return f"ConstantKind({self.value!r})"


@dataclass(frozen=True, eq=False)
class EnumKind:
    """An enum member argument: matched by its class, passed as its value (of the number kind
    `value_kind`). `members` are (member, value) pairs: an enum has a fixed set of member
    objects, so the value is found by identity, without an attribute lookup."""

    enum_class: type
    value_kind: str
    members: tuple

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, EnumKind)
            and other.enum_class is self.enum_class
            and other.value_kind == self.value_kind
        )

    def __hash__(self) -> int:
        return hash((id(self.enum_class), self.value_kind))


@dataclass(frozen=True, eq=False)
class InstanceKind:
    """A jitclass instance (or typed dict) argument: a box of exactly `box_class`, whose slot at
    `meminfo_offset` holds its meminfo address as a Python int. Flattens like ember's instance
    model: meminfo, data (= meminfo + the runtime's header size), or the meminfo alone when not
    `data_pointer` (a typed dict). A `tag` (structref proxies: one class, many types) must be
    the very object in the slot at `tag_offset` too, and `boxer` boxes returned meminfos in
    place of `box_class._boxer`. Equal kinds: the same class and tag."""

    box_class: type
    meminfo_offset: int
    data_pointer: bool = True
    tag: object = None
    tag_offset: int = 0
    boxer: Callable[[int], object] | None = None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, InstanceKind)
            and other.box_class is self.box_class
            and other.tag is self.tag
        )

    def __hash__(self) -> int:
        return id(self.box_class)


@dataclass(frozen=True, eq=False)
class ReflectedListKind:
    """A list argument: a Python list, copied into a native list by the generated function at
    `unbox` (`ptr unbox(PyObject*)`: NULL when its items are not of the list type) and written
    back by `reflect` after the call (ember/dispatcher/reflected_lists.py). Flattens to the
    list's meminfo. Equal kinds: the same list type. A Python set (`container`) passes the
    same way into a native set (reflected_sets.py)."""

    list_type: Any
    unbox: int
    reflect: int
    release: int
    container: type = list

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReflectedListKind) and other.list_type == self.list_type

    def __hash__(self) -> int:
        return hash(self.list_type)


def _check_kind(kind: Kind) -> None:
    """Raise ``TypeError`` unless ``kind`` is a valid value kind."""
    if isinstance(kind, ExactScalarKind):
        kind = kind.name
    if isinstance(kind, OptionalKind):
        if isinstance(kind.inner, StringKind):
            return
        if isinstance(kind.inner, ArrayKind):
            _check_kind(kind.inner)
            return
        if kind.inner not in _SCALAR_KINDS or kind.inner == "none":
            raise TypeError(f"unsupported optional kind: {kind.inner!r}")
        return
    if isinstance(kind, (ConstantKind, InstanceKind, ReflectedListKind, DatetimeKind, StringKind)):
        return
    if isinstance(kind, SliceKind | BufferKind | RecordKind):
        return
    if isinstance(kind, EnumKind):
        if kind.value_kind not in _INT_KINDS and kind.value_kind not in ("float32", "float64"):
            raise TypeError(f"unsupported enum value kind: {kind.value_kind!r}")
        return
    if isinstance(kind, SetKind):
        _check_kind(kind.item)
        return
    if isinstance(kind, GeneratorKind):
        return
    if isinstance(kind, ArrayKind):
        if isinstance(kind.dtype, DtypeObject) or is_datetime_dtype_name(kind.dtype):
            return
        if kind.dtype not in _SCALAR_KINDS or kind.dtype == "none":
            raise TypeError(f"unsupported array dtype kind: {kind.dtype!r}")
        return
    if isinstance(kind, tuple):
        for member in kind:
            _check_kind(member)
    elif not isinstance(kind, str) or kind not in _SCALAR_KINDS:
        raise TypeError(f"unsupported value kind: {kind!r}")


def numpy_dtype_of(kind: ArrayKind) -> Any:
    """The numpy.dtype of an array kind's items."""
    if isinstance(kind.dtype, DtypeObject):
        return kind.dtype.dtype
    return sys.modules["numpy"].dtype("bool" if kind.dtype == "bool" else kind.dtype)


def flatten_arg_types(kind: Kind) -> list[ir.Type]:
    """LLVM parameter types that one argument of ``kind`` flattens to in the native convention."""
    if isinstance(kind, ExactScalarKind):
        kind = kind.name
    if isinstance(kind, tuple):
        return [t for member in kind for t in flatten_arg_types(member)]
    _check_kind(kind)
    if isinstance(kind, ConstantKind):
        return []
    if isinstance(kind, EnumKind):
        return flatten_arg_types(kind.value_kind)
    if isinstance(kind, InstanceKind):
        return [_PTR, _PTR] if kind.data_pointer else [_PTR]
    if isinstance(kind, ReflectedListKind | SetKind):
        return [_PTR]
    if isinstance(kind, StringKind):
        return list(STRING_FIELDS)
    if isinstance(kind, ArrayKind):
        return [_PTR, _PTR, _I64, _I64, _PTR] + [_I64] * (2 * kind.ndim)
    if isinstance(kind, DatetimeKind):
        return [_I64]
    if isinstance(kind, SliceKind):  # start, stop, step (SliceModel)
        return [_I64] * 3
    if isinstance(kind, RecordKind):
        return list(RECORD_FIELDS)
    if isinstance(kind, ByteArrayKind):  # a 1-d array
        return [_PTR, _PTR, _I64, _I64, _PTR, _I64, _I64]
    if isinstance(kind, MemoryViewKind):
        return [_PTR, _PTR, _I64, _I64, _PTR] + [_I64] * (2 * kind.ndim)
    if kind in _INT_KINDS:
        return [ir.IntType(_INT_KINDS[kind][0])]
    return {
        "float32": [_F32],
        "float64": [_F64],
        "bool": [_I8],
        "complex64": [_F32, _F32],
        "complex128": [_F64, _F64],
        "none": [],
    }[kind]


def return_memory_type(kind: Kind) -> ir.Type:
    """LLVM type of the memory the native function stores its ``kind`` result into."""
    if isinstance(kind, tuple):
        return ir.LiteralStructType([return_memory_type(member) for member in kind])
    _check_kind(kind)
    if isinstance(kind, OptionalKind):
        return ir.LiteralStructType([return_memory_type(kind.inner), _I8])
    if isinstance(kind, InstanceKind | StringKind | RecordKind):
        return ir.LiteralStructType(flatten_arg_types(kind))
    if isinstance(kind, SetKind | GeneratorKind):
        return ir.LiteralStructType([_PTR])
    if isinstance(kind, ArrayKind):
        dims = ir.LiteralStructType([_I64] * kind.ndim)
        return ir.LiteralStructType([_PTR, _PTR, _I64, _I64, _PTR, dims, dims])
    if isinstance(kind, DatetimeKind):
        return _I64
    if kind in _INT_KINDS:
        return ir.IntType(_INT_KINDS[kind][0])
    return {
        "float32": _F32,
        "float64": _F64,
        "bool": _I8,
        "complex64": ir.LiteralStructType([_F32, _F32]),
        "complex128": ir.LiteralStructType([_F64, _F64]),
        "none": ir.LiteralStructType([]),  # no bytes, as NoneModel: a tuple's later members
    }[kind]


def native_function_type(arg_kinds: Sequence[Kind]) -> ir.FunctionType:
    """``i32 (ptr retptr, ptr excinfo, ptr env, <flattened args...>)``."""
    flat = [t for kind in arg_kinds for t in flatten_arg_types(kind)]
    return ir.FunctionType(_I32, [_PTR, _PTR, _PTR, *flat])


def fast_path_supported(kind: Kind) -> bool:
    """Whether a Python argument of ``kind`` can be recognised and unboxed on the fast path.

    Only the kinds that ember's typing assigns to plain Python objects qualify: ``int`` ->
    int64, ``float`` -> float64, ``bool``, ``complex`` -> complex128, ``None`` and exact tuples
    of those. Specializations with any other argument kind are never selected natively.
    """
    if isinstance(kind, ExactScalarKind):
        return kind.python_class() is not None and fast_path_supported(kind.name)
    if isinstance(kind, tuple):
        return all(fast_path_supported(member) for member in kind)
    if isinstance(kind, (ConstantKind, InstanceKind, ReflectedListKind, DatetimeKind, EnumKind)):
        return True
    if isinstance(kind, SliceKind | BufferKind):
        return True
    if isinstance(kind, RecordKind):
        return void_layout_verified()
    if isinstance(kind, ArrayKind):
        return numpy_layout() is not None
    if isinstance(kind, OptionalKind | SetKind | GeneratorKind):
        return False
    if isinstance(kind, StringKind):
        from ember.runtime.string_boxing import bytes_layout_verified, layout_verified

        return bytes_layout_verified() if kind.of_bytes else layout_verified()
    return kind in _FAST_PATH_SCALARS or numpy_scalar_type(kind) is not None


@dataclass(frozen=True)
class NumpyLayout:
    """Byte offsets into ndarray and dtype objects (NumPy's public struct layouts)."""

    data: int = 16
    nd: int = 24
    dimensions: int = 32
    strides: int = 40
    descr: int = 56
    flags: int = 64
    descr_byteorder: int = 26
    descr_type_num: int = 28


@dataclass(frozen=True)
class NumpyCAPI:
    """Addresses of the NumPy C-API functions the entry calls to build result arrays."""

    descr_from_type: int
    new_from_descr: int
    set_base_object: int
    scalar: int


@cache
def numpy_capi() -> NumpyCAPI | None:
    """From NumPy's `_ARRAY_API` table (slots 45, 94, 282, 60 of numpy/__multiarray_api.h),
    checked through slot 2 (the ndarray type); None keeps new arrays on the Python boxer."""
    numpy = sys.modules.get("numpy")
    core = sys.modules.get("numpy._core._multiarray_umath")
    if numpy is None or core is None:
        return None
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    try:
        table = get_pointer(core._ARRAY_API, None)
    except (AttributeError, ValueError):
        return None
    slots = (ctypes.c_void_p * 283).from_address(table)
    if slots[2] != id(numpy.ndarray):
        return None
    return NumpyCAPI(slots[45], slots[94], slots[282], slots[60])


_NPY_C_CONTIGUOUS = 0x1
_NPY_F_CONTIGUOUS = 0x2
_NPY_WRITEABLE = 0x400


@cache
def numpy_layout() -> NumpyLayout | None:
    """The ndarray layout, verified against a live array (None: arrays take the slow path)."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    layout = NumpyLayout()
    probe = numpy.zeros((3, 5), dtype=numpy.float32)[:, ::2]
    address = id(probe)
    checks = [
        _read_ptr(address + layout.data) == probe.ctypes.data,
        ctypes.c_int.from_address(address + layout.nd).value == probe.ndim,
        _read_ptr(address + layout.descr) == id(probe.dtype),
        ctypes.c_int.from_address(address + layout.flags).value == probe.flags.num,
        ctypes.c_int.from_address(id(probe.dtype) + layout.descr_type_num).value == probe.dtype.num,
        (ctypes.c_ssize_t * 2).from_address(_read_ptr(address + layout.dimensions))[:]
        == list(probe.shape),
        (ctypes.c_ssize_t * 2).from_address(_read_ptr(address + layout.strides))[:]
        == list(probe.strides),
    ]
    return layout if all(checks) else None


def numpy_scalar_type(kind: Kind) -> type | None:
    """The NumPy scalar class whose instances have ``kind`` (when NumPy is loaded).

    NumPy scalar objects keep their value right after the object header, so they unbox with
    one load once their exact type matched.
    """
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(kind, str) or kind == "none":
        return None
    return getattr(numpy, "bool_" if kind == "bool" else kind, None)


_NUMPY_SCALAR_VALUE_OFFSET = 16  # sizeof(PyObject): the scalar value follows the header


# --------------------------------------------------------------------------------------------
# CPython object layout (probed and verified against the running interpreter)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PyLayout:
    """Byte offsets into CPython objects that the generated code reads directly."""

    refcnt_offset: int
    type_offset: int
    var_size_offset: int
    float_value_offset: int
    complex_value_offset: int
    tuple_items_offset: int
    long_digits_offset: int
    long_scheme: str | None
    """``"ob_size"`` (<= 3.11), ``"lv_tag"`` (>= 3.12) or None (always call the C API)."""
    inline_incref: bool
    """Whether ``Py_INCREF`` may be emitted as a plain ``ob_refcnt += 1``."""
    immortal_singletons: bool
    """Whether None/True/False are immortal (>= 3.12), so returning them needs no incref."""


def _read_ptr(address: int) -> int:
    return ctypes.c_void_p.from_address(address).value or 0


def _read_ssize(address: int) -> int:
    return ctypes.c_ssize_t.from_address(address).value


@cache
def probe_layout() -> PyLayout:
    """Derive object offsets from ``__basicsize__`` and verify them by reading live objects.

    Raises ``RuntimeError`` if the interpreter's layout is not the one the code generator
    understands (the essential pieces are ``ob_type``, ``ob_size`` and the tuple item array).
    """
    header = object.__basicsize__  # PyObject_HEAD; ob_type is its last field.
    type_off = header - _PTR_SIZE
    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    refcnt_off = 0
    layout_ok = all(
        _read_ptr(id(o) + type_off) == id(type(o)) for o in (None, 1, 2.5, (1,), "s", 1j)
    )
    var_size_off = header
    probe_tuple = (11, 2.5, None)
    layout_ok = layout_ok and _read_ssize(id(probe_tuple) + var_size_off) == 3
    items_off = tuple.__basicsize__
    layout_ok = layout_ok and all(
        _read_ptr(id(probe_tuple) + items_off + i * _PTR_SIZE) == id(item)
        for i, item in enumerate(probe_tuple)
    )
    if not layout_ok:
        raise RuntimeError("unsupported CPython object layout for native entry points")

    float_off = float.__basicsize__ - ctypes.sizeof(ctypes.c_double)
    if ctypes.c_double.from_address(id(2.75) + float_off).value != 2.75:
        raise RuntimeError("unsupported PyFloatObject layout")
    complex_off = complex.__basicsize__ - 2 * ctypes.sizeof(ctypes.c_double)
    probe_complex = complex(1.5, -2.5)
    if (
        ctypes.c_double.from_address(id(probe_complex) + complex_off).value != 1.5
        or ctypes.c_double.from_address(id(probe_complex) + complex_off + 8).value != -2.5
    ):
        raise RuntimeError("unsupported PyComplexObject layout")

    digits_off = int.__basicsize__
    long_scheme: str | None = None
    if sys.int_info.sizeof_digit == 4:
        values = [int("12345"), int("-777"), int("0")]

        def digit0(v: int) -> int:
            return ctypes.c_uint32.from_address(id(v) + digits_off).value

        word = [_read_ssize(id(v) + var_size_off) for v in values]
        digits_ok = digit0(values[0]) == 12345 and digit0(values[1]) == 777
        if sys.version_info < (3, 12) and word == [1, -1, 0] and digits_ok:
            long_scheme = "ob_size"
        # lv_tag bit 2 (3.14+: small-int immortality) is ignored by the fast path, so mask it.
        elif sys.version_info >= (3, 12) and [w & ~4 for w in word] == [8, 10, 1] and digits_ok:
            long_scheme = "lv_tag"

    probe_obj = object()
    inline_incref = (
        not free_threaded
        and not hasattr(sys, "gettotalrefcount")  # Py_REF_DEBUG also updates _Py_RefTotal
        and sys.version_info < (3, 12)  # 3.12+ Py_INCREF must skip immortal objects
        and _read_ssize(id(probe_obj) + refcnt_off) == sys.getrefcount(probe_obj) - 1
    )
    return PyLayout(
        refcnt_offset=refcnt_off,
        type_offset=type_off,
        var_size_offset=var_size_off,
        float_value_offset=float_off,
        complex_value_offset=complex_off,
        tuple_items_offset=items_off,
        long_digits_offset=digits_off,
        long_scheme=long_scheme,
        inline_incref=inline_incref,
        immortal_singletons=sys.version_info >= (3, 12),
    )


# --------------------------------------------------------------------------------------------
# C-API access through absolute addresses
# --------------------------------------------------------------------------------------------

_CAPI_SIGNATURES: dict[str, tuple[ir.Type, list[ir.Type]]] = {
    "PyLong_AsLongLongAndOverflow": (_LONGLONG, [_PTR, _PTR]),
    "PyLong_FromLongLong": (_PTR, [_LONGLONG]),
    "PyLong_AsVoidPtr": (_PTR, [_PTR]),
    "PyLong_FromUnsignedLongLong": (_PTR, [_LONGLONG]),
    "PyFloat_FromDouble": (_PTR, [_F64]),
    "PyComplex_FromDoubles": (_PTR, [_F64, _F64]),
    "PyTuple_New": (_PTR, [_SSIZE]),
    "PyList_New": (_PTR, [_SSIZE]),
    "PyList_SetItem": (_I32, [_PTR, _SSIZE, _PTR]),
    "PySet_New": (_PTR, [_PTR]),
    "PyType_GenericAlloc": (_PTR, [_PTR, _SSIZE]),
    "PySet_Add": (_I32, [_PTR, _PTR]),
    "PyObject_Vectorcall": (_PTR, [_PTR, _PTR, _SSIZE, _PTR]),
    "PyLong_FromVoidPtr": (_PTR, [_PTR]),
    "PyObject_CallOneArg": (_PTR, [_PTR, _PTR]),
    "Py_IncRef": (ir.VoidType(), [_PTR]),
    "Py_DecRef": (ir.VoidType(), [_PTR]),
    "PyErr_SetString": (ir.VoidType(), [_PTR, _PTR]),
    "PyEval_SaveThread": (_PTR, []),
    "PyEval_RestoreThread": (ir.VoidType(), [_PTR]),
    "PyObject_Call": (_PTR, [_PTR, _PTR, _PTR]),
    "PyObject_RichCompareBool": (_I32, [_PTR, _PTR, _I32]),
    "PyErr_Clear": (ir.VoidType(), []),
    "PyDict_Size": (_SSIZE, [_PTR]),
    "PyUnicode_FromKindAndData": (_PTR, [_I32, _PTR, _SSIZE]),
    "PySequence_List": (_PTR, [_PTR]),
    "PySet_Clear": (_I32, [_PTR]),
    "PyNumber_InPlaceOr": (_PTR, [_PTR, _PTR]),
    "PyBytes_FromStringAndSize": (_PTR, [_PTR, _SSIZE]),
}


def _capi_address(name: str) -> int:
    """Address of an exported C-API function of the running interpreter."""
    return ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value or 0


class _FunctionPointer(ir.values.FormattedConstant):
    """An absolute function address usable as a callee with opaque pointers.

    ``IRBuilder.call`` needs ``callee.function_type``, which an opaque ``ptr`` cannot provide;
    this constant carries it explicitly, independently of llvmlite's typed-pointer mode.
    """

    def __init__(self, function_type: ir.FunctionType, address: int) -> None:
        super().__init__(_PTR, f"inttoptr (i64 {address} to ptr)")
        self.function_type = function_type


def _object_constant(obj: object) -> ir.Constant:
    """``ptr`` constant holding the address of ``obj`` (the caller keeps ``obj`` alive)."""
    return ir.Constant(_I64, id(obj)).inttoptr(_PTR)
