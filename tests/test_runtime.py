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


@pytest.mark.parametrize("size", [nrt._PAGE_ALIGNED_FROM, 3 << 20, 70 << 20])
def test_a_large_block_starts_its_data_on_a_page(rt, size):
    # NumPy's large arrays start 16 bytes into a page; data on a page boundary keeps a
    # streaming loop's stores behind its loads modulo 4 KiB (no 4K aliasing).
    before = ember.runtime.stats()
    meminfo = rt.allocate(size)
    data = nrt.data_address(meminfo)
    assert data % 4096 == 0
    ctypes.memset(data, 0x5A, size)  # the whole block is writable
    assert ctypes.string_at(data + size - 8, 8) == b"\x5a" * 8
    rt.decref(meminfo)
    assert ember.runtime.stats().live == before.live


def test_a_returned_large_array_is_page_aligned_and_right():
    @njit
    def scaled(a, lo, span):
        return (a - lo) / span

    a = np.random.default_rng(5).random(300_000)
    for _ in range(3):  # fresh, then cached blocks
        out = scaled(a, 0.25, 0.5)
        assert out.ctypes.data % 4096 == 0
        np.testing.assert_array_equal(out, (a - 0.25) / 0.5)


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


# ---------------------------------------------------------------------------- large-block cache

MIB = 1 << 20


def test_a_freed_large_block_is_reused_for_a_similar_size(rt):
    nrt.release_cached_blocks()  # an empty cache: the only candidate is the block freed here
    first = rt.allocate(8 * MIB)
    address = nrt.data_address(first)
    rt.decref(first)
    again = rt.allocate(8 * MIB - 4096)  # a little smaller still fits the cached block
    assert nrt.data_address(again) == address
    assert nrt.refcount(again) == 1
    ctypes.memset(nrt.data_address(again), 0x11, 8 * MIB - 4096)
    rt.decref(again)


def test_a_cached_block_is_not_spent_on_a_much_smaller_request(rt):
    nrt.release_cached_blocks()
    large = rt.allocate(32 * MIB)
    large_address = nrt.data_address(large)
    rt.decref(large)
    small = rt.allocate(2 * MIB)  # would waste more than half of the cached block
    assert nrt.data_address(small) != large_address
    rt.decref(small)
    nrt.release_cached_blocks()


def test_small_blocks_bypass_the_cache_and_counts_stay_exact(rt):
    before = ember.runtime.stats()
    blocks = [rt.allocate(size) for size in (100, 64 * 1024, 2 * MIB, 3 * MIB)]
    for block in blocks:
        rt.decref(block)
    nrt.release_cached_blocks()
    after = ember.runtime.stats()
    assert (after.alloc - before.alloc, after.free - before.free) == (4, 4)


def test_np_zeros_on_a_reused_dirty_block_is_zero():
    fill = njit(lambda n, value: np.full(n, value))
    zeros = njit(lambda n: np.zeros(n))
    count = 2 * MIB // 8
    for _ in range(3):
        dirty = fill(count, 7.5)
        assert (dirty == 7.5).all()
        del dirty  # freed into the cache: the next allocation of this size takes it
        clean = zeros(count)
        assert not clean.any()
        del clean


def test_returned_large_arrays_stay_correct_across_reuse():
    scaled = njit(lambda a, k: a * k)
    values = np.random.default_rng(3).random(3 * MIB // 8)
    results = [scaled(values, float(k)) for k in range(6)]  # more results alive than slots
    for k, result in enumerate(results):
        np.testing.assert_array_equal(result, values * float(k))


def test_cache_is_safe_under_concurrent_allocation():
    @njit(nogil=True)
    def churn(rounds, count, seed):
        total = 0.0
        for r in range(rounds):
            block = np.full(count + (r % 3) * 1000, seed + r)
            total += block[0] + block[-1]
        return total

    count = MIB // 8 + 5000
    churn(1, count, 0.0)
    results, errors = {}, []

    def work(seed):
        try:
            results[seed] = churn(200, count, float(seed))
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    before = ember.runtime.stats()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for seed, total in results.items():
        assert total == sum(2.0 * (seed + r) for r in range(200))
    assert ember.runtime.stats().live == before.live


def test_release_cached_blocks_is_idempotent(rt):
    block = rt.allocate(4 * MIB)
    rt.decref(block)
    nrt.release_cached_blocks()
    ember.runtime.release_cached_blocks()  # nothing left: a no-op
    fresh = rt.allocate(16)
    assert fresh
    rt.decref(fresh)
