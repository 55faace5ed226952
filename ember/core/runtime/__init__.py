"""Numba's `numba.core.runtime` path: `rtsys.get_allocation_stats()` (how many runtime blocks
compiled code allocated and freed, for leak checks) and `nrt.MemInfo`."""

from collections import namedtuple
from types import SimpleNamespace

from ember.runtime import nrt as _nrt

from . import nrt

AllocationStats = namedtuple("AllocationStats", "alloc free mi_alloc mi_free")


def get_allocation_stats() -> AllocationStats:
    """Blocks allocated and freed so far; ember has one kind of block (a meminfo heads each),
    so the meminfo counts equal the block counts."""
    stats = _nrt.stats()
    return AllocationStats(stats.alloc, stats.free, stats.alloc, stats.free)


rtsys = SimpleNamespace(get_allocation_stats=get_allocation_stats)

__all__ = ["AllocationStats", "get_allocation_stats", "nrt", "rtsys"]
