"""ember's runtime: reference-counted memory for arrays created by compiled code (NRT).

`ember.runtime.stats()` returns the allocation and free counts (`.alloc`, `.free`, `.live`).
"""

from __future__ import annotations


def stats():
    """Counts of runtime allocations and frees so far (a RuntimeStats)."""
    from ember.runtime.nrt import stats as _stats

    return _stats()


__all__ = ["stats"]
