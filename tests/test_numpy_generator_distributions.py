"""`np.random.Generator` distribution methods in compiled code draw exactly what the same
generator draws in Python, scalar and sized, and reject bad parameters with NumPy's messages."""

import numpy as np
import pytest

from ember import njit

# name -> parameter sets (types fixed per name: each method compiles once)
PARAMETERS = {
    "standard_cauchy": [()],
    "power": [(0.5,), (3.0,)],
    "vonmises": [(1.0, 2.0), (0.0, 1e-9), (-2.0, 1e-6), (0.5, 300.0)],
    "wald": [(1.5, 2.0), (0.1, 30.0)],
    "f": [(3.0, 5.0), (0.5, 0.7)],
    "noncentral_chisquare": [(3.0, 2.0), (0.5, 2.0), (2.0, 0.0)],
    "noncentral_f": [(3.0, 4.0, 2.0), (0.8, 2.0, 5.0)],
    "binomial": [(10, 0.3), (1000, 0.7), (0, 0.5), (5, 0.0), (100000, 0.45)],
    "negative_binomial": [(3.0, 0.4), (2.5, 0.01), (1.0, 1.0)],
    "hypergeometric": [(10, 5, 7), (100, 200, 50), (2000, 20000, 1000), (3, 3, 0)],
    "logseries": [(0.6,), (0.9999,), (0.0,)],
    "zipf": [(2.0,), (1.1,)],
    "normal": [(1.0, 2.0)],
    "triangular": [(0.0, 0.5, 2.0)],
    "poisson": [(3.0,), (-0.0,), (50.0,)],
}

BAD_PARAMETERS = {
    "power": [(0.0,)],
    "vonmises": [(0.0, -1.0)],
    "wald": [(0.0, 1.0), (1.0, 0.0)],
    "f": [(0.0, 1.0), (1.0, -1.0)],
    "noncentral_chisquare": [(0.0, 1.0), (1.0, -1.0)],
    "noncentral_f": [(0.0, 1.0, 1.0), (1.0, 1.0, -1.0)],
    "binomial": [(-1, 0.5), (5, 1.5), (5, float("nan"))],
    "negative_binomial": [(0.0, 0.5), (1.0, 0.0), (float("nan"), 0.5)],
    "hypergeometric": [(-1, 2, 1), (2, -1, 1), (2, 2, -1), (2, 2, 5), (10**9, 1, 1)],
    "logseries": [(1.0,), (-0.1,)],
    "zipf": [(1.0,)],
    "normal": [(0.0, -1.0), (0.0, -0.0)],
    "triangular": [(1.0, 0.0, 2.0), (0.0, 3.0, 2.0), (1.0, 1.0, 1.0)],
    "poisson": [(-1.0,), (float("nan"),), (1e19,)],
}

SEEDS = (0, 7, 12345)


def _sampler(name, arity):
    """Scalar, int-sized and tuple-sized draws, then a uniform (the generators stay in step)."""
    params = [f"p{i}" for i in range(arity)]

    def call(*size):
        return f"rng.{name}({', '.join([*params, *size])})"

    draws = ", ".join([call(), call("size=3"), call("size=(2, 2)"), "rng.random()"])
    return njit(eval(f"lambda {', '.join(['rng', *params])}: ({draws})"))  # noqa: S307


_compiled = {}


def _get(name):
    if name not in _compiled:
        _compiled[name] = _sampler(name, len(PARAMETERS[name][0]))
    return _compiled[name]


def _outcome(func, seed, params):
    try:
        return func(np.random.default_rng(seed), *params), None
    except ValueError as error:
        return None, str(error)


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_methods_draw_what_the_same_generator_draws(name):
    sampler = _get(name)
    for params in PARAMETERS[name]:
        for seed in SEEDS:
            compiled = sampler(np.random.default_rng(seed), *params)
            expected = sampler.py_func(np.random.default_rng(seed), *params)
            for got, want in zip(compiled, expected):
                assert np.asarray(got).dtype == np.asarray(want).dtype
                assert np.shape(got) == np.shape(want)
                np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(BAD_PARAMETERS))
def test_bad_parameters_raise_numpys_value_error(name):
    sampler = _get(name)
    for params in BAD_PARAMETERS[name]:
        _, compiled_error = _outcome(sampler, 0, params)
        _, expected_error = _outcome(sampler.py_func, 0, params)
        assert expected_error is not None
        assert compiled_error == expected_error


@njit
def _vector_draws(rng, n, pvals, alpha, p, count):
    return (
        rng.multinomial(n, pvals),
        rng.multinomial(n, pvals, 3),
        rng.multinomial(n, pvals, (2, 2)),
        rng.dirichlet(alpha),
        rng.dirichlet(alpha, 3),
        rng.dirichlet(alpha, (2, 2)),
        rng.choice(p.shape[0], p=p),
        rng.choice(np.arange(p.shape[0]) * 10, (2, 3), True, p),
        rng.choice(p.shape[0], count, False, p),
        rng.random(),
    )


