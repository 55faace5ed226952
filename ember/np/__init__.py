"""Numba's `numba.np` path for code written against it: `numpy_support`'s dtype conversions
(ember/np/numpy_support.py)."""
