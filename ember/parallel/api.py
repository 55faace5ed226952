"""The public parallel API: `prange`, `set_num_threads`, `get_num_threads`, `get_thread_id`,
`threading_layer`; usable from Python and from jitted code (typed and lowered here)."""

from __future__ import annotations

from ember import config


class prange:  # noqa: N801 - Numba's spelling
    """`range` that asks `@njit(parallel=True)` to run the loop's iterations in parallel.

    In Python, and in jitted code without parallel=True, it is exactly `range`.
    """

    def __new__(cls, *args):
        return range(*args)


class stencil_prange(prange):  # noqa: N801
    """The outer loop of a generated @stencil function: parallel under parallel=True unless
    `parallel={'stencil': False}` (internal; users write prange)."""


class numpy_prange(prange):  # noqa: N801
    """The loop of a NumPy allocation or fill made parallel (internal: sub-pass 'numpy')."""


class reduction_prange(prange):  # noqa: N801
    """The loop of a NumPy reduction made parallel (internal: sub-pass 'reduction')."""


class setitem_prange(prange):  # noqa: N801
    """The loop of a slice or mask assignment made parallel (internal: sub-pass 'setitem')."""


def set_num_threads(n: int) -> None:
    """Use `n` threads (1..EMBER_NUM_THREADS) in the parallel regions this thread starts."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"the number of threads must be an int, not {type(n).__name__}")
    if not 1 <= n <= config.NUM_THREADS:
        raise ValueError(
            f"The number of threads must be between 1 and {config.NUM_THREADS} "
            f"(EMBER_NUM_THREADS), not {n}"
        )
    _layer().set_num_threads(n)


def get_num_threads() -> int:
    """The number of threads the parallel regions this thread starts will use."""
    return int(_layer().get_num_threads())


def get_thread_id() -> int:
    """This thread's index in the current parallel region (0 outside one)."""
    return int(_layer().thread_id())


def threading_layer() -> str:
    """The threading layer in use: 'omp' or 'workqueue'."""
    return _layer().name


def _layer():
    from ember.parallel.threading_layer import layer

    return layer()
