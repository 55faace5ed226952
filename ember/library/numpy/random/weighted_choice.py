"""np.random.choice with probabilities `p=` in compiled code, for the legacy functions and
Generator.choice alike: NumPy's checks, then uniforms searched in the normalised cumulative sum
of p (rounds of them, with found indices' weights zeroed, without replacement)."""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.library.numpy.random.distributions import _choice_helpers
from ember.library.numpy.support import NUMPY_ERRORS

jit = njit(**NUMPY_ERRORS)


@jit
def kahan_sum(values, count):
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


# NumPy's messages: (legacy RandomState's, Generator's)
_MESSAGES = {
    "size": ("'a' and 'p' must have same size", "a and p must have same size"),
    "nan": ("probabilities contain NaN", "Probabilities contain NaN"),
    "negative": ("probabilities are not non-negative", "Probabilities are not non-negative"),
    "sum": (
        "probabilities do not sum to 1",
        "Probabilities do not sum to 1. See Notes section of docstring for more information.",
    ),
    "larger": (
        "Cannot take a larger sample than population when 'replace=False'",
        "Cannot take a larger sample than population when replace is False",
    ),
}


@functools.cache
def _probability_check(generator: bool):
    size_message, nan_message, negative_message, sum_message, _ = (
        messages[generator] for messages in _MESSAGES.values()
    )

    def check(p, count, atol):
        if p.shape[0] != count:
            raise ValueError(size_message)
        total = kahan_sum(p, p.shape[0])
        if np.isnan(total):
            raise ValueError(nan_message)
        for i in range(p.shape[0]):
            if p[i] < 0.0:
                raise ValueError(negative_message)
        if abs(total - 1.0) > atol:
            raise ValueError(sum_message)

    return jit(check)


@functools.cache
def _index_samplers(uniforms, generator: bool):
    """Index samplers (with replacement, without) drawing uniforms with `uniforms(source, k)`,
    for legacy's state or a Generator `source`."""
    larger_message = _MESSAGES["larger"][generator]

    def with_replacement(source, p, count):
        """One uniform per index, searched in the cdf."""
        cdf = _normalised_cdf(p)
        draws = uniforms(source, count)
        out = np.empty(count, np.int64)
        for i in range(count):
            out[i] = _search_right(cdf, draws[i])
        return out

    def without_replacement(source, p, population, count):
        """As NumPy: rounds of uniforms for the missing indices against the cdf with the found
        ones' weights zeroed, keeping each round's new indices in order of first appearance."""
        if count > population:
            raise ValueError(larger_message)
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
            draws = uniforms(source, count - found_count)
            for i in range(found_count):
                weights[found[i]] = 0.0
            cdf = _normalised_cdf(weights)
            round_start = found_count
            for x in draws:
                index = _search_right(cdf, x)
                if not taken[index]:
                    taken[index] = True
                    found[found_count] = index
                    found_count += 1
            for i in range(round_start, found_count):
                taken[found[i]] = False  # only repeats within a round merge, as np.unique
        return found

    return jit(with_replacement), jit(without_replacement)


@functools.cache
def weighted_choice_impl(uniforms, generator: bool, from_array: bool, sized: bool, atol: float):
    """NumPy's choice with probabilities `p` (checked with tolerance `atol`), drawing uniforms
    with `uniforms(source, k)`: `impl(rng, a, size, replace, p)` with Generator's messages if
    `generator`, else `impl(a, size, replace, p)` on legacy's state (source 0)."""
    population, pick, take_all = _choice_helpers(from_array)
    with_replacement, without_replacement = _index_samplers(uniforms, generator)
    check_probabilities = _probability_check(generator)

    def indices(source, a, count, replace, p):
        weights = np.asarray(p, np.float64)
        total = population(a)
        check_probabilities(weights, total, atol)
        if replace:
            return with_replacement(source, weights, count)
        return without_replacement(source, weights, total, count)

    draw = jit(indices)
    if generator:  # a method: the Generator is the source
        if not sized:

            def method_one(source, a, size=None, replace=True, p=None):
                return pick(a, draw(source, a, 1, replace, p)[0])

            return method_one

        def method_many(source, a, size=None, replace=True, p=None):
            out = np.empty(size, np.int64)
            out.ravel()[:] = draw(source, a, out.size, replace, p)
            return take_all(a, out)

        return method_many

    if not sized:  # legacy's state is global: no source

        def choice_one(a, size=None, replace=True, p=None):
            return pick(a, draw(0, a, 1, replace, p)[0])

        return choice_one

    def choice_many(a, size=None, replace=True, p=None):
        out = np.empty(size, np.int64)
        out.ravel()[:] = draw(0, a, out.size, replace, p)
        return take_all(a, out)

    return choice_many


def float_vector(typ) -> bool:
    """A 1-d array of floats, or a list or homogeneous tuple of real numbers (probabilities,
    pvals, alpha), as NumPy takes any sequence of them."""
    if isinstance(typ, types.Array):
        return typ.ndim == 1 and isinstance(typ.dtype, types.Float)
    if isinstance(typ, (types.List, types.UniTuple)):
        return isinstance(types.unliteral(typ.dtype), (types.Float, types.Integer))
    return False


def choice_atol(p_type) -> float:
    """NumPy's tolerance on sum(p) - 1: sqrt of the machine epsilon of float64 or p's dtype."""
    atol = np.sqrt(np.finfo(np.float64).eps)
    return float(max(atol, np.sqrt(np.finfo(str(p_type.dtype)).eps)))
