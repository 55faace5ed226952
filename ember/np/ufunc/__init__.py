"""Numba's `numba.np.ufunc` path: the decorators, the dynamic ufunc classes (`DUFunc`,
`GUFunc`) and the builder classes `Vectorize` / `GUVectorize` (`.add(sig)` then
`.build_ufunc()`), all backed by ember/ufuncs."""

from ember.np.ufunc.builders import GUVectorize, Vectorize
from ember.np.ufunc.dufunc import DUFunc
from ember.ufuncs.capi import IDENTITY_CODES
from ember.ufuncs.gufunc import GUFunc
from ember.ufuncs.gufunc import guvectorize as guvectorize
from ember.ufuncs.vectorize import vectorize as vectorize

# NumPy's identity codes under Numba's names, for `vectorize(identity=PyUFunc_One)`.
PyUFunc_Zero = IDENTITY_CODES[0]
PyUFunc_One = IDENTITY_CODES[1]
PyUFunc_None = IDENTITY_CODES[None]
PyUFunc_ReorderableNone = IDENTITY_CODES["reorderable"]

__all__ = [
    "DUFunc",
    "GUFunc",
    "GUVectorize",
    "PyUFunc_None",
    "PyUFunc_One",
    "PyUFunc_ReorderableNone",
    "PyUFunc_Zero",
    "Vectorize",
    "guvectorize",
    "vectorize",
]
