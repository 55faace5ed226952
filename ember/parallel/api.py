"""The public parallel API: `prange`, `set_num_threads`, `get_num_threads`, `get_thread_id`,
`threading_layer`; usable from Python and from jitted code (typed and lowered here), and
Numba's chunk-size hint (`set_parallel_chunksize`, `get_parallel_chunksize`,
`parallel_chunksize`; in jitted code `with parallel_chunksize(n):` is rewritten by
ember/frontend/objmode_blocks.py)."""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator
from typing import Any

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


def pndindex(*shape: Any) -> Any:
    """Numba's `pndindex(*shape)`: each index tuple of the shape, as `np.ndindex` gives them
    (under parallel=True a loop over them is a prange over the flat index: pndindex.py)."""
    import numpy as np

    return np.ndindex(*shape)


def pndindex_size(*shape: Any) -> int:
    """How many index tuples `pndindex(*shape)` gives (a parallel pndindex loop runs over
    this many flat indices)."""
    import numpy as np

    return int(np.prod(np.ndindex(*shape).shape, dtype=np.int64))


def pndindex_unravel(flat: int, *shape: Any) -> tuple:
    """The index tuple at position `flat` of `pndindex(*shape)` (C order)."""
    import numpy as np

    return tuple(int(k) for k in np.unravel_index(flat, np.ndindex(*shape).shape))


def _is_integer(n: Any) -> bool:
    """An int or NumPy integer, not a bool (NumPy's integers are `numbers.Integral`; its
    bool is not, and importing NumPy here would slow `import ember`)."""
    return isinstance(n, numbers.Integral) and not isinstance(n, bool)


def set_num_threads(n: int) -> None:
    """Use `n` threads (1..EMBER_NUM_THREADS) in the parallel regions this thread starts."""
    if not _is_integer(n):
        raise TypeError(
            f"The number of threads specified must be an integer, not {type(n).__name__}"
        )
    n = int(n)
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


def set_parallel_chunksize(n: int) -> int:
    """Numba's scheduling hint (iterations per work item) for parallel regions started by this
    thread; returns the previous one. ember's runtime splits the iterations its own way, so the
    hint is recorded and reported, and results never depend on it. 0 means the default."""
    if not _is_integer(n):
        raise TypeError(f"The parallel chunksize must be an integer, not {n!r}")
    if n < 0:
        raise ValueError(f"chunksize must be greater than or equal to zero, not {n}")
    threads = _layer()
    previous = threads.get_chunksize()
    threads.set_chunksize(int(n))
    return previous


def get_parallel_chunksize() -> int:
    """This thread's hint, as `set_parallel_chunksize` last set it (0: the default)."""
    return int(_layer().get_chunksize())


def worker_parallel_chunksize() -> int:
    """What `get_parallel_chunksize()` reads inside a parallel loop's body: 0, the hint being
    reset while the workers run (Numba's behaviour)."""
    return 0


@contextlib.contextmanager
def parallel_chunksize(n: int) -> Iterator[None]:
    """`with parallel_chunksize(n):` sets the hint for the block, then restores it."""
    previous = set_parallel_chunksize(n)
    try:
        yield
    finally:
        set_parallel_chunksize(previous)
