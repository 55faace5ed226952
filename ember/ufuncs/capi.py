"""NumPy's ufunc C API reached through ctypes: builds genuine `np.ufunc` objects from native
inner-loop addresses (no C compiler involved), and sets the per-operand iterator flags of
gufuncs whose inputs are written in place (`writable_args=`).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import numpy as np


class _UfuncHead(ctypes.Structure):
    """The leading fields of NumPy's PyUFuncObject (numpy/ufuncobject.h, stable since 1.16)."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t), ("ob_type", ctypes.c_void_p),
        ("nin", ctypes.c_int), ("nout", ctypes.c_int), ("nargs", ctypes.c_int),
        ("identity", ctypes.c_int), ("functions", ctypes.c_void_p), ("data", ctypes.c_void_p),
        ("ntypes", ctypes.c_int), ("reserved1", ctypes.c_int), ("name", ctypes.c_char_p),
        ("types", ctypes.c_void_p), ("doc", ctypes.c_void_p), ("ptr", ctypes.c_void_p),
        ("obj", ctypes.c_void_p), ("userloops", ctypes.c_void_p),
        ("core_enabled", ctypes.c_int), ("core_num_dim_ix", ctypes.c_int),
        ("core_num_dims", ctypes.c_void_p), ("core_dim_ixs", ctypes.c_void_p),
        ("core_offsets", ctypes.c_void_p), ("core_signature", ctypes.c_void_p),
        ("type_resolver", ctypes.c_void_p), ("dict", ctypes.c_void_p),
        ("vectorcall", ctypes.c_void_p), ("reserved3", ctypes.c_void_p),
        ("op_flags", ctypes.c_void_p),
    ]  # fmt: skip


def _head(ufunc: np.ufunc) -> _UfuncHead:
    head = _UfuncHead.from_address(id(ufunc))
    if head.nargs != ufunc.nargs or head.dict != id(ufunc.__dict__):
        raise RuntimeError("this NumPy's ufunc object layout is not the one ember knows")
    return head


# Indices in NumPy's ufunc API table (numpy/__ufunc_api.h).
_FROM_FUNC_AND_DATA_AND_SIGNATURE_AND_IDENTITY = 42

NPY_ITER_READWRITE = 0x00010000
NPY_ITER_UPDATEIFCOPY = 0x00800000

# `identity=` spellings of Numba and NumPy's codes for them (PyUFunc_Zero, ...).
IDENTITY_CODES = {0: 0, 1: 1, None: -1, "reorderable": -2}
_IDENTITY_VALUE = -3


def _ufunc_api_table() -> ctypes.Array:
    try:
        from numpy._core import _multiarray_umath
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath

    capsule = _multiarray_umath._UFUNC_API
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, None)
    return (ctypes.c_void_p * 64).from_address(address)


_create = ctypes.PYFUNCTYPE(
    ctypes.py_object,
    ctypes.c_void_p,  # PyUFuncGenericFunction *functions
    ctypes.c_void_p,  # void **data
    ctypes.c_char_p,  # char *types
    ctypes.c_int,  # ntypes
    ctypes.c_int,  # nin
    ctypes.c_int,  # nout
    ctypes.c_int,  # identity
    ctypes.c_char_p,  # name
    ctypes.c_char_p,  # doc
    ctypes.c_int,  # unused
    ctypes.c_char_p,  # signature
    ctypes.py_object,  # identity_value
)(_ufunc_api_table()[_FROM_FUNC_AND_DATA_AND_SIGNATURE_AND_IDENTITY])


@dataclass
class UfuncMemory:
    """What NumPy's ufunc keeps pointers into: the loop table, type codes, name, doc and loop
    data. It is stored on the ufunc itself so it lives exactly as long as the ufunc."""

    functions: ctypes.Array
    data: ctypes.Array
    typecodes: bytes
    name: bytes
    doc: bytes
    signature: bytes | None
    owners: list = field(default_factory=list)  # code libraries and loop data


def make_ufunc(
    name: str,
    doc: str,
    nin: int,
    nout: int,
    loops: list[tuple[int, tuple[np.dtype, ...], int]],
    identity=None,
    signature: str | None = None,
    owners: list | None = None,
    exact_match_first: bool = False,
) -> np.ufunc:
    """A new ufunc (a gufunc when `signature` is a layout such as '(n),()->(n)') whose loops are
    (inner-loop address, dtypes of every operand, loop-data address), in NumPy's search order.
    With `exact_match_first`, an elementwise ufunc's loops are registered at creation, so a
    loop of the inputs' own dtypes wins: Numba's `target='parallel'` ufuncs are made that way."""
    at_creation = signature is not None or exact_match_first
    count = len(loops)
    functions = (ctypes.c_void_p * max(count, 1))(*(address for address, _, _ in loops))
    data = (ctypes.c_void_p * max(count, 1))(*(extra or None for _, _, extra in loops))
    codes = bytes(np.dtype(d).num for _, dtypes, _ in loops for d in dtypes)
    memory = UfuncMemory(
        functions,
        data,
        codes,
        name.encode(),
        (doc or "").encode(),
        None if signature is None else signature.encode(),
        list(owners or ()),
    )
    code, value = identity_code(identity)
    ufunc = _create(
        ctypes.addressof(functions),
        ctypes.addressof(data),
        memory.typecodes,
        count if at_creation else 0,  # else they come below
        nin,
        nout,
        code,
        memory.name,
        memory.doc,
        0,
        memory.signature,
        value,
    )
    ufunc.__dict__["_ember_memory"] = memory
    if not at_creation:
        _install_loops(ufunc, functions, data, memory.typecodes, count)
    return ufunc


def _install_loops(ufunc: np.ufunc, functions, data, typecodes: bytes, count: int) -> None:
    """Give an elementwise ufunc its loops after creation, as Numba's DUFunc does: NumPy then
    resolves a call by its legacy search, the first loop (in declaration order) the inputs
    cast to safely, so `vectorize(['f8(f8)', 'f4(f4)'])` on float32 runs the f8 loop as in
    Numba. Loops passed at creation are registered by DType and an exact match wins instead,
    which is what Numba's gufuncs (made that way) do."""
    head = _head(ufunc)
    head.functions = ctypes.addressof(functions)
    head.data = ctypes.addressof(data)
    head.types = ctypes.cast(ctypes.c_char_p(typecodes), ctypes.c_void_p).value
    head.ntypes = count


def identity_code(identity) -> tuple[int, object]:
    """NumPy's identity code and value for Numba's `identity=` spellings (0, 1, None,
    'reorderable') or any other Python number."""
    if isinstance(identity, str) or identity is None:
        if identity not in IDENTITY_CODES:
            raise ValueError(
                f"identity must be 0, 1, None, 'reorderable' or a number, not {identity!r}"
            )
        return IDENTITY_CODES[identity], None
    if isinstance(identity, bool) or identity in (0, 1):
        return IDENTITY_CODES[int(identity)], None
    return _IDENTITY_VALUE, identity


def set_writable_inputs(ufunc: np.ufunc, indices: tuple[int, ...]) -> None:
    """Make these inputs of a gufunc read-write: NumPy then hands the kernel the caller's
    memory (or copies written back) instead of read-only buffers."""
    table = (ctypes.c_uint32 * ufunc.nargs).from_address(_head(ufunc).op_flags)
    for index in indices:
        table[index] |= NPY_ITER_READWRITE | NPY_ITER_UPDATEIFCOPY
