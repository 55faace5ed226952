"""NumPy's window functions: bartlett, blackman, hamming, hanning and kaiser, each an array of M
float64 samples (empty for M < 1, [1.0] for M == 1), written in Python and compiled by ember."""

from __future__ import annotations

import numpy as np

from ember.decorators import njit
from ember.extending import overload
from ember.library.numpy.support import NUMPY_ERRORS, is_integer, is_number


def _symmetric_positions(M):
    """n = 1 - M, 3 - M, ..., M - 1: the sample positions NumPy centres its windows on."""
    return np.arange(1 - M, M, 2).astype(np.float64)


_positions = njit(**NUMPY_ERRORS)(_symmetric_positions)


def _bartlett(M):
    if M < 1:
        return np.empty(0, np.float64)
    if M == 1:
        return np.ones(1, np.float64)
    n = _positions(M)
    return np.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))


def _blackman(M):
    if M < 1:
        return np.empty(0, np.float64)
    if M == 1:
        return np.ones(1, np.float64)
    phase = np.pi * _positions(M) / (M - 1)
    return 0.42 + 0.5 * np.cos(phase) + 0.08 * np.cos(2.0 * phase)


def _cosine_window(offset):
    """hamming (0.54) and hanning (0.5): offset + (1 - offset) * cos(pi * n / (M - 1))."""

    def window(M):
        if M < 1:
            return np.empty(0, np.float64)
        if M == 1:
            return np.ones(1, np.float64)
        return offset + (1.0 - offset) * np.cos(np.pi * _positions(M) / (M - 1))

    return window


def _bessel_i0(x):
    """The modified Bessel function I0 by its power series: every term is positive, so the sum
    keeps double precision; it stops once a term no longer changes the total."""
    quarter_square = x * x / 4.0
    term = 1.0
    total = 1.0
    k = 1
    while True:
        term *= quarter_square / (k * k)
        if total + term == total:
            return total
        total += term
        k += 1


_i0 = njit(**NUMPY_ERRORS)(_bessel_i0)


def _kaiser(M, beta):
    if M < 1:
        return np.empty(0, np.float64)
    if M == 1:
        return np.ones(1, np.float64)
    alpha = (M - 1) / 2.0
    out = np.empty(M, np.float64)
    scale = _i0(float(beta))
    for i in range(M):
        ratio = (i - alpha) / alpha
        out[i] = _i0(beta * np.sqrt(max(1.0 - ratio * ratio, 0.0))) / scale
    return out


def _register(function, impl) -> None:
    @overload(function, jit_options=NUMPY_ERRORS)
    def _select(M):
        return impl if is_integer(M) else None


_register(np.bartlett, _bartlett)
_register(np.blackman, _blackman)
_register(np.hamming, _cosine_window(0.54))
_register(np.hanning, _cosine_window(0.5))


@overload(np.kaiser, jit_options=NUMPY_ERRORS)
def _select_kaiser(M, beta):
    return _kaiser if is_integer(M) and is_number(beta) else None
