"""More of np.random in compiled code: exponential, standard_exponential, gamma, standard_gamma,
beta, chisquare, lognormal, laplace, poisson, shuffle, permutation and choice (the table of
scalar distributions here is extended by distributions_continuous/_discrete.py).

Each follows the algorithm of NumPy's legacy RandomState on the generator of legacy.py,
so after `np.random.seed(s)` compiled code draws the numbers NumPy's global generator draws after
the same seed (Marsaglia-Tsang gamma with the legacy Gaussian, Johnk's beta for small shapes,
multiplication and PTRS for Poisson, Fisher-Yates with masked rejection for shuffles).
"""

from __future__ import annotations

import functools

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import overload
from ember.library.numpy.random.broadcast_params import (
    broadcast_impl,
    has_array,
    numeric_parameters,
)
from ember.library.numpy.random.legacy import (
    _bounded,
    _negative,
    _next_double,
    _next_gauss,
    sized,
)
from ember.library.numpy.support import NUMPY_ERRORS, as_type, make_pysig

# ---------------------------------------------------------------------------- scalar draws


def _standard_exponential_impl():
    return -np.log(1.0 - _next_double())


_standard_exponential = njit(**NUMPY_ERRORS)(_standard_exponential_impl)


def _standard_gamma_impl(shape):
    if shape == 1.0:
        return _standard_exponential()
    if shape == 0.0:
        return 0.0
    if shape < 1.0:
        while True:
            u = _next_double()
            v = _standard_exponential()
            if u <= 1.0 - shape:
                x = u ** (1.0 / shape)
                if x <= v:
                    return x
            else:
                y = -np.log((1.0 - u) / shape)
                x = (1.0 - shape + shape * y) ** (1.0 / shape)
                if x <= v + y:
                    return x
    b = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * b)
    while True:
        x = _next_gauss()
        v = 1.0 + c * x
        while v <= 0.0:
            x = _next_gauss()
            v = 1.0 + c * x
        v = v * v * v
        u = _next_double()
        if u < 1.0 - 0.0331 * (x * x) * (x * x):
            return b * v
        if np.log(u) < 0.5 * x * x + b * (1.0 - v + np.log(v)):
            return b * v


_standard_gamma = njit(**NUMPY_ERRORS)(_standard_gamma_impl)


def _beta_impl(a, b):
    if a <= 1.0 and b <= 1.0:
        while True:
            u = _next_double()
            v = _next_double()
            x = u ** (1.0 / a)
            y = v ** (1.0 / b)
            if x + y <= 1.0:
                if x + y > 0.0:
                    return x / (x + y)
                log_x = np.log(u) / a
                log_y = np.log(v) / b
                largest = max(log_x, log_y)
                log_x -= largest
                log_y -= largest
                return np.exp(log_x - np.log(np.exp(log_x) + np.exp(log_y)))
    ga = _standard_gamma(a)
    gb = _standard_gamma(b)
    return ga / (ga + gb)


_beta = njit(**NUMPY_ERRORS)(_beta_impl)

_LOGGAM_SERIES = (
    8.333333333333333e-02,
    -2.777777777777778e-03,
    7.936507936507937e-04,
    -5.952380952380952e-04,
    8.417508417508418e-04,
    -1.917526917526918e-03,
    6.410256410256410e-03,
    -2.955065359477124e-02,
    1.796443723688307e-01,
    -1.39243221690590e00,
)


def _loggam_impl(x):
    """log(gamma(x)) by NumPy's Stirling series (the exact bits PTRS compares against)."""
    if x == 1.0 or x == 2.0:
        return 0.0
    n = int(7 - x) if x < 7.0 else 0
    x0 = x + n
    x2 = (1.0 / x0) * (1.0 / x0)
    series = _LOGGAM_SERIES
    total = series[9]
    for k in range(8, -1, -1):
        total *= x2
        total += series[k]
    result = total / x0 + 0.5 * 1.8378770664093453 + (x0 - 0.5) * np.log(x0) - x0
    for _ in range(n):
        result -= np.log(x0 - 1.0)
        x0 -= 1.0
    return result


_loggam = njit(**NUMPY_ERRORS)(_loggam_impl)


