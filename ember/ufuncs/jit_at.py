"""`ufunc.at(a, indices[, b])` in jitted code for @vectorize ufuncs and DUFuncs (Numba's
DUFunc.at): unbuffered in-place `a[i] = ufunc(a[i][, b_k])` for each index i of a list or
1-d array of integers (negative ones count from the end), a boolean mask, or one integer;
`b` is a number, or an array or list with one value or one value per index."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np

from ember import types
from ember.errors import NumbaExperimentalFeatureWarning, TypingError
from ember.typing.overload import overload_method
from ember.ufuncs.jit_reduce import reducible_ufunc


@overload_method(types.Function, "at")
def _ufunc_at(fnty, a, indices, b=None):
    ufunc = reducible_ufunc(fnty)
    if ufunc is None:
        return None
    # Numba's warning (its users filter it by category)
    warnings.warn("ufunc.at feature is experimental", NumbaExperimentalFeatureWarning, stacklevel=2)
    name = ufunc.__name__
    if not isinstance(a, types.Array):
        raise TypingError(f"{name}.at: the first argument must be an array, not {a}")
    no_b = b is None or isinstance(b, (types.NoneType, types.Omitted))
    if ufunc.nin == 2 and no_b:
        raise TypingError(f"second operand needed for ufunc {name}")
    if ufunc.nin == 1 and not no_b:
        raise TypingError(f"second operand provided when ufunc {name} is unary")
    index_kind = _index_kind(indices)
    if index_kind is None:
        raise TypingError(
            f"{name}.at in compiled code takes an integer, a list or 1-d array of integers or "
            f"a boolean mask as indices, not {indices}"
        )
    return _make_at(ufunc, index_kind, _operand_kind(b) if not no_b else "none")


def _index_kind(indices: types.Type) -> str | None:
    if isinstance(indices, types.Integer):
        return "int"
    dtype = getattr(indices, "dtype", None)
    if isinstance(indices, types.Array) and indices.ndim != 1:
        return None
    if isinstance(indices, (types.Array, types.List, types.ListType)):
        if isinstance(dtype, types.Boolean):
            return "mask"
        return "sequence" if isinstance(dtype, types.Integer) else None
    return None


def _operand_kind(b: types.Type) -> str:
    if isinstance(b, types.Array) and b.ndim == 0:
        return "zero_d"
    if isinstance(b, (types.Array, types.List, types.ListType)):
        return "sequence"
    return "scalar"


@functools.cache  # one implementation per ufunc and typing (the overload's contract)
def _make_at(ufunc: Any, index_kind: str, b_kind: str):
    lines = ["def impl(receiver, a, indices, b=None):"]
    if index_kind == "int":
        lines.append("    count = 1")
    elif index_kind == "mask":
        lines += [
            "    if len(indices) != a.shape[0]:",
            "        raise IndexError('boolean index did not match the indexed array')",
            "    positions = np.nonzero(np.asarray(indices))[0]",
            "    count = len(positions)",
        ]
    else:
        lines.append("    count = len(indices)")
    if b_kind == "sequence":
        lines += [
            "    if len(b) != count and len(b) != 1:",
            "        raise ValueError('operands could not be broadcast together with remapped '",
            "                         'shapes (ufunc.at)')",
        ]
    lines += ["    size = a.shape[0]", "    for k in range(count):"]
    lines.append(
        {"int": "        i = indices", "mask": "        i = positions[k]"}.get(
            index_kind, "        i = indices[k]"
        )
    )
    lines += [
        "        if i < 0:",
        "            i += size",
        "        if i < 0 or i >= size:",
        "            raise IndexError('index out of bounds in ufunc.at')",
    ]
    operand = {
        "none": "",
        "scalar": ", b",
        "zero_d": ", b[()]",
        "sequence": ", b[k if len(b) != 1 else 0]",
    }[b_kind]
    lines.append(f"        a[i] = ufunc(a[i]{operand})")
    namespace = {"np": np, "ufunc": ufunc}
    exec(compile("\n".join(lines) + "\n", f"<{ufunc.__name__}.at>", "exec"), namespace)
    return namespace["impl"]
