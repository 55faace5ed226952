"""Numba's `numba.np.numpy_support`: conversions between NumPy dtypes and ember types, for
extension code that imports them from Numba's path."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember import types


def from_dtype(dtype: Any) -> types.Type:
    """The ember type of a NumPy dtype (or anything `np.dtype` accepts)."""
    from ember import from_dtype as _from_dtype

    return _from_dtype(dtype)


def as_dtype(typ: types.Type) -> np.dtype:
    """The NumPy dtype of an ember scalar or record type."""
    from ember.library.numpy.support import numpy_dtype

    return numpy_dtype(typ)


__all__ = ["as_dtype", "from_dtype"]
