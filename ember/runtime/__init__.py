"""ember's runtime: reference-counted memory for arrays created by compiled code (NRT).

`ember.runtime.stats()` returns the allocation and free counts (`.alloc`, `.free`, `.live`);
`ember.runtime.release_cached_blocks()` returns the freed large blocks kept for reuse to the C
library.
"""

from __future__ import annotations


def stats():
    """Counts of runtime allocations and frees so far (a RuntimeStats)."""
    from ember.runtime.nrt import stats as _stats

    return _stats()


def release_cached_blocks() -> None:
    """Give the memory of freed large blocks kept for reuse back to the C library."""
    from ember.runtime.nrt import release_cached_blocks as _release

    _release()


__all__ = ["release_cached_blocks", "stats"]
