"""Native CPython entry points for ember-compiled functions, generated without a C compiler.

Consumes specializations ``(arg_kinds, ret_kind, target)`` of the ember native calling convention
and produces an LLVM ``METH_FASTCALL | METH_KEYWORDS`` entry function plus the builtin wrapping it.
"""

from __future__ import annotations

import ctypes
import itertools
import re
import sys
import sysconfig
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeAlias

import llvmlite.binding as llvm
from llvmlite import ir

__all__ = [
    "Kind",
    "PyLayout",
    "SimpleMCJIT",
    "build_entry_module",
    "compile_entry",
    "default_jit",
    "fast_path_supported",
    "flatten_arg_types",
    "make_pycfunction",
    "probe_layout",
    "return_memory_type",
]

Kind: TypeAlias = str | tuple["Kind", ...]
"""A value kind: a scalar kind name or a (possibly nested) tuple of kinds."""

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
class ArrayKind:
    """A NumPy array argument: dtype name, dimensions, layout ('C', 'F', 'A'), writability.

    Flattens like ember's array data model: meminfo (NULL: borrowed), parent (the ndarray),
    nitems, itemsize, data, shape[ndim], strides[ndim].
    """

    dtype: str
    ndim: int
    layout: str
    readonly: bool


def _check_kind(kind: Kind) -> None:
    """Raise ``TypeError`` unless ``kind`` is a valid value kind."""
    if isinstance(kind, ArrayKind):
        if kind.dtype not in _SCALAR_KINDS or kind.dtype == "none":
            raise TypeError(f"unsupported array dtype kind: {kind.dtype!r}")
        return
    if isinstance(kind, tuple):
        for member in kind:
            _check_kind(member)
    elif not isinstance(kind, str) or kind not in _SCALAR_KINDS:
        raise TypeError(f"unsupported value kind: {kind!r}")


