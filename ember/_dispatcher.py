"""Numba's `numba._dispatcher` path for its one Python-level helper: `compute_fingerprint(value)`,
the bytes that identify the type compiled code sees for a value (equal fingerprints mean
one ember type)."""

from __future__ import annotations

from typing import Any

_fingerprinted: set = set()  # types are interned weakly: a fingerprinted one keeps its code


def compute_fingerprint(value: Any) -> bytes:
    """The fingerprint of `value`'s ember type; ValueError when ember cannot type it."""
    from ember.dispatcher.typeof import typeof

    typ = typeof(value)
    _fingerprinted.add(typ)
    return typ.typecode.to_bytes(8, "little")
