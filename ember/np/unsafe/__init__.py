"""Numba's `numba.np.unsafe` path: array helpers that trust their caller
(ember/np/unsafe/ndarray.py)."""
