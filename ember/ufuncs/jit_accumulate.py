"""`ufunc.accumulate(array, axis=0, dtype=None)` and `ufunc.outer(A, B)` in jitted code, for
NumPy's binary ufuncs and ember's (@vectorize, DUFunc), with NumPy's results: accumulate keeps
the running fold along one axis, in the dtype NumPy gives (add on int8 accumulates in int64);
outer(A, B)[i..., j...] = ufunc(A[i...], B[j...]). Numba 0.68 compiles neither (an ember
extension)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ember import types
from ember.errors import TypingError
from ember.library.numpy.support import numpy_dtype, parse_dtype
from ember.typing.overload import overload_method
from ember.ufuncs.jit_reduce import axis_split_lines


def _binary_ufunc(fnty: types.Type, method: str) -> Any:
    """The ufunc (NumPy's or ember's) behind a Function type, else None; TypingError for one
    that is not elementwise with two inputs and one output."""
    from ember.ufuncs.vectorize import DUFunc

    ufunc = getattr(fnty, "typing_key", None)
    if not isinstance(ufunc, (np.ufunc, DUFunc)):
        return None
    if ufunc.nin != 2 or ufunc.nout != 1 or getattr(ufunc, "signature", None):
        raise TypingError(
            f"{ufunc.__name__}.{method} needs an elementwise ufunc of two inputs and one "
            f"output (NumPy's ValueError: {method} only supported for binary functions)"
        )
    return ufunc


def _is_none(typ: Any) -> bool:
    return typ is None or isinstance(typ, (types.NoneType, types.Omitted))


def _sample(typ: types.Type) -> np.ndarray:
    """An empty array of the operand's dtype: NumPy resolves the loop without running it."""
    dtype = numpy_dtype(typ.dtype if isinstance(typ, types.Array) else typ)
    return np.empty(0, dtype)


def _result_dtype(resolve) -> np.dtype:
    try:
        return resolve().dtype
    except (TypeError, ValueError) as error:  # no loop for these dtypes
        raise TypingError(str(error)) from None


@overload_method(types.Function, "accumulate")
def _ufunc_accumulate(fnty, array, axis=0, dtype=None):
    ufunc = _binary_ufunc(fnty, "accumulate")
    if ufunc is None:
        return None
    if not isinstance(array, types.Array):
        raise TypingError(f"{ufunc.__name__}.accumulate: the first argument must be an array")
    if not (_is_none(axis) or isinstance(axis, (int, types.Integer, types.IntegerLiteral))):
        raise TypingError(f"{ufunc.__name__}.accumulate: axis must be an int, not {axis}")
    given = None
    if not _is_none(dtype):
        given = numpy_dtype(parse_dtype(dtype))
    sample = _sample(array)
    result = _result_dtype(lambda: ufunc.accumulate(sample, dtype=given))
    return _make_accumulate(ufunc, array.ndim, _is_none(axis) and array.ndim > 1, result)


@functools.cache  # one implementation per ufunc and typing (the overload's contract)
def _make_accumulate(ufunc: Any, ndim: int, axis_none: bool, result: np.dtype):
    if axis_none:  # NumPy's ValueError, raised when called
        body = ["    raise ValueError('accumulate does not allow multiple axes')"]
    else:
        axis = "0 if axis is None else axis" if ndim == 1 else "axis"
        body = [
            f"    k = {axis}",
            f"    k = k if k >= 0 else k + {ndim}",
            f"    if k < 0 or k >= {ndim}:",
            f"        raise ValueError('axis ' + str(axis) + ' is out of bounds for array of "
            f"dimension {ndim}')",
            "    a = np.ascontiguousarray(array).astype(result)",  # NumPy's loop casts so
            *axis_split_lines(ndim),
            "    lines = a.reshape((pre, n, post))",
            "    out = np.empty((pre, n, post), dtype=result)",
            "    for p in range(pre):",
            "        for q in range(post):",
            "            if n > 0:",
            "                out[p, 0, q] = lines[p, 0, q]",
            "            for i in range(1, n):",
            "                out[p, i, q] = ufunc(out[p, i - 1, q], lines[p, i, q])",
            "    return out.reshape(a.shape)",
        ]
    namespace = {"np": np, "ufunc": ufunc, "result": result}
    source = "def impl(receiver, array, axis=0, dtype=None):\n" + "\n".join(body) + "\n"
    exec(compile(source, f"<{ufunc.__name__}.accumulate>", "exec"), namespace)  # noqa: S102
    return namespace["impl"]


@overload_method(types.Function, "outer")
def _ufunc_outer(fnty, first, second):
    ufunc = _binary_ufunc(fnty, "outer")
    if ufunc is None:
        return None
    for operand in (first, second):
        if not isinstance(operand, (types.Array, types.Number, types.Boolean)):
            raise TypingError(f"{ufunc.__name__}.outer takes arrays or numbers, not {operand}")
    _result_dtype(lambda: ufunc.outer(_sample(first), _sample(second)))  # loop exists
    second_ndim = second.ndim if isinstance(second, types.Array) else 0
    first_ndim = first.ndim if isinstance(first, types.Array) else 0
    return _make_outer(ufunc, first_ndim, second_ndim)


@functools.cache
def _make_outer(ufunc: Any, first_ndim: int, second_ndim: int):
    """ufunc(A viewed with B.ndim trailing length-1 axes, B): broadcasting gives the outer
    product's shape A.shape + B.shape, NumPy's definition of outer."""
    shape = [f"s[{j}]" for j in range(first_ndim)] + ["1"] * second_ndim
    body = [
        "    a = np.ascontiguousarray(np.asarray(first))",
        "    s = a.shape",
        f"    return ufunc(a.reshape(({', '.join(shape)},)), np.asarray(second))",
    ]
    namespace = {"np": np, "ufunc": ufunc}
    source = "def impl(receiver, first, second):\n" + "\n".join(body) + "\n"
    exec(compile(source, f"<{ufunc.__name__}.outer>", "exec"), namespace)  # noqa: S102
    return namespace["impl"]
