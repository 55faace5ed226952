"""Numba's `numba.np.random.generator_core`: the raw draws of a NumPy bit generator, in Python
and in compiled code (`rng.bit_generator`), from ember/library/numpy/random/bit_generators.py."""

from ember.library.numpy.random.bit_generators import (
    next_double,
    next_float,
    next_uint32,
    next_uint64,
)

__all__ = ["next_double", "next_float", "next_uint32", "next_uint64"]
