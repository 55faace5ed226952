"""Numba's `numba.core.runtime` path: `rtsys.get_allocation_stats()` (how many runtime blocks
compiled code allocated and freed, for leak checks), `rtsys.meminfo_alloc(size)` (a new block
as an `nrt.MemInfo` owning it), `nrt.MemInfo`, and the `_nrt_python` statistics switches."""

from collections import namedtuple
from types import SimpleNamespace

from ember.runtime import nrt as _nrt

from . import _nrt_python, nrt, nrtopt

AllocationStats = namedtuple("AllocationStats", "alloc free mi_alloc mi_free")


def get_allocation_stats() -> AllocationStats:
    """Blocks allocated and freed so far; ember has one kind of block (a meminfo heads each),
    so the meminfo counts equal the block counts."""
    if not _nrt_python.memsys_stats_enabled():
        raise RuntimeError("NRT stats are disabled.")
    stats = _nrt.stats()
    return AllocationStats(stats.alloc, stats.free, stats.alloc, stats.free)


def meminfo_alloc(size: int, safe: bool = False) -> nrt.MemInfo:
    """A new runtime block of `size` bytes, freed when the MemInfo is collected; `safe`
    (Numba's debugging fill) is accepted and ignored."""
    if size < 0:
        raise ValueError(f"cannot allocate a block of {size} bytes")
    address = _nrt.runtime().allocate(size)
    if not address:
        raise MemoryError(f"cannot allocate a block of {size} bytes")
    return nrt.MemInfo.adopt(address)


def _initialize(context: object = None) -> None:
    """Numba's runtime needs initializing with a target context; ember's starts on first use."""
    _nrt.runtime()


rtsys = SimpleNamespace(
    get_allocation_stats=get_allocation_stats,
    meminfo_alloc=meminfo_alloc,
    initialize=_initialize,
    _init=True,
)

__all__ = ["AllocationStats", "get_allocation_stats", "meminfo_alloc", "nrt", "nrtopt", "rtsys"]
