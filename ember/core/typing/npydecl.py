"""Numba's `numba.core.typing.npydecl` path: `parse_dtype(t)` gives the scalar type a dtype-like
type stands for (`a.dtype`, `np.float32`, a constant string such as 'f8')."""

from ember.library.numpy.support import parse_dtype

__all__ = ["parse_dtype"]
