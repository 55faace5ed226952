"""Numba's `numba.np.linalg._LAPACK` entry points, which packages call directly from compiled
code (quantecon's linear solve): `_LAPACK().numba_xgesv(dtype)` and friends give a C function
taking Numba's by-value arguments that forwards them to SciPy's LAPACK and returns its `info`."""

from __future__ import annotations

import ctypes
import functools
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.library.numpy.linalg.products import _PREFIX, blas_symbol

# Numba's C arguments after `kind`, by routine: `int` is an integer LAPACK takes by address
# (as a 32-bit int), `char` a character it takes by address, `ptr` an array's data pointer.
# LAPACK takes one more argument, `info`, which the entry point returns.
_ROUTINES = {
    "xgesv": ("gesv", ("int", "int", "ptr", "int", "ptr", "ptr", "int")),  # n nrhs a lda ipiv b ldb
    "xxgetrf": ("getrf", ("int", "int", "ptr", "int", "ptr")),  # m n a lda ipiv
    "xxgetrs": ("getrs", ("char", "int", "int", "ptr", "int", "ptr", "ptr", "int")),
    "xxpotrf": ("potrf", ("char", "int", "ptr", "int")),  # uplo n a lda
}
_C_TYPES = {"int": ctypes.c_int64, "char": ctypes.c_char, "ptr": ctypes.c_void_p}
_IR_TYPES = {"int": llvm.IntType(64), "char": llvm.IntType(8), "ptr": llvm.IntType(8).as_pointer()}
_I32 = llvm.IntType(32)


class _LAPACK:
    """Numba's LAPACK entry-point factory: `numba_<routine>(dtype)` for the routines in
    `_ROUTINES`, each a ctypes function callable from compiled code and from Python."""

    def __getattr__(self, name: str) -> Any:
        routine = name.removeprefix("numba_")
        if not name.startswith("numba_") or routine not in _ROUTINES:
            raise AttributeError(f"ember's _LAPACK has no entry point {name!r}")
        return functools.partial(_entry_point, routine)


@functools.cache
def _entry_point(routine: str, dtype: types.Type) -> Any:
    """The C function `int numba_<routine>(char kind, ...)` for arrays of `dtype`. A `kind`
    other than the dtype's letter is LAPACK's illegal-argument code for argument 1, -1."""
    if dtype not in _PREFIX:
        raise TypeError(
            f"LAPACK routines take float32, float64, complex64 or complex128, not {dtype}"
        )
    lapack_name, arguments = _ROUTINES[routine]
    symbol = f"ember_numba_{routine}_{_PREFIX[dtype]}"
    _compile(symbol, blas_symbol(_PREFIX[dtype] + lapack_name), ord(_PREFIX[dtype]), arguments)
    from ember.codegen.jit import engine

    prototype = ctypes.CFUNCTYPE(
        ctypes.c_int, ctypes.c_int, *(_C_TYPES[kind] for kind in arguments)
    )
    return prototype(engine().address_of(symbol))


def _compile(symbol: str, lapack_symbol: str, letter: int, arguments: tuple) -> None:
    from ember.codegen.jit import engine

    module = llvm.Module(symbol)
    entry_type = llvm.FunctionType(_I32, [_I32, *(_IR_TYPES[kind] for kind in arguments)])
    entry = llvm.Function(module, entry_type, symbol)
    pointer = llvm.IntType(8).as_pointer()
    lapack = llvm.Function(
        module, llvm.FunctionType(llvm.VoidType(), [pointer] * (len(arguments) + 1)), lapack_symbol
    )
    builder = llvm.IRBuilder(entry.append_basic_block("entry"))
    info = builder.alloca(_I32)
    builder.store(llvm.Constant(_I32, -1), info)
    with builder.if_then(builder.icmp_signed("==", entry.args[0], llvm.Constant(_I32, letter))):
        operands = [
            _by_address(builder, kind, value) for kind, value in zip(arguments, entry.args[1:])
        ]
        builder.call(lapack, [*operands, builder.bitcast(info, pointer)])
    builder.ret(builder.load(info))
    jit = engine()
    parsed = jit.parse(str(module))
    parsed.verify()
    jit.add_module(parsed)


def _by_address(builder: llvm.IRBuilder, kind: str, value: llvm.Value) -> llvm.Value:
    if kind == "ptr":
        return value
    if kind == "int":
        value = builder.trunc(value, _I32)
    slot = builder.alloca(value.type)
    builder.store(value, slot)
    return builder.bitcast(slot, llvm.IntType(8).as_pointer())
