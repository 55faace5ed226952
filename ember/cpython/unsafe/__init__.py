"""Numba's `numba.cpython.unsafe` path: `tuple` (tuple_setitem) and `numbers` (bit counts,
bit views), intrinsics that skip the checks of the safe spellings."""
