"""NumPy's array functions in jitted code given inputs beyond real arrays: numbers (taken as the
0-d arrays NumPy's `asarray` makes of them) and complex arrays (the NaN-skipping functions,
average, cov, corrcoef, ptp); results are checked against NumPy on the same inputs."""

import warnings

import numpy as np
import pytest

import ember
from tests.oracle import assert_frees_all


def _equal(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _equal(g, w)
        return
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12)
        return
    assert np.asarray(got).dtype.kind == np.asarray(want).dtype.kind
    assert got == pytest.approx(want, rel=1e-12, nan_ok=True)


ONE_ARGUMENT = [
    "mean", "all", "any", "cumsum", "cumprod", "prod", "sum", "ptp", "nanmin", "nanmax",
    "nanmean", "nansum", "average", "median", "std", "var", "flatnonzero", "ascontiguousarray",
    "asfortranarray", "diagflat", "ediff1d", "histogram", "argmax", "argmin", "unique",
    "count_nonzero", "ravel", "atleast_2d", "nancumsum",
]  # fmt: skip


@pytest.mark.parametrize("name", ONE_ARGUMENT)
@pytest.mark.parametrize("value", [2.5, -3, True])
def test_a_number_is_taken_as_a_0d_array(name, value):
    numpy_function = getattr(np, name)
    jitted = ember.njit(lambda a: numpy_function(a))
    try:
        want = numpy_function(value)
    except TypeError:  # NumPy refuses booleans where it subtracts them: so does ember
        with pytest.raises((TypeError, ember.errors.TypingError)):
            jitted(value)
        return
    _equal(jitted(value), want)


@pytest.mark.parametrize(
    "call",
    [
        lambda a, q: np.percentile(a, q),
        lambda a, q: np.quantile(a, q / 100.0),
        lambda a, q: np.nanpercentile(a, q),
        lambda a, q: np.intersect1d(a, q),
        lambda a, q: np.ediff1d(a, q),
        lambda a, q: np.diagflat(a, 1),
    ],
)
@pytest.mark.parametrize("a, q", [(2.5, 30.0), (7, 50), (-1.0, 100.0)])
def test_numbers_beside_other_arguments(call, a, q):
    _equal(ember.njit(call)(a, q), call(a, q))


def test_an_array_beside_a_number():
    call = ember.njit(lambda a, b: (np.intersect1d(a, b), np.union1d(b, a)))
    a = np.array([5, 3, 9, 3])
    for b in (3, 4, 9):
        _equal(call(a, b), (np.intersect1d(a, b), np.union1d(b, a)))


def test_a_call_nothing_takes_still_says_which_function():
    with pytest.raises(ember.errors.TypingError, match="numpy.sort"):
        ember.njit(lambda a: np.sort(a))(2.5)  # NumPy: an AxisError for a 0-d array


def test_the_0d_array_is_freed():
    call = ember.njit(lambda a: (np.cumsum(a), np.mean(a), np.ravel(a)))
    assert_frees_all(call, lambda: 1.5)


_rng = np.random.RandomState(7)
_COMPLEX_1D = _rng.rand(6) + 1j * _rng.rand(6)
_COMPLEX_WITH_NAN = _COMPLEX_1D.copy()
_COMPLEX_WITH_NAN[[1, 4]] = [complex(np.nan, 1.0), complex(2.0, np.nan)]
_COMPLEX_2D = _rng.rand(3, 5) - 0.5 + 1j * (_rng.rand(3, 5) - 0.5)
_ALL_NAN = np.array([complex(np.nan, 0.0)] * 3)


def nancumsum_(a):
    return np.nancumsum(a)


def nancumprod_(a):
    return np.nancumprod(a)


def nanmean_(a):
    return np.nanmean(a)


def nanvar_(a):
    return np.nanvar(a)


def nanstd_(a):
    return np.nanstd(a)


def average_(a):
    return np.average(a)


def average_weighted(a):
    return np.average(a, weights=np.arange(a.size, dtype=np.float64) + 1.0)


def ptp_(a):
    return np.ptp(a)


def cov_(a):
    return np.cov(a)


def cov_columns(a):
    return np.cov(a, rowvar=False, ddof=0)


def cov_with_real_y(a):
    return np.cov(a, a.real[::-1].copy())


def corrcoef_(a):
    return np.corrcoef(a)


@pytest.mark.parametrize(
    "func",
    [nancumsum_, nancumprod_, nanmean_, nanvar_, nanstd_, average_, average_weighted, ptp_],
)
@pytest.mark.parametrize("name", ["plain", "with_nan", "all_nan", "complex64"])
def test_complex_arrays_in_nan_functions_and_averages(func, name):
    a = {
        "plain": _COMPLEX_1D,
        "with_nan": _COMPLEX_WITH_NAN,
        "all_nan": _ALL_NAN,
        "complex64": _COMPLEX_1D.astype(np.complex64),
    }[name]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = func(a.copy())
    got = ember.njit(func)(a.copy())
    np.testing.assert_allclose(got, want, rtol=1e-5 if name == "complex64" else 1e-12)
    assert np.iscomplexobj(got) == np.iscomplexobj(want)


@pytest.mark.parametrize("func", [cov_, cov_columns, cov_with_real_y, corrcoef_])
@pytest.mark.parametrize("a", [_COMPLEX_1D, _COMPLEX_2D], ids=["1d", "2d"])
def test_complex_covariance_is_hermitian_as_numpy(func, a):
    got, want = ember.njit(func)(a), func(a)
    assert np.shape(got) == np.shape(want) and np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_ptp_of_booleans_is_refused_as_numpy_refuses_it():
    with pytest.raises(TypeError):
        np.ptp(np.array([True, False]))
    with pytest.raises(ember.errors.TypingError, match="boolean subtract"):
        ember.njit(ptp_)(np.array([True, False]))


def fill_diagonal_(a, val):
    np.fill_diagonal(a, val)
    return a


def fill_diagonal_wrapped(a, val):
    np.fill_diagonal(a, val, wrap=True)
    return a


@pytest.mark.parametrize("func", [fill_diagonal_, fill_diagonal_wrapped])
@pytest.mark.parametrize("shape", [(3, 4), (7, 2), (3, 3, 3), (0, 0)])
@pytest.mark.parametrize(
    "val",
    [7.5, np.array([1.0, 2.0]), (1.5, 2.5, 3.5), np.empty(0)],
    ids=["float", "array2", "tuple3", "empty"],
)
def test_fill_diagonal_cycles_values_as_numpy(func, shape, val):
    got = ember.njit(func)(np.zeros(shape), val)
    want = func(np.zeros(shape), val)
    np.testing.assert_array_equal(got, want)


def test_fill_diagonal_truncates_into_integers_and_checks_dimensions():
    got = ember.njit(fill_diagonal_)(np.zeros((3, 3), np.int64), 2.7)
    np.testing.assert_array_equal(got, fill_diagonal_(np.zeros((3, 3), np.int64), 2.7))
    with pytest.raises(ValueError, match="equal length"):
        ember.njit(fill_diagonal_)(np.zeros((3, 3, 2)), 1.0)
