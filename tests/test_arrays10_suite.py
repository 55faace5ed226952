"""arrays10: std/var/nan*/median/quantiles over a tuple of axes, complex max/min/argmax/argmin
along an axis, searchsorted(sorter=), histogram(weights=, density=), interp(period=),
linalg.norm(axis=), read-only broadcast_to views and default_rng() without a seed; each compiled
function compared with NumPy running the same Python function on many inputs."""

import itertools
import warnings

import numpy as np
import pytest

from ember import njit
from tests.oracle import assert_arrays_close, assert_frees_all

RNG = np.random.default_rng(10)


def _same(got, want):
    """Equal values (NaN where NumPy has NaN), shape and, for arrays, dtype."""
    assert_arrays_close(got, want, rtol=1e-9, atol=1e-12)
    assert np.ndim(want) == 0 or got.dtype == want.dtype, (got.dtype, want.dtype)


def _inputs():
    """3-d float arrays: C, Fortran, strided, with NaN, and an integer array."""
    a = RNG.standard_normal((3, 4, 2))
    with_nan = a.copy()
    with_nan[1, 2, 1] = np.nan
    with_nan[0, :, 0] = np.nan
    wide = RNG.standard_normal((3, 8, 4))
    return [a, with_nan, np.asfortranarray(a), wide[:, ::2, ::-2], np.arange(24).reshape(3, 4, 2)]


# ---------------------------------------------------------------------------- tuple axes


def _spreads(a, axes):
    return (
        a.var(axis=axes, ddof=1),
        np.nansum(a, axes),
        np.nanmax(a, axes),
        np.nanmedian(a, axes),
        np.std(a, axes, keepdims=True),
    )


_spreads_jit = njit(_spreads)


def _other_spreads(a, axes):
    return np.nanstd(a, axes), np.median(a, axes), np.count_nonzero(a, axes), np.ptp(a, axes)


_other_spreads_jit = njit(_other_spreads)


def test_statistics_over_a_tuple_of_axes():
    """One compilation per (layout, number of axes); every spelling of the axes runs."""
    a, with_nan, _, strided, _ = _inputs()
    for axes in itertools.permutations(range(-3, 3), 2):
        if axes[0] % 3 == axes[1] % 3:
            continue
        for b in (a, with_nan):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # (all-NaN lanes)
                want = _spreads(b, axes)
            for got, expected in zip(_spreads_jit(b, axes), want, strict=True):
                _same(got, expected)
    for b in (strided,):  # another layout
        for axes in ((0, 2), (-1, 1)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = _other_spreads(b, axes)
            for got, expected in zip(_other_spreads_jit(b, axes), want, strict=True):
                _same(got, expected)


def test_quantiles_over_a_tuple_of_axes_and_all_axes():
    @njit
    def quantiles(a, q):
        return (
            np.percentile(a, 30.0, axis=(0, 2)),
            np.nanquantile(a, q, axis=(1, 2)),
            np.nansum(a, (0, 1, 2)),
            np.std(a, ()),
        )

    for a in _inputs()[:2]:
        for q in (np.array([0.0, 0.25, 1.0]), np.array([0.5])):
            want = (
                np.percentile(a, 30.0, axis=(0, 2)),
                np.nanquantile(a, q, axis=(1, 2)),
                np.nansum(a, (0, 1, 2)),
                np.std(a, ()),
            )
            for got, expected in zip(quantiles(a, q), want, strict=True):
                _same(got, expected)


def test_tuple_axis_errors_match_numpy():
    stds = njit(lambda a, axes: np.nanstd(a, axes))
    a = np.ones((2, 3, 4))
    for axes in ((0, 0), (1, -2), (0, 1, 2, 0)):
        with pytest.raises(ValueError, match="duplicate value in 'axis'"):
            stds(a, axes)
    with pytest.raises(np.exceptions.AxisError) as caught:
        stds(a, (0, 3))
    with pytest.raises(np.exceptions.AxisError) as expected:
        np.nanstd(a, (0, 3))
    assert str(caught.value) == str(expected.value)
    assert_frees_all(stds, lambda: np.ones((3, 2, 2)), lambda: (0, 2))


def test_nanmedian_along_one_axis():
    medians = njit(lambda a, axis: np.nanmedian(a, axis))
    for a in [_inputs()[1], np.full((2, 3, 1), np.nan), np.arange(6.0)]:
        for axis in range(-a.ndim, a.ndim):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # (all-NaN lanes)
                want = np.nanmedian(a, axis)
            _same(medians(a, axis), want)


# ---------------------------------------------------------------------------- complex extremes


def _extremes(a):
    return np.max(a, 0), a.min(axis=-1), np.argmax(a, axis=1), a.argmin(axis=0), a.argmax()


_extremes_jit = njit(_extremes)


def test_complex_extremes_along_an_axis():
    """NumPy orders complex numbers by real part, then imaginary part; NaN wins."""
    c = RNG.integers(0, 3, (3, 4)) + 1j * RNG.integers(0, 3, (3, 4))
    nan = c.copy()
    nan[1, 2] = complex(np.nan, 1)
    nan[2, 0] = complex(1, np.nan)
    for a in (c, nan, c[:, ::-2]):
        for got, want in zip(_extremes_jit(a), _extremes(a), strict=True):
            assert np.array_equal(got, want, equal_nan=True), (got, want)
            assert np.asarray(got).dtype == np.asarray(want).dtype or np.ndim(want) == 0
    vector = njit(lambda v: (np.max(v, 0), v.argmin(axis=-1)))
    assert vector(c[0]) == (np.max(c[0]), c[0].argmin())
    for f, message in ((_extremes_jit, "zero-size array to reduction operation maximum"),):
        with pytest.raises(ValueError, match=message):
            f(np.empty((0, 2), np.complex128))
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        njit(lambda a: a.argmax(axis=1))(np.empty((2, 0), np.complex128))


# ---------------------------------------------------------------------------- keyword forms


def test_searchsorted_with_sorter():
    search = njit(lambda a, v, s: (np.searchsorted(a, v, sorter=s), a.searchsorted(v, "right", s)))
    for n in (0, 1, 5, 30):
        a = RNG.integers(0, 6, n).astype(np.float64)
        order = np.argsort(a, kind="stable")
        values = np.array([-1.0, 0.0, 2.0, 2.5, 5.0, 9.0])
        got = search(a, values, order)
        want = (np.searchsorted(a, values, sorter=order), a.searchsorted(values, "right", order))
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g, w) and g.dtype == w.dtype
    with pytest.raises(ValueError, match="sorter.size must equal a.size"):
        search(np.arange(3.0), values, np.arange(2))
    with pytest.raises(ValueError, match="Sorter index out of range."):
        search(np.arange(3.0), values, np.array([0, 1, 5]))