def _poisson_impl(lam):
    if lam >= 10.0:  # PTRS, transformed rejection with squeeze
        root = np.sqrt(lam)
        log_lam = np.log(lam)
        b = 0.931 + 2.53 * root
        a = -0.059 + 0.02483 * b
        inverse_alpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2.0)
        while True:
            u = _next_double() - 0.5
            v = _next_double()
            us = 0.5 - abs(u)
            k = np.int64(np.floor((2.0 * a / us + b) * u + lam + 0.43))
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            bound = -lam + k * log_lam - _loggam(k + 1.0)
            if np.log(v) + np.log(inverse_alpha) - np.log(a / (us * us) + b) <= bound:
                return k
    if lam == 0.0:
        return np.int64(0)
    limit = np.exp(-lam)
    count = np.int64(0)
    product = 1.0
    while True:
        product *= _next_double()
        if product > limit:
            count += 1
        else:
            return count


_poisson = njit(**NUMPY_ERRORS)(_poisson_impl)


def _laplace_impl(loc, scale):
    u = _next_double()
    while u == 0.0:
        u = _next_double()
    if u >= 0.5:
        return loc - scale * np.log(2.0 - u - u)
    return loc + scale * np.log(u + u)


_laplace = njit(**NUMPY_ERRORS)(_laplace_impl)


# ---------------------------------------------------------------------------- the API

# name -> (parameters with defaults, argument checks, the draw as an expression, result dtype)
_DISTRIBUTIONS = {
    "standard_exponential": ("", [], "standard_exponential()", "float64"),
    "exponential": ("scale=1.0", [("negative(scale)", "scale < 0")],
                    "scale * standard_exponential()", "float64"),
    "standard_gamma": ("shape", [("negative(shape)", "shape < 0")], "standard_gamma(shape)",
                       "float64"),
    "gamma": ("shape, scale=1.0", [("negative(shape)", "shape < 0"),
              ("negative(scale)", "scale < 0")], "scale * standard_gamma(shape)", "float64"),
    "chisquare": ("df", [("df <= 0", "df <= 0")], "2.0 * standard_gamma(df / 2.0)", "float64"),
    "beta": ("a, b", [("a <= 0", "a <= 0"), ("b <= 0", "b <= 0")], "beta(a, b)", "float64"),
    "lognormal": ("mean=0.0, sigma=1.0", [("negative(sigma)", "sigma < 0")],
                  "np.exp(mean + sigma * gauss())", "float64"),
    "laplace": ("loc=0.0, scale=1.0", [("negative(scale)", "scale < 0")], "laplace(loc, scale)",
                "float64"),
    "poisson": ("lam=1.0", [("lam < 0 or np.isnan(lam)", "lam < 0 or lam is NaN"),
                ("lam > 9.223372006484771e18", "lam value too large")], "poisson(lam)", "int64"),
}  # fmt: skip

_HELPERS = {
    "np": np,
    "standard_exponential": _standard_exponential,
    "standard_gamma": _standard_gamma,
    "beta": _beta,
    "gauss": _next_gauss,
    "laplace": _laplace,
    "poisson": _poisson,
    "negative": _negative,
}


@functools.cache
def _distribution_impl(name: str, sized: bool):
    params, checks, draw, dtype = _DISTRIBUTIONS[name]
    names = [p.split("=")[0].strip() for p in params.split(",") if p.strip()]
    lines = [f"def {name}_impl({', '.join([*names, 'size'])}):"]
    for condition, message in checks:
        lines.append(f"    if {condition}:\n        raise ValueError({message!r})")
    if sized:
        lines += [
            f"    out = np.empty(size, np.{dtype})",
            "    flat = out.ravel()",
            "    for i in range(flat.shape[0]):",
            f"        flat[i] = {draw}",
            "    return out",
        ]
    else:
        lines.append(f"    return {draw}")
    namespace = dict(_HELPERS)
    exec("\n".join(lines) + "\n", namespace)  # noqa: S102 - source from the fixed table above
    return namespace[f"{name}_impl"]


@functools.cache
def _broadcast_impl(name: str, sized: bool):
    params, checks, draw, dtype = _DISTRIBUTIONS[name]
    names = [p.split("=")[0].strip() for p in params.split(",") if p.strip()]
    return broadcast_impl(name, names, checks, draw, dtype, _HELPERS, sized)


def _register_distribution(name: str) -> None:
    params = _DISTRIBUTIONS[name][0]
    signature = f"{params}, size=None" if params else "size=None"

    def select(*arg_types):
        *numbers, size = map(as_type, arg_types)
        if has_array(numbers):
            return _broadcast_impl(name, sized(name, size)) if numeric_parameters(numbers) else None
        if not all(isinstance(types.unliteral(t), (types.Integer, types.Float)) for t in numbers):
            return None
        return _distribution_impl(name, sized(name, size))

    select.__signature__ = make_pysig(signature)  # NumPy's parameters, from the table
    overload(getattr(np.random, name), jit_options=NUMPY_ERRORS)(select)


