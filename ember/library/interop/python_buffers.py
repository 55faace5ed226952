"""`bytearray`, `memoryview` and `array.array` arguments (types.PythonBuffer): each is held as
the array over the object's memory (the array data model), so Numba's array protocol
(ember/lowering/array_compatible.py) types and lowers len, indexing, iteration and NumPy calls
on it as on that array; writes reach the Python object."""

from __future__ import annotations

from ember import types
from ember.lowering.models import ArrayModel, register_model
from ember.lowering.registry import registry as lowering_registry

register_model(types.PythonBuffer)(ArrayModel)


@lowering_registry.lower("__array__", types.PythonBuffer)
def _buffer_as_array(context, builder, sig, args):
    """Given a pointer to the buffer's value, a pointer to its array: the same struct."""
    return args[0]
