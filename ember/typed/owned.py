"""What `typed.List`, `typed.Dict` and `typed.Set` share as owners of one native reference:
releasing it (a decref bound while imports still work, since `__del__` may run at shutdown),
their accessors and length (`NativeOwner`), and item types."""

from __future__ import annotations

from typing import Any

from ember import types

_decref: Any = None


def bind_release() -> None:
    """Bind the runtime's decref now, for `release` at any later time."""
    global _decref
    if _decref is None:
        from ember.runtime import nrt

        _decref = nrt.runtime().decref


def release(meminfo: int) -> None:
    """Give back one reference to a native container (after `bind_release`)."""
    _decref(meminfo)


def as_type(item_type: Any) -> types.Type:
    """An ember type from an ember type or a Python/NumPy type or dtype."""
    if isinstance(item_type, types.Type):
        return item_type
    from ember import from_dtype

    return from_dtype(item_type)


class NativeOwner:
    """The base of `typed.List`, `Dict` and `Set`, each of which holds one reference to a native
    container (`_meminfo`, 0 while untyped) and the accessors compiled once for its type
    (`_ops`). A subclass gives its type (`_native_type`, None while untyped) and the module of
    its accessors (`_accessor_kit`: `for_type(container_type)` and `size(meminfo)`)."""

    __slots__ = ()
    _meminfo: int
    _ops: Any
    _native_type: types.Type | None
    _accessor_kit: Any

    def _accessors(self) -> Any:
        if self._ops is None:
            self._ops = self._accessor_kit.for_type(self._native_type)
        return self._ops

    def __len__(self) -> int:
        return 0 if self._native_type is None else self._accessor_kit.size(self._meminfo)

    def __del__(self) -> None:
        if self._meminfo:
            release(self._meminfo)
            self._meminfo = 0
