"""Pickling ember's ufuncs by value (kernel source, signatures, options), so they run where
their module cannot be imported: other processes, Dask workers (`dask.array.map_blocks`).

A genuine `np.ufunc` pickles through `copyreg`; ember wraps NumPy's reducer there and answers
only for ufuncs it built (the others keep NumPy's by-name pickling).
"""

from __future__ import annotations

import copyreg
import types as pytypes
from typing import Any

import numpy as np

from ember.dispatcher import serialize


def function_state(py_func: pytypes.FunctionType, own: Any) -> tuple:
    """The kernel's state; global names bound to `own` (the ufunc) are rebound on arrival."""
    return serialize.function_state(py_func, own)


def rebuild_function(state: tuple) -> tuple[pytypes.FunctionType, list[str]]:
    return serialize.rebuild_function(state)


def bind_self(py_func: pytypes.FunctionType, names: list[str], own: Any) -> Any:
    for name in names:
        py_func.__globals__[name] = own
    return own


def _reduce_ufunc(ufunc: np.ufunc) -> Any:
    reducer = ufunc.__dict__.get("_ember_reduce")
    if reducer is None:
        return _numpy_reduce(ufunc)
    return reducer(ufunc)


_numpy_reduce = copyreg.dispatch_table.get(np.ufunc, lambda ufunc: ufunc.__name__)
if copyreg.dispatch_table.get(np.ufunc) is not _reduce_ufunc:
    copyreg.pickle(np.ufunc, _reduce_ufunc)
