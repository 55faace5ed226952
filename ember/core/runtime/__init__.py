"""Numba's `numba.core.runtime` path: `rtsys.get_allocation_stats()` (how many runtime blocks
compiled code allocated and freed, for leak checks), `rtsys.meminfo_alloc(size)` (a new block
as an `nrt.MemInfo` owning it), `nrt.MemInfo`, and the `_nrt_python` statistics switches."""

import ctypes
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


_SAFE_FILL = 0xCB  # Numba's fill of a "safe" allocation, which makes stray reads visible


def meminfo_alloc(size: int, safe: bool = False) -> nrt.MemInfo:
    """A new runtime block of `size` bytes, freed when the MemInfo is collected; `safe` fills
    it with 0xCB bytes (as Numba does)."""
    if size < 0:
        raise ValueError(f"Cannot allocate a negative number of bytes: {size}.")
    address = _nrt.runtime().allocate(size) if size < 2**63 else None
    if not address:
        raise MemoryError(f"Requested allocation of {size} bytes failed.")
    info = nrt.MemInfo.adopt(address)
    if safe:
        ctypes.memset(info.data, _SAFE_FILL, size)
    return info


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
