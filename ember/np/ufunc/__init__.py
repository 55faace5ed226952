"""Numba's `numba.np.ufunc` path: the decorators, the dynamic ufunc classes (`DUFunc`,
`GUFunc`) and the builder classes `Vectorize` / `GUVectorize` (`.add(sig)` then
`.build_ufunc()`), all backed by ember/ufuncs."""

from ember.np.ufunc.builders import GUVectorize, Vectorize
from ember.np.ufunc.dufunc import DUFunc
from ember.ufuncs.gufunc import GUFunc
from ember.ufuncs.gufunc import guvectorize as guvectorize
from ember.ufuncs.vectorize import vectorize as vectorize

__all__ = ["DUFunc", "GUFunc", "GUVectorize", "Vectorize", "guvectorize", "vectorize"]
