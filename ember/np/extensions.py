"""`cross2d(a, b)` (Numba's `numba.np.extensions`): the z-component of the cross product of
2-vectors along the last axis, which `np.cross` no longer takes in NumPy 2."""

from __future__ import annotations

from typing import Any

import numpy as np

from ember import types
from ember.errors import TypingError
from ember.typing.overload import overload


def cross2d(a: Any, b: Any) -> Any:
    """`a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]`, broadcasting the leading axes; both
    operands must have 2 items along their last axis."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape[-1] != 2 or b.shape[-1] != 2:
        raise ValueError(_NOT_TWO)
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


_NOT_TWO = "incompatible dimensions for 2D cross product (dimension must be 2)"


@overload(cross2d)
def _cross2d(a: types.Type, b: types.Type) -> Any:
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        raise TypingError(f"cross2d() takes two arrays, not {a} and {b}")

    def impl(a, b):
        if a.shape[-1] != 2 or b.shape[-1] != 2:
            raise ValueError(_NOT_TWO)
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]

    return impl
