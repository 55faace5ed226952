"""Numba's `numba.np.ufunc.gufunc` path: the `GUFunc` class that `@guvectorize` returns
(ember/ufuncs/gufunc.py), for code that checks or annotates with it."""

from ember.ufuncs.gufunc import GUFunc

__all__ = ["GUFunc"]
