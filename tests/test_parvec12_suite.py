"""Round 12 of the parallel lane: overload implementations recompile when a closure cell they
froze changes (pandas' engine_kwargs), `f = f or (a and b)` boolean tests over several blocks
as | / & reductions, config.reload_config() refusing a new thread count once threads run, and
the stencil option index_offsets= (constant, and run-time inside jitted code)."""

import warnings

import numpy as np
import pytest

from ember import config, njit, prange, stencil
from ember.errors import StencilError, TypingError
from ember.extending import register_jitable
from tests.oracle import assert_frees_all

rng = np.random.default_rng(12)


def _runs_in_parallel(dispatcher) -> bool:
    results = dispatcher.overloads.values()
    loops = [r for res in results for r in res.parallel_report.loops if r.origin == "prange"]
    return bool(loops) and all(record.parfor_id is not None for record in loops)


# ------------------------------------------------------------- closure cells of implementations


def test_changed_closure_cell_compiles_the_implementation_again():
    """pandas' rolling apply: one register_jitable function called from a parallel=True and
    then a serial kernel, its closure cell changed in between: the second sees the new value."""
    nogil, parallel = False, True

    def user(x):
        return nogil + parallel + x

    jitted_user = register_jitable(user)

    def roll(a):
        out = np.empty(a.shape[0])
        for i in prange(a.shape[0]):
            out[i] = jitted_user(a[i])
        return out

    a = np.arange(4.0)
    np.testing.assert_array_equal(njit(parallel=True)(roll)(a), a + 1)
    parallel = False
    np.testing.assert_array_equal(njit(parallel=False)(roll)(a), a)
    nogil = 2.5  # another type too
    np.testing.assert_array_equal(njit(parallel=False)(roll)(a), a + 2.5)
    nogil = -0.0  # equal to 0 but not the same float: still served right
    np.testing.assert_array_equal(njit(parallel=False)(roll)(a), a)


def test_closure_cell_holding_an_array_is_compared_by_identity():
    table = np.array([1.0, 2.0])

    def lookup(k):
        return table[k]

    jitted = register_jitable(lookup)

    def caller(k):
        return jitted(k)

    assert njit(caller)(1) == 2.0
    table = np.array([5.0, 7.0])
    assert njit(caller)(1) == 7.0


# ------------------------------------------------------ boolean tests over several blocks


def any_pair(a, b):
    found = False
    for i in prange(a.shape[0]):
        found = found or (a[i] > 0 and b[i] < 1)
    return found


def all_either(a, b):
    ok = True
    for i in prange(a.shape[0]):
        ok = ok and (a[i] > 0 or b[i] < 1)
    return ok


def any_picked(a, b):
    found = False
    for i in prange(a.shape[0]):
        found = found or (a[i] > 0 if b[i] > 0 else a[i] < -1)
    return found


def any_chain_and_count(a, b):
    found = False
    n = 0
    for i in prange(a.shape[0]):
        found = found or (a[i] > 0 and b[i] < 1) or a[i] + b[i] == 3
        n += 1
    return found, n


