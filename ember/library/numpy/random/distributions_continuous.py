"""The rest of np.random's continuous distributions in compiled code (f, gumbel, logistic, pareto,
power, rayleigh, standard_cauchy, standard_t, triangular, vonmises, wald, weibull, noncentral
chi-square and F), each by the algorithm of NumPy's legacy RandomState, on legacy.py's state."""

from __future__ import annotations

import numpy as np

from ember.decorators import njit
from ember.library.numpy.random.distributions import (
    _poisson,
    _standard_exponential,
    _standard_gamma,
    register_distributions,
)
from ember.library.numpy.random.legacy import _next_double, _next_gauss
from ember.library.numpy.support import NUMPY_ERRORS

jit = njit(**NUMPY_ERRORS)


@jit
def _chisquare(df):
    return 2.0 * _standard_gamma(df / 2.0)


@jit
def _gumbel(loc, scale):
    u = 1.0 - _next_double()
    while u >= 1.0:  # u == 1 would take log(0): NumPy draws again
        u = 1.0 - _next_double()
    return loc - scale * np.log(-np.log(u))


@jit
def _logistic(loc, scale):
    u = _next_double()
    while u <= 0.0:
        u = _next_double()
    return loc + scale * np.log(u / (1.0 - u))


@jit
def _weibull(a):
    if a == 0.0:
        return 0.0
    return _standard_exponential() ** (1.0 / a)


@jit
def _standard_t(df):
    numerator = _next_gauss()
    denominator = _standard_gamma(df / 2.0)
    return np.sqrt(df / 2.0) * numerator / np.sqrt(denominator)


@jit
def _standard_cauchy():
    numerator = _next_gauss()
    return numerator / _next_gauss()


@jit
def _triangular(left, mode, right):
    base = right - left
    left_base = mode - left
    ratio = left_base / base
    left_product = left_base * base
    right_product = (right - mode) * base
    u = _next_double()
    if u <= ratio:
        return left + np.sqrt(u * left_product)
    return right - np.sqrt((1.0 - u) * right_product)


@jit
def _wald(mean, scale):
    mu_over_2l = mean / (2.0 * scale)
    y = _next_gauss()
    y = mean * y * y
    x = mean + mu_over_2l * (y - np.sqrt(4.0 * scale * y + y * y))
    u = _next_double()
    if u <= mean / (mean + x):
        return x
    return mean * mean / x


@jit
def _vonmises(mu, kappa):
    if np.isnan(kappa):
        return np.nan
    if kappa < 1e-8:
        return np.pi * (2.0 * _next_double() - 1.0)
    if kappa < 1e-5:  # rho underflows: second-order Taylor expansion around kappa = 0
        s = 1.0 / kappa + kappa
    else:
        r = 1.0 + np.sqrt(1.0 + 4.0 * kappa * kappa)
        rho = (r - np.sqrt(2.0 * r)) / (2.0 * kappa)
        s = (1.0 + rho * rho) / (2.0 * rho)
    while True:
        z = np.cos(np.pi * _next_double())
        w = (1.0 + s * z) / (s + z)
        y = kappa * (s - w)
        v = _next_double()
        if y * (2.0 - y) - v >= 0.0 or np.log(y / v) + 1.0 - y >= 0.0:
            break
    u = _next_double()
    result = np.arccos(w)
    if u < 0.5:
        result = -result
    result += mu
    was_negative = result < 0.0
    wrapped = np.fmod(abs(result) + np.pi, 2.0 * np.pi) - np.pi
    return -wrapped if was_negative else wrapped


@jit
def _noncentral_chisquare(df, nonc):
    if nonc == 0.0:
        return _chisquare(df)
    if df > 1.0:
        chi2 = _chisquare(df - 1.0)
        n = _next_gauss() + np.sqrt(nonc)
        return chi2 + n * n
    count = _poisson(nonc / 2.0)
    out = _chisquare(df + 2.0 * count)
    return np.nan if np.isnan(nonc) else out  # after the draws, as NumPy: same stream


@jit
def _noncentral_f(dfnum, dfden, nonc):
    t = _noncentral_chisquare(dfnum, nonc) * dfden
    return t / (_chisquare(dfden) * dfnum)


@jit
def _f(dfnum, dfden):
    numerator = _chisquare(dfnum) * dfden
    return numerator / (_chisquare(dfden) * dfnum)


# name -> (parameters with defaults, argument checks, the draw as an expression, result dtype);
# as NumPy's, NaN passes the checks and -0.0 is negative
_CONTINUOUS = {
    "f": ("dfnum, dfden", [("dfnum <= 0", "dfnum <= 0"), ("dfden <= 0", "dfden <= 0")],
          "f(dfnum, dfden)", "float64"),
    "gumbel": ("loc=0.0, scale=1.0", [("negative(scale)", "scale < 0")], "gumbel(loc, scale)",
               "float64"),
    "logistic": ("loc=0.0, scale=1.0", [("negative(scale)", "scale < 0")], "logistic(loc, scale)",
                 "float64"),
    "pareto": ("a", [("a <= 0", "a <= 0")], "np.exp(standard_exponential() / a) - 1.0",
               "float64"),
    "power": ("a", [("a <= 0", "a <= 0")],
              "(1.0 - np.exp(-standard_exponential())) ** (1.0 / a)", "float64"),
    "rayleigh": ("scale=1.0", [("negative(scale)", "scale < 0")],
                 "scale * np.sqrt(-2.0 * np.log1p(-next_double()))", "float64"),
    "standard_cauchy": ("", [], "standard_cauchy()", "float64"),
    "standard_t": ("df", [("df <= 0", "df <= 0")], "standard_t(df)", "float64"),
    "triangular": ("left, mode, right", [("left > mode", "left > mode"),
                   ("mode > right", "mode > right"), ("left == right", "left == right")],
                   "triangular(left, mode, right)", "float64"),
    "vonmises": ("mu, kappa", [("negative(kappa)", "kappa < 0")], "vonmises(mu, kappa)", "float64"),
    "wald": ("mean, scale", [("mean <= 0", "mean <= 0"), ("scale <= 0", "scale <= 0")],
             "wald(mean, scale)", "float64"),
    "weibull": ("a", [("negative(a)", "a < 0")], "weibull(a)", "float64"),
    "noncentral_chisquare": ("df, nonc", [("df <= 0", "df <= 0"), ("negative(nonc)", "nonc < 0")],
                             "noncentral_chisquare(df, nonc)", "float64"),
    "noncentral_f": ("dfnum, dfden, nonc", [("dfnum <= 0", "dfnum <= 0"),
                     ("dfden <= 0", "dfden <= 0"), ("negative(nonc)", "nonc < 0")],
                     "noncentral_f(dfnum, dfden, nonc)", "float64"),
}  # fmt: skip

register_distributions(
    _CONTINUOUS,
    {
        "next_double": _next_double,
        "f": _f,
        "gumbel": _gumbel,
        "logistic": _logistic,
        "standard_cauchy": _standard_cauchy,
        "standard_t": _standard_t,
        "triangular": _triangular,
        "vonmises": _vonmises,
        "wald": _wald,
        "weibull": _weibull,
        "noncentral_chisquare": _noncentral_chisquare,
        "noncentral_f": _noncentral_f,
    },
)
