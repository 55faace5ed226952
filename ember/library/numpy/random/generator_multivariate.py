"""Generator.multinomial, Generator.dirichlet and Generator.choice with `p=` in compiled code, as
NumPy's Generator computes them from its C binomial, beta and gamma draws and uniforms."""

from __future__ import annotations

import numpy as np

from ember import types
from ember.decorators import njit
from ember.extending import overload_method
from ember.library.numpy.random.distributions_multivariate import _check_pvals, _size_kind
from ember.library.numpy.random.generator import _binomial_draw, _draw
from ember.library.numpy.random.weighted_choice import (
    choice_atol,
    float_vector,
    weighted_choice_impl,
)
from ember.library.numpy.support import NUMPY_ERRORS, as_type

jit = njit(**NUMPY_ERRORS)
_standard_gamma = _draw("random_standard_gamma", 1)
_beta = _draw("random_beta", 2)


@jit
def _multinomial_rows(rng, n, pvals, rows):
    """NumPy's random_multinomial per row: a binomial per category on what is left."""
    values = np.asarray(pvals, np.float64)
    _check_pvals(n, values)
    last = values.shape[0] - 1
    out = np.zeros((rows, values.shape[0]), np.int64)
    for row in range(rows):
        remaining_p = 1.0
        left = np.int64(n)
        for j in range(last):
            out[row, j] = _binomial_draw(rng, left, values[j] / remaining_p)
            left -= out[row, j]
            if left <= 0:
                break
            remaining_p -= values[j]
        if left > 0:
            out[row, last] = left
    return out


@jit
def _dirichlet_rows(rng, alpha, rows):
    """Normalised gammas; when every alpha is below 0.1, stick-breaking with betas instead (no
    0/0 when all gammas underflow), as NumPy's Generator."""
    values = np.asarray(alpha, np.float64)
    k = values.shape[0]
    for j in range(k):
        if values[j] < 0.0:
            raise ValueError("alpha < 0")
    out = np.zeros((rows, k))
    if k > 0 and values.max() < 0.1:
        tail_sums = np.empty(k)
        total = 0.0
        for j in range(k - 1, -1, -1):
            total += values[j]
            tail_sums[j] = total
        for row in range(rows):
            left = 1.0
            for j in range(k - 1):
                v = _beta(rng, values[j], tail_sums[j + 1])
                out[row, j] = left * v
                left *= 1.0 - v
                if tail_sums[j + 1] == 0.0:
                    break
            out[row, k - 1] = left
        return out
    for row in range(rows):
        total = 0.0
        for j in range(k):
            out[row, j] = _standard_gamma(rng, values[j])
            total += out[row, j]
        inverse = 1.0 / total
        for j in range(k):
            out[row, j] *= inverse
    return out


# size None: one row; an int or a tuple: that shape of rows
def _multinomial_one(rng, n, pvals, size=None):
    return _multinomial_rows(rng, n, pvals, 1)[0]


def _multinomial_vector(rng, n, pvals, size=None):
    return _multinomial_rows(rng, n, pvals, size)


def _multinomial_shaped(rng, n, pvals, size=None):
    rows = 1
    for extent in size:
        rows *= extent
    out = _multinomial_rows(rng, n, pvals, rows)
    return out.reshape(size + (out.shape[1],))


def _dirichlet_one(rng, alpha, size=None):
    return _dirichlet_rows(rng, alpha, 1)[0]


def _dirichlet_vector(rng, alpha, size=None):
    return _dirichlet_rows(rng, alpha, size)


def _dirichlet_shaped(rng, alpha, size=None):
    rows = 1
    for extent in size:
        rows *= extent
    out = _dirichlet_rows(rng, alpha, rows)
    return out.reshape(size + (out.shape[1],))


_MULTINOMIAL = {"none": _multinomial_one, "int": _multinomial_vector, "tuple": _multinomial_shaped}
_DIRICHLET = {"none": _dirichlet_one, "int": _dirichlet_vector, "tuple": _dirichlet_shaped}


@overload_method(types.NumPyRandomGeneratorType, "multinomial", jit_options=NUMPY_ERRORS)
def _generator_multinomial(self, n, pvals, size=None):
    size_kind = _size_kind("Generator.multinomial", as_type(size))
    if not isinstance(types.unliteral(n), types.Integer):
        return None
    return _MULTINOMIAL[size_kind] if float_vector(pvals) else None


@overload_method(types.NumPyRandomGeneratorType, "dirichlet", jit_options=NUMPY_ERRORS)
def _generator_dirichlet(self, alpha, size=None):
    size_kind = _size_kind("Generator.dirichlet", as_type(size))
    if not float_vector(alpha):
        return None
    return _DIRICHLET[size_kind]


@jit
def _generator_uniforms(rng, count):
    return rng.random(count)


def select_generator_weighted_choice(a, size, replace, p):
    """Generator.choice(a, size, replace, p) for a 1-d float array `p`, or None (generator.py's
    choice overload hands `p=` cases here)."""
    size_kind = _size_kind("Generator.choice", size)
    if not float_vector(p):
        return None
    from_array, sized = isinstance(a, types.Array), size_kind != "none"
    return weighted_choice_impl(_generator_uniforms, True, from_array, sized, choice_atol(p))
