"""Numba's `numba.cpython` path: `ember.cpython.unsafe` holds the helpers that trust their
caller (tuple_setitem, bit counts)."""
