"""Numba's `numba.experimental`: `jitclass` (ember/jitclasses/; the package of the same name
holds Numba's `jitclass.base` / `jitclass._box` paths) and the `structref` module (loaded on
first use)."""

import importlib
from typing import Any

from .jitclass import jitclass  # the package first, then the name is the decorator


def __getattr__(name: str) -> Any:
    if name == "structref":
        return importlib.import_module("ember.experimental.structref")
    raise AttributeError(f"module 'ember.experimental' has no attribute {name!r}")


__all__ = ["jitclass", "structref"]
