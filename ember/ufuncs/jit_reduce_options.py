"""NumPy's `ufunc.reduce` keywords beyond Numba's in jitted code: `where=` (a boolean mask
broadcast to the array: only its True elements are folded), `out=` (the result written into a
given array, which is returned) and `keepdims=True` with a tuple of axes. Consumes the
overload's typing; produces generated implementations that call back into `ufunc.reduce`."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ember import types
from ember.errors import TypingError


def absent(typ: Any) -> bool:
    """Whether an optional argument was left out (omitted, or None)."""
    return typ is None or isinstance(typ, (types.NoneType, types.Omitted))


def masked(where: Any) -> bool:
    """Whether `where=` can exclude elements (anything but an omitted or constant True)."""
    if absent(where) or where is True:
        return False
    return not (isinstance(where, types.BooleanLiteral) and where.literal_value is True)


def axis_kind(axis: Any) -> tuple[str, int]:
    """('none', 0), ('int', 1) or ('tuple', count) for an `axis=` argument's type."""
    if absent(axis) and not isinstance(axis, types.Omitted):
        return "none", 0
    if isinstance(axis, (int, types.Omitted, types.Integer)):
        return "int", 1
    if isinstance(axis, types.BaseTuple):
        return "tuple", len(axis.types)
    raise TypingError(f"reduce: axis must be an int, a tuple of ints or None, not {axis}")


def result_ndim(ndim: int, kind: str, count: int, keepdims: bool) -> int:
    if keepdims:
        return ndim
    return 0 if kind == "none" else max(ndim - count, 0)


def check_out(name: str, out: Any, ndim: int) -> None:
    """`out=` must be an array of the result's dimensions (NumPy checks its shape when run)."""
    if not isinstance(out, types.Array):
        raise TypingError(f"{name}.reduce: out must be an array, not {out}")
    if out.ndim != ndim:
        raise TypingError(
            f"{name}.reduce: out has {out.ndim} dimensions, the result has {ndim} "
            "(a 0-d array, np.empty(()), holds a reduction to one value)"
        )


@functools.cache
def into_out(ufunc: Any, ndim: int, kind: str, count: int, keepdims: bool, where: bool) -> Any:
    """The reduction computed without `out`, then copied into it (shapes must match)."""
    shape = "r.shape" if result_ndim(ndim, kind, count, keepdims) else "()"
    passed = ("keepdims=True, " if keepdims else "") + ("where=where, " if where else "")
    lines = [
        f"    r = ufunc.reduce(array, axis=axis, dtype=dtype, initial=initial, {passed})",
        f"    if out.shape != {shape}:",
        "        raise ValueError('reduce: out has the wrong shape for the result')",
        "    out[...] = r",
        "    return out",
    ]
    return compile_reduce(ufunc, lines)


@functools.cache
def keepdims_over_tuple(ufunc: Any, ndim: int, count: int) -> Any:
    """The reduction over a tuple of axes, then reshaped with each reduced axis kept as 1."""
    lines = [
        "    r = ufunc.reduce(array, axis=axis, dtype=dtype, initial=initial)",
        "    s = array.shape",
        *_flag_lines(ndim, "tuple", count),
        f"    s = {_kept_shape(ndim)}",
    ]
    if count >= ndim:
        lines.append("    return np.full(s, r)")
    else:
        lines.append("    return np.ascontiguousarray(r).reshape(s)")
    return compile_reduce(ufunc, lines)


@functools.cache
def masked_reduce(
    ufunc: Any, ndim: int, kind: str, count: int, keepdims: bool, start: str, result: Any
) -> Any:
    """Fold only the elements `where` selects, from `start` (the `initial` argument or the
    ufunc's identity), into an array keeping the reduced axes as 1, then drop them unless
    `keepdims`. `result`: the fold's dtype (None: the array's own)."""
    index = ", ".join(f"i{j}" for j in range(ndim))
    target = ", ".join(f"0 if r{j} else i{j}" for j in range(ndim))
    dtype = "array.dtype" if result is None else "result"
    lines = [
        "    a = array",
        "    s = a.shape",
        "    m = np.broadcast_to(where, s)",
        *_flag_lines(ndim, kind, count),
        f"    acc = np.empty({_kept_shape(ndim)}, dtype={dtype})",
        f"    acc[...] = {start}",
    ]
    for j in range(ndim):
        lines.append("    " * (j + 1) + f"for i{j} in range(s[{j}]):")
    pad = "    " * (ndim + 1)
    lines += [
        f"{pad}if m[{index}]:",
        f"{pad}    acc[{target}] = ufunc(acc[{target}], a[{index}])",
    ]
    lines += _drop_reduced(ndim, result_ndim(ndim, kind, count, keepdims))
    return compile_reduce(ufunc, lines, result)


def _flag_lines(ndim: int, kind: str, count: int) -> list[str]:
    """Lines setting `r0`...: whether each axis is reduced (ValueError for a bad axis)."""
    if kind == "none":
        return [f"    r{j} = True" for j in range(ndim)]
    picks = ["axis"] if kind == "int" else [f"axis[{n}]" for n in range(count)]
    lines = [f"    r{j} = False" for j in range(ndim)]
    for pick in picks:
        lines += [
            f"    k = {pick} if {pick} >= 0 else {pick} + {ndim}",
            f"    if k < 0 or k >= {ndim}:",
            "        raise ValueError('Invalid axis')",
        ]
        for j in range(ndim):
            lines += [
                f"    if k == {j}:",
                f"        if r{j}:",
                "            raise ValueError(\"duplicate value in 'axis'\")",
                f"        r{j} = True",
            ]
    return lines


def _kept_shape(ndim: int) -> str:
    """The shape with every reduced axis (flag r{j}) of length 1."""
    return "(" + "".join(f"1 if r{j} else s[{j}], " for j in range(ndim)) + ")"


def _drop_reduced(ndim: int, keep: int) -> list[str]:
    """Return `acc` without its reduced axes (`keep` of them stay: known when typing)."""
    if keep == ndim:
        return ["    return acc"]
    if keep == 0:
        return [f"    return acc[{', '.join(['0'] * ndim)}]"]
    lines = [f"    kept = np.empty({ndim}, np.intp)", "    c = 0"]
    for j in range(ndim):
        lines += [f"    if not r{j}:", f"        kept[c] = s[{j}]", "        c += 1"]
    shape = ", ".join(f"kept[{j}]" for j in range(keep))
    return [*lines, f"    return acc.reshape(({shape},))"]


def compile_reduce(ufunc: Any, lines: list[str], result: Any = None, extra: Any = None) -> Any:
    """The implementation function whose body is `lines`, with the overload's parameters;
    `result` and the `extra` names are visible to it."""
    from ember.ufuncs.jit_reduce import identity_of

    namespace = {"np": np, "ufunc": ufunc, "identity": identity_of(ufunc), "result": result}
    namespace.update(extra or {})
    head = (
        "def impl(receiver, array, axis=0, dtype=None, initial=None, keepdims=False, "
        "out=None, where=True):\n"
    )
    source = head + "\n".join(lines)
    exec(compile(source + "\n", f"<{ufunc.__name__}.reduce>", "exec"), namespace)
    return namespace["impl"]
