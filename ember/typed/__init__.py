"""Numba's `numba.typed`: `List`, `Dict` and `Set` are Python objects that each own a native list,
dict or set, so compiled code receives them without copying and both sides see every change
(ember/typed/typedlist.py, typeddict.py, typedset.py). Inside compiled code `List()`, `Dict()`
and `Set()` make typed containers (`ListType`, `DictType`, `SetType`), which come back to Python
as these objects."""

from ember.typed.typeddict import Dict
from ember.typed.typedlist import List
from ember.typed.typedset import Set

__all__ = ["Dict", "List", "Set"]
