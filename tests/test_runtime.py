"""The NRT runtime (ember/runtime/nrt.py): allocation, alignment, atomic reference counts,
freeing exactly once, NULL no-ops and the counters behind `ember.runtime.stats()`."""

from __future__ import annotations

import ctypes
import threading

import numpy as np
import pytest

import ember.runtime
from ember import njit
from ember.runtime import nrt


@pytest.fixture(scope="module")
def rt():
    return nrt.runtime()


def test_stats_is_a_small_dataclass():
    stats = ember.runtime.stats()
    assert stats.alloc >= stats.free >= 0
    assert stats.live == stats.alloc - stats.free


def test_allocation_is_aligned_and_counted(rt):
    before = ember.runtime.stats()
    meminfo = rt.allocate(1000)
    assert meminfo
    data = nrt.data_address(meminfo)
    assert data % 64 == 0
    assert nrt.refcount(meminfo) == 1
    ctypes.memset(data, 0x5A, 1000)  # the whole block is writable
    assert ember.runtime.stats().alloc == before.alloc + 1
    rt.decref(meminfo)
    after = ember.runtime.stats()
    assert after.free == before.free + 1
    assert after.live == before.live


def test_zero_size_allocation(rt):
    meminfo = rt.allocate(0)
    assert meminfo and nrt.data_address(meminfo) % 64 == 0
    rt.decref(meminfo)


def test_free_happens_exactly_once_at_zero(rt):
    meminfo = rt.allocate(8)
    for _ in range(5):
        rt.incref(meminfo)
    assert nrt.refcount(meminfo) == 6
    before = ember.runtime.stats()
    for expected in range(5, 0, -1):
        rt.decref(meminfo)
        assert nrt.refcount(meminfo) == expected
    assert ember.runtime.stats().free == before.free
    rt.decref(meminfo)
    assert ember.runtime.stats().free == before.free + 1


def test_null_is_a_no_op(rt):
    before = ember.runtime.stats()
    rt.incref(None)
    rt.decref(None)
    assert ember.runtime.stats() == before


def test_refcounts_are_atomic_across_threads(rt):
    meminfo = rt.allocate(16)
    rounds, workers = 20000, 4

    def work():
        for _ in range(rounds):
            rt.incref(meminfo)
            rt.decref(meminfo)
            rt.incref(meminfo)

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert nrt.refcount(meminfo) == 1 + rounds * workers
    before = ember.runtime.stats()
    for _ in range(rounds * workers + 1):
        rt.decref(meminfo)
    assert ember.runtime.stats().free == before.free + 1


def test_huge_allocation_fails_cleanly(rt):
    assert not rt.allocate(-1)  # 2**64 - 1 bytes: the size wraps, NULL instead of a crash


@njit
def _make(n):
    return np.zeros(n)


def test_compiled_allocations_are_returned_to_the_runtime():
    _make(3)
    before = ember.runtime.stats()
    result = _make(10)
    assert ember.runtime.stats().live == before.live + 1
    del result
    assert ember.runtime.stats().live == before.live


def test_memory_error_for_impossible_sizes():
    with pytest.raises((MemoryError, ValueError)):
        _make(1 << 62)
