"""`@vectorize`, `@guvectorize` and DUFunc (Numba's): kernels compiled by ember inside genuine
NumPy ufuncs, built through NumPy's C API without a C compiler."""

from ember.ufuncs import (
    jit_accumulate,  # noqa: F401 - ufunc.accumulate and .outer in jitted code
    jit_at,  # noqa: F401 - ufunc.at in jitted code
    jit_attributes,  # noqa: F401 - ufunc.nin, .identity, ... in jitted code
    jit_reduce,  # noqa: F401 - ufunc.reduce in jitted code
    jit_reduceat,  # noqa: F401 - ufunc.reduceat in jitted code
    pickling,  # noqa: F401 - ember's ufuncs pickle by value
)
from ember.ufuncs.gufunc import GUFunc, guvectorize
from ember.ufuncs.vectorize import DUFunc, vectorize

__all__ = ["DUFunc", "GUFunc", "guvectorize", "vectorize"]
