"""Numba's `numba.typed.listobject` module, as far as programs use it: `new_list(item_type,
allocated=0)`, an empty typed list (the same as `List.empty_list`)."""

from ember.typed.typedlist import new_list

__all__ = ["new_list"]
