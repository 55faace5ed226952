"""Generators returned to Python: an iterator object whose `__next__` resumes the compiled body
(ember/lowering/generators.py) and boxes each item as the ctypes call path boxes results."""

from __future__ import annotations

import ctypes
from typing import Any

from ember import types
from ember.errors import UnsupportedError
from ember.lowering.callconv import STATUS_OK, raise_static_exception
from ember.lowering.generators import STATUS_STOP, compiled_resume
from ember.runtime import nrt

_RESUME_PROTOTYPE = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int8
)
_resumers: dict[types.Generator, Any] = {}


def _resumer(gen_type: types.Generator) -> Any:
    found = _resumers.get(gen_type)
    if found is None:
        library, symbol = compiled_resume(gen_type)
        found = _resumers[gen_type] = _RESUME_PROTOTYPE(library.address_of(symbol))
    return found


def _item_buffer(yield_type: types.Type, inputs: tuple) -> tuple:
    """A buffer the resume function writes items into, and the function boxing its item."""
    from ember.dispatcher.pycall import _box, _memory_ctype

    item_ctype = _memory_ctype(yield_type)
    if issubclass(item_ctype, ctypes.Structure):
        return item_ctype(), lambda item: _box(yield_type, item, inputs)
    if isinstance(yield_type, types.Boolean):
        return item_ctype(), lambda item: bool(item.value)
    return item_ctype(), lambda item: item.value


class CompiledGenerator:
    """A running jitted generator (Numba's generator object): iterate it, or call `next()`.

    It owns the runtime block of the generator's state; dropping it closes the generator and
    releases whatever the suspended body held. `inputs` (the call's arguments) stay alive as
    long as the generator, since the state may borrow their arrays.
    """

    __slots__ = (
        "_gen_type", "_meminfo", "_state", "_resume", "_item", "_box", "_exc", "_addresses",
        "_inputs",
    )  # fmt: skip

    def __init__(self, gen_type: types.Generator, meminfo: int, inputs: tuple) -> None:
        self._gen_type = gen_type
        self._meminfo = meminfo  # the reference the compiled function returned
        self._state = nrt.data_address(meminfo)
        self._resume = _resumer(gen_type)
        self._item, self._box = _item_buffer(gen_type.yield_type, inputs)
        self._exc = ctypes.c_int32(0)
        self._addresses = (ctypes.addressof(self._item), ctypes.addressof(self._exc))
        self._inputs = inputs

    def __iter__(self) -> CompiledGenerator:
        return self

    def __next__(self) -> Any:
        status = self._resume(*self._addresses, None, self._state, 0)
        if status == STATUS_OK:
            return self._box(self._item)
        if status == STATUS_STOP:
            raise StopIteration
        raise_static_exception(self._exc.value)

    def close(self) -> None:
        """End the generator now, releasing what its suspended body holds (as Python's)."""
        self._resume(*self._addresses, None, self._state, 1)

    def send(self, value: Any) -> Any:
        from ember.library.generators import UNSUPPORTED_METHODS

        raise UnsupportedError(UNSUPPORTED_METHODS["send"])

    def throw(self, *args: Any) -> Any:
        from ember.library.generators import UNSUPPORTED_METHODS

        raise UnsupportedError(UNSUPPORTED_METHODS["throw"])

    def __del__(self) -> None:
        meminfo, self._meminfo = self._meminfo, 0
        if meminfo:
            nrt.runtime().decref(meminfo)

    def __repr__(self) -> str:
        return f"<ember generator object {self._gen_type.gen_func.__qualname__}>"


def box_generator(gen_type: types.Generator, memory: Any, inputs: tuple) -> CompiledGenerator:
    """The Python object of a generator a compiled function returned (takes its reference)."""
    return CompiledGenerator(gen_type, memory.meminfo, inputs)
