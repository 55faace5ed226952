"""Numba's `numba.core.runtime._nrt_python` switches for the runtime's allocation statistics:
`memsys_enable_stats()`, `memsys_disable_stats()`, `memsys_stats_enabled()`, and the counts
`memsys_get_stats_alloc()` (`_free`, `_mi_alloc`, `_mi_free`). ember always counts; while
disabled, the counts and `rtsys.get_allocation_stats()` raise as Numba's do. `c_helpers` maps
"get_api" to the address of a C function returning the runtime's C API table (Numba's
`NRT_get_api`), which native libraries written for Numba take to allocate arrays."""

import ctypes

from ember.runtime import nrt as _nrt

_enabled = [True]


def memsys_enable_stats() -> None:
    _enabled[0] = True


def memsys_disable_stats() -> None:
    _enabled[0] = False


def memsys_stats_enabled() -> bool:
    return _enabled[0]


def _count(position: int) -> int:
    if not _enabled[0]:
        raise RuntimeError("NRT stats are disabled.")
    stats = _nrt.stats()
    return (stats.alloc, stats.free)[position]


def memsys_get_stats_alloc() -> int:
    return _count(0)


def memsys_get_stats_free() -> int:
    return _count(1)


memsys_get_stats_mi_alloc = memsys_get_stats_alloc  # one meminfo heads each block in ember
memsys_get_stats_mi_free = memsys_get_stats_free


@ctypes.CFUNCTYPE(ctypes.c_void_p)
def _get_api() -> int:
    return _nrt.runtime().addresses[_nrt.API_TABLE]


c_helpers = {"get_api": ctypes.cast(_get_api, ctypes.c_void_p).value}
