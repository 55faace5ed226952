"""Numba's `numba.np.random` path for code written against it: the raw draws of a bit generator
(generator_core) and the dtype choice of the Generator methods (generator_methods)."""
