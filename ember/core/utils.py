"""Numba's `numba.core.utils` path for the names programs take from it: the running Python's
version (`PYVERSION`) and `pysignature` (inspect.signature)."""

from inspect import signature as pysignature

from ember.config import PYVERSION

__all__ = ["PYVERSION", "pysignature"]
