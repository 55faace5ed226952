"""Numba's `numba.np` path for code written against it: `numpy_support`'s dtype conversions
(ember/np/numpy_support.py), `linalg`, `ufunc`, `unsafe`, `extensions`, `random`. Each loads on
first use, so `numba.np.numpy_support.as_dtype` works after a bare `import numba`."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any


def __getattr__(name: str) -> Any:
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