def flatten_arg_types(kind: Kind) -> list[ir.Type]:
    """LLVM parameter types that one argument of ``kind`` flattens to in the native convention."""
    if isinstance(kind, tuple):
        return [t for member in kind for t in flatten_arg_types(member)]
    _check_kind(kind)
    if isinstance(kind, ArrayKind):
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
    if isinstance(kind, ArrayKind):
        dims = ir.LiteralStructType([_I64] * kind.ndim)
        return ir.LiteralStructType([_PTR, _PTR, _I64, _I64, _PTR, dims, dims])
    if kind in _INT_KINDS:
        return ir.IntType(_INT_KINDS[kind][0])
    return {
        "float32": _F32,
        "float64": _F64,
        "bool": _I8,
        "complex64": ir.LiteralStructType([_F32, _F32]),
        "complex128": ir.LiteralStructType([_F64, _F64]),
        "none": _I8,
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
    if isinstance(kind, tuple):
        return all(fast_path_supported(member) for member in kind)
    if isinstance(kind, ArrayKind):
        return numpy_layout() is not None
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


@cache
def numpy_capi() -> NumpyCAPI | None:
    """From NumPy's `_ARRAY_API` table (slots 45, 94, 282 of numpy/__multiarray_api.h),
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
    return NumpyCAPI(slots[45], slots[94], slots[282])


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
    "PyLong_FromUnsignedLongLong": (_PTR, [_LONGLONG]),
    "PyFloat_FromDouble": (_PTR, [_F64]),
    "PyComplex_FromDoubles": (_PTR, [_F64, _F64]),
    "PyTuple_New": (_PTR, [_SSIZE]),
    "PyObject_Vectorcall": (_PTR, [_PTR, _PTR, _SSIZE, _PTR]),
    "PyLong_FromVoidPtr": (_PTR, [_PTR]),
    "PyObject_CallOneArg": (_PTR, [_PTR, _PTR]),
    "Py_IncRef": (ir.VoidType(), [_PTR]),
    "Py_DecRef": (ir.VoidType(), [_PTR]),
    "PyErr_SetString": (ir.VoidType(), [_PTR, _PTR]),
    "PyEval_SaveThread": (_PTR, []),
    "PyEval_RestoreThread": (ir.VoidType(), [_PTR]),
    "PyObject_Call": (_PTR, [_PTR, _PTR, _PTR]),
    "PyDict_Size": (_SSIZE, [_PTR]),
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


# --------------------------------------------------------------------------------------------
# Entry-function code generation
# --------------------------------------------------------------------------------------------


class _EntryCodegen:
    """Emits the body of one fastcall entry function."""

    def __init__(
        self,
        module: ir.Module,
        function: ir.Function,
        layout: PyLayout,
        fallback: object,
        raise_exception: object,
        defaults: Sequence[object] = (),
        release_gil: bool = False,
        array_boxers: dict | None = None,
        capsule_destructor: int | None = None,
    ) -> None:
        self.array_boxers = array_boxers or {}
        self.capsule_destructor = (
            _FunctionPointer(ir.FunctionType(ir.VoidType(), [_PTR]), capsule_destructor)
            if capsule_destructor
            else None
        )
        self.defaults = tuple(defaults)
        self.release_gil = release_gil
        self.module = module
        self.function = function
        self.layout = layout
        self.fallback = fallback
        self.raise_exception = raise_exception
        self.self_arg, self.raw_args, self.raw_nargs, self.kwnames_arg = function.args
        # The arguments the specializations read: the raw ones, or keyword-folded ones.
        self.args_arg, self.nargs_arg = self.raw_args, self.raw_nargs
        entry = function.append_basic_block("entry")
        self.alloca_builder = ir.IRBuilder(entry)
        self.builder = ir.IRBuilder(function.append_basic_block("dispatch"))
        self._entry = entry
        self._capi: dict[str, _FunctionPointer] = {}
        self._overflow_slot: ir.Value | None = None
        self._exc_slot: ir.Value | None = None
        self.fallback_block = function.append_basic_block("fallback")
        self.raise_block = function.append_basic_block("raise")

    # -- small helpers ------------------------------------------------------------------------

    def capi(self, name: str) -> _FunctionPointer:
        if name not in self._capi:
            restype, argtypes = _CAPI_SIGNATURES[name]
            address = _capi_address(name)
            if not address:
                raise RuntimeError(f"C-API function {name} not found")
            self._capi[name] = _FunctionPointer(ir.FunctionType(restype, argtypes), address)
        return self._capi[name]

    def call_capi(self, name: str, args: list[ir.Value]) -> ir.Value:
        return self.builder.call(self.capi(name), args)

    def alloca(self, typ: ir.Type, name: str) -> ir.Value:
        self.alloca_builder.position_at_start(self._entry)
        return self.alloca_builder.alloca(typ, name=name)

    def field_ptr(self, obj: ir.Value, offset: int) -> ir.Value:
        if offset == 0:
            return obj
        return self.builder.gep(obj, [ir.Constant(_I64, offset)], source_etype=_I8, inbounds=True)

    def load_field(self, obj: ir.Value, offset: int, typ: ir.Type, align: int) -> ir.Value:
        return self.builder.load(self.field_ptr(obj, offset), typ=typ, align=align)

    def new_block(self, name: str) -> ir.Block:
        return self.function.append_basic_block(name)

    def continue_if(self, cond: ir.Value, fail: ir.Block, name: str) -> None:
        """Branch to ``fail`` unless ``cond``; continue emitting in a fresh block."""
        ok = self.new_block(name)
        self.builder.cbranch(cond, ok, fail)
        self.builder.position_at_end(ok)

    def incref_singleton(self, obj: ir.Value) -> None:
        """``Py_INCREF`` for None/True/False."""
        if self.layout.immortal_singletons:
            return
        if self.layout.inline_incref:
            ptr = self.field_ptr(obj, self.layout.refcnt_offset)
            count = self.builder.load(ptr, typ=_SSIZE, align=8)
            self.builder.store(self.builder.add(count, ir.Constant(_SSIZE, 1)), ptr, align=8)
        else:
            self.call_capi("Py_IncRef", [obj])

    # -- matching -----------------------------------------------------------------------------

    def ob_type(self, obj: ir.Value) -> ir.Value:
        return self.load_field(obj, self.layout.type_offset, _PTR, _PTR_SIZE)

    def emit_match(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> None:
        """Emit exact-type checks of ``obj`` against ``kind``; branch to ``fail`` on mismatch."""
        b = self.builder
        if isinstance(kind, ArrayKind):
            self.emit_match_array(obj, kind, fail)
            return
        if isinstance(kind, tuple):
            is_tuple = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(tuple))
            self.continue_if(is_tuple, fail, "tuple.type_ok")
            size = self.load_field(obj, self.layout.var_size_offset, _SSIZE, 8)
            size_ok = b.icmp_signed("==", size, ir.Constant(_SSIZE, len(kind)))
            self.continue_if(size_ok, fail, "tuple.size_ok")
            for index, member in enumerate(kind):
                self.emit_match(self.tuple_item(obj, index), member, fail)
            return
        if kind == "bool":
            is_true = b.icmp_unsigned("==", obj, _object_constant(True))
            is_false = b.icmp_unsigned("==", obj, _object_constant(False))
            accepted = b.or_(is_true, is_false)
            numpy_bool = numpy_scalar_type("bool")
            if numpy_bool is not None:
                is_numpy = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(numpy_bool))
                accepted = b.or_(accepted, is_numpy)
            self.continue_if(accepted, fail, "bool_ok")
        elif kind == "none":
            self.continue_if(b.icmp_unsigned("==", obj, _object_constant(None)), fail, "none_ok")
        else:
            candidates = [{"int64": int, "float64": float, "complex128": complex}.get(kind)]
            candidates.append(numpy_scalar_type(kind))
            ob_type = self.ob_type(obj)
            same = ir.Constant(ir.IntType(1), 0)
            for pytype in filter(None, candidates):
                same = b.or_(same, b.icmp_unsigned("==", ob_type, _object_constant(pytype)))
            self.continue_if(same, fail, f"{kind}_ok")
            return

    def emit_match_array(self, obj: ir.Value, kind: ArrayKind, fail: ir.Block) -> None:
        """Exactly an ndarray with this ndim, dtype (native byte order) and layout."""
        b = self.builder
        numpy = sys.modules["numpy"]
        layout = numpy_layout()
        is_array = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(numpy.ndarray))
        self.continue_if(is_array, fail, "array.type_ok")
        nd = self.load_field(obj, layout.nd, _I32, 4)
        self.continue_if(b.icmp_signed("==", nd, _I32(kind.ndim)), fail, "array.ndim_ok")
        descr = self.load_field(obj, layout.descr, _PTR, _PTR_SIZE)
        type_num = self.load_field(descr, layout.descr_type_num, _I32, 4)
        expected = numpy.dtype("bool" if kind.dtype == "bool" else kind.dtype).num
        self.continue_if(b.icmp_signed("==", type_num, _I32(expected)), fail, "array.dtype_ok")
        order = self.load_field(descr, layout.descr_byteorder, _I8, 1)
        foreign = ord(">") if sys.byteorder == "little" else ord("<")
        self.continue_if(b.icmp_unsigned("!=", order, _I8(foreign)), fail, "array.order_ok")
        flags = self.load_field(obj, layout.flags, _I32, 4)
        c_flag = b.icmp_unsigned("!=", b.and_(flags, _I32(_NPY_C_CONTIGUOUS)), _I32(0))
        f_flag = b.icmp_unsigned("!=", b.and_(flags, _I32(_NPY_F_CONTIGUOUS)), _I32(0))
        if kind.layout == "C":
            layout_ok = c_flag
        elif kind.layout == "F":
            layout_ok = b.and_(f_flag, b.not_(c_flag))
        else:
            layout_ok = b.not_(b.or_(c_flag, f_flag))
        writeable = b.icmp_unsigned("!=", b.and_(flags, _I32(_NPY_WRITEABLE)), _I32(0))
        access_ok = b.not_(writeable) if kind.readonly else writeable
        self.continue_if(b.and_(layout_ok, access_ok), fail, "array.layout_ok")

    def emit_unbox_array(self, obj: ir.Value, kind: ArrayKind) -> list[ir.Value]:
        """Borrow the ndarray: NULL meminfo, the object as parent, its data/shape/strides."""
        b = self.builder
        layout = numpy_layout()
        dims_ptr = self.load_field(obj, layout.dimensions, _PTR, _PTR_SIZE)
        strides_ptr = self.load_field(obj, layout.strides, _PTR, _PTR_SIZE)
        shape = [self.load_field(dims_ptr, 8 * k, _I64, 8) for k in range(kind.ndim)]
        strides = [self.load_field(strides_ptr, 8 * k, _I64, 8) for k in range(kind.ndim)]
        nitems = ir.Constant(_I64, 1)
        for extent in shape:
            nitems = b.mul(nitems, extent)
        numpy = sys.modules["numpy"]
        itemsize = numpy.dtype("bool" if kind.dtype == "bool" else kind.dtype).itemsize
        data = self.load_field(obj, layout.data, _PTR, _PTR_SIZE)
        null = ir.Constant(_PTR, None)
        return [null, obj, nitems, ir.Constant(_I64, itemsize), data, *shape, *strides]

    def tuple_item(self, obj: ir.Value, index: int) -> ir.Value:
        offset = self.layout.tuple_items_offset + index * _PTR_SIZE
        return self.load_field(obj, offset, _PTR, _PTR_SIZE)

    # -- unboxing -----------------------------------------------------------------------------

    def emit_unbox(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> list[ir.Value]:
        """Unbox an already-matched ``obj`` into flattened native values (``fail`` on overflow)."""
        if isinstance(kind, ArrayKind):
            return self.emit_unbox_array(obj, kind)
        if isinstance(kind, tuple):
            values: list[ir.Value] = []
            for index, member in enumerate(kind):
                values.extend(self.emit_unbox(self.tuple_item(obj, index), member, fail))
            return values
        numpy_type = numpy_scalar_type(kind)
        if numpy_type is not None:
            return self.emit_unbox_numpy_or_python(obj, kind, numpy_type, fail)
        return self.emit_unbox_python(obj, kind, fail)

    def emit_unbox_numpy_or_python(
        self, obj: ir.Value, kind: str, numpy_type: type, fail: ir.Block
    ) -> list[ir.Value]:
        """Unbox a NumPy scalar of ``kind`` with one load, or a Python object of that kind."""
        b = self.builder
        numpy_block = self.new_block(f"{kind}.numpy")
        python_block = self.new_block(f"{kind}.python")
        join = self.new_block(f"{kind}.unboxed")
        is_numpy = b.icmp_unsigned("==", self.ob_type(obj), _object_constant(numpy_type))
        b.cbranch(is_numpy, numpy_block, python_block)
        b.position_at_end(numpy_block)
        memory = return_memory_type(kind)
        value_ptr = self.field_ptr(obj, _NUMPY_SCALAR_VALUE_OFFSET)
        numpy_values = self.flatten_memory(kind, b.load(value_ptr, typ=memory))
        numpy_end = b.block
        b.branch(join)
        b.position_at_end(python_block)
        has_python_kind = kind in _FAST_PATH_SCALARS
        python_values = self.emit_unbox_python(obj, kind, fail) if has_python_kind else None
        python_end = b.block
        if python_values is None:
            b.branch(fail)
        else:
            b.branch(join)
        b.position_at_end(join)
        merged = []
        for index, numpy_value in enumerate(numpy_values):
            phi = b.phi(numpy_value.type)
            phi.add_incoming(numpy_value, numpy_end)
            if python_values is not None:
                phi.add_incoming(python_values[index], python_end)
            merged.append(phi)
        return merged

    def flatten_memory(self, kind: str, value: ir.Value) -> list[ir.Value]:
        """The flattened argument values of a scalar loaded in its memory layout."""
        b = self.builder
        if kind in ("complex64", "complex128"):
            return [b.extract_value(value, 0), b.extract_value(value, 1)]
        if kind == "bool":
            return [b.zext(b.icmp_unsigned("!=", value, _I8(0)), _I8)]
        return [value]

    def emit_unbox_python(self, obj: ir.Value, kind: Kind, fail: ir.Block) -> list[ir.Value]:
        """Unbox a plain Python int, float, complex, bool or None."""
        b = self.builder
        if kind == "int64":
            return [self.emit_unbox_int64(obj, fail)]
        if kind == "float64":
            return [self.load_field(obj, self.layout.float_value_offset, _F64, 8)]
        if kind == "complex128":
            offset = self.layout.complex_value_offset
            return [
                self.load_field(obj, offset, _F64, 8),
                self.load_field(obj, offset + 8, _F64, 8),
            ]
        if kind == "bool":
            return [b.zext(b.icmp_unsigned("==", obj, _object_constant(True)), _I8)]
        if kind == "none":
            return []
        raise AssertionError(f"kind {kind!r} is not on the fast path")

    def emit_unbox_int64(self, obj: ir.Value, fail: ir.Block) -> ir.Value:
        b = self.builder
        scheme = self.layout.long_scheme
        slow = self.new_block("int.slow")
        join = self.new_block("int.join")
        fast_value = None
        fast_block = None
        if scheme is not None:
            word = self.load_field(obj, self.layout.var_size_offset, _SSIZE, 8)
            if scheme == "ob_size":
                # 3.11: ob_size = sign * ndigits; compact when ob_size in {-1, 0, 1}.
                sign = word
                compact = b.icmp_unsigned("<=", b.add(word, ir.Constant(_SSIZE, 1)), _SSIZE(2))
            else:
                # 3.12+: lv_tag = ndigits << 3 | sign bits (0: +, 1: zero, 2: -).
                compact = b.icmp_unsigned("<", word, ir.Constant(_SSIZE, 2 << 3))
                sign = b.sub(ir.Constant(_SSIZE, 1), b.and_(word, ir.Constant(_SSIZE, 3)))
            fast = self.new_block("int.fast")
            b.cbranch(compact, fast, slow)
            b.position_at_end(fast)
            digit = self.load_field(obj, self.layout.long_digits_offset, _I32, 4)
            fast_value = b.mul(b.zext(digit, _I64), b.sext(sign, _I64) if _SSIZE != _I64 else sign)
            fast_block = b.block
            b.branch(join)
        else:
            b.branch(slow)
        b.position_at_end(slow)
        if self._overflow_slot is None:
            self._overflow_slot = self.alloca(ir.IntType(32), "overflow")
        b.store(ir.Constant(_I32, 0), self._overflow_slot)
        slow_value = self.call_capi("PyLong_AsLongLongAndOverflow", [obj, self._overflow_slot])
        slow_value = b.sext(slow_value, _I64) if _LONGLONG != _I64 else slow_value
        overflowed = b.icmp_signed("!=", b.load(self._overflow_slot, typ=_I32), _I32(0))
        slow_done = self.new_block("int.slow_ok")
        b.cbranch(overflowed, fail, slow_done)
        b.position_at_end(slow_done)
        b.branch(join)
        b.position_at_end(join)
        phi = b.phi(_I64, name="int.value")
        phi.add_incoming(slow_value, slow_done)
        if fast_value is not None:
            phi.add_incoming(fast_value, fast_block)
        return phi

    # -- boxing -------------------------------------------------------------------------------

    def emit_box(self, kind: Kind, ptr: ir.Value) -> ir.Value:
        """Box the native value of ``kind`` stored at ``ptr``; the result may be NULL (error)."""
        b = self.builder
        mem_type = return_memory_type(kind)
        if isinstance(kind, ArrayKind):
            return self.emit_box_array(kind, ptr)
        if isinstance(kind, tuple):
            return self.emit_box_tuple(kind, ptr, mem_type)
        if kind in _INT_KINDS:
            bits, signed = _INT_KINDS[kind]
            value = b.load(ptr, typ=mem_type)
            if bits < 64:
                value = b.sext(value, _I64) if signed else b.zext(value, _I64)
            name = "PyLong_FromLongLong" if signed or bits < 64 else "PyLong_FromUnsignedLongLong"
            return self.call_capi(name, [value])
        if kind in ("float32", "float64"):
            value = b.load(ptr, typ=mem_type)
            if kind == "float32":
                value = b.fpext(value, _F64)
            return self.call_capi("PyFloat_FromDouble", [value])
        if kind in ("complex64", "complex128"):
            parts = []
            for index in range(2):
                part_ptr = b.gep(ptr, [_I32(0), _I32(index)], source_etype=mem_type, inbounds=True)
                part = b.load(part_ptr, typ=mem_type.elements[index])
                parts.append(b.fpext(part, _F64) if kind == "complex64" else part)
            return self.call_capi("PyComplex_FromDoubles", parts)
        if kind == "bool":
            flag = b.icmp_unsigned("!=", b.load(ptr, typ=_I8), _I8(0))
            result = b.select(flag, _object_constant(True), _object_constant(False))
            self.incref_singleton(result)
            return result
        if kind == "none":
            result = _object_constant(None)
            self.incref_singleton(result)
            return result
        raise AssertionError(f"unhandled kind {kind!r}")

    def emit_box_array(self, kind: ArrayKind, ptr: ir.Value) -> ir.Value:
        """An argument returned unchanged is returned itself (no Python code runs); any other
        array goes to the Python boxer with the result's address and its parent object."""
        b = self.builder
        layout = numpy_layout()
        null = ir.Constant(_PTR, None)
        meminfo = self.load_field(ptr, 0, _PTR, _PTR_SIZE)
        parent = self.load_field(ptr, 8, _PTR, _PTR_SIZE)
        slow = self.new_block("box.array.slow")
        borrowed = b.and_(b.icmp_unsigned("==", meminfo, null), b.icmp_unsigned("!=", parent, null))
        self.continue_if(borrowed, slow, "box.array.borrowed")
        same = b.icmp_unsigned(
            "==",
            self.load_field(ptr, 32, _PTR, _PTR_SIZE),
            self.load_field(parent, layout.data, _PTR, _PTR_SIZE),
        )
        nd = self.load_field(parent, layout.nd, _I32, 4)
        same = b.and_(same, b.icmp_signed("==", nd, _I32(kind.ndim)))
        self.continue_if(same, slow, "box.array.same_data")
        dims = self.load_field(parent, layout.dimensions, _PTR, _PTR_SIZE)
        strides = self.load_field(parent, layout.strides, _PTR, _PTR_SIZE)
        for k in range(kind.ndim):
            extent = self.load_field(ptr, 40 + 8 * k, _I64, 8)
            stride = self.load_field(ptr, 40 + 8 * (kind.ndim + k), _I64, 8)
            same = b.and_(same, b.icmp_signed("==", extent, self.load_field(dims, 8 * k, _I64, 8)))
            same = b.and_(
                same, b.icmp_signed("==", stride, self.load_field(strides, 8 * k, _I64, 8))
            )
        self.continue_if(same, slow, "box.array.identity")
        self.incref_object(parent)
        b.ret(parent)
        b.position_at_end(slow)
        owned = self.new_block("box.array.owned")
        python_boxer = self.new_block("box.array.python")
        capi = numpy_capi()
        ready = capi is not None and self.capsule_destructor is not None
        view = self.new_block("box.array.view")
        b.cbranch(b.icmp_unsigned("!=", meminfo, null) if ready else ir.Constant(ir.IntType(1), 0),
                  owned, view)  # fmt: skip
        b.position_at_end(owned)
        if ready:
            b.ret(self.emit_new_ndarray(kind, ptr, self.emit_capsule(meminfo), capi))
        else:
            b.unreachable()
        b.position_at_end(view)  # a view of an argument: the argument is the new array's base
        view_ok = self.new_block("box.array.view_ok")
        b.cbranch(b.icmp_unsigned("!=", parent, null) if ready else ir.Constant(ir.IntType(1), 0),
                  view_ok, python_boxer)  # fmt: skip
        b.position_at_end(view_ok)
        if ready:
            self.incref_object(parent)
            b.ret(self.emit_new_ndarray(kind, ptr, parent, capi))
        else:
            b.unreachable()
        b.position_at_end(python_boxer)
        address = self.call_capi("PyLong_FromVoidPtr", [ptr])
        address_block = b.block
        call_block = self.new_block("box.array.call")
        done = self.new_block("box.array.done")
        b.cbranch(b.icmp_unsigned("!=", address, null), call_block, done)
        b.position_at_end(call_block)
        parent_or_none = b.select(
            b.icmp_unsigned("==", parent, null), _object_constant(None), parent
        )
        self.alloca_builder.position_at_start(self._entry)
        arguments = self.alloca_builder.alloca(_PTR, size=2, name="box.array.args")
        b.store(address, arguments)
        b.store(parent_or_none, b.gep(arguments, [ir.Constant(_I64, 1)], source_etype=_PTR))
        boxer = _object_constant(self.array_boxers[kind])
        result = self.call_capi(
            "PyObject_Vectorcall", [boxer, arguments, ir.Constant(_SSIZE, 2), null]
        )
        self.call_capi("Py_DecRef", [address])
        call_end = b.block
        b.branch(done)
        b.position_at_end(done)
        phi = b.phi(_PTR, name="box.array")
        phi.add_incoming(null, address_block)
        phi.add_incoming(result, call_end)
        return phi

    def emit_capsule(self, meminfo) -> ir.Value:
        """A capsule owning the meminfo's reference; its destructor releases it (may be NULL)."""
        constructor = _FunctionPointer(
            ir.FunctionType(_PTR, [_PTR, _PTR, _PTR]), _capi_address("PyCapsule_New")
        )
        null = ir.Constant(_PTR, None)
        return self.builder.call(constructor, [meminfo, null, self.capsule_destructor])

    def emit_new_ndarray(self, kind: ArrayKind, ptr, base, capi: NumpyCAPI) -> ir.Value:
        """An ndarray over the result's memory, without a copy, whose base (a new reference,
        stolen here: a runtime capsule or the argument viewed) keeps the memory alive."""
        b = self.builder
        null = ir.Constant(_PTR, None)
        numpy = sys.modules["numpy"]
        fail = self.new_block("new_ndarray.fail")
        capsule = base
        self.continue_if(b.icmp_unsigned("!=", capsule, null), fail, "new_ndarray.base")
        type_num = numpy.dtype("bool" if kind.dtype == "bool" else kind.dtype).num
        descr = b.call(
            _FunctionPointer(ir.FunctionType(_PTR, [_I32]), capi.descr_from_type),
            [_I32(type_num)],
        )
        shape = b.gep(ptr, [ir.Constant(_I64, 40)], source_etype=_I8)
        strides = b.gep(ptr, [ir.Constant(_I64, 40 + 8 * kind.ndim)], source_etype=_I8)
        data = self.load_field(ptr, 32, _PTR, _PTR_SIZE)
        flags = 0 if kind.readonly else _NPY_WRITEABLE
        new_from_descr = ir.FunctionType(_PTR, [_PTR, _PTR, _I32, _PTR, _PTR, _PTR, _I32, _PTR])
        array = b.call(
            _FunctionPointer(new_from_descr, capi.new_from_descr),
            [_object_constant(numpy.ndarray), descr, _I32(kind.ndim), shape, strides, data,
             _I32(flags), null],
        )  # fmt: skip
        made = self.new_block("new_ndarray.made")
        release = self.new_block("new_ndarray.release")
        b.cbranch(b.icmp_unsigned("!=", array, null), made, release)
        b.position_at_end(release)
        self.call_capi("Py_DecRef", [capsule])
        b.branch(fail)
        b.position_at_end(made)
        set_base = ir.FunctionType(_I32, [_PTR, _PTR])
        status = b.call(_FunctionPointer(set_base, capi.set_base_object), [array, capsule])
        based = self.new_block("new_ndarray.based")
        drop_array = self.new_block("new_ndarray.drop")
        b.cbranch(b.icmp_signed("==", status, _I32(0)), based, drop_array)
        b.position_at_end(drop_array)
        self.call_capi("Py_DecRef", [array])  # the base reference was stolen even on failure
        b.branch(fail)
        b.position_at_end(fail)
        b.ret(null)
        b.position_at_end(based)
        return array

    def incref_object(self, obj: ir.Value) -> None:
        if self.layout.inline_incref:
            ptr = self.field_ptr(obj, self.layout.refcnt_offset)
            count = self.builder.load(ptr, typ=_SSIZE, align=8)
            self.builder.store(self.builder.add(count, ir.Constant(_SSIZE, 1)), ptr, align=8)
        else:
            self.call_capi("Py_IncRef", [obj])

    def emit_box_tuple(
        self, kind: tuple[Kind, ...], ptr: ir.Value, mem_type: ir.LiteralStructType
    ) -> ir.Value:
        b = self.builder
        null = ir.Constant(_PTR, None)
        done = self.new_block("box.tuple.done")
        incoming: list[tuple[ir.Value, ir.Block]] = []
        tup = self.call_capi("PyTuple_New", [ir.Constant(_SSIZE, len(kind))])
        incoming.append((null, b.block))
        self.continue_if(b.icmp_unsigned("!=", tup, null), done, "box.tuple.alloc_ok")
        cleanup = self.new_block("box.tuple.cleanup") if kind else None
        for index, member in enumerate(kind):
            member_ptr = b.gep(ptr, [_I32(0), _I32(index)], source_etype=mem_type, inbounds=True)
            item = self.emit_box(member, member_ptr)
            self.continue_if(b.icmp_unsigned("!=", item, null), cleanup, "box.tuple.item_ok")
            slot = self.field_ptr(tup, self.layout.tuple_items_offset + index * _PTR_SIZE)
            b.store(item, slot, align=_PTR_SIZE)  # PyTuple_SET_ITEM: steals the reference
        incoming.append((tup, b.block))
        b.branch(done)
        if cleanup is not None:
            # PyTuple_New NULL-initialises the items, so a partial tuple is safe to release.
            b.position_at_end(cleanup)
            self.call_capi("Py_DecRef", [tup])
            incoming.append((null, b.block))
            b.branch(done)
        b.position_at_end(done)
        phi = b.phi(_PTR, name="box.tuple")
        for value, block in incoming:
            phi.add_incoming(value, block)
        return phi

    # -- whole function -----------------------------------------------------------------------

    def emit_specialization(
        self, index: int, arg_kinds: Sequence[Kind], ret_kind: Kind, target: str | int
    ) -> None:
        """Emit the match/unbox/call/box sequence; on mismatch continue with the next block."""
        b = self.builder
        next_block = self.new_block(f"spec{index + 1}")
        count = len(arg_kinds)
        required = count - min(len(self.defaults), count)
        nargs = self.nargs_arg
        if required == count:
            nargs_ok = b.icmp_signed("==", nargs, ir.Constant(_SSIZE, count))
        else:
            nargs_ok = b.and_(
                b.icmp_signed(">=", nargs, ir.Constant(_SSIZE, required)),
                b.icmp_signed("<=", nargs, ir.Constant(_SSIZE, count)),
            )
        self.continue_if(nargs_ok, next_block, f"spec{index}.match")
        arg_objs = [self.argument_or_default(position, required) for position in range(count)]
        for obj, kind in zip(arg_objs, arg_kinds, strict=True):
            self.emit_match(obj, kind, next_block)
        flat: list[ir.Value] = []
        for obj, kind in zip(arg_objs, arg_kinds, strict=True):
            flat.extend(self.emit_unbox(obj, kind, self.fallback_block))

        fnty = native_function_type(arg_kinds)
        callee = self.resolve_target(target, fnty)
        ret_slot = self.alloca(return_memory_type(ret_kind), f"spec{index}.ret")
        if self._exc_slot is None:
            self._exc_slot = self.alloca(_I32, "excinfo")
        b.store(_I32(0), self._exc_slot)
        thread_state = self.call_capi("PyEval_SaveThread", []) if self.release_gil else None
        status = b.call(callee, [ret_slot, self._exc_slot, ir.Constant(_PTR, None), *flat])
        if thread_state is not None:
            self.call_capi("PyEval_RestoreThread", [thread_state])
        self.continue_if(b.icmp_signed("==", status, _I32(0)), self.raise_block, f"spec{index}.ok")
        b.ret(self.emit_box(ret_kind, ret_slot))
        b.position_at_end(next_block)

    def emit_keyword_folding(self, param_names: Sequence[str]) -> None:
        """With keyword arguments, place them at their parameters' positions in a local array
        (matching names by identity: identifiers are interned) and fill omitted parameters
        with their defaults; anything unusual goes to the fallback."""
        b = self.builder
        count = len(param_names)
        null = ir.Constant(_PTR, None)
        self.alloca_builder.position_at_start(self._entry)
        folded = self.alloca_builder.alloca(_PTR, size=max(count, 1), name="folded")
        has_keywords = b.icmp_unsigned("!=", self.kwnames_arg, null)
        fold_block = self.new_block("kw.fold")
        done = self.new_block("kw.done")
        origin = b.block
        b.cbranch(has_keywords, fold_block, done)
        b.position_at_end(fold_block)
        too_many = b.icmp_signed(">", self.raw_nargs, ir.Constant(_SSIZE, count))
        self.continue_if(b.not_(too_many), self.fallback_block, "kw.count_ok")
        slots = [
            b.gep(folded, [ir.Constant(_I64, position)], source_etype=_PTR)
            for position in range(count)
        ]
        for position, slot in enumerate(slots):
            given = b.icmp_signed(">", self.raw_nargs, ir.Constant(_SSIZE, position))
            raw = b.gep(self.raw_args, [ir.Constant(_I64, position)], source_etype=_PTR)
            safe = b.select(given, raw, slots[position])  # never read past the raw arguments
            b.store(b.select(given, b.load(safe, typ=_PTR), null), slot)
        kw_count = self.load_field(self.kwnames_arg, self.layout.var_size_offset, _SSIZE, 8)
        for keyword in range(count):  # at most one keyword per parameter
            present = b.icmp_signed(">", kw_count, ir.Constant(_SSIZE, keyword))
            next_keyword = self.new_block(f"kw{keyword}.next")
            place = self.new_block(f"kw{keyword}.place")
            b.cbranch(present, place, next_keyword)
            b.position_at_end(place)
            name = self.tuple_item(self.kwnames_arg, keyword)
            index = b.add(self.raw_nargs, ir.Constant(_SSIZE, keyword))
            value = b.load(b.gep(self.raw_args, [index], source_etype=_PTR), typ=_PTR)
            placed = ir.Constant(ir.IntType(1), 0)
            for position, param in enumerate(param_names):
                matches = b.icmp_unsigned("==", name, _object_constant(param))
                free = b.icmp_unsigned("==", b.load(slots[position], typ=_PTR), null)
                take = b.and_(matches, free)
                b.store(b.select(take, value, b.load(slots[position], typ=_PTR)), slots[position])
                placed = b.or_(placed, take)
            self.continue_if(placed, self.fallback_block, f"kw{keyword}.placed")
            b.branch(next_keyword)
            b.position_at_end(next_keyword)
        too_many_keywords = b.icmp_signed(">", kw_count, ir.Constant(_SSIZE, count))
        self.continue_if(b.not_(too_many_keywords), self.fallback_block, "kw.all_placed")
        required = count - min(len(self.defaults), count)
        for position, slot in enumerate(slots):
            current = b.load(slot, typ=_PTR)
            missing = b.icmp_unsigned("==", current, null)
            if position < required:
                self.continue_if(b.not_(missing), self.fallback_block, f"kw.has{position}")
            else:
                default = _object_constant(self.defaults[position - required])
                b.store(b.select(missing, default, current), slot)
        folded_end = b.block
        b.branch(done)
        b.position_at_end(done)
        args = b.phi(_PTR, name="call.args")
        args.add_incoming(self.raw_args, origin)
        args.add_incoming(folded, folded_end)
        nargs = b.phi(_SSIZE, name="call.nargs")
        nargs.add_incoming(self.raw_nargs, origin)
        nargs.add_incoming(ir.Constant(_SSIZE, count), folded_end)
        self.args_arg, self.nargs_arg = args, nargs

    def argument_or_default(self, position: int, required: int) -> ir.Value:
        """args[position], or the parameter's default object when the call omitted it."""
        b = self.builder
        slot = b.gep(self.args_arg, [ir.Constant(_I64, position)], source_etype=_PTR)
        if position < required:
            return b.load(slot, typ=_PTR, align=_PTR_SIZE)
        default = _object_constant(self.defaults[position - required])
        given = self.new_block(f"arg{position}.given")
        join = self.new_block(f"arg{position}.join")
        origin = b.block
        passed = b.icmp_signed(">", self.nargs_arg, ir.Constant(_SSIZE, position))
        b.cbranch(passed, given, join)
        b.position_at_end(given)
        loaded = b.load(slot, typ=_PTR, align=_PTR_SIZE)
        b.branch(join)
        b.position_at_end(join)
        value = b.phi(_PTR, name=f"arg{position}")
        value.add_incoming(loaded, given)
        value.add_incoming(default, origin)
        return value

    def resolve_target(self, target: str | int, fnty: ir.FunctionType) -> ir.Value:
        if isinstance(target, int):
            return _FunctionPointer(fnty, target)
        existing = self.module.globals.get(target)
        if existing is None:
            return ir.Function(self.module, fnty, name=target)
        if not isinstance(existing, ir.Function) or existing.function_type != fnty:
            raise TypeError(f"target {target!r} already declared with a different signature")
        return existing

    def emit_fallback(self) -> None:
        b = self.builder
        b.position_at_end(self.fallback_block)
        result = self.call_capi(
            "PyObject_Vectorcall",
            [_object_constant(self.fallback), self.raw_args, self.raw_nargs, self.kwnames_arg],
        )
        b.ret(result)

    def emit_raise(self) -> None:
        b = self.builder
        null = ir.Constant(_PTR, None)
        b.position_at_end(self.raise_block)
        if self._exc_slot is None:  # no specializations: the block is unreachable
            b.unreachable()
            return
        exc_id = b.sext(b.load(self._exc_slot, typ=_I32), _LONGLONG)
        id_obj = self.call_capi("PyLong_FromLongLong", [exc_id])
        fail = self.new_block("raise.fail")
        self.continue_if(b.icmp_unsigned("!=", id_obj, null), fail, "raise.call")
        result = self.call_capi(
            "PyObject_CallOneArg", [_object_constant(self.raise_exception), id_obj]
        )
        self.call_capi("Py_DecRef", [id_obj])
        self.continue_if(b.icmp_unsigned("!=", result, null), fail, "raise.returned")
        # raise_exception returned normally: turn that into a SystemError.
        self.call_capi("Py_DecRef", [result])
        message = _cstring(self.module, "ember: raise_exception() returned without raising")
        self.call_capi("PyErr_SetString", [_object_constant(SystemError), message])
        b.branch(fail)
        b.position_at_end(fail)
        b.ret(null)


def _cstring(module: ir.Module, text: str) -> ir.GlobalVariable:
    data = bytearray(text.encode("utf-8") + b"\0")
    const = ir.Constant(ir.ArrayType(_I8, len(data)), data)
    var = ir.GlobalVariable(module, const.type, name=module.get_unique_name("ember.str"))
    var.linkage = "private"
    var.global_constant = True
    var.unnamed_addr = True
    var.initializer = const
    return var


_symbol_counter = itertools.count()


def _symbol_name(name: str, unique: bool = False) -> str:
    """``ember.entry.<name>``, with a process-wide serial number if ``unique``."""
    base = "ember.entry." + (re.sub(r"[^A-Za-z0-9_.]", "_", name) or "anon")
    return f"{base}.{next(_symbol_counter)}" if unique else base


def build_entry_module(
    name: str,
    specializations: Sequence[Specialization],
    fallback: Callable[..., Any],
    raise_exception: Callable[[int], Any],
    *,
    layout: PyLayout | None = None,
    defaults: Sequence[object] = (),
    release_gil: bool = False,
    param_names: Sequence[str] | None = None,
    array_boxers: dict | None = None,
    capsule_destructor: int | None = None,
) -> tuple[ir.Module, str]:
    """Build an LLVM module holding a ``METH_FASTCALL | METH_KEYWORDS`` entry function.

    The entry is ``PyObject *entry(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames)``. With no keyword arguments it tries ``specializations`` in order,
    selecting the first whose arity and exact argument types (see :func:`fast_path_supported`)
    match; it unboxes the arguments, calls ``target`` in the ember native convention and
    boxes the result, or calls ``raise_exception(exc_id)`` when the target returns status 1.
    Keyword arguments, unmatched arguments and ints outside int64 go to
    ``fallback(*args, **kwargs)`` through ``PyObject_Vectorcall``.

    ``target`` is either a symbol name (declared external in the module, to be resolved by
    the JIT) or an absolute function address (embedded as a constant). The addresses of
    ``fallback``, ``raise_exception`` and the C-API are embedded too, so the caller must keep
    ``fallback`` and ``raise_exception`` alive as long as the compiled code may run.

    Returns the module and the entry function's symbol name, which is unique in the process
    (``ember.entry.<name>.<serial>``) so many entries can share one JIT engine.
    """
    layout = layout or probe_layout()
    symbol = _symbol_name(name, unique=True)
    module = ir.Module(name=symbol)
    module.triple = llvm.get_process_triple()
    fnty = ir.FunctionType(_PTR, [_PTR, _PTR, _SSIZE, _PTR])
    function = ir.Function(module, fnty, name=symbol)
    for arg, arg_name in zip(function.args, ("self", "args", "nargs", "kwnames"), strict=True):
        arg.name = arg_name
    codegen = _EntryCodegen(
        module,
        function,
        layout,
        fallback,
        raise_exception,
        defaults,
        release_gil,
        array_boxers,
        capsule_destructor,
    )

    b = codegen.builder
    # Keyword arguments are never on the fast path.
    if param_names is None:
        no_kwnames = b.icmp_unsigned("==", codegen.kwnames_arg, ir.Constant(_PTR, None))
        codegen.continue_if(no_kwnames, codegen.fallback_block, "spec0")
    else:
        codegen.emit_keyword_folding(param_names)
    for index, (arg_kinds, ret_kind, target) in enumerate(specializations):
        for kind in arg_kinds:
            _check_kind(kind)
        _check_kind(ret_kind)
        if not all(fast_path_supported(kind) for kind in arg_kinds):
            continue
        codegen.emit_specialization(index, list(arg_kinds), ret_kind, target)
    b.branch(codegen.fallback_block)
    codegen.emit_fallback()
    codegen.emit_raise()
    codegen.alloca_builder.position_at_end(codegen._entry)
    codegen.alloca_builder.branch(function.blocks[1])
    _emit_tp_call(module, function, layout, fallback)
    _emit_vectorcall(module, function)
    return module, symbol


def tp_call_symbol(entry_symbol: str) -> str:
    """The symbol of the `tp_call` wrapper emitted next to an entry."""
    return entry_symbol + ".tp_call"


def vectorcall_symbol(entry_symbol: str) -> str:
    """The symbol of the vectorcall wrapper emitted next to an entry."""
    return entry_symbol + ".vectorcall"


def _emit_vectorcall(module: ir.Module, entry: ir.Function) -> None:
    """`PyObject *vectorcall(callable, args, nargsf, kwnames)`: strips the
    PY_VECTORCALL_ARGUMENTS_OFFSET bit from nargsf and calls the fastcall entry."""
    fnty = ir.FunctionType(_PTR, [_PTR, _PTR, _SSIZE, _PTR])
    function = ir.Function(module, fnty, name=vectorcall_symbol(entry.name))
    callable_obj, args, nargsf, kwnames = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    nargs = b.and_(nargsf, ir.Constant(_SSIZE, (1 << 63) - 1))
    b.ret(b.call(entry, [callable_obj, args, nargs, kwnames]))


def _emit_tp_call(module: ir.Module, entry: ir.Function, layout: PyLayout, fallback: object):
    """`PyObject *tp_call(self, args_tuple, kwargs)`: the entry behind a type's call slot.

    Without keyword arguments the tuple's item array is handed to the fastcall entry as is;
    with them, the call goes to `fallback(*args, **kwargs)`.
    """
    fnty = ir.FunctionType(_PTR, [_PTR, _PTR, _PTR])
    function = ir.Function(module, fnty, name=tp_call_symbol(entry.name))
    self_obj, args_tuple, kwargs = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    with_kwargs = function.append_basic_block("kwargs")
    positional = function.append_basic_block("positional")
    no_dict = b.icmp_unsigned("==", kwargs, ir.Constant(_PTR, None))
    check_size = function.append_basic_block("kwargs.size")
    b.cbranch(no_dict, positional, check_size)
    b.position_at_end(check_size)
    size_fn = _FunctionPointer(ir.FunctionType(_SSIZE, [_PTR]), _capi_address("PyDict_Size"))
    empty = b.icmp_signed("==", b.call(size_fn, [kwargs]), ir.Constant(_SSIZE, 0))
    b.cbranch(empty, positional, with_kwargs)
    b.position_at_end(with_kwargs)
    call_fn = _FunctionPointer(
        ir.FunctionType(_PTR, [_PTR, _PTR, _PTR]), _capi_address("PyObject_Call")
    )
    b.ret(b.call(call_fn, [_object_constant(fallback), args_tuple, kwargs]))
    b.position_at_end(positional)
    nargs = b.load(
        b.gep(args_tuple, [ir.Constant(_I64, layout.var_size_offset)], source_etype=_I8),
        typ=_SSIZE,
        align=8,
    )
    items = b.gep(args_tuple, [ir.Constant(_I64, layout.tuple_items_offset)], source_etype=_I8)
    b.ret(b.call(entry, [self_obj, items, nargs, ir.Constant(_PTR, None)]))


# --------------------------------------------------------------------------------------------
# Exposing the compiled entry as a builtin
# --------------------------------------------------------------------------------------------


class _PyMethodDef(ctypes.Structure):
    _fields_ = [
        ("ml_name", ctypes.c_char_p),
        ("ml_meth", ctypes.c_void_p),
        ("ml_flags", ctypes.c_int),
        ("ml_doc", ctypes.c_char_p),
    ]


_PyCFunction_NewEx = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.py_object, ctypes.py_object
)(("PyCFunction_NewEx", ctypes.pythonapi))


