"""np.random's further discrete distributions in compiled code (binomial, negative_binomial,
geometric, hypergeometric, logseries, zipf), each by the algorithm of NumPy's legacy RandomState
(inversion or BTPE binomial, HYP or HRUA hypergeometric), on legacy.py's state."""

from __future__ import annotations

import numpy as np

from ember.decorators import njit
from ember.library.numpy.random.distributions import (
    _loggam,
    _poisson,
    _standard_gamma,
    register_distributions,
)
from ember.library.numpy.random.legacy import _next_double
from ember.library.numpy.support import NUMPY_ERRORS

jit = njit(**NUMPY_ERRORS)


@jit
def _binomial_inversion(n, p):
    """Count successes by walking the probability table from 0; past a bound far in the
    tail, restart with a new uniform (NumPy's inversion for n * p <= 30)."""
    q = 1.0 - p
    q_to_n = np.exp(n * np.log(q))
    mean = n * p
    bound = np.int64(min(float(n), mean + 10.0 * np.sqrt(mean * q + 1.0)))
    x = np.int64(0)
    px = q_to_n
    u = _next_double()
    while u > px:
        x += 1
        if x > bound:
            x = np.int64(0)
            px = q_to_n
            u = _next_double()
        else:
            u -= px
            px = ((n - x + 1) * p * px) / (x * q)
    return x


@jit
def _stirling_tail(x, x2):
    return (13680.0 - (462.0 - (132.0 - (99.0 - 140.0 / x2) / x2) / x2) / x2) / x / 166320.0


