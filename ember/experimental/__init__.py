"""Numba's `numba.experimental`: `jitclass` (ember/jitclasses/) and the `structref` module
(loaded on first use)."""

import importlib
from typing import Any

from ember.jitclasses import jitclass


def __getattr__(name: str) -> Any:
    if name == "structref":
        return importlib.import_module("ember.experimental.structref")
    raise AttributeError(f"module 'ember.experimental' has no attribute {name!r}")


__all__ = ["jitclass", "structref"]
