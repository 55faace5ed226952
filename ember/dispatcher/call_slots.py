"""A dispatcher's call slots: room for a per-instance vectorcall pointer in its own class, made
when the dispatcher is created, and the native entry installed in them later (fast_entry.py
builds it on the second call). Kept apart so that creating a dispatcher imports no code
generation. Consumes a class or an entry's addresses; produces patched type slots."""

from __future__ import annotations

import ctypes
import functools
from typing import Any

# PyTypeObject field offsets on 64-bit CPython 3.11 (checked at import, see below).
_TP_BASICSIZE_OFFSET = 32
_TP_VECTORCALL_OFFSET_OFFSET = 56
_TP_CALL_OFFSET = 128
_TP_FLAGS_OFFSET = 168
_TP_ITERNEXT_OFFSET = 224
_Py_TPFLAGS_HAVE_VECTORCALL = 1 << 11
# CPython's tp_call of objects called through their vectorcall pointer (Python functions).
_VECTORCALL_CALL = ctypes.cast(ctypes.pythonapi.PyVectorcall_Call, ctypes.c_void_p).value


def _tp_call_offset_verified() -> bool:
    """The slot at the offset of a plain function's type must hold PyVectorcall_Call."""
    import types as pytypes

    slot = ctypes.c_void_p.from_address(id(pytypes.FunctionType) + _TP_CALL_OFFSET).value
    expected = _VECTORCALL_CALL

    class Probe:
        pass

    flags = ctypes.c_ulong.from_address(id(Probe) + _TP_FLAGS_OFFSET).value
    size = ctypes.c_ssize_t.from_address(id(Probe) + _TP_BASICSIZE_OFFSET).value
    return slot == expected and flags == Probe.__flags__ and size == Probe.__basicsize__


TP_CALL_PATCHABLE = _tp_call_offset_verified()


def make_vectorcall_class(cls: type) -> int | None:
    """Give a fresh heap type (one dispatcher's own class) room for a per-instance vectorcall
    pointer; returns the pointer's offset in instances, or None when slots cannot be patched.
    Must run before the single instance is allocated."""
    if not TP_CALL_PATCHABLE:
        return None
    basicsize = ctypes.c_ssize_t.from_address(id(cls) + _TP_BASICSIZE_OFFSET)
    offset = basicsize.value
    basicsize.value = offset + ctypes.sizeof(ctypes.c_void_p)  # zeroed at allocation: NULL
    ctypes.c_ssize_t.from_address(id(cls) + _TP_VECTORCALL_OFFSET_OFFSET).value = offset
    flags = ctypes.c_ulong.from_address(id(cls) + _TP_FLAGS_OFFSET)
    flags.value |= _Py_TPFLAGS_HAVE_VECTORCALL
    return offset


def install_entry(instance: object, vectorcall_offset: int | None, entry: Any) -> None:
    """Route calls of `instance` to the entry (a fast_entry.FastEntry): its vectorcall pointer,
    and its class's tp_call to CPython's own tp_call of vectorcall objects (which calls that
    pointer, as for a Python function)."""
    if vectorcall_offset is None:
        return
    ctypes.c_void_p.from_address(id(instance) + vectorcall_offset).value = entry.address
    ctypes.c_void_p.from_address(id(type(instance)) + _TP_CALL_OFFSET).value = _VECTORCALL_CALL


def _tp_iternext_offset_verified() -> bool:
    """Two classes with `__next__` share CPython's slot function at the offset; a class
    without one has another value there."""

    class First:
        def __next__(self):
            raise StopIteration

    class Second:
        def __next__(self):
            raise StopIteration

    class Plain:
        pass

    def slot(cls: type) -> int:
        return ctypes.c_void_p.from_address(id(cls) + _TP_ITERNEXT_OFFSET).value or 0

    return slot(First) == slot(Second) != 0 and slot(Plain) != slot(First)


TP_ITERNEXT_PATCHABLE = TP_CALL_PATCHABLE and _tp_iternext_offset_verified()


def install_iternext(cls: type, address: int) -> bool:
    """Make `address` (`PyObject *next(PyObject *self)`) the `next()` of a heap type's
    instances, with no Python frame per item; False when slots cannot be patched."""
    if not TP_ITERNEXT_PATCHABLE:
        return False
    ctypes.c_void_p.from_address(id(cls) + _TP_ITERNEXT_OFFSET).value = address
    return True


def slot_offset(instance: object, name: str) -> int | None:
    """The byte offset of a `__slots__` member in `instance` (which must hold a value there
    that no other member holds), found by reading the instance; None if not found."""
    target = id(getattr(instance, name))
    size = type(instance).__basicsize__
    pointer = ctypes.sizeof(ctypes.c_void_p)
    for offset in range(object.__basicsize__, size, pointer):
        if ctypes.c_void_p.from_address(id(instance) + offset).value == target:
            return offset
    return None


@functools.cache
def class_slot_offset(cls: type, name: str) -> int | None:
    """Where instances of `cls` keep the PyObject* of their `__slots__` member `name` (probed
    on a fresh instance: slot layouts are CPython's business), or None when not found."""
    probe = object.__new__(cls)
    setattr(probe, name, object())
    found = slot_offset(probe, name)
    setattr(probe, name, 0)  # a box owning nothing: dropping the probe releases nothing
    return found