def any_divided(a, b):
    found = False
    for i in prange(a.shape[0]):
        found = found or (a[i] > 0 and b[i] // a[i] > 1)  # may raise: the loop stays serial
    return found


def any_noted(a, b):
    found = False
    x = -1.0
    for i in prange(a.shape[0]):
        found = found or ((x := a[i]) > 0 and b[i] < 1)  # x: assigned only where tested
    return found, x


@pytest.mark.parametrize("function", [any_pair, all_either, any_picked, any_chain_and_count])
def test_multi_block_boolean_reductions_match_the_serial_loop(function):
    compiled = njit(parallel=True)(function)
    for n in (0, 1, 2, 5, 100, 1001):
        for _ in range(8):
            a = rng.integers(-3, 3, n).astype(np.float64)
            b = rng.integers(-2, 3, n).astype(np.float64)
            assert compiled(a, b) == function(a, b)
    assert _runs_in_parallel(compiled)


def test_boolean_test_that_may_raise_keeps_the_loop_serial():
    compiled = njit(parallel=True)(any_divided)
    a = np.array([0, 1, 0, 2], dtype=np.int64)  # b // 0 is skipped where a[i] > 0 is False
    b = np.array([5, 1, 7, 6], dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert bool(compiled(a, b)) is bool(any_divided(a, b)) is True
    assert not _runs_in_parallel(compiled)


def test_test_assigning_a_named_variable_keeps_the_loop_serial():
    compiled = njit(parallel=True)(any_noted)
    a = np.array([-1.0, 2, 3, 4, -5, 6, 7, 8])
    b = np.array([5.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (0, 1, 2, 8):
            assert compiled(a[:n], b[:n]) == any_noted(a[:n], b[:n])
    assert compiled(a, b) == (True, 2.0)  # the first hit stops the tests (and x)
    assert not _runs_in_parallel(compiled)


# ----------------------------------------------------------------- thread count once running


def test_reload_config_refuses_a_new_thread_count_once_threads_run(monkeypatch):
    @njit(parallel=True)
    def total(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s

    assert total(np.ones(10)) == 10.0  # the threading layer runs now
    threads = config.NUMBA_NUM_THREADS
    monkeypatch.delenv("EMBER_NUM_THREADS", raising=False)
    monkeypatch.setenv("NUMBA_NUM_THREADS", str(threads + 1))
    with pytest.raises(RuntimeError, match="Cannot set NUMBA_NUM_THREADS"):
        config.reload_config()
    assert config.NUMBA_NUM_THREADS == config.NUM_THREADS == threads
    monkeypatch.setenv("NUMBA_NUM_THREADS", str(threads))
    config.reload_config()  # the same count: accepted
    assert config.NUM_THREADS == threads
    monkeypatch.undo()  # the environment the threads started with
    config.reload_config()
    assert config.NUM_THREADS == threads


# ------------------------------------------------------------------------ index_offsets


def _shifted_reference(a, offsets, reads, neighborhood):
    """out[p] = sum over `reads` (relative offsets) of a[p + r + offsets] inside the
    neighborhood's interior, 0 on the border: computed with plain loops."""
    out = np.zeros(a.shape)
    lows = [low for low, _ in neighborhood]
    highs = [high for _, high in neighborhood]
    for p in np.ndindex(*a.shape):
        if all(lo_ + q >= 0 and q + hi_ < n for q, lo_, hi_, n in zip(p, lows, highs, a.shape)):
            out[p] = sum(a[tuple(q + r + d for q, r, d in zip(p, read, offsets))] for read in reads)
    return out


def test_constant_index_offsets_shift_every_relative_index():
    def forward(a):
        return a[0] + a[1]

    shifted = stencil(forward, index_offsets=(-1,))
    for n in (0, 1, 2, 9):
        a = rng.random(n)
        want = _shifted_reference(a, (-1,), [(0,), (1,)], [(-1, 0)])
        np.testing.assert_array_equal(shifted(a), want)

    def cross(b):
        return b[0, 1] - 2 * b[1, 0]

    b = rng.random((5, 6))
    want = _shifted_reference(b, (-1, 0), [(0, 1)], [(-1, 0), (0, 1)])
    want -= 2 * _shifted_reference(b, (-1, 0), [(1, 0)], [(-1, 0), (0, 1)])
    crossed = stencil(cross, index_offsets=(-1, 0))
    np.testing.assert_allclose(crossed(b), want, rtol=1e-15)
    for parallel in (False, True):
        np.testing.assert_allclose(njit(parallel=parallel)(lambda b: crossed(b))(b), want)


def test_run_time_index_offsets_inside_jitted_code():
    def windowed(n, w, offset):
        a = np.arange(n * 1.0)

        def kernel(a, w):
            return np.sum(a[-w + 1 : w + 2])

        return stencil(kernel, neighborhood=((-w, w),), index_offsets=(-offset,))(a, w)

    def reference(n, w):
        a = np.arange(n * 1.0)
        out = np.zeros(n)
        for i in range(w, n - w):
            out[i] = a[i - w : i + w + 1].sum()
        return out

    for parallel in (False, True):
        compiled = njit(parallel=parallel)(windowed)
        for n, w in ((20, 2), (11, 5), (3, 1)):
            np.testing.assert_array_equal(compiled(n, w, 1), reference(n, w))
        assert_frees_all(compiled, lambda: 30, lambda: 3, lambda: 1, calls=20)

    def reads_two(n, offset):
        a = np.arange(n * 1.0)
        return stencil(lambda a: a[0] + a[1], neighborhood=((-1, 1),), index_offsets=(offset,))(a)

    compiled = njit(reads_two)
    np.testing.assert_array_equal(compiled(5, -1), [0.0, 1.0, 3.0, 5.0, 0.0])
    np.testing.assert_array_equal(compiled(5, 0), [0.0, 3.0, 5.0, 7.0, 0.0])
    with pytest.raises(ValueError, match="index_offsets move the indices"):
        compiled(5, 1)  # a[i + 2] leaves the neighborhood (-1, 1)


def test_bad_index_offsets_are_refused():
    with pytest.raises(StencilError, match="index_offsets must be a tuple of integers"):
        stencil(lambda a: a[0], index_offsets=1)
    with pytest.raises(StencilError, match="index_offsets must be a tuple of integers"):
        stencil(lambda a: a[0], index_offsets=(0.5,))
    with pytest.raises(StencilError, match="one offset per dimension"):
        stencil(lambda a: a[0, 1], index_offsets=(1,))(np.ones((3, 3)))


def test_free_variable_bound_after_compiling_is_a_typing_error():
    def outer():
        def uses_later(x):
            return later(x)

        try:
            njit(uses_later)(1)
        finally:
            later = abs  # noqa: F841 - bound after the compile on purpose

    with pytest.raises(TypingError, match="free variable 'later' is not bound yet"):
        outer()


# ------------------------------------------------- writes another iteration's reads may see


def write_through_shifted_view(a):
    b = a[1:]
    for i in prange(a.shape[0] - 1):
        a[i] = b[i] + 1  # b[i] is a[i + 1], which iteration i + 1 writes
    return a


def write_through_alias_shifted(a):
    b = a
    for i in prange(a.shape[0] - 1):
        b[i + 1] = a[i] + 1
    return a


def write_through_reversed_view(a):
    b = a[::-1]
    for i in prange(a.shape[0]):
        b[i] = a[i] * 2
    return a


def write_into_reshaped_view(a):
    c = a.reshape(2, -1)
    for i in prange(c.shape[0]):
        c[i, :] = a[::-1][: c.shape[1]] + i
    return a


def read_mirrored_element(a):
    m = a.shape[0]
    for i in prange(m):
        a[i] = a[m - 1 - i] + 1
    return a


def transpose_in_place(a):
    for i in prange(a.shape[0]):
        a[i, :] = a[:, i]
    return a


def divide_by_first(a):
    for i in prange(a.shape[0]):
        a[i] = a[i] / a[0]
    return a


@pytest.mark.parametrize(
    "function",
    [
        write_through_shifted_view,
        write_through_alias_shifted,
        write_through_reversed_view,
        write_into_reshaped_view,
        read_mirrored_element,
        divide_by_first,
    ],
)
def test_cross_iteration_reads_through_views_keep_the_loop_serial(function):
    compiled = njit(parallel=True)(function)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (2, 6, 1000, 4002):
            a = rng.random(n)
            np.testing.assert_array_equal(compiled(a.copy()), function(a.copy()))
    assert not _runs_in_parallel(compiled)


def test_transpose_in_place_stays_serial():
    compiled = njit(parallel=True)(transpose_in_place)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (1, 3, 64):
            a = rng.random((n, n))
            np.testing.assert_array_equal(compiled(a.copy()), transpose_in_place(a.copy()))
    assert not _runs_in_parallel(compiled)


def same_element_two_names(a):
    out = np.empty_like(a)
    whole = out[:]
    same = out
    for i in prange(a.shape[0]):
        out[i] = a[i]
        whole[i] += 1.0
        same[i] *= 2.0
    return out


def halves_from_copy(a):
    b = a.copy()
    for i in prange(a.shape[0]):
        a[i] = b[(i + 1) % a.shape[0]] + len(a)
    return a


@pytest.mark.parametrize("function", [same_element_two_names, halves_from_copy])
def test_copies_and_whole_views_at_the_loop_index_stay_parallel(function):
    compiled = njit(parallel=True)(function)
    for n in (0, 1, 7, 3000):
        a = rng.random(n)
        np.testing.assert_array_equal(compiled(a.copy()), function(a.copy()))
    assert _runs_in_parallel(compiled)
