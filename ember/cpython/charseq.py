"""Numba's `numba.cpython.charseq` path: `bytes_type`, the type of a `bytes` value."""

from ember.types import bytes_type

__all__ = ["bytes_type"]
