"""np.random.multinomial, np.random.dirichlet and np.random.choice with probabilities `p=` in
compiled code, by NumPy's legacy RandomState algorithms on legacy.py's state (a binomial per
category; normalised gammas; searching the normalised cumulative sum of `p` with uniforms)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.extending import overload
from ember.library.numpy.random.distributions import _choice_helpers, _standard_gamma
from ember.library.numpy.random.distributions_discrete import _binomial
from ember.library.numpy.random.legacy import _is_size, _next_double
from ember.library.numpy.support import NUMPY_ERRORS, as_type

jit = njit(**NUMPY_ERRORS)


@jit
def _kahan_sum(values, count):
    """The compensated sum of values[:count], as NumPy's parameter checks add them."""
    if count <= 0:
        return 0.0
    total = values[0]
    carry = 0.0
    for i in range(1, count):
        y = values[i] - carry
        t = total + y
        carry = (t - total) - y
        total = t
    return total


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
    if _kahan_sum(pvals, pvals.shape[0] - 1) > 1.0 + 1e-12:
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
    values = pvals.astype(np.float64)
    _check_pvals(n, values)
    out = np.zeros((rows, values.shape[0]), np.int64)
    for i in range(rows):
        _multinomial_row(out[i], np.int64(n), values)
    return out


@jit
def _dirichlet_rows(alpha, rows):
    values = alpha.astype(np.float64)
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


def _size_kind(size) -> str | None:
    if isinstance(size, types.NoneType):
        return "none"
    if not _is_size(size):
        return None
    return "int" if isinstance(types.unliteral(size), types.Integer) else "tuple"


def _float_vector(typ) -> bool:
    return isinstance(typ, types.Array) and typ.ndim == 1 and isinstance(typ.dtype, types.Float)


@overload(np.random.multinomial, jit_options=NUMPY_ERRORS)
def _select_multinomial(n, pvals, size=None):
    size_kind = _size_kind(as_type(size))
    if size_kind is None or not isinstance(types.unliteral(n), types.Integer):
        return None
    if not _float_vector(pvals):
        return None
    return _MULTINOMIAL[size_kind]


@overload(np.random.dirichlet, jit_options=NUMPY_ERRORS)
def _select_dirichlet(alpha, size=None):
    size_kind = _size_kind(as_type(size))
    if size_kind is None or not _float_vector(alpha):
        return None
    return _DIRICHLET[size_kind]


# ---------------------------------------------------------------------------- choice with p


@jit
def _normalised_cdf(weights):
    """cumsum(weights) / its last value, as NumPy's choice computes it."""
    cdf = np.empty(weights.shape[0])
    total = 0.0
    for i in range(weights.shape[0]):
        total += weights[i]
        cdf[i] = total
    last = cdf[-1]
    for i in range(cdf.shape[0]):
        cdf[i] /= last
    return cdf


@jit
def _search_right(cdf, x):
    """The first index whose cumulative value exceeds x (searchsorted, side='right')."""
    low = 0
    high = cdf.shape[0]
    while low < high:
        middle = (low + high) // 2
        if cdf[middle] > x:
            high = middle
        else:
            low = middle + 1
    return low


@jit
def _check_probabilities(p, count, atol):
    if p.shape[0] != count:
        raise ValueError("'a' and 'p' must have same size")
    total = _kahan_sum(p, p.shape[0])
    if np.isnan(total):
        raise ValueError("probabilities contain NaN")
    for i in range(p.shape[0]):
        if p[i] < 0.0:
            raise ValueError("probabilities are not non-negative")
    if abs(total - 1.0) > atol:
        raise ValueError("probabilities do not sum to 1")


@jit
def _weighted_indices(p, count):
    """`count` indices drawn with replacement: one uniform each, searched in the cdf."""
    cdf = _normalised_cdf(p)
    out = np.empty(count, np.int64)
    for i in range(count):
        out[i] = _search_right(cdf, _next_double())
    return out


@jit
def _weighted_distinct_indices(p, population, count):
    """`count` distinct indices as NumPy draws them: rounds of uniforms for the missing ones
    against the cdf with the found indices' weights zeroed, keeping each round's new indices in
    order of first appearance."""
    if count > population:
        raise ValueError("Cannot take a larger sample than population when 'replace=False'")
    positive = 0
    for i in range(p.shape[0]):
        if p[i] > 0.0:
            positive += 1
    if positive < count:
        raise ValueError("Fewer non-zero entries in p than size")
    weights = p.copy()
    found = np.zeros(count, np.int64)
    taken = np.zeros(population, np.bool_)
    found_count = 0
    while found_count < count:
        uniforms = np.empty(count - found_count)
        for i in range(uniforms.shape[0]):
            uniforms[i] = _next_double()
        for i in range(found_count):
            weights[found[i]] = 0.0
        cdf = _normalised_cdf(weights)
        batch_start = found_count
        for x in uniforms:
            index = _search_right(cdf, x)
            if not taken[index]:
                taken[index] = True
                found[found_count] = index
                found_count += 1
        for i in range(batch_start, found_count):
            taken[found[i]] = False  # only repeats within a round are merged, as np.unique
    return found


@functools.cache
def _weighted_choice_impl(from_array: bool, sized: bool, atol: float):
    population, pick, take_all = _choice_helpers(from_array)

    def indices(a, count, replace, p):
        weights = p.astype(np.float64)
        total = population(a)
        _check_probabilities(weights, total, atol)
        if replace:
            return _weighted_indices(weights, count)
        return _weighted_distinct_indices(weights, total, count)

    draw = jit(indices)
    if not sized:

        def choice_one(a, size, replace, p):
            return pick(a, draw(a, 1, replace, p)[0])

        return choice_one

    def choice_many(a, size, replace, p):
        out = np.empty(size, np.int64)
        flat = out.ravel()
        flat[:] = draw(a, flat.shape[0], replace, p)
        return take_all(a, out)

    return choice_many


def select_weighted_choice(a, size, replace, p):
    """The implementation of np.random.choice(a, size, replace, p) for a 1-d float array `p`,
    or None (distributions.py's choice overload hands `p=` cases here)."""
    if not _float_vector(p):
        return None
    size_kind = _size_kind(size)
    if size_kind is None:
        return None
    atol = max(float(np.sqrt(np.finfo(np.float64).eps)), float(np.sqrt(np.finfo(str(p.dtype)).eps)))
    return _weighted_choice_impl(isinstance(a, types.Array), size_kind != "none", atol)
