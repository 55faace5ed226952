"""Numba's `numba.np.random.generator_methods` helper for extension code: the single or double
precision variant of a draw for a NumPy float dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ember.errors import TypingError


def _get_proper_func(
    func_32: Callable, func_64: Callable, dtype: Any, dist_name: str = "the given"
) -> tuple:
    """(func_32, float32) for a float32 dtype, (func_64, float64) for float64; any other dtype
    (or a non-dtype) is a TypingError."""
    try:
        resolved = np.dtype(dtype) if isinstance(dtype, (type, np.dtype, str)) else None
    except TypeError:
        resolved = None
    if resolved == np.float32:
        return func_32, np.float32
    if resolved == np.float64:
        return func_64, np.float64
    raise TypingError(
        f"Argument dtype is not one of the expected type(s): [np.float32, np.float64] for "
        f"{dist_name} distribution (got {dtype!r})"
    )
