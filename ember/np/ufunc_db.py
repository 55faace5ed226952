"""Numba's `numba.np.ufunc_db` path: `get_ufuncs()`, the NumPy ufuncs jitted code computes
itself, and `get_ufunc_info(ufunc)`, each of its loops ('dd->d', NumPy's type codes) mapped to
a lowering function `(context, builder, sig, args)` computing one element of that loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_INFO: dict[Any, dict[str, Callable]] = {}


def get_ufuncs() -> frozenset:
    """The NumPy ufuncs with a compiled kernel (callable on scalars and arrays in jitted code)."""
    from ember.library.numpy.ufuncs import SUPPORTED_UFUNCS

    return frozenset(SUPPORTED_UFUNCS)


def get_ufunc_info(ufunc: Any) -> dict[str, Callable]:
    """Loop type string -> element lowering function, for the loops whose dtypes ember has;
    KeyError(ufunc) for a ufunc not in `get_ufuncs()`. The same dict on every call."""
    if ufunc not in _INFO:
        if not isinstance(ufunc, np.ufunc) or ufunc not in get_ufuncs():
            raise KeyError(ufunc)
        _INFO[ufunc] = _loops_of(ufunc)
    return _INFO[ufunc]


def _loops_of(ufunc: np.ufunc) -> dict[str, Callable]:
    from ember.errors import TypingError
    from ember.library.numpy.support import from_numpy_dtype
    from ember.library.numpy.ufuncs import Loop

    loops = {}
    for code in ufunc.types:
        inputs, outputs = code.split("->")
        if len(outputs) != 1:
            continue
        try:
            in_types = tuple(from_numpy_dtype(np.dtype(c)) for c in inputs)
            out_type = from_numpy_dtype(np.dtype(outputs))
        except (TypingError, TypeError, ValueError):
            continue  # float16, long double, objects, datetimes without a unit
        loops[code] = _element_lowering(Loop(ufunc, in_types, out_type))
    return loops


def _element_lowering(loop) -> Callable:
    from ember.library.numpy.ufuncs import apply_loop, numpy_context

    def lower(context, builder, sig, args):
        return apply_loop(numpy_context(context), builder, loop, tuple(sig.args), list(args))

    lower.__name__ = f"{loop.ufunc.__name__}_element"
    return lower
