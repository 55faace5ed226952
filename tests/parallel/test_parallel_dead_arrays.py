"""Store-to-load forwarding inside fused parfors and dropped write-only temporaries: a read of
what the same iteration stored reads the stored value, and an `np.zeros`/`np.empty` array only
written (then reduced through the fused loop) is never allocated. Every function runs three
ways (CPython, njit, njit(parallel=True)) with equal results over repeated parallel calls."""

import numpy as np
import pytest
from test_parallel_numpy import (  # noqa: F401 - the fixture applies here too
    _PARALLEL,
    check,
    every_item_is_worth_a_thread,
)

from ember import prange

rng = np.random.default_rng(17)
VECTOR = rng.random(1001)


def dropped(rep) -> list[str]:
    return [note for note in rep.notes if "only written" in note]


def sum_and_max_of_temporary(a, b):
    n = len(a)
    out = np.zeros(n)
    for i in prange(n):
        out[i] = a[i] * b[i] + 1.0
    return np.sum(out), np.max(out), np.min(out)


def temporary_returned(a):
    out = np.zeros(len(a))
    for i in prange(len(a)):
        out[i] = a[i] + 1.0
    return np.sum(out), out


def overwritten_then_read(a):
    n = len(a)
    out = np.empty(n)
    s = 0.0
    for i in prange(n):
        out[i] = a[i]
        out[i] = out[i] * 3.0
        s += out[i]
    return s


def store_through_a_copy(a):
    n = len(a)
    out = np.empty(n)
    same_array = out
    s = 0.0
    for i in prange(n):
        out[i] = a[i]
        same_array[i] = 5.0  # the same array at the same index: the read below sees 5.0
        s += out[i]
    return s, out


def store_through_a_view(a):
    n = len(a)
    out = np.empty(n)
    view = out[:]
    s = 0.0
    for i in prange(n):
        out[i] = a[i]
        view[i] = a[i] * 2.0  # a view, not a copy: the read below must see this store
        s += out[i]
    return s, out


def int_stored_into_floats(a):
    n = len(a)
    out = np.empty(n)
    s = 0.0
    for i in prange(n):
        out[i] = i * 3  # an int: the read gives a float, not the stored value
        s += out[i] / 2
    return s


def read_at_another_index(a):
    n = len(a)
    out = np.zeros(n)
    for i in prange(n):
        out[i] = a[i] + 2.0
    t = np.zeros(n)
    for i in prange(n):
        t[i] = out[n - 1 - i]
    return np.sum(t)


def inner_loop_updates(a):
    n = len(a)
    out = np.empty(n)
    s = 0.0
    for i in prange(n):
        out[i] = a[i]
        for _ in range(3):
            out[i] = out[i] + 1.0
        s += out[i]
    return s


def test_a_write_only_temporary_is_not_allocated():
    rep = check(sum_and_max_of_temporary, VECTOR, VECTOR[::-1].copy(), repeats=20)
    assert rep.parfor_count == 5  # np.zeros, prange, np.sum, np.max, np.min
    assert dropped(rep) == ["note: array out is only written: not allocated"]


def test_an_empty_temporary_still_raises_for_min_and_max():
    empty = np.empty(0)
    with pytest.raises(ValueError, match="zero-size array"):
        sum_and_max_of_temporary(empty, empty)
    with pytest.raises(ValueError, match="zero-size array"):
        _PARALLEL[sum_and_max_of_temporary](empty, empty)


@pytest.mark.parametrize("fn", [temporary_returned, read_at_another_index])
def test_a_temporary_read_elsewhere_is_kept(fn):
    rep = check(fn, VECTOR, repeats=10)
    # `out` stays; read_at_another_index's `t` (only written, then summed in the fused loop)
    # is dropped since each loop's `i` is its own variable (ember/rewrites/variable_webs.py)
    assert not [note for note in dropped(rep) if "array out " in note]
    assert rep.parfor_count >= 2


@pytest.mark.parametrize(
    "fn",
    [
        overwritten_then_read,
        store_through_a_copy,
        store_through_a_view,
        int_stored_into_floats,
        inner_loop_updates,
    ],
)
def test_reads_after_stores_see_the_last_store(fn):
    rep = check(fn, VECTOR, repeats=10)
    assert rep.conversions()["prange"] == 1


def test_a_temporary_read_only_where_it_was_stored_is_not_allocated():
    rep = check(overwritten_then_read, VECTOR, repeats=5)
    assert dropped(rep) == ["note: array out is only written: not allocated"]
    for fn in (store_through_a_copy, store_through_a_view, int_stored_into_floats):
        assert dropped(check(fn, VECTOR)) == []