def register_distributions(table: dict, helpers: dict) -> None:
    """Add rows in `_DISTRIBUTIONS`'s format, drawing with the jitted `helpers` named in them, and
    overload each `np.random.<name>` from its row (the other distribution modules use this)."""
    _DISTRIBUTIONS.update(table)
    _HELPERS.update(helpers)
    for name in table:
        _register_distribution(name)


for _name in _DISTRIBUTIONS:
    _register_distribution(_name)


# ---------------------------------------------------------------------------- permutations


def _shuffle_vector(x):
    """Fisher-Yates from the end, as RandomState.shuffle."""
    for i in range(x.shape[0] - 1, 0, -1):
        j = _bounded(np.int64(0), np.int64(i + 1))
        x[i], x[j] = x[j], x[i]


def _shuffle_rows(x):
    for i in range(x.shape[0] - 1, 0, -1):
        j = _bounded(np.int64(0), np.int64(i + 1))
        row = x[i].copy()
        x[i] = x[j]
        x[j] = row


@overload(np.random.shuffle, jit_options=NUMPY_ERRORS)
def _select_shuffle(x):
    if not (isinstance(x, types.Array) and x.ndim >= 1):
        return None
    if x.readonly:
        raise TypingError("np.random.shuffle() cannot shuffle a read-only array in place")
    return _shuffle_vector if x.ndim == 1 else _shuffle_rows


_shuffle = njit(**NUMPY_ERRORS)(_shuffle_vector)
_shuffle_rows_jit = njit(**NUMPY_ERRORS)(_shuffle_rows)


def _permutation_of_count(x):
    out = np.arange(x)
    _shuffle(out)
    return out


def _permutation_of_vector(x):
    out = x.copy()
    _shuffle(out)
    return out


def _permutation_of_rows(x):
    out = x.copy()
    _shuffle_rows_jit(out)
    return out


@overload(np.random.permutation, jit_options=NUMPY_ERRORS)
def _select_permutation(x):
    if isinstance(types.unliteral(x), types.Integer):
        return _permutation_of_count
    if not (isinstance(x, types.Array) and x.ndim >= 1):
        return None
    return _permutation_of_vector if x.ndim == 1 else _permutation_of_rows


_permutation_of_count_jit = njit(**NUMPY_ERRORS)(_permutation_of_count)


@functools.cache
def _choice_helpers(from_array: bool):
    """How a population is counted and indexed: np.arange(a) for an integer, else a's rows."""
    if from_array:

        def population(a):
            if a.ndim != 1:
                raise ValueError("a must be 1-dimensional")
            if a.shape[0] == 0:
                raise ValueError("a cannot be empty unless no samples are taken")
            return a.shape[0]

        def pick(a, index):
            return a[index]

        def take_all(a, indices):
            return a[indices.ravel()].reshape(indices.shape)

    else:

        def population(a):
            if a <= 0:
                raise ValueError("a must be a positive integer unless no samples are taken")
            return a

        def pick(a, index):
            return index

        def take_all(a, indices):
            return indices

    return tuple(njit(**NUMPY_ERRORS)(f) for f in (population, pick, take_all))


@functools.cache
def _choice_impl(from_array: bool, sized: bool):
    population, pick, take_all = _choice_helpers(from_array)
    if not sized:

        def choice_one(a, size, replace, p):
            return pick(a, _bounded(np.int64(0), np.int64(population(a))))

        return choice_one

    def choice_many(a, size, replace, p):
        count = population(a)
        out = np.empty(size, np.int64)
        flat = out.ravel()
        if replace:
            for i in range(flat.shape[0]):
                flat[i] = _bounded(np.int64(0), np.int64(count))
        else:
            if flat.shape[0] > count:
                raise ValueError("Cannot take a larger sample than population when 'replace=False'")
            flat[:] = _permutation_of_count_jit(count)[: flat.shape[0]]
        return take_all(a, out)

    return choice_many


@overload(np.random.choice, jit_options=NUMPY_ERRORS)
def _select_choice(a, size=None, replace=True, p=None):
    size = as_type(size)
    replace = as_type(replace)
    p = as_type(p)
    from_array = isinstance(a, types.Array)
    if not (from_array or isinstance(types.unliteral(a), types.Integer)):
        return None
    if not isinstance(types.unliteral(replace), types.Boolean):
        return None
    if not isinstance(p, types.NoneType):
        from ember.library.numpy.random.distributions_multivariate import select_weighted_choice

        return select_weighted_choice(a, size, replace, p)
    return _choice_impl(from_array, sized("choice", size))
