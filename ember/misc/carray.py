"""`carray(ptr, shape, dtype=None)` and `farray(...)`: a NumPy array viewing memory a C pointer
points at, in Python (a ctypes pointer) and in compiled code (a `CPointer` or `voidptr`
argument of a `@cfunc`: ember/library/interop/carray.py). The array does not own the memory."""

from __future__ import annotations

from typing import Any


def carray(ptr: Any, shape: Any, dtype: Any = None) -> Any:
    """A C-ordered array of `shape` over the memory at the ctypes pointer `ptr`."""
    return _python_view(ptr, shape, dtype, "C")


def farray(ptr: Any, shape: Any, dtype: Any = None) -> Any:
    """A Fortran-ordered array of `shape` over the memory at the ctypes pointer `ptr`."""
    return _python_view(ptr, shape, dtype, "F")


def _python_view(ptr: Any, shape: Any, dtype: Any, order: str) -> Any:
    import ctypes

    import numpy as np

    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if not isinstance(ptr, (ctypes._Pointer, ctypes.c_void_p)):
        raise TypeError(f"carray()/farray() take a ctypes pointer, not {type(ptr).__name__}")
    own_dtype = np.dtype(ptr._type_) if isinstance(ptr, ctypes._Pointer) else None  # void*: none
    if dtype is not None and own_dtype is not None and np.dtype(dtype) != own_dtype:
        raise TypeError(
            f"mismatching dtype '{np.dtype(dtype)}' for pointer type '{own_dtype}*' "
            "(Numba's words: the dtype must be the pointer's own)"
        )
    dtype = np.dtype(dtype) if dtype is not None else own_dtype
    if dtype is None:
        raise TypeError("carray()/farray() of a void pointer need dtype=")
    count = int(np.prod(shape))
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(
        ctypes.cast(ptr, ctypes.c_void_p).value
    )
    return np.ndarray(shape, dtype=dtype, buffer=buffer, order=order)
