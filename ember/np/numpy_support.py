"""Numba's `numba.np.numpy_support`: conversions between NumPy dtypes and ember types, for
extension code that imports them from Numba's path."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember import types
from ember.errors import NumbaNotImplementedError


def from_dtype(dtype: Any) -> types.Type:
    """The ember type of a NumPy dtype (or anything `np.dtype` accepts)."""
    from ember import from_dtype as _from_dtype

    return _from_dtype(dtype)


def as_dtype(typ: types.Type) -> np.dtype:
    """The NumPy dtype of an ember scalar or record type (Numba's NumbaNotImplementedError for
    a type no dtype represents, such as an array type)."""
    from ember.library.numpy.support import numpy_dtype

    scalar = (types.Number, types.Boolean, types.Record, types.UnicodeCharSeq, types.CharSeq)
    if not isinstance(typ, scalar):
        raise NumbaNotImplementedError(f"{typ} cannot be represented as a NumPy dtype")
    return numpy_dtype(typ)


__all__ = ["as_dtype", "from_dtype"]
