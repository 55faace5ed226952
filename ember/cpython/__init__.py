"""Numba's `numba.cpython` path: `ember.cpython.unsafe` holds the helpers that trust their
caller (tuple_setitem, bit counts), `unicode` `_get_code_point`, `charseq` `bytes_type`. Each
loads on first use, so `numba.cpython.charseq.bytes_type` works after a bare `import numba`."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any


def __getattr__(name: str) -> Any:
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
