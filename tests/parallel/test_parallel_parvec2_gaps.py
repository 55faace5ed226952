"""Numba's thread-control behaviour under parallel=True: inside a parallel loop's body
`get_parallel_chunksize()` reads 0 (the workers run with the hint reset) while code around the
loop sees the hint; the setters' errors are Numba's; the loop still runs every iteration."""

import numpy as np
import pytest

import ember
from ember import get_parallel_chunksize, njit, parallel_chunksize, prange, set_parallel_chunksize
from ember.errors import TypingError


@pytest.fixture(autouse=True)
def default_chunksize():
    previous = set_parallel_chunksize(0)
    yield
    set_parallel_chunksize(previous)


def chunksize_seen_by_body(size, n):
    done = np.zeros(n)
    seen = np.full(n, -13)
    with parallel_chunksize(size):
        around = get_parallel_chunksize()
        for i in prange(n):
            seen[i] = get_parallel_chunksize()
            done[i] = 13
    return done, seen, around, get_parallel_chunksize()


@pytest.mark.parametrize("n", [1, 7, 997])
@pytest.mark.parametrize("size", [1, 4])
def test_body_reads_zero_chunksize(n, size):
    done, seen, around, after = njit(parallel=True)(chunksize_seen_by_body)(size, n)
    np.testing.assert_array_equal(done, np.full(n, 13.0))
    np.testing.assert_array_equal(seen, np.zeros(n, np.int64))  # Numba resets it in workers
    assert (around, after) == (size, 0)


def test_serial_function_body_reads_the_hint():
    done, seen, around, after = njit(chunksize_seen_by_body)(3, 5)  # prange runs as range
    expected = chunksize_seen_by_body(3, 5)
    np.testing.assert_array_equal(seen, expected[1])
    assert (around, after) == expected[2:]


@pytest.mark.parametrize("value", ["four", 2.5, None])
def test_set_chunksize_rejects_non_integers(value):
    with pytest.raises(TypeError, match="The parallel chunksize must be an integer"):
        set_parallel_chunksize(value)


def test_set_chunksize_rejects_negative_sizes():
    with pytest.raises(ValueError, match="chunksize must be greater than or equal to zero"):
        set_parallel_chunksize(-1)
    assert set_parallel_chunksize(np.int32(6)) == 0
    assert get_parallel_chunksize() == 6


def test_jitted_set_chunksize_needs_an_integer():
    def set_text():
        return set_parallel_chunksize("invalid")

    with pytest.raises(TypingError, match="The parallel chunksize must be an integer"):
        njit(set_text)()


def thread_ids(n):
    ids = np.empty(n, np.int64)
    counts = np.empty(n, np.int64)
    for i in prange(n):
        ids[i] = ember.get_thread_id()
        counts[i] = ember.get_num_threads()
    return ids, counts, ember.get_thread_id(), ember.get_num_threads()


def test_thread_functions_inside_and_outside_parallel_loops():
    compiled = njit(parallel=True)(thread_ids)
    previous = ember.get_num_threads()
    try:
        for threads in sorted({1, ember.config.NUM_THREADS}):
            ember.set_num_threads(threads)
            ids, counts, outside_id, outside_count = compiled(64)
            assert outside_id == 0 and outside_count == threads
            np.testing.assert_array_equal(counts, np.full(64, threads))
            assert ids.min() >= 0 and ids.max() < threads
    finally:
        ember.set_num_threads(previous)


def shift_down(a):
    t = 1
    return a[t, 0] - a[0, -t]


def chained_offsets(a):
    s = 2
    t = s - 1
    return a[-t] + a[s]


def stencil_by_hand(a, neighborhood, relative):
    """The stencil's definition run by CPython: `relative(a, point)` reads a[point + offset]
    for the kernel; points whose neighborhood leaves the array stay 0."""
    out = np.zeros(a.shape)
    ranges = [range(-low, n - high) for (low, high), n in zip(neighborhood, a.shape)]
    for point in np.ndindex(*a.shape):
        if all(p in r for p, r in zip(point, ranges)):
            out[point] = relative(a, point)
    return out


