"""np.diff (n=, axis=), np.ediff1d, np.unwrap, sum/prod dtype=, cumsum/cumprod along an axis,
nancumsum/nancumprod, cov/corrcoef keywords, quantiles of tuples, clip with one bound, isin
(invert=), correlate of complex vectors, the ufuncs fabs, float_power, nextafter, spacing,
ldexp, gcd and lcm, and np.linalg cond, matrix_rank (tol=), norm ord 2/-2/'fro'/'nuc' and
np.roots in compiled code, against NumPy."""

import numpy as np
import pytest

import ember
from ember.errors import TypingError

_MATRICES = [
    np.array([[0.0, 3.0, 6.5, 9.0], [-2.0, 4.0, 1.0, 8.0], [1.0, 1.0, 7.0, 0.0]]),
    np.arange(24.0).reshape(4, 6)[::2, 1::2] ** 1.5,  # non-contiguous
]
_INTEGERS = np.array([[1, -4, 9], [16, 0, -2]])


def _close(got, expected):
    if isinstance(expected, (tuple, list)):
        for g, e in zip(got, expected, strict=True):
            _close(g, e)
        return
    assert np.shape(got) == np.shape(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, equal_nan=True)


@ember.njit
def _diffs(m, n, axis):
    return np.diff(m), np.diff(m, n), np.diff(m, axis=axis), np.diff(m, n, axis), np.diff(m > 2)


@pytest.mark.parametrize("m", [*_MATRICES, _INTEGERS])
def test_diff_with_order_and_axis(m):
    for n, axis in [(0, 0), (1, -1), (2, 1), (3, -2)]:
        expected = (
            np.diff(m),
            np.diff(m, n),
            np.diff(m, axis=axis),
            np.diff(m, n, axis),
            np.diff(m > 2),
        )
        _close(_diffs(m, n, axis), expected)


def test_diff_bad_order_and_axis_raise():
    with pytest.raises(ValueError, match="order must be non-negative"):
        _diffs(np.ones((2, 2)), -1, 0)
    with pytest.raises(np.exceptions.AxisError):
        _diffs(np.ones((2, 2)), 1, 2)


@ember.njit
def _ediff1d(a, end, begin):
    return (
        np.ediff1d(a),
        np.ediff1d(a, to_end=end),
        np.ediff1d(a, end, begin),
        np.ediff1d(a, to_begin=begin[0]),
    )


@pytest.mark.parametrize("a", [_MATRICES[0], np.array([5.0, 2, 8, 1]), np.zeros(0), np.ones(1)])
def test_ediff1d(a):
    end, begin = np.array([1.0, 2.0]), np.array([-1.0])
    expected = (
        np.ediff1d(a),
        np.ediff1d(a, to_end=end),
        np.ediff1d(a, end, begin),
        np.ediff1d(a, to_begin=begin[0]),
    )
    _close(_ediff1d(a, end, begin), expected)


@ember.njit
def _unwrap(p, m):
    return (
        np.unwrap(p),
        np.unwrap(p, discont=4.0),
        np.unwrap(p, period=6.0),
        np.unwrap(m),
        np.unwrap(m, axis=0),
        np.unwrap(p, 1.0),
    )


def test_ediff1d_ends_of_another_kind_are_a_typing_error():
    with pytest.raises(TypingError, match="same_kind"):
        ember.njit(lambda a: np.ediff1d(a, to_end=np.array([0.5])))(np.arange(3))


def test_unwrap():
    p = np.array([0.0, 3.0, 6.5, 9.0, -2.0, 0.5, 12.0])
    for m in _MATRICES[:2]:
        expected = (
            np.unwrap(p),
            np.unwrap(p, discont=4.0),
            np.unwrap(p, period=6.0),
            np.unwrap(m),
            np.unwrap(m, axis=0),
            np.unwrap(p, 1.0),
        )
        _close(_unwrap(p, m), expected)


@ember.njit
def _sums(m):
    return (
        np.sum(m, dtype=np.int64),
        m.sum(dtype=np.float32),
        np.sum(m, 0, np.int32),
        np.prod(m, dtype=np.float64),
        m.prod(1, np.int64),
    )


@pytest.mark.parametrize("m", [*_MATRICES, _INTEGERS])
def test_sum_and_prod_with_dtype(m):
    expected = (
        np.sum(m, dtype=np.int64),
        m.sum(dtype=np.float32),
        np.sum(m, 0, np.int32),
        np.prod(m, dtype=np.float64),
        m.prod(1, np.int64),
    )
    got = _sums(m)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert got[2].dtype == np.int32 and got[4].dtype == np.int64


@ember.njit
def _cumulative(m, axis):
    return (
        np.cumsum(m, axis=axis),
        np.cumsum(m, 0),
        m.cumsum(axis=axis),
        np.cumprod(m, axis),
        m.cumprod(axis=0),
        np.nancumsum(m),
        np.nancumprod(m),
    )


