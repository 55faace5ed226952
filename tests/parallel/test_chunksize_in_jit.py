"""Numba's chunk-size hint in jitted code: `get_parallel_chunksize`, `set_parallel_chunksize`
and `with parallel_chunksize(n):` blocks (rewritten in ember/frontend/objmode_blocks.py), each
checked against the same function run by CPython."""

import pytest

import ember
from ember import get_parallel_chunksize, njit, parallel_chunksize, prange, set_parallel_chunksize
from ember.errors import UnsupportedError


@pytest.fixture(autouse=True)
def default_chunksize():
    previous = set_parallel_chunksize(0)
    yield
    set_parallel_chunksize(previous)


def swap_sizes(n):
    before = get_parallel_chunksize()
    replaced = set_parallel_chunksize(n)
    return before, replaced, get_parallel_chunksize()


def sum_in_block(n, size):
    acc = 0
    seen = -1
    with parallel_chunksize(size):
        seen = get_parallel_chunksize()
        for i in prange(n):
            acc += i
    return acc, seen, get_parallel_chunksize()


def early_return_in_block(n, size):
    with parallel_chunksize(size):
        if n > 10:
            return -1, get_parallel_chunksize()
        acc = 0
        for i in prange(n):
            acc += 2 * i
    return acc, get_parallel_chunksize()


@pytest.mark.parametrize("compile_options", [{}, {"parallel": True}])
def test_get_and_set_in_jitted_code_share_pythons_setting(compile_options):
    compiled = njit(**compile_options)(swap_sizes)
    set_parallel_chunksize(4)
    expected = swap_sizes(7)
    set_parallel_chunksize(4)
    assert compiled(7) == expected == (4, 4, 7)
    assert get_parallel_chunksize() == 7


@pytest.mark.parametrize("n, size", [(0, 1), (12, 8), (100, 3)])
def test_with_block_sets_then_restores_the_hint(n, size):
    compiled = njit(parallel=True)(sum_in_block)
    set_parallel_chunksize(5)
    assert compiled(n, size) == sum_in_block(n, size) == (n * (n - 1) // 2, size, 5)
    assert get_parallel_chunksize() == 5


@pytest.mark.parametrize("n", [4, 11])
def test_leaving_the_block_early_restores_the_hint(n):
    compiled = njit(parallel=True)(early_return_in_block)
    set_parallel_chunksize(2)
    expected = early_return_in_block(n, 6)
    assert get_parallel_chunksize() == 2
    assert compiled(n, 6) == expected
    assert get_parallel_chunksize() == 2


def test_bad_sizes_and_forms_are_refused():
    with pytest.raises(ValueError, match="greater than or equal to zero"):
        njit(swap_sizes)(-3)
    assert get_parallel_chunksize() == 0

    def bound(n):
        with parallel_chunksize(n) as size:
            return size

    with pytest.raises(UnsupportedError, match="one argument, no 'as'"):
        njit(bound)(2)
    assert ember.parallel_chunksize is parallel_chunksize