def test_histogram_weights_and_density():
    @njit
    def histograms(x, w, edges):
        return (
            np.histogram(x, 7, density=True),
            np.histogram(x, 5, weights=w),
            np.histogram(x, edges, density=True, weights=w),
            np.histogram(x, 4, (0.0, 1.0), weights=w),
        )

    edges = np.array([-1.0, 0.0, 0.5, 2.0])
    for n in (1, 10, 200):
        x = RNG.standard_normal(n)
        w = RNG.random(n)
        want = (
            np.histogram(x, 7, density=True),
            np.histogram(x, 5, weights=w),
            np.histogram(x, edges, density=True, weights=w),
            np.histogram(x, 4, (0.0, 1.0), weights=w),
        )
        for (counts, got_edges), (want_counts, want_edges) in zip(
            histograms(x, w, edges), want, strict=True
        ):
            _same(counts, want_counts)
            _same(got_edges, want_edges)
    integer_weights = njit(lambda x, w: np.histogram(x, 3, weights=w)[0])
    _same(integer_weights(x, np.arange(n)), np.histogram(x, 3, weights=np.arange(n))[0])
    with pytest.raises(ValueError, match="weights should have the same shape as a."):
        histograms(x, w[:3], edges)


def test_interp_with_a_period():
    periodic = njit(lambda x, xp, fp, p: np.interp(x, xp, fp, period=p))
    xp = np.array([190.0, -190, 350, -350])
    fp = np.array([5.0, 10, 3, 4])
    x = np.array([-180.0, -170, -185, 185, -10, -5, 0, 365, 720])
    for period in (360.0, -360.0, 100.0):
        _same(periodic(x, xp, fp, period), np.interp(x, xp, fp, period=period))
    scalar = njit(
        lambda x: np.interp(x, np.array([0.0, 1, 2]), np.array([1j, 2, 3 + 1j]), period=2.5)
    )
    for v in (-3.0, 0.3, 2.4, 7.0):
        assert scalar(v) == np.interp(v, [0.0, 1, 2], [1j, 2, 3 + 1j], period=2.5)
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        periodic(x, xp, fp, 0.0)


def _norms(m, order):
    return np.linalg.norm(m, order, axis=1), np.linalg.norm(m, order, axis=0, keepdims=True)


