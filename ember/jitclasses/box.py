"""The Python face of jitclass instances: each instance is a small box holding a reference to
the runtime-managed payload. Numeric fields are read and written straight from the payload
through a ctypes view (no compiled call); other fields, properties and methods call compiled
functions."""

from __future__ import annotations

import ctypes
import operator
from typing import Any

from ember import types
from ember.runtime.nrt import HEADER_SIZE


class JitClassMeta(type):
    """The metaclass of jitclasses: calling the class runs the compiled constructor."""

    def __new__(mcs, name: str, bases: tuple, namespace: dict) -> Any:
        if any(isinstance(base, JitClassMeta) for base in bases):
            raise TypeError("cannot subclass from a jitclass")
        return super().__new__(mcs, name, bases, namespace)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._constructor(*args, **kwargs)


class JitClassBox:
    """Base of every jitclass's Python class (instances come only from compiled code)."""

    __slots__ = ("_meminfo", "_data", "_payload", "__weakref__")

    _payload_ctype: Any = None

    @classmethod
    def _from_native(cls, meminfo: int, data: int | None = None) -> JitClassBox:
        """Box an instance compiled code handed over (takes over its reference)."""
        box = object.__new__(cls)
        box._meminfo = meminfo
        box._data = meminfo + HEADER_SIZE if data is None else data
        return box

    def __getattr__(self, name: str) -> Any:
        """`_payload`, the ctypes view of the fields, is made on first use (boxes that only
        cross back into compiled code never need it)."""
        if name != "_payload":
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        cls = type(self)
        if cls._payload_ctype is None:  # built late: deferred field types are defined by now
            cls._payload_ctype = payload_ctype(cls.__name__, cls.class_type.struct)
        payload = self._payload = cls._payload_ctype.from_address(self._data)
        return payload

    def __del__(self) -> None:
        release(getattr(self, "_meminfo", None))

    def __reduce__(self) -> Any:
        raise TypeError(f"cannot pickle jitclass instance {type(self).__name__}")


_decref: list = []  # the runtime's decref, filled when the first class is built


def release(meminfo: int | None) -> None:
    """Drop the reference a Python object held to a runtime block (jitclass boxes, structref
    proxies); a no-op before the runtime is loaded and for an object never filled in."""
    if meminfo and _decref:
        _decref[0](meminfo)


def load_runtime() -> None:
    """Fill the runtime's decref in; from then on boxes release natively (no Python frame)
    where their slot layout was found."""
    from ember.jitclasses.native_release import native_del
    from ember.runtime.nrt import runtime

    if not _decref:
        _decref.append(runtime().decref)
        offset = slot_offset("_meminfo")
        if offset is not None:
            JitClassBox.__del__ = native_del(JitClassBox, offset)


def slot_offset(name: str) -> int | None:
    """Where a box keeps the PyObject* of its slot `name` (`_meminfo`, `_data`), or None."""
    from ember.dispatcher.call_slots import class_slot_offset

    return class_slot_offset(JitClassBox, name)


def instance_kind(instance_type: types.ClassInstanceType) -> Any:
    """The native entry's argument kind of boxes of this class, or None (no fast path)."""
    from ember.dispatcher.object_layout import InstanceKind

    offset = slot_offset("_meminfo")
    if offset is None:
        return None
    return InstanceKind(instance_type.class_type.jit_class, offset)


def payload_ctype(name: str, struct: dict[str, types.Type]) -> type:
    """A ctypes Structure with the payload's layout (the same rules as the LLVM struct)."""
    from ember.dispatcher.pycall import _memory_ctype

    fields = [(field, _memory_ctype(typ)) for field, typ in struct.items()]
    return type(f"{name}_payload", (ctypes.Structure,), {"_fields_": fields})


# ---------------------------------------------------------------------------- numeric fields


def is_direct(typ: types.Type) -> bool:
    """Whether Python reads and writes a field of `typ` straight from the payload."""
    return isinstance(typ, (types.Integer, types.Float, types.Boolean))


def direct_property(name: str, typ: types.Type) -> property:
    """A property over the payload's ctypes view; the setter converts as compiled code would
    (floats are truncated into integer fields; out-of-range integers raise OverflowError)."""
    getter = operator.attrgetter(f"_payload.{name}")
    if isinstance(typ, types.Boolean):

        def get_bool(self: Any) -> bool:
            return bool(getattr(self._payload, name))

        def set_bool(self: Any, value: Any) -> None:
            setattr(self._payload, name, bool(value))

        return property(get_bool, set_bool)
    if isinstance(typ, types.Float):

        def set_float(self: Any, value: Any) -> None:
            setattr(self._payload, name, float(value))

        return property(getter, set_float)
    low, high = typ.minval, typ.maxval

    def set_int(self: Any, value: Any) -> None:
        value = int(value) if type(value) is float else operator.index(value)
        if not low <= value <= high:
            raise OverflowError(f"{value} does not fit field '{name}' of type {typ}")
        setattr(self._payload, name, value)

    return property(getter, set_int)
