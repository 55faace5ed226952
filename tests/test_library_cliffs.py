"""The library paths rewritten for speed (issue 16), against NumPy: quantiles and np.partition
by selection, linalg.norm's sum of squares, histogram's common path, argmax/argmin's one-pass
fold (short arrays and lines), flatnonzero/nonzero/where(cond), cov by BLAS, and list.sort."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

RNG = np.random.default_rng(16)


def floats_with_specials(n, seed=0):
    """Normal values with negatives, repeats, zeros of both signs and infinities."""
    rng = np.random.default_rng(seed)
    a = np.round(rng.normal(size=n) * 10, 1)
    if n >= 6:
        a[1], a[3], a[5] = -0.0, 0.0, -np.inf
    return a


# ---------------------------------------------------------------------------- quantiles


@njit
def percentile(a, q):
    return np.percentile(a, q)


@njit
def quantile(a, q):
    return np.quantile(a, q)


@njit
def nanpercentile(a, q):
    return np.nanpercentile(a, q)


@njit
def nanmedian(a):
    return np.nanmedian(a)


@pytest.mark.parametrize("n", [1, 2, 3, 10, 101])
@pytest.mark.parametrize("q", [0.0, 12.5, 50.0, 90.0, 99.9, 100.0])
def test_percentile_matches_numpy_and_leaves_its_input(n, q):
    a = floats_with_specials(n, seed=n)
    kept = a.copy()
    assert percentile(a, q) == pytest.approx(np.percentile(a, q), nan_ok=True)
    np.testing.assert_array_equal(a, kept)  # selection reorders a copy


def test_percentile_of_integers_and_2d():
    a = RNG.integers(-50, 50, (7, 9))
    kept = a.copy()
    for q in (0.0, 33.3, 50.0, 100.0):
        assert percentile(a, q) == np.percentile(a, q)
    np.testing.assert_array_equal(a, kept)


def test_nan_propagates_unless_ignored():
    a = np.array([3.0, np.nan, 1.0, 2.0])
    assert np.isnan(percentile(a, 50.0))
    assert nanpercentile(a, 50.0) == np.nanpercentile(a, 50.0)
    assert nanmedian(a) == np.nanmedian(a)
    assert np.isnan(nanpercentile(np.array([np.nan, np.nan]), 10.0))


@pytest.mark.parametrize("count", [1, 3, 8, 9, 20])  # selections one by one, or one sort
def test_array_of_quantiles(count):
    a = floats_with_specials(57, seed=count)
    qs = np.linspace(0.0, 1.0, count)
    np.testing.assert_allclose(quantile(a, qs), np.quantile(a, qs), rtol=1e-15)
    with_nan = np.append(a, np.nan)
    assert np.isnan(quantile(with_nan, qs)).all()


def test_quantile_errors_like_numpy():
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        percentile(np.ones(3), 101.0)
    with pytest.raises(IndexError):
        percentile(np.ones(0), 50.0)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=40),
    st.floats(0.0, 100.0),
)
def test_percentile_hypothesis(values, q):
    a = np.array(values)
    assert percentile(a, q) == np.percentile(a, q)


# ---------------------------------------------------------------------------- np.partition


@njit
def partition(a, kth):
    return np.partition(a, kth)


@pytest.mark.parametrize("n", [1, 2, 17, 300])
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_partition_places_the_kth_item(n, dtype):
    a = (RNG.normal(size=n) * 10).astype(dtype)
    if dtype is np.float64 and n > 3:
        a[::5] = np.nan  # NaNs order last
    kept = a.copy()
    for kth in {0, n // 2, n - 1, -1, -n}:
        out = partition(a, kth)
        k = kth % n
        expected = np.partition(a, kth)
        assert out.dtype == expected.dtype and out.shape == expected.shape
        np.testing.assert_array_equal(out[k], expected[k])
        np.testing.assert_array_equal(np.sort(out), np.sort(a))
        pivot = out[k]
        if not np.isnan(pivot):
            assert (out[:k] <= pivot).all()
            assert ((out[k + 1 :] >= pivot) | np.isnan(out[k + 1 :])).all()
    np.testing.assert_array_equal(a, kept)


def test_partition_kth_out_of_bounds():
    with pytest.raises(ValueError, match="kth"):
        partition(np.ones(3), 3)


# ---------------------------------------------------------------------------- linalg.norm


@njit
def norm(x):
    return np.linalg.norm(x)


@njit
def norm_ord(x, order):
    return np.linalg.norm(x, order)


@pytest.mark.parametrize("n", [0, 1, 3, 31, 32, 1000])  # either side of the BLAS length
def test_norm_of_vectors(n):
    x = RNG.normal(size=n)
    assert norm(x) == pytest.approx(np.linalg.norm(x), rel=1e-14)
    assert norm_ord(x, 2) == pytest.approx(np.linalg.norm(x, 2), rel=1e-14)
    assert norm(x[::-1]) == pytest.approx(np.linalg.norm(x), rel=1e-14)  # negative stride
    assert norm(x[::3]) == pytest.approx(np.linalg.norm(x[::3]), rel=1e-14)


@pytest.mark.parametrize(
    "x",
    [
        RNG.normal(size=(40, 7)),
        RNG.normal(size=(40, 7)).T,  # not contiguous: ravel copies
        RNG.normal(size=50).astype(np.float32),
        RNG.integers(-(2**40), 2**40, 100),  # squares overflow int64
        RNG.normal(size=60) + 1j * RNG.normal(size=60),
        np.array([np.nan, 1.0] * 20),
        np.array([np.inf, 1.0] * 20),
    ],
)
def test_norm_of_other_arrays(x):
    expected = np.linalg.norm(x)
    got = norm(x)
    assert got == pytest.approx(float(expected), rel=1e-6 if x.dtype == np.float32 else 1e-14,
                                nan_ok=True)  # fmt: skip


# ---------------------------------------------------------------------------- histogram


@njit
def histogram(a, bins, low, high):
    return np.histogram(a, bins=bins, range=(low, high))


@njit
def histogram_auto(a, bins):
    return np.histogram(a, bins=bins)


@pytest.mark.parametrize("bins", [1, 3, 7, 10, 50])
def test_histogram_counts_match_numpy_at_edges(bins):
    grid = np.linspace(-1.0, 2.0, 3001)  # many values exactly on edges
    noisy = np.concatenate([grid, RNG.normal(size=500), [np.nan, np.inf, -np.inf]])
    for a in (grid, noisy, np.nextafter(grid, np.inf), np.nextafter(grid, -np.inf)):
        counts, edges = histogram(a, bins, 0.0, 1.0)
        expected_counts, expected_edges = np.histogram(a, bins, (0.0, 1.0))
        np.testing.assert_array_equal(counts, expected_counts)
        np.testing.assert_array_equal(edges, expected_edges)


def test_histogram_odd_ranges_and_integers():
    for low, high in ((-3.7, 12.1), (0.1, 0.3), (1e10, 1e10 + 7.0), (5.0, 5.0)):
        a = np.linspace(low - 1, high + 1, 997)
        np.testing.assert_array_equal(
            histogram(a, 13, low, high)[0], np.histogram(a, 13, (low, high))[0]
        )
    ints = RNG.integers(-20, 20, 300)
    np.testing.assert_array_equal(histogram_auto(ints, 9)[0], np.histogram(ints, 9)[0])


# ---------------------------------------------------------------------------- argmax, argmin


@njit
def argmax(a):
    return a.argmax()


@njit
def argmin(a):
    return np.argmin(a)


@njit
def argmax_rows(m):
    return np.argmax(m, axis=1)


@njit
def argmin_columns(m):
    return np.argmin(m, axis=0)


@pytest.mark.parametrize("n", [1, 2, 5, 127, 128, 300])  # one pass below 128, two from there
def test_arg_extremes_with_ties_signed_zeros_and_nan(n):
    a = floats_with_specials(n, seed=n)
    finite = np.nan_to_num(a)
    cases = [a, -a, np.zeros(n), np.full(n, -0.0), finite.astype(np.int32), a > 0,
             np.abs(finite).astype(np.uint8)]  # fmt: skip
    if n > 3:
        with_nan = a.copy()
        with_nan[[n // 2, n - 1]] = np.nan
        cases += [with_nan, np.full(n, np.nan)]
    for x in cases:
        assert argmax(x) == np.argmax(x)
        assert argmin(x) == np.argmin(x)
        assert argmax(x[::-2]) == np.argmax(x[::-2])


@pytest.mark.parametrize("shape", [(30, 1), (30, 7), (4, 127), (3, 200)])
def test_arg_extremes_along_an_axis(shape):
    m = np.round(RNG.normal(size=shape), 1)
    m[0, -1] = np.nan
    for x in (m, m.T.copy().T, np.abs(np.nan_to_num(m)).astype(np.int64)):
        np.testing.assert_array_equal(argmax_rows(x), np.argmax(x, axis=1))
        np.testing.assert_array_equal(argmin_columns(x), np.argmin(x, axis=0))


def test_argmax_of_empty_raises():
    with pytest.raises(ValueError, match="empty"):
        argmax(np.ones(0))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.0, np.nan, np.inf]), min_size=1,
                max_size=140))  # fmt: skip
def test_arg_extremes_hypothesis(values):
    a = np.array(values)
    assert argmax(a) == np.argmax(a)
    assert argmin(a) == np.argmin(a)


# ---------------------------------------------------------------------------- nonzero


@njit
def flatnonzero(a):
    return np.flatnonzero(a)


@njit
def where_one(a):
    return np.where(a > 0.5)


@njit
def nonzero(a):
    return np.nonzero(a)


def test_nonzero_positions():
    a = RNG.random(1000)
    for x in (a > 0.5, a < 0.0, a >= 0.0, np.round(a - 0.5, 1), (a * 3).astype(np.int8), a[:0]):
        expected = np.flatnonzero(x)
        got = flatnonzero(x)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, expected)
        (only,) = nonzero(x)
        np.testing.assert_array_equal(only, np.nonzero(x)[0])
    (positions,) = where_one(a)
    np.testing.assert_array_equal(positions, np.where(a > 0.5)[0])
    m = np.round(RNG.normal(size=(6, 5)))
    for got, expected in zip(nonzero(m), np.nonzero(m)):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(flatnonzero(m[:, ::2]), np.flatnonzero(m[:, ::2]))


# ---------------------------------------------------------------------------- cov, corrcoef


@njit
def cov(m):
    return np.cov(m)


@njit
def corrcoef(x, y):
    return np.corrcoef(x, y)


def test_cov_and_corrcoef_match_numpy():
    m = RNG.normal(size=(5, 300))
    got = cov(m)
    np.testing.assert_allclose(got, np.cov(m), rtol=1e-12)
    np.testing.assert_array_equal(got, got.T)  # symmetric, as NumPy's
    ints = RNG.integers(-9, 9, (3, 40))
    np.testing.assert_allclose(cov(ints), np.cov(ints), rtol=1e-12)
    x, y = RNG.normal(size=100), RNG.normal(size=100)
    np.testing.assert_allclose(corrcoef(x, y), np.corrcoef(x, y), rtol=1e-12)
    np.testing.assert_allclose(cov(m[:, :2]), np.cov(m[:, :2]), rtol=1e-12)


# ---------------------------------------------------------------------------- list.sort


@njit
def sort_list(xs):
    xs.sort()
    return xs


@njit
def sort_list_descending(xs):
    xs.sort(reverse=True)
    return xs


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -2.0, 3.0, 7.25]), min_size=1, max_size=80))
def test_list_sort_is_stable_like_python(values):
    # -0.0 == 0.0: a stable sort keeps their order, which repr tells apart
    assert [repr(x) for x in sort_list(list(values))] == [repr(x) for x in sorted(values)]
    descending = sorted(values, reverse=True)
    assert [repr(x) for x in sort_list_descending(list(values))] == [repr(x) for x in descending]


def test_list_sort_of_integers_and_strings():
    ints = [int(x) for x in RNG.integers(-100, 100, 300)]
    assert sort_list(list(ints)) == sorted(ints)
    words = [str(x) for x in RNG.integers(0, 50, 70)]
    assert sort_list(list(words)) == sorted(words)


# ---------------------------------------------------------------------------- boolean masks


@njit
def masked(a, mask):
    return a[mask]


@pytest.mark.parametrize("n", [0, 1, 2, 7, 100])
def test_mask_selection_matches_numpy(n):
    a = RNG.normal(size=n)
    for mask in (a > 0, np.zeros(n, np.bool_), np.ones(n, np.bool_)):
        for x in (a, a[::-1], (a * 10).astype(np.int32)):
            got, expected = masked(x, mask), x[mask]
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
        m = RNG.normal(size=(n, 3))
        np.testing.assert_array_equal(masked(m, m[:, 0] > 0), m[m[:, 0] > 0])  # rows
        np.testing.assert_array_equal(masked(m, m > 0), m[m > 0])  # a mask of m's shape


def test_mask_of_the_wrong_length_raises():
    with pytest.raises(IndexError, match="boolean index"):
        masked(np.ones(3), np.ones(4, np.bool_))