@pytest.mark.parametrize("parallel", [False, True])
def test_stencil_propagates_local_integer_constants(parallel):
    from ember import stencil

    def run(kernel, a):
        compiled = stencil(kernel)
        return njit(parallel=parallel)(lambda x: compiled(x))(a)

    a = np.arange(20.0).reshape(4, 5) ** 2
    expected = stencil_by_hand(
        a, ((0, 1), (-1, 0)), lambda x, p: x[p[0] + 1, p[1]] - x[p[0], p[1] - 1]
    )
    np.testing.assert_array_equal(run(shift_down, a), expected)
    b = np.arange(9.0) ** 3
    expected = stencil_by_hand(b, ((-1, 2),), lambda x, p: x[p[0] - 1] + x[p[0] + 2])
    np.testing.assert_array_equal(run(chained_offsets, b), expected)


def test_stencil_rebound_index_name_is_not_a_constant():
    from ember import stencil
    from ember.errors import StencilError

    def rebound(a):
        t = 1
        t = 2
        return a[t]

    with pytest.raises(StencilError, match="is not constant"):
        stencil(rebound)(np.arange(5.0))


def window_median(a):
    return np.median(a[-1:2, -1:2])


def window_mean_1d(a):
    return np.mean(a[-1:3])


@pytest.mark.parametrize("parallel", [False, True])
def test_stencil_relative_slices_with_given_neighborhood(parallel):
    from ember import stencil

    median = stencil(window_median, neighborhood=((-1, 1), (-1, 1)))
    a = np.arange(30.0).reshape(5, 6) ** 1.5
    expected = stencil_by_hand(
        a, ((-1, 1), (-1, 1)), lambda x, p: np.median(x[p[0] - 1 : p[0] + 2, p[1] - 1 : p[1] + 2])
    )
    np.testing.assert_array_equal(njit(parallel=parallel)(lambda x: median(x))(a), expected)
    mean = stencil(window_mean_1d, neighborhood=((-1, 2),))
    b = np.arange(12, dtype=np.uint32) ** 2
    expected = stencil_by_hand(b, ((-1, 2),), lambda x, p: np.mean(x[p[0] - 1 : p[0] + 3]))
    np.testing.assert_array_equal(mean(b), expected)


def test_stencil_relative_slice_needs_both_bounds():
    from ember import stencil
    from ember.errors import StencilError

    def open_ended(a):
        return a[:2].sum()

    with pytest.raises(StencilError, match="slice without both bounds"):
        stencil(open_ended, neighborhood=((-1, 1),))(np.arange(5.0))


def reshape_with_negative_lengths(a, b):
    columns = a[0:b].reshape(-1307, 1)  # NumPy infers any negative length, not only -1
    return a[0:b] / columns, a.reshape(b, -4), np.reshape(a, (-1, 2))


@pytest.mark.parametrize("parallel", [False, True])
def test_reshape_infers_any_negative_length(parallel):
    a = np.arange(1.0, 13.0)
    expected = reshape_with_negative_lengths(a, 3)
    got = njit(parallel=parallel)(reshape_with_negative_lengths)(a, 3)
    for want, have in zip(expected, got):
        np.testing.assert_array_equal(have, want)
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        njit(lambda x: x.reshape(-2, -1))(a)


def fill_with_dtype_type(a):
    for i in prange(len(a)):
        a[i] = a.dtype.type(i * 1.5)
    return a.dtype.type(3.7), a.dtype.itemsize


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.uint8, np.complex64])
@pytest.mark.parametrize("parallel", [False, True])
def test_dtype_type_and_itemsize_in_jitted_code(dtype, parallel):
    expected_array = np.ones(5, dtype)
    expected = fill_with_dtype_type(expected_array)
    got_array = np.ones(5, dtype)
    got = njit(parallel=parallel)(fill_with_dtype_type)(got_array)
    np.testing.assert_array_equal(got_array, expected_array)
    assert got == expected


def test_set_num_threads_takes_numpy_integers_and_refuses_others():
    previous = ember.get_num_threads()
    try:
        ember.set_num_threads(np.int64(1))
        assert ember.get_num_threads() == 1
        with pytest.raises(TypeError, match="The number of threads specified must be an integer"):
            ember.set_num_threads("wrong_type")

        def set_text():
            ember.set_num_threads("wrong_type")

        with pytest.raises(TypingError, match="The number of threads specified must be"):
            njit(set_text)()
    finally:
        ember.set_num_threads(previous)


def test_object_mode_with_nogil_warns_it_stays_serial():
    from ember.errors import NumbaWarning

    def first(values):
        return values[0]

    with pytest.warns(NumbaWarning, match="won't allow parallel execution despite nogil"):
        compiled = ember.jit(forceobj=True, nogil=True)(first)
    assert compiled([4, 5]) == 4
