"""`ufunc.reduceat(array, indices, axis=0, dtype=None, out=None)` in jitted code for
NumPy's, @vectorize's and DUFuncs' ufuncs of two inputs: along `axis`, result j folds the slice
indices[j]:indices[j+1] (to the end for the last one), or is element indices[j] when the next
index is not larger (NumPy's rule). Arrays, lists and tuples are taken for `array` and
`indices`; `out` receives each result as it is computed (unbuffered, as Numba: with out=array later
results read earlier ones; NumPy 2 buffers)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ember import types
from ember.errors import TypingError
from ember.typing.overload import overload_method
from ember.ufuncs.jit_reduce import axis_split_lines, numpy_fold_dtype, reducible_ufunc


def _is_none(typ: Any) -> bool:
    return typ is None or isinstance(typ, (types.NoneType, types.Omitted))


def _ndim(typ: types.Type) -> int | None:
    if isinstance(typ, types.Array):
        return typ.ndim
    if isinstance(typ, (types.List, types.ListType, types.BaseTuple)):
        return 1
    return None


@overload_method(types.Function, "reduceat")
def _ufunc_reduceat(fnty, array, indices, axis=0, dtype=None, out=None):
    ufunc = reducible_ufunc(fnty)
    if ufunc is None:
        return None
    name = ufunc.__name__
    if ufunc.nin != 2 or ufunc.nout != 1:
        raise TypingError(f"reduceat only supported for binary functions, not {name}")
    ndim = _ndim(array)
    if ndim is None:
        raise TypingError(f'{name}.reduceat: "array" must be array-like, not {array}')
    indices_ndim = _ndim(indices)
    if indices_ndim is None:
        raise TypingError(f'{name}.reduceat: "indices" must be array-like, not {indices}')
    if indices_ndim != 1:
        raise TypingError(f"{name}.reduceat: index arrays have at most 1 dimension")
    if not isinstance(axis, (int, types.Integer, types.Omitted)) and axis is not None:
        raise TypingError(f'{name}.reduceat: "axis" must be an integer, not {axis}')
    if not (_is_none(out) or isinstance(out, types.Array)):
        raise TypingError(f"{name}.reduceat: output must be an array, not {out}")
    folded = None
    if _is_none(dtype) and isinstance(array, types.Array):  # add on int8 folds in int64
        folded = numpy_fold_dtype(ufunc, "reduceat", array)
    return _make_reduceat(ufunc, ndim, _is_none(dtype), _is_none(out), folded)


@functools.cache  # one implementation per ufunc and typing (the overload's contract)
def _make_reduceat(ufunc: Any, ndim: int, same_dtype: bool, no_out: bool, folded=None):
    """`folded`: the dtype NumPy's own ufunc folds in when not the array's (see
    numpy_fold_dtype)."""
    cast = "np.asarray(array)" if same_dtype else "np.asarray(array).astype(dtype)"
    if folded is not None:
        cast = "np.asarray(array).astype(folded)"
    shape = ", ".join(f"m if {j} == k else s[{j}]" for j in range(ndim))
    lines = [
        "def impl(receiver, array, indices, axis=0, dtype=None, out=None):",
        f"    a = np.ascontiguousarray({cast})",
        "    idx = np.asarray(indices)",
        f"    k = axis if axis >= 0 else axis + {ndim}",
        f"    if k < 0 or k >= {ndim}:",
        "        raise ValueError(",
        f"            f'axis {{axis}} is out of bounds for array of dimension {ndim}'",
        "        )",
        *axis_split_lines(ndim),
        "    m = idx.shape[0]",
        "    lines = a.reshape((pre, n, post))",
        *(
            ["    res = np.empty((pre, m, post), dtype=a.dtype)"]
            if no_out
            else [
                f"    if out.shape != ({shape},):",
                "        raise ValueError('reduceat: the out array has the wrong shape')",
                "    res = out.reshape((pre, m, post))",
            ]
        ),
        "    for j in range(m):",
        "        start = idx[j]",
        "        stop = idx[j + 1] if j + 1 < m else n",
        "        if start < 0 or start >= n or stop < 0 or stop > n:",
        "            raise IndexError('index out-of-bounds in reduceat')",
        "        for p in range(pre):",
        "            for q in range(post):",
        "                acc = lines[p, start, q]",
        "                for i in range(start + 1, stop):",
        "                    acc = ufunc(acc, lines[p, i, q])",
        "                res[p, j, q] = acc",
        *([f"    result = res.reshape(({shape},))"] if no_out else []),
    ]
    lines.append("    return result" if no_out else "    return out")
    namespace = {"np": np, "ufunc": ufunc, "folded": folded}
    exec(compile("\n".join(lines) + "\n", f"<{ufunc.__name__}.reduceat>", "exec"), namespace)
    return namespace["impl"]
