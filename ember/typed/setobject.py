"""Numba's `numba.typed.setobject` module, as far as programs use it: `new_set(key_type)`, an
empty typed set (the same as `Set.empty`)."""

from ember.typed.typedset import new_set

__all__ = ["new_set"]