def make_pycfunction(
    entry_address: int,
    name: str,
    keepalive: list,
    *,
    doc: str | None = None,
    flags: int = METH_FASTCALL | METH_KEYWORDS,
) -> Callable[..., Any]:
    """Wrap the native entry at ``entry_address`` in a real builtin function.

    A ``PyMethodDef`` is allocated in ctypes memory and appended to ``keepalive``. The builtin's
    ``__self__`` is a module object whose ``keepalive`` attribute holds that list, so everything
    in it (the method def, the JIT engine, objects whose addresses the code embeds) lives as
    long as the builtin; a module as ``self`` also makes it print as ``<built-in function>``.
    """
    if not entry_address:
        raise ValueError("null entry address")
    name_bytes = name.encode("utf-8")
    doc_bytes = doc.encode("utf-8") if doc is not None else None
    method_def = _PyMethodDef(name_bytes, entry_address, flags, doc_bytes)
    keepalive.extend([method_def, name_bytes, doc_bytes])
    owner = types.ModuleType(_symbol_name(name), "Owner of a native ember entry point.")
    owner.keepalive = keepalive  # type: ignore[attr-defined]
    return _PyCFunction_NewEx(ctypes.addressof(method_def), owner, None)


# --------------------------------------------------------------------------------------------
# Default JIT and one-call compilation
# --------------------------------------------------------------------------------------------


