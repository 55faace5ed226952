"""Numba's `numba.misc.special` path: the special functions programs import from there
(`typeof`, `literally`, `literal_unroll`, `prange`, `pndindex`, `as_numba_type`)."""

from ember.dispatcher.typeof import typeof
from ember.extending import as_numba_type
from ember.misc.literal import literal_unroll, literally
from ember.parallel.api import pndindex, prange

__all__ = ["as_numba_type", "literal_unroll", "literally", "pndindex", "prange", "typeof"]
