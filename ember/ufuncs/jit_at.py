"""`ufunc.at(a, indices[, b])` in jitted code for NumPy's ufuncs, @vectorize's and DUFuncs
(Numba's DUFunc.at): unbuffered in-place `a[i] = ufunc(a[i][, b_k])` for each index i of a list or
1-d array of integers (negative ones count from the end), a boolean mask, or one integer;
`b` is a number, or an array or list with one value or one value per index. On a C-contiguous
array of any ndim, any index NumPy's indexing takes (tuples of slices, arrays, integers,
Ellipsis, `()` for a 0-d array) works too, `b` broadcast to the indexed shape."""

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
        raise TypingError(f"second operand provided when ufunc is unary ({name})")
    index_kind = _index_kind(indices)
    # NumPy's indexing of a C array handles every index form; lists stay on the row loop
    whole_rows = a.ndim > 1 and isinstance(indices, (types.Integer, types.Array))
    if (index_kind is None or whole_rows) and a.layout == "C":
        return _make_indexed_at(ufunc, no_b)
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


@functools.cache
def _make_indexed_at(ufunc: Any, no_b: bool):
    """The general `at`: indexing an array of flat positions with `indices` gives each
    element `a[indices]` reaches (repeated as often as reached, in NumPy's order); the ufunc
    then updates them one at a time through a flat view of `a`."""
    operand = "" if no_b else ", values[k]"
    lines = [
        "def impl(receiver, a, indices, b=None):",
        "    reached = np.asarray(np.arange(a.size).reshape(a.shape)[indices])",
        "    positions = reached.ravel()",
        "    flat = a.reshape(a.size)",
    ]
    if not no_b:
        lines.append("    values = np.broadcast_to(np.asarray(b), reached.shape).ravel()")
    lines += [
        "    for k in range(positions.size):",
        "        p = positions[k]",
        f"        flat[p] = ufunc(flat[p]{operand})",
    ]
    namespace = {"np": np, "ufunc": ufunc}
    exec(compile("\n".join(lines) + "\n", f"<{ufunc.__name__}.at>", "exec"), namespace)  # noqa: S102
    return namespace["impl"]
