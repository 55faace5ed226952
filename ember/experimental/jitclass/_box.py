"""Numba's `numba.experimental.jitclass._box`: the native addresses behind a jitclass instance
seen from Python (its runtime block and its fields' data)."""

from typing import Any

from ember.jitclasses.box import JitClassBox


def _box_of(instance: Any) -> JitClassBox:
    if not isinstance(instance, JitClassBox):
        raise TypeError(f"expected a jitclass instance, got {type(instance).__name__}")
    return instance


def box_get_meminfoptr(instance: Any) -> int:
    """The address of the runtime block (meminfo) holding the instance."""
    return _box_of(instance)._meminfo


def box_get_dataptr(instance: Any) -> int:
    """The address of the instance's fields."""
    return _box_of(instance)._data


__all__ = ["box_get_dataptr", "box_get_meminfoptr"]