@jit
def _btpe_accepts(n, y, m, r, q, v, xm):
    """BTPE's final test of candidate `y` against the target density at `v`."""
    k = abs(y - m)
    nrq = n * r * q
    if not (k > 20 and k < nrq / 2.0 - 1.0):  # explicit product of ratios from the mode
        s = r / q
        a = s * (n + 1)
        f = 1.0
        if m < y:
            for i in range(m + 1, y + 1):
                f *= a / i - s
        elif m > y:
            for i in range(y + 1, m + 1):
                f /= a / i - s
        return v <= f
    rho = (k / nrq) * ((k * (k / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5)
    t = -k * k / (2.0 * nrq)
    log_v = np.log(v)
    if log_v < t - rho:
        return True
    if log_v > t + rho:
        return False
    x1 = y + 1.0
    f1 = m + 1.0
    z = float(n + 1 - m)
    w = float(n - y + 1)
    bound = (
        xm * np.log(f1 / x1)
        + (n - m + 0.5) * np.log(z / w)
        + (y - m) * np.log(w * r / (x1 * q))
        + _stirling_tail(f1, f1 * f1)
        + _stirling_tail(z, z * z)
        + _stirling_tail(x1, x1 * x1)
        + _stirling_tail(w, w * w)
    )
    return log_v <= bound


@jit
def _binomial_btpe(n, p):
    """Kachitvichyanukul and Schmeiser's BTPE (triangle, parallelograms, exponential tails),
    as NumPy's random_binomial_btpe, for p <= 1/2 and n * p > 30."""
    r = p
    q = 1.0 - r
    fm = n * r + r
    m = np.int64(np.floor(fm))
    p1 = np.floor(2.195 * np.sqrt(n * r * q) - 4.6 * q) + 0.5
    xm = m + 0.5
    xl = xm - p1
    xr = xm + p1
    c = 0.134 + 20.5 / (15.3 + m)
    a = (fm - xl) / (fm - xl * r)
    lam_left = a * (1.0 + a / 2.0)
    a = (xr - fm) / (xr * q)
    lam_right = a * (1.0 + a / 2.0)
    p2 = p1 * (1.0 + 2.0 * c)
    p3 = p2 + c / lam_left
    p4 = p3 + c / lam_right
    while True:
        u = _next_double() * p4
        v = _next_double()
        if u <= p1:  # the triangle: accepted at once
            return np.int64(np.floor(xm - p1 * v + u))
        if u <= p2:
            x = xl + (u - p1) / c
            v = v * c + 1.0 - abs(m - x + 0.5) / p1
            if v > 1.0:
                continue
            y = np.int64(np.floor(x))
        elif u <= p3:
            y = np.int64(np.floor(xl + np.log(v) / lam_left))
            if y < 0 or v == 0.0:
                continue
            v = v * (u - p2) * lam_left
        else:
            y = np.int64(np.floor(xr - np.log(v) / lam_right))
            if y > n or v == 0.0:
                continue
            v = v * (u - p3) * lam_right
        if _btpe_accepts(n, y, m, r, q, v, xm):
            return y


@jit
def _binomial(n, p):
    """NumPy's legacy binomial: no shortcut for n == 0 or p == 0 (a uniform is drawn)."""
    if p <= 0.5:
        if p * n <= 30.0:
            return _binomial_inversion(n, p)
        return _binomial_btpe(n, p)
    q = 1.0 - p
    if q * n <= 30.0:
        return n - _binomial_inversion(n, q)
    return n - _binomial_btpe(n, q)


@jit
def _negative_binomial(n, p):
    return _poisson(_standard_gamma(n) * ((1.0 - p) / p))


@jit
def _geometric(p):
    if p >= 0.333333333333333333333333:  # search the table from 1
        x = np.int64(1)
        total = p
        term = p
        q = 1.0 - p
        u = _next_double()
        while u > total:
            term *= q
            total += term
            x += 1
        return x
    return np.int64(np.ceil(np.log1p(-_next_double()) / np.log(1.0 - p)))


@jit
def _hypergeometric_hyp(good, bad, sample):
    """Draw one by one without replacement (NumPy's HYP, for samples up to 10)."""
    d1 = bad + good - sample
    d2 = float(min(bad, good))
    y = d2
    k = sample
    while y > 0.0:
        u = _next_double()
        y -= np.int64(np.floor(u + y / (d1 + k)))
        k -= 1
        if k == 0:
            break
    z = np.int64(d2 - y)
    if good > bad:
        z = sample - z
    return z


@jit
def _log_factorials(a, b, c, d):
    return _loggam(a + 1.0) + _loggam(b + 1.0) + _loggam(c + 1.0) + _loggam(d + 1.0)


@jit
def _hypergeometric_hrua(good, bad, sample):
    """Stadlober's ratio-of-uniforms HRUA* with Frohne's corrections, as NumPy's legacy."""
    fewer = min(good, bad)
    population = good + bad
    more = max(good, bad)
    m = min(sample, population - sample)
    d4 = fewer / population
    d5 = 1.0 - d4
    d6 = m * d4 + 0.5
    d7 = np.sqrt(float(population - m) * sample * d4 * d5 / (population - 1) + 0.5)
    d8 = 1.7155277699214135 * d7 + 0.8989161620588988  # 2 sqrt(2/e), 3 - 2 sqrt(3/e)
    d9 = np.int64(np.floor(float(m + 1) * (fewer + 1) / (population + 2)))
    d10 = _log_factorials(d9, fewer - d9, m - d9, more - m + d9)
    d11 = min(min(m, fewer) + 1.0, np.floor(d6 + 16.0 * d7))
    while True:
        x = _next_double()
        y = _next_double()
        w = d6 + d8 * (y - 0.5) / x
        if w < 0.0 or w >= d11:
            continue
        z = np.int64(np.floor(w))
        t = d10 - _log_factorials(z, fewer - z, m - z, more - m + z)
        if x * (4.0 - x) - 3.0 <= t:
            break
        if x * (x - t) >= 1.0:
            continue
        if 2.0 * np.log(x) <= t:
            break
    if good > bad:
        z = m - z
    if m < sample:
        z = good - z
    return z


@jit
def _hypergeometric(good, bad, sample):
    if sample > 10:
        return _hypergeometric_hrua(good, bad, sample)
    if sample > 0:
        return _hypergeometric_hyp(good, bad, sample)
    return np.int64(0)


@jit
def _logseries(p):
    r = np.log(1.0 - p)
    while True:
        v = _next_double()
        if v >= p:
            return np.int64(1)
        u = _next_double()
        q = 1.0 - np.exp(r * u)
        if v <= q * q:
            result = np.int64(np.floor(1.0 + np.log(v) / np.log(q)))
            if result < 1 or v == 0.0:
                continue
            return result
        if v >= q:
            return np.int64(1)
        return np.int64(2)


@jit
def _zipf(a):
    am1 = a - 1.0
    b = 2.0**am1
    while True:
        u = 1.0 - _next_double()
        v = _next_double()
        x = np.floor(u ** (-1.0 / am1))
        if x > 9.223372036854775807e18 or x < 1.0:  # outside int64: NumPy truncates by rejection
            continue
        t = (1.0 + 1.0 / x) ** am1
        if v * x * (t - 1.0) / (b - 1.0) <= t / b:
            return np.int64(x)


# name -> (parameters with defaults, argument checks, the draw as an expression, result dtype)
_P_RANGE = "p < 0, p > 1 or p is NaN"
_DISCRETE = {
    "binomial": ("n, p", [("not (0 <= p <= 1)", _P_RANGE), ("n < 0", "n < 0")],
                 "binomial(np.int64(n), float(p))", "int64"),
    "negative_binomial": ("n, p", [("n <= 0", "n <= 0"), ("not (0 <= p <= 1)", _P_RANGE)],
                          "negative_binomial(float(n), float(p))", "int64"),
    "geometric": ("p", [("not (0 < p <= 1)", "p <= 0, p > 1 or p contains NaNs")],
                  "geometric(float(p))", "int64"),
    "hypergeometric": ("ngood, nbad, nsample", [("ngood + nbad < nsample",
                       "ngood + nbad < nsample"), ("ngood < 0", "ngood < 0"),
                       ("nbad < 0", "nbad < 0"), ("nsample < 1", "nsample < 1 or nsample is NaN")],
                       "hypergeometric(np.int64(ngood), np.int64(nbad), np.int64(nsample))",
                       "int64"),
    "logseries": ("p", [("not (0 <= p < 1)", "p < 0, p >= 1 or p is NaN")],
                  "logseries(float(p))", "int64"),
    "zipf": ("a", [("not a > 1", "a <= 1 or a is NaN")], "zipf(float(a))", "int64"),
}  # fmt: skip

register_distributions(
    _DISCRETE,
    {
        "binomial": _binomial,
        "negative_binomial": _negative_binomial,
        "geometric": _geometric,
        "hypergeometric": _hypergeometric,
        "logseries": _logseries,
        "zipf": _zipf,
    },
)