class SimpleMCJIT:
    """Minimal MCJIT engine implementing the ``add_module`` protocol (used by the tests)."""

    def __init__(self, opt_level: int = 3) -> None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        self.target_machine = target.create_target_machine(opt=opt_level, jit=True)
        self.opt_level = opt_level
        self.engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), self.target_machine)

    def add_module(self, llvm_ir: str) -> Callable[[str], int]:
        """Parse, verify, optimise and JIT ``llvm_ir``; return a ``symbol -> address`` lookup."""
        mod = llvm.parse_assembly(llvm_ir)
        mod.triple = self.target_machine.triple
        mod.data_layout = str(self.target_machine.target_data)
        mod.verify()
        pto = llvm.create_pipeline_tuning_options(speed_level=self.opt_level)
        pb = llvm.create_pass_builder(self.target_machine, pto)
        pb.getModulePassManager().run(mod, pb)
        self.engine.add_module(mod)
        self.engine.finalize_object()
        engine = self.engine

        def lookup(symbol: str) -> int:
            address = engine.get_function_address(symbol)
            if not address:
                raise KeyError(symbol)
            return address

        return lookup


@cache
def default_jit() -> SimpleMCJIT:
    """Process-wide :class:`SimpleMCJIT`, created on first use."""
    return SimpleMCJIT()


def compile_entry(
    name: str,
    specializations: Sequence[Specialization],
    fallback: Callable[..., Any],
    raise_exception: Callable[[int], Any],
    add_module: AddModule | None = None,
    *,
    doc: str | None = None,
    keepalive: list | None = None,
) -> Callable[..., Any]:
    """Build, JIT-compile and wrap an entry function; returns the builtin.

    ``add_module(ir_text) -> lookup(symbol) -> address`` compiles the module (defaults to
    :func:`default_jit`); the lookup and ``keepalive`` (e.g. the owner of the targets' code)
    are kept alive by the returned builtin, together with ``fallback`` and ``raise_exception``.
    """
    module, symbol = build_entry_module(name, specializations, fallback, raise_exception)
    if add_module is None:
        add_module = default_jit().add_module
    lookup = add_module(str(module))
    address = lookup(symbol)
    refs = [*(keepalive or []), fallback, raise_exception, lookup]
    return make_pycfunction(address, name, refs, doc=doc)