_norms_jit = njit(_norms)


def test_norm_along_an_axis():
    m = RNG.standard_normal((3, 4))
    matrices = (m[:, ::2],)
    for a, order in itertools.product(matrices, (1.0, 2.0, np.inf, -np.inf, 0.0, 3.0, 0.5)):
        for got, want in zip(_norms_jit(a, order), _norms(a, order), strict=True):
            np.testing.assert_allclose(got, want, rtol=2e-6)
            assert got.dtype == want.dtype and got.shape == want.shape
    plain = njit(lambda m: (np.linalg.norm(m, axis=-1), np.linalg.norm(m[0], axis=0)))
    for a in (np.arange(12).reshape(3, 4) - 5,):
        got, want = plain(a), (np.linalg.norm(a, axis=-1), np.linalg.norm(a[0], axis=0))
        _same(got[0], want[0])
        assert got[1] == pytest.approx(want[1])
    _same(_norms_jit(np.empty((2, 0)), np.inf)[0], np.linalg.norm(np.empty((2, 0)), np.inf, axis=1))
    with pytest.raises(np.exceptions.AxisError):
        njit(lambda m: np.linalg.norm(m, axis=2))(m)


# ---------------------------------------------------------------------------- flags, random


def test_broadcast_to_is_read_only_and_ravel_copies_are_writable():
    broadcast = njit(lambda a: np.broadcast_to(a, (3, 2)))
    got = broadcast(np.arange(2.0))
    assert np.array_equal(got, np.broadcast_to(np.arange(2.0), (3, 2)))
    assert not got.flags.writeable

    fortran = np.asfortranarray(np.arange(9).reshape(3, 3))
    fortran.flags.writeable = False
    ravel = njit(lambda a: a.ravel())
    flat = ravel(fortran)
    assert np.array_equal(flat, fortran.ravel()) and flat.flags.writeable
    strided = np.arange(12).reshape(3, 4)
    strided.flags.writeable = False
    copied = njit(lambda a: np.ravel(a[:, ::2]))(strided)  # (NumPy copies: writable)
    assert np.array_equal(copied, np.ravel(strided[:, ::2])) and copied.flags.writeable
    c_order = np.arange(9).reshape(3, 3)
    c_order.flags.writeable = False
    assert not ravel(c_order).flags.writeable  # a view of read-only memory


def test_default_rng_without_a_seed():
    draws = njit(lambda: np.random.default_rng().random(4))
    first, second = draws(), draws()
    assert ((first >= 0) & (first < 1)).all() and not np.array_equal(first, second)
    seeded = njit(lambda s: np.random.default_rng(s).random(4))
    assert np.array_equal(seeded(3), np.random.default_rng(3).random(4))


@njit
def _spread_of(v):
    return v.max() - v.min()


@njit
def _standardized(v):
    return (v - v.mean()) / (v.std() + 1.0)


def test_apply_along_axis_of_scalar_and_vector_functions():
    @njit
    def apply(a, axis):
        return (
            np.apply_along_axis(_spread_of, axis, a),
            np.apply_along_axis(_standardized, axis, a),
        )

    a = RNG.standard_normal((3, 4, 5))
    for axis in range(-3, 3):
        want = (
            np.apply_along_axis(_spread_of.py_func, axis, a),
            np.apply_along_axis(_standardized.py_func, axis, a),
        )
        for got, expected in zip(apply(a, axis), want, strict=True):
            _same(got, expected)
    with pytest.raises(ValueError, match="Cannot apply_along_axis when any iteration dimensions"):
        apply(np.empty((0, 4, 2)), 1)
    with pytest.raises(np.exceptions.AxisError):
        apply(a, 3)


def test_multi_dot_and_array_api_linalg_names():
    @njit
    def products(a, b, c, v):
        return (
            np.linalg.multi_dot((a, b, c)),
            np.linalg.multi_dot((v[:3], a, b, c, v[:2])),
            np.linalg.multi_dot([a, a.T, a]),
        )

    a, b, c, v = RNG.random((3, 4)), RNG.random((4, 5)), RNG.random((5, 2)), RNG.random(3)
    want = (
        np.linalg.multi_dot((a, b, c)),
        np.linalg.multi_dot((v[:3], a, b, c, v[:2])),
        np.linalg.multi_dot([a, a.T, a]),
    )
    for got, expected in zip(products(a, b, c, v), want, strict=True):
        _same(got, expected)
    with pytest.raises(ValueError, match="Expecting at least two arrays."):
        njit(lambda a: np.linalg.multi_dot([a]))(a)

    def names(x):
        return (
            np.linalg.vector_norm(x),
            np.linalg.vector_norm(x, axis=1),
            np.linalg.vector_norm(x, axis=-1, keepdims=True, ord=1),
            np.linalg.matrix_transpose(x),
            np.linalg.vecdot(x, x[::-1]),
            np.linalg.vecdot(x, x, axis=0),
        )

    compiled = njit(names)
    x = RNG.standard_normal((2, 3, 4))
    for arg in (x,):
        for got, expected in zip(compiled(arg), names(arg), strict=True):
            _same(got, expected)


