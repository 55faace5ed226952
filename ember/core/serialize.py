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


def dumps(obj: Any) -> bytes:
    """Numba's by-value pickle: functions and classes defined in `__main__` or locally are
    pickled with their code (cloudpickle, when installed), everything else as `pickle` does."""
    try:
        import cloudpickle
    except ImportError:
        return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
