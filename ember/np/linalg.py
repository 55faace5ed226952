"""Numba's `numba.np.linalg._LAPACK` entry points, which packages call directly from compiled
code (quantecon's linear solve): `_LAPACK().numba_xgesv(dtype)` and friends take Numba's
by-value arguments, call SciPy's LAPACK routine with them by address and return its `info`."""

from __future__ import annotations

import functools
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic
from ember.library.numpy.linalg.products import _PREFIX, _declare
from ember.lowering.arrays import alloca_in_entry
from ember.typing.signature import signature

# Numba's C arguments after `kind`, by routine: `int` is an integer LAPACK takes by address
# (as a 32-bit int), `char` a character it takes by address, `ptr` an array's data pointer.
# LAPACK takes one more argument, `info`, which the entry point returns.
_ROUTINES = {
    "xgesv": ("gesv", ("int", "int", "ptr", "int", "ptr", "ptr", "int")),  # n nrhs a lda ipiv b ldb
    "xxgetrf": ("getrf", ("int", "int", "ptr", "int", "ptr")),  # m n a lda ipiv
    "xxgetrs": ("getrs", ("char", "int", "int", "ptr", "int", "ptr", "ptr", "int")),
    "xxpotrf": ("potrf", ("char", "int", "ptr", "int")),  # uplo n a lda
}
_ARGUMENT_TYPES = {"int": types.intp, "char": types.char, "ptr": types.voidptr}
_I32 = llvm.IntType(32)
_BYTE_POINTER = llvm.IntType(8).as_pointer()


class _LAPACK:
    """Numba's LAPACK entry-point factory: `numba_<routine>(dtype)` for the routines in
    `_ROUTINES`, each callable from compiled code (a call by name, so cached code keeps it)."""

    def __getattr__(self, name: str) -> Any:
        routine = name.removeprefix("numba_")
        if not name.startswith("numba_") or routine not in _ROUTINES:
            raise AttributeError(f"ember's _LAPACK has no entry point {name!r}")
        return functools.partial(_entry_point, routine)


@functools.cache
def _entry_point(routine: str, dtype: types.Type) -> Any:
    """`int numba_<routine>(char kind, ...)` for arrays of `dtype`, as an intrinsic. A `kind`
    other than the dtype's letter gives LAPACK's code for a bad argument 1, -1."""
    if dtype not in _PREFIX:
        raise TypeError(
            f"LAPACK routines take float32, float64, complex64 or complex128, not {dtype}"
        )
    lapack_name, arguments = _ROUTINES[routine]
    letter = ord(_PREFIX[dtype])
    declared = signature(types.intc, types.char, *(_ARGUMENT_TYPES[kind] for kind in arguments))

    def lapack_entry(typingctx, *actual):
        if len(actual) != len(declared.args):
            return None
        return declared, codegen

    def codegen(context, builder, sig, args):
        lapack = _declare(builder, _PREFIX[dtype] + lapack_name, llvm.VoidType(),
                          [_BYTE_POINTER] * (len(arguments) + 1))  # fmt: skip
        info = alloca_in_entry(builder, _I32)
        builder.store(llvm.Constant(_I32, -1), info)
        kind = builder.sext(args[0], _I32)
        with builder.if_then(builder.icmp_signed("==", kind, llvm.Constant(_I32, letter))):
            operands = [
                _by_address(builder, kind, value) for kind, value in zip(arguments, args[1:])
            ]
            builder.call(lapack, [*operands, builder.bitcast(info, _BYTE_POINTER)])
        return builder.load(info)

    lapack_entry.__name__ = f"numba_{routine}_{_PREFIX[dtype]}"
    return intrinsic(lapack_entry)


def _by_address(builder: llvm.IRBuilder, kind: str, value: llvm.Value) -> llvm.Value:
    if kind == "ptr":
        return builder.bitcast(value, _BYTE_POINTER)
    if kind == "int":
        value = builder.trunc(value, _I32)
    slot = alloca_in_entry(builder, value.type)
    builder.store(value, slot)
    return builder.bitcast(slot, _BYTE_POINTER)
