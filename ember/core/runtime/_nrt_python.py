"""Numba's `numba.core.runtime._nrt_python` switches for the runtime's allocation statistics:
`memsys_enable_stats()`, `memsys_disable_stats()`, `memsys_stats_enabled()`. ember always
counts; while disabled, `rtsys.get_allocation_stats()` raises as Numba's does."""

_enabled = [True]


def memsys_enable_stats() -> None:
    _enabled[0] = True


def memsys_disable_stats() -> None:
    _enabled[0] = False


def memsys_stats_enabled() -> bool:
    return _enabled[0]