def test_generator_methods_with_array_parameters_draw_numpys_stream():
    def draws(seed, loc, scale):
        rng = np.random.default_rng(seed)
        return (
            rng.normal(loc, scale),
            rng.uniform(loc, 5.0),
            rng.poisson(scale),
            rng.gamma(scale, loc + 1),
            rng.normal(loc, 1.0, size=(4, 3)),
            rng.standard_gamma(scale, dtype=np.float32),
        )

    compiled = njit(draws)
    loc, scale = np.array([0.0, 1.0, 2.0]), np.array([[1.0], [2.0], [3.0], [0.5]])
    for seed in (0, 7):
        for got, want in zip(compiled(seed, loc, scale), draws(seed, loc, scale), strict=True):
            assert np.array_equal(got, want) and got.dtype == want.dtype
    with pytest.raises(ValueError, match="lam < 0|scale < 0"):
        compiled(0, loc, -scale)


def test_flatnonzero_argwhere_and_resize_of_array_likes():
    positions = njit(lambda a: (np.flatnonzero(a), np.argwhere(a)))
    likes = [
        ((1.1, 2.2), (3.3, 0.0), (5.5, 6.6)),
        (0.0, 1.0, 0.0, -6.0),
        ([0, 1], [2, 3]),
        np.nan,
        0,
        True,
        (True, False, True),
        2 + 1j,
        [0, 3, 0, 1],
    ]
    for a in likes:
        for got, want in zip(positions(a), (np.flatnonzero(a), np.argwhere(a)), strict=True):
            assert np.array_equal(got, want) and got.dtype == want.dtype, (a, got, want)
    resize = njit(lambda a, shape: np.resize(a, shape))
    for a, shape in (([0, 1, 2, 3], (2, 3)), (4, (2, 3)), ((1.0, 2.0), (5,))):
        got, want = resize(a, shape), np.resize(a, shape)
        assert np.array_equal(got, want) and got.shape == want.shape and got.dtype == want.dtype


def test_linalg_stacks_and_keyword_forms():
    stacked = njit(lambda a: (np.linalg.inv(a), np.linalg.det(a)))
    for a in (RNG.random((2, 3, 3)), RNG.random((0, 2, 2))):
        for got, want in zip(stacked(a), (np.linalg.inv(a), np.linalg.det(a)), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-9)
            assert got.shape == want.shape and got.dtype == want.dtype
    with pytest.raises(np.linalg.LinAlgError):
        stacked(np.zeros((2, 2, 2)))

    @njit
    def keywords(a, h):
        q, r = np.linalg.qr(a, mode="complete")
        return (
            np.linalg.qr(a, mode="r"),
            q,
            r,
            np.linalg.svd(a, compute_uv=False),
            np.linalg.eigh(h, UPLO="U")[0],
            np.linalg.eigvalsh(h, "U"),
        )

    pairs = ((RNG.random((4, 2)), RNG.random((3, 3))), (RNG.random((2, 4)), RNG.random((2, 2))))
    for a, h in pairs:
        r_only, q, r, values, eigen, eigen_values = keywords(a, h)
        want_q, want_r = np.linalg.qr(a, mode="complete")
        np.testing.assert_allclose(r_only, np.linalg.qr(a, mode="r"))
        np.testing.assert_allclose(r, want_r, atol=1e-12)
        # Q's first columns are NumPy's; the rest is an orthonormal basis of the complement
        k = min(a.shape)
        np.testing.assert_allclose(q[:, :k], want_q[:, :k])
        np.testing.assert_allclose(q @ r, a, atol=1e-12)
        np.testing.assert_allclose(q.T @ q, np.eye(a.shape[0]), atol=1e-12)
        np.testing.assert_allclose(values, np.linalg.svd(a, compute_uv=False))
        np.testing.assert_allclose(eigen, np.linalg.eigh(h, UPLO="U")[0])
        np.testing.assert_allclose(eigen_values, np.linalg.eigvalsh(h, "U"))
