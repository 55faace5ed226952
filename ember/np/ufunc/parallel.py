"""Numba's `numba.np.ufunc.parallel` thread queries: `get_thread_count()` (the threads parallel
regions may use, EMBER_NUM_THREADS / NUMBA_NUM_THREADS as last read) and the per-thread
functions of ember/parallel/api.py under their Numba home."""

from __future__ import annotations

from ember.parallel.api import get_num_threads, get_thread_id, set_num_threads

__all__ = ["get_num_threads", "get_thread_count", "get_thread_id", "set_num_threads"]


def get_thread_count() -> int:
    """The thread count parallel regions are sized for (config.NUMBA_NUM_THREADS)."""
    from ember import config

    return config.NUM_THREADS
