"""What `typed.List` and `typed.Dict` share as owners of one native reference: releasing it (a
decref bound while imports still work, since `__del__` may run at shutdown) and item types."""

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
