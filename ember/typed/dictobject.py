"""Numba's `numba.typed.dictobject` module, as far as programs use it: `new_dict(key_type,
value_type)`, an empty typed dict (the same as `Dict.empty`)."""

from ember.typed.typeddict import new_dict

__all__ = ["new_dict"]
