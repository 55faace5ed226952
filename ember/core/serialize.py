"""Numba's `numba.core.serialize` helpers that extension code calls: whether a value pickles."""

from __future__ import annotations

import pickle
from typing import Any


def is_serializable(obj: Any) -> bool:
    """Whether `obj` pickles (a lock, an open file or a local class do not)."""
    try:
        pickle.dumps(obj)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError):
        return False
    return True