@pytest.mark.parametrize(
    "m", [*_MATRICES, np.array([[1.5, np.nan], [np.nan, -2.0]]), np.zeros((0, 3))]
)
def test_cumulative_along_an_axis(m):
    for axis in (0, 1, -1):
        expected = (
            np.cumsum(m, axis=axis),
            np.cumsum(m, 0),
            m.cumsum(axis=axis),
            np.cumprod(m, axis),
            m.cumprod(axis=0),
            np.nancumsum(m),
            np.nancumprod(m),
        )
        _close(_cumulative(m, axis), expected)


def test_cumsum_of_small_integers_widens_and_bad_axis_raises():
    small = np.array([[100, 100], [100, 100]], np.int8)
    _close(_cumulative(small, 0), _cumulative.py_func(small, 0))
    with pytest.raises(np.exceptions.AxisError):
        _cumulative(small, 2)


@ember.njit
def _covariances(m, v, w):
    return (
        np.cov(m),
        np.cov(m, rowvar=False),
        np.cov(m, bias=True),
        np.cov(m, ddof=0),
        np.cov(v, w),
        np.cov(v),
        np.cov(m, m),
        np.cov(v, w, False, True),
        np.corrcoef(m),
        np.corrcoef(v, w),
        np.corrcoef(m, rowvar=False),
        np.corrcoef(v, w, False),
    )


@pytest.mark.parametrize("m", _MATRICES)
def test_cov_and_corrcoef_keywords(m):
    v, w = m[0].astype(np.float64), m[-1].astype(np.float64) ** 2
    expected = (
        np.cov(m),
        np.cov(m, rowvar=False),
        np.cov(m, bias=True),
        np.cov(m, ddof=0),
        np.cov(v, w),
        np.cov(v),
        np.cov(m, m),
        np.cov(v, w, False, True),
        np.corrcoef(m),
        np.corrcoef(v, w),
        np.corrcoef(m, rowvar=False),
        np.corrcoef(v, w, False),
    )
    _close(_covariances(m, v, w), expected)


@ember.njit
def _quantiles(a):
    return (
        np.percentile(a, (10, 50)),
        np.quantile(a, (0.2, 0.9, 1.0)),
        np.nanpercentile(a, (5.0,)),
        np.nanquantile(a, [0.5, 0.25]),
    )


@pytest.mark.parametrize(
    "a", [_MATRICES[0].ravel(), np.array([4.0, np.nan, -1.0, 2.5]), np.arange(7.0)]
)
def test_quantiles_of_tuples_and_lists(a):
    expected = (
        np.percentile(a, (10, 50)),
        np.quantile(a, (0.2, 0.9, 1.0)),
        np.nanpercentile(a, (5.0,)),
        np.nanquantile(a, [0.5, 0.25]),
    )
    _close(_quantiles(a), expected)


@ember.njit
def _clip_isin_correlate(a, c, tests):
    return (
        np.clip(a, None, 2.0),
        np.clip(a, 0.0, None),
        np.clip(a, None, a[::-1]),
        np.isin(a, tests, invert=True),
        np.isin(a, tests, False, False),
        np.correlate(c, c[:2]),
        np.correlate(c, c[:2], "full"),
        np.correlate(a, c[:2], "same"),
    )


@pytest.mark.parametrize(
    "a", [np.array([3.0, -1.5, 2.0, 4.0, 0.5, 7.0]), np.array([1.0, np.nan, -3.0, 2.0])]
)
def test_clip_isin_and_complex_correlate(a):
    c = np.array([1 + 2j, 3 - 1j, -2 + 0.5j])
    tests = np.array([2.0, 7.0, -3.0])
    expected = (
        np.clip(a, None, 2.0),
        np.clip(a, 0.0, None),
        np.clip(a, None, a[::-1]),
        np.isin(a, tests, invert=True),
        np.isin(a, tests, False, False),
        np.correlate(c, c[:2]),
        np.correlate(c, c[:2], "full"),
        np.correlate(a, c[:2], "same"),
    )
    _close(_clip_isin_correlate(a, c, tests), expected)


def test_clip_without_bounds_raises():
    with pytest.raises(ValueError, match="One of max or min"):
        ember.njit(lambda a: np.clip(a, None, None))(np.ones(2))


@ember.njit
def _ufuncs(a, i):
    return (
        np.fabs(a),
        np.float_power(a, 2),
        np.float_power(i, 3),
        np.nextafter(a, 0.0),
        np.spacing(a),
        np.ldexp(a, 3),
        np.ldexp(a, i),
        np.gcd(i, 6),
        np.lcm(i, 4),
        np.gcd(12, 18),
        np.fabs(i),
    )


def test_new_ufuncs_match_numpy_exactly():
    a = np.array([1.5, -2.0, 0.25, 0.0, -0.75, np.inf, np.nan, 1e-310])
    i = np.array([3, -4, 0, 12, 9, -7, 1, 2])
    got = _ufuncs(a, i)
    expected = _ufuncs.py_func(a, i)
    for g, e in zip(got, expected, strict=True):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(g, e)


