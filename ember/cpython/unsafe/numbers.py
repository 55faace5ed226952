"""Numba's `numba.cpython.unsafe.numbers`: `leading_zeros(x)` and `trailing_zeros(x)` of an
integer's bits (the bit width for zero), and `viewer(x, type)`, x's bits as another number
type of the same width."""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.library.numpy.support import from_numpy_dtype
from ember.lowering.intrinsics import call_intrinsic
from ember.typing.intrinsics import intrinsic
from ember.typing.signature import Signature


def _bit_count(name: str, x: types.Type) -> Any:
    if not isinstance(x, types.Integer):
        shown = {"ctlz": "leading_zeros", "cttz": "trailing_zeros"}[name]
        raise TypingError(f"{shown} is only defined for integers, but value passed was '{x}'.")

    def codegen(context, builder, sig: Signature, args: list) -> llvm.Value:
        no_poison = llvm.Constant(llvm.IntType(1), 0)  # defined for zero: the bit width
        return call_intrinsic(builder, f"llvm.{name[:4]}", [args[0], no_poison])

    return Signature(x, (x,)), codegen


@intrinsic
def leading_zeros(typingctx: Any, x: types.Type) -> Any:
    """The number of zero bits above the highest set bit of the integer x."""
    return _bit_count("ctlz", x)


@intrinsic
def trailing_zeros(typingctx: Any, x: types.Type) -> Any:
    """The number of zero bits below the lowest set bit of the integer x."""
    return _bit_count("cttz", x)


@intrinsic
def viewer(typingctx: Any, x: types.Type, view: types.Type) -> Any:
    """x's bits read as the number type `view` (a type such as `int64` or `np.float64`)."""
    target = _number_type(view)
    if not isinstance(x, types.Number) or target is None or target.bitwidth != x.bitwidth:
        raise TypingError(f"viewer() reads a number's bits as a number type of its width: {x} "
                          f"cannot be viewed as {view}")  # fmt: skip

    def codegen(context, builder, sig: Signature, args: list) -> llvm.Value:
        return builder.bitcast(args[0], context.value_type(target))

    return Signature(target, (x, view)), codegen


def _number_type(view: types.Type) -> types.Number | None:
    """The number type a `viewer()` argument names: `int64` (a type reference) or `np.int64`."""
    if isinstance(view, types.TypeRef):
        named = view.instance_type
    elif isinstance(view, types.Function) and isinstance(view.typing_key, type):
        try:
            named = from_numpy_dtype(np.dtype(view.typing_key))
        except (TypeError, ValueError):
            return None
    else:
        return None
    return named if isinstance(named, types.Number) else None
