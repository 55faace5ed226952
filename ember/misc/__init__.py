"""Numba's `numba.misc` path: helpers users import by that name (`literal_unroll`)."""
