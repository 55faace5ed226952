"""np.random.multinomial, np.random.dirichlet and np.random.choice with probabilities `p=` in
compiled code, by NumPy's legacy RandomState algorithms on legacy.py's state (a binomial per
category; normalised gammas; searching the normalised cumulative sum of `p` with uniforms)."""

from __future__ import annotations

import numpy as np

from ember import types
from ember.decorators import njit
from ember.extending import overload
from ember.library.numpy.random.distributions import _standard_gamma
from ember.library.numpy.random.distributions_discrete import _binomial
from ember.library.numpy.random.legacy import _next_double, sized
from ember.library.numpy.random.weighted_choice import (
    choice_atol,
    float_vector,
    kahan_sum,
    weighted_choice_impl,
)
from ember.library.numpy.support import NUMPY_ERRORS, as_type

jit = njit(**NUMPY_ERRORS)


@jit
def _multinomial_row(out, n, pvals):
    """One draw: a binomial per category on what the earlier ones left (NumPy's
    random_multinomial, whose binomial returns 0 without drawing for n == 0 or p == 0)."""
    remaining_p = 1.0
    left = n
    last = pvals.shape[0] - 1
    for j in range(last):
        p = pvals[j] / remaining_p
        out[j] = 0 if left == 0 or p == 0.0 else _binomial(left, p)
        left -= out[j]
        if left <= 0:
            break
        remaining_p -= pvals[j]
    if left > 0:
        out[last] = left


@jit
def _check_pvals(n, pvals):
    for j in range(pvals.shape[0]):
        if not (0.0 <= pvals[j] <= 1.0):
            raise ValueError("pvals < 0, pvals > 1 or pvals contains NaNs")
    if kahan_sum(pvals, pvals.shape[0] - 1) > 1.0 + 1e-12:
        raise ValueError("sum(pvals[:-1]) > 1.0")
    if n < 0:
        raise ValueError("n < 0")


@jit
def _dirichlet_row(out, alpha):
    total = 0.0
    for j in range(alpha.shape[0]):
        out[j] = _standard_gamma(alpha[j])
        total += out[j]
    inverse = 1.0 / total
    for j in range(alpha.shape[0]):
        out[j] *= inverse


@jit
def _check_alpha(alpha):
    for j in range(alpha.shape[0]):
        if alpha[j] <= 0.0:
            raise ValueError("alpha <= 0")


@jit
def _multinomial_rows(n, pvals, rows):
    values = np.asarray(pvals, np.float64)
    _check_pvals(n, values)
    out = np.zeros((rows, values.shape[0]), np.int64)
    for i in range(rows):
        _multinomial_row(out[i], np.int64(n), values)
    return out


@jit
def _dirichlet_rows(alpha, rows):
    values = np.asarray(alpha, np.float64)
    _check_alpha(values)
    out = np.empty((rows, values.shape[0]))
    for i in range(rows):
        _dirichlet_row(out[i], values)
    return out


# size None: one row; an int or a tuple: that shape of rows
def _multinomial_one(n, pvals, size=None):
    return _multinomial_rows(n, pvals, 1)[0]


def _multinomial_vector(n, pvals, size=None):
    return _multinomial_rows(n, pvals, size)


def _multinomial_shaped(n, pvals, size=None):
    rows = 1
    for extent in size:
        rows *= extent
    out = _multinomial_rows(n, pvals, rows)
    return out.reshape(size + (out.shape[1],))


def _dirichlet_one(alpha, size=None):
    return _dirichlet_rows(alpha, 1)[0]


def _dirichlet_vector(alpha, size=None):
    return _dirichlet_rows(alpha, size)


def _dirichlet_shaped(alpha, size=None):
    rows = 1
    for extent in size:
        rows *= extent
    out = _dirichlet_rows(alpha, rows)
    return out.reshape(size + (out.shape[1],))


_MULTINOMIAL = {"none": _multinomial_one, "int": _multinomial_vector, "tuple": _multinomial_shaped}
_DIRICHLET = {"none": _dirichlet_one, "int": _dirichlet_vector, "tuple": _dirichlet_shaped}


def _size_kind(name: str, size) -> str:
    if not sized(name, size) or size == types.Tuple(()):  # size=(): one row, as None
        return "none"
    return "int" if isinstance(types.unliteral(size), types.Integer) else "tuple"


@overload(np.random.multinomial, jit_options=NUMPY_ERRORS)
def _select_multinomial(n, pvals, size=None):
    size_kind = _size_kind("multinomial", as_type(size))
    if not isinstance(types.unliteral(n), types.Integer):
        return None
    if not float_vector(pvals):
        return None
    return _MULTINOMIAL[size_kind]


@overload(np.random.dirichlet, jit_options=NUMPY_ERRORS)
def _select_dirichlet(alpha, size=None):
    size_kind = _size_kind("dirichlet", as_type(size))
    if not float_vector(alpha):
        return None
    return _DIRICHLET[size_kind]


# ---------------------------------------------------------------------------- choice with p


@jit
def _legacy_uniforms(source, count):
    out = np.empty(count)
    for i in range(count):
        out[i] = _next_double()
    return out


def select_weighted_choice(a, size, replace, p):
    """The implementation of np.random.choice(a, size, replace, p) for a 1-d float array `p`,
    or None (distributions.py's choice overload hands `p=` cases here)."""
    size_kind = _size_kind("choice", size)
    if not float_vector(p):
        return None
    from_array, sized = isinstance(a, types.Array), size_kind != "none"
    return weighted_choice_impl(_legacy_uniforms, False, from_array, sized, choice_atol(p))