def test_gcd_of_floats_is_a_typing_error():
    with pytest.raises(TypingError):
        ember.njit(lambda a: np.gcd(a, 2))(np.ones(2))


@ember.njit
def _conditions(m, tol):
    return (
        np.linalg.cond(m),
        np.linalg.cond(m, 1),
        np.linalg.cond(m, np.inf),
        np.linalg.cond(m, -2),
        np.linalg.cond(m, "fro"),
        np.linalg.cond(m, "nuc"),
        np.linalg.matrix_rank(m),
        np.linalg.matrix_rank(m, tol),
    )


@pytest.mark.parametrize(
    "m",
    [
        np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]]),
        np.array([[1.0, 2.0], [2.0, 4.0 + 1e-9]]),
        np.arange(9.0).reshape(3, 3)[::-1] + np.eye(3),
    ],
)
def test_cond_and_matrix_rank(m):
    for tol in (1e-3, 10.0):
        expected = (
            np.linalg.cond(m),
            np.linalg.cond(m, 1),
            np.linalg.cond(m, np.inf),
            np.linalg.cond(m, -2),
            np.linalg.cond(m, "fro"),
            np.linalg.cond(m, "nuc"),
            np.linalg.matrix_rank(m),
            np.linalg.matrix_rank(m, tol),
        )
        got = _conditions(m, tol)
        np.testing.assert_allclose(got[:6], expected[:6], rtol=1e-7)
        assert got[6:] == expected[6:]


@ember.njit
def _matrix_norms(m):
    return (
        np.linalg.norm(m, 2),
        np.linalg.norm(m, -2),
        np.linalg.norm(m, "fro"),
        np.linalg.norm(m, "nuc"),
    )


@pytest.mark.parametrize("m", _MATRICES)
def test_matrix_norms_by_singular_values(m):
    expected = (
        np.linalg.norm(m, 2),
        np.linalg.norm(m, -2),
        np.linalg.norm(m, "fro"),
        np.linalg.norm(m, "nuc"),
    )
    np.testing.assert_allclose(_matrix_norms(m), expected, rtol=1e-12)


def test_bad_matrix_norm_order_raises():
    with pytest.raises(ValueError, match="Invalid norm order"):
        ember.njit(lambda m: np.linalg.norm(m, 3))(np.eye(2))


@ember.njit
def _roots(p):
    return np.roots(p)


@pytest.mark.parametrize(
    "p",
    [
        np.array([1.0, -3.0, 2.0]),
        np.array([0.0, 1.0, -1.0, 0.0]),
        np.array([0.0, 0.0]),
        np.array([3]),
        np.array([2, -4, 0, 0]),
        np.array([1.0, -6.0, 11.0, -6.0]),
    ],
)
def test_roots(p):
    got, expected = _roots(p), np.roots(p)
    assert got.shape == expected.shape and got.dtype == np.float64
    np.testing.assert_allclose(np.sort(got), np.sort(expected.real), atol=1e-12)


def test_complex_roots_are_a_value_error_as_in_numba():
    with pytest.raises(ValueError, match="domain change"):
        _roots(np.array([1.0, 0.0, 1.0]))


@ember.njit
def _two_outputs(a, i, s):
    return (
        np.divmod(a, 0.75),
        np.divmod(i, 3),
        np.modf(a),
        np.modf(i),
        np.modf(s),
        np.frexp(a),
        np.frexp(a.astype(np.float32)),
        np.frexp(i),
        np.logaddexp2(a, 0.5),
    )


def test_two_output_ufuncs_and_logaddexp2_bit_for_bit():
    a = np.array([1.5, -2.0, 0.25, 0.0, -0.0, -0.75, np.inf, -np.inf, np.nan, 1e-310, -3e-320])
    i = np.array([3, -4, 0, 12, 9, -7, 1, 2, 5, 6, 8])
    with np.errstate(all="ignore"):
        expected = _two_outputs.py_func(a, i, -2.5)
    got = _two_outputs(a, i, -2.5)
    for g, e in zip(got[:-1], expected[:-1], strict=True):
        for part_got, part_expected in zip(g, e, strict=True):
            assert np.asarray(part_got).dtype == np.asarray(part_expected).dtype
            np.testing.assert_array_equal(part_got, part_expected)
            np.testing.assert_array_equal(np.signbit(part_got), np.signbit(part_expected))
    np.testing.assert_allclose(got[-1], expected[-1], rtol=1e-15)


@ember.njit
def _count_nonzero(a):
    return np.count_nonzero(a), np.count_nonzero(a, axis=0), np.count_nonzero(a, -1)


@pytest.mark.parametrize("a", [np.array([[3.0, 0, 2.0], [0, 7.0, -4.0]]), np.zeros((0, 2))])
def test_count_nonzero_along_an_axis(a):
    got, expected = _count_nonzero(a), _count_nonzero.py_func(a)
    assert got[0] == expected[0]
    for g, e in zip(got[1:], expected[1:]):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == e.dtype