VECTOR_CASES = [
    (20, [0.2, 0.3, 0.5], [0.5, 1.0, 2.0], [0.1, 0.2, 0.3, 0.2, 0.2], 4),
    (1000, [0.1, 0.0, 0.6, 0.3], [0.05, 0.01, 0.09], [0.5, 0.0, 0.5], 2),  # betas: alpha < 0.1
    (0, [0.5, 0.5], [0.05, 0.0, 0.0], [0.01] * 90 + [0.1], 30),
]


@pytest.mark.parametrize("n, pvals, alpha, p, count", VECTOR_CASES)
def test_multinomial_dirichlet_and_weighted_choice_follow_numpy(n, pvals, alpha, p, count):
    for seed in SEEDS:
        args = (n, np.array(pvals), np.array(alpha), np.array(p), count)
        compiled = _vector_draws(np.random.default_rng(seed), *args)
        expected = _vector_draws.py_func(np.random.default_rng(seed), *args)
        for got, want in zip(compiled, expected):
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "n, pvals, alpha, p, count",
    [
        (5, [-0.1, 1.1], [1.0], [1.0], 1),
        (5, [0.7, 0.6, 0.0], [1.0], [1.0], 1),
        (-1, [0.5, 0.5], [1.0], [1.0], 1),
        (5, [0.5, 0.5], [-1.0, 1.0], [1.0], 1),
        (5, [0.5, 0.5], [1.0], [0.5, 0.6, 0.0], 1),
        (5, [0.5, 0.5], [1.0], [-0.5, 1.5], 1),
        (5, [0.5, 0.5], [1.0], [0.5, float("nan")], 1),
        (5, [0.5, 0.5], [1.0], [1.0, 0.0, 0.0], 2),
        (5, [0.5, 0.5], [1.0], [0.5, 0.5], 3),
    ],
)
def test_multinomial_dirichlet_and_weighted_choice_bad_parameters(n, pvals, alpha, p, count):
    args = (n, np.array(pvals), np.array(alpha), np.array(p), count)
    _, compiled_error = _outcome(_vector_draws, 0, args)
    _, expected_error = _outcome(_vector_draws.py_func, 0, args)
    assert expected_error is not None
    assert compiled_error == expected_error


@njit
def _integer_draws(rng, low, high):
    return (
        rng.integers(low, high, 5, np.int64, True),
        rng.integers(low, high, endpoint=True),
        rng.integers(low, high, (2, 3), np.int32),
        rng.integers(low, high, 4, np.int16),
        rng.integers(low, high, 6, np.int8, True),
        rng.integers(0, 2, 9, np.bool_),
        rng.integers(high, size=4, dtype=np.uint8),
        rng.integers(0, 2**32, 3, np.uint32),
        rng.random(),
    )


@pytest.mark.parametrize("low, high", [(0, 10), (-5, 100), (7, 8), (-128, 127)])
def test_integers_with_dtype_and_endpoint_follow_numpy(low, high):
    for seed in SEEDS:
        compiled = _integer_draws(np.random.default_rng(seed), low, high)
        expected = _integer_draws.py_func(np.random.default_rng(seed), low, high)
        for got, want in zip(compiled, expected):
            np.testing.assert_array_equal(got, want)
            if isinstance(want, np.ndarray):
                assert got.dtype == want.dtype


@pytest.mark.parametrize("low, high", [(5, 4), (-200, 5), (0, 300)])
def test_integers_out_of_bounds_raise_numpys_error(low, high):
    _, compiled_error = _outcome(_integer_draws, 0, (low, high))
    _, expected_error = _outcome(_integer_draws.py_func, 0, (low, high))
    assert expected_error is not None
    assert compiled_error == expected_error


@njit
def _single_precision(rng, shape):
    return (
        rng.random(3, np.float32),
        rng.random(dtype=np.float32),
        rng.standard_normal((2, 2), np.float32),
        rng.standard_exponential(4, np.float32),
        rng.standard_gamma(shape, 4, np.float32),
        rng.standard_gamma(shape, dtype=np.float32),
        rng.random(2, np.float64),
        rng.random(),
    )


@pytest.mark.parametrize("shape", [0.5, 1.0, 3.5])
def test_float32_draws_follow_numpy(shape):
    for seed in SEEDS:
        compiled = _single_precision(np.random.default_rng(seed), shape)
        expected = _single_precision.py_func(np.random.default_rng(seed), shape)
        for got, want in zip(compiled, expected):
            np.testing.assert_array_equal(got, want)
            if isinstance(want, np.ndarray):
                assert got.dtype == want.dtype


@njit
def _from_lists(rng):
    return (
        rng.choice(3, 4, p=[0.2, 0.3, 0.5]),
        rng.multinomial(10, [0.2, 0.8], 2),
        rng.dirichlet([1.0, 2.0]),
        rng.random(),
    )


def test_probabilities_pvals_and_alpha_given_as_lists():
    for seed in SEEDS:
        compiled = _from_lists(np.random.default_rng(seed))
        expected = _from_lists.py_func(np.random.default_rng(seed))
        for got, want in zip(compiled, expected):
            np.testing.assert_array_equal(got, want)
