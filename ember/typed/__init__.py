"""Numba's `numba.typed`: `List` and `Dict` are Python objects that each own a native list or
dict, so compiled code receives them without copying and both sides see every change
(ember/typed/typedlist.py, ember/typed/typeddict.py). Inside compiled code `List()` and `Dict()`
make typed lists and dicts (`ListType`, `DictType`), which come back to Python as these objects."""

from ember.typed.typeddict import Dict
from ember.typed.typedlist import List

__all__ = ["Dict", "List"]
