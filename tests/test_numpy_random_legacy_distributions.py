"""The further legacy np.random distributions (continuous, discrete, multinomial, dirichlet and
choice with p=) in compiled code draw exactly what NumPy's global RandomState draws after the
same seed, scalar and with int and tuple sizes, and reject bad parameters with NumPy's message."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

# name -> parameter sets: each covers a branch of NumPy's algorithm (types fixed per name, so
# each distribution compiles once)
PARAMETERS = {
    "f": [(3.0, 5.0), (0.5, 0.7), (40.0, 2.0)],
    "gumbel": [(0.0, 1.0), (-2.0, 3.5), (1.0, 0.0)],
    "logistic": [(0.0, 1.0), (5.0, 0.25)],
    "pareto": [(2.0,), (0.3,), (50.0,)],
    "power": [(0.5,), (1.0,), (7.0,)],
    "rayleigh": [(1.0,), (2.5,), (0.0,)],
    "standard_cauchy": [()],
    "standard_t": [(3.5,), (0.4,), (1.0,), (100.0,)],
    "triangular": [(0.0, 1.0, 3.0), (-1.0, -1.0, 2.0), (0.0, 2.0, 2.0)],
    "vonmises": [(1.0, 2.0), (-3.0, 1e-6), (0.0, 1e-9), (3.0, 500.0), (0.5, 0.0)],
    "wald": [(1.5, 2.0), (0.1, 30.0), (3.0, 0.2)],
    "weibull": [(1.5,), (0.3,), (0.0,)],
    "noncentral_chisquare": [(3.0, 2.0), (0.5, 2.0), (2.0, 0.0), (1.0, 40.0)],
    "noncentral_f": [(3.0, 4.0, 2.0), (0.8, 2.0, 5.0), (2.0, 3.0, 0.0)],
    "binomial": [(10, 0.3), (1000, 0.3), (1000, 0.8), (20, 0.9), (0, 0.5), (5, 0.0), (7, 1.0),
                 (100000, 0.45), (61, 0.5)],
    "negative_binomial": [(3.0, 0.4), (2.5, 0.01), (1.0, 1.0), (0.3, 0.9)],
    "geometric": [(0.5,), (0.05,), (1.0,), (0.34,), (0.001,)],
    "hypergeometric": [(10, 5, 7), (100, 200, 50), (500, 20, 400), (3, 3, 6), (0, 9, 4),
                       (2000, 3000, 11)],
    "logseries": [(0.6,), (0.999,), (0.0,), (0.1,)],
    "zipf": [(2.0,), (1.1,), (6.5,)],
    "poisson": [(3.0,), (-0.0,), (50.0,)],
}  # fmt: skip

BAD_PARAMETERS = {
    "f": [(0.0, 1.0), (1.0, -1.0)],
    "gumbel": [(0.0, -1.0), (0.0, -0.0)],
    "logistic": [(0.0, -1.0)],
    "pareto": [(0.0,), (-1.0,)],
    "power": [(0.0,)],
    "rayleigh": [(-1.0,)],
    "standard_t": [(0.0,)],
    "triangular": [(1.0, 0.0, 2.0), (0.0, 3.0, 2.0), (1.0, 1.0, 1.0)],
    "vonmises": [(0.0, -1.0)],
    "wald": [(0.0, 1.0), (1.0, 0.0)],
    "weibull": [(-1.0,)],
    "noncentral_chisquare": [(0.0, 1.0), (1.0, -1.0)],
    "noncentral_f": [(0.0, 1.0, 1.0), (1.0, 0.0, 1.0), (1.0, 1.0, -1.0)],
    "binomial": [(-1, 0.5), (5, -0.1), (5, 1.5), (5, float("nan"))],
    "negative_binomial": [(0.0, 0.5), (1.0, 1.5)],
    "geometric": [(0.0,), (1.5,), (float("nan"),)],
    "hypergeometric": [(-1, 2, 1), (2, -1, 1), (2, 2, 0), (2, 2, 5)],
    "logseries": [(1.0,), (-0.1,)],
    "zipf": [(1.0,), (0.5,), (float("nan"),)],
    "poisson": [(-1.0,), (float("nan"),), (1e19,)],
}

SEEDS = (1, 12345, 2**32 - 1)


def _sampler(name, arity):
    """One compiled function per distribution: seed, then a scalar and an int-sized draw, then
    a uniform (the generator is left where NumPy's is)."""
    params = [f"p{i}" for i in range(arity)]

    def call(*size):
        return f"np.random.{name}({', '.join([*params, *size])})"

    draws = ", ".join([call(), call("size=3"), "np.random.random_sample()"])
    source = f"lambda {', '.join(['seed', *params])}: (np.random.seed(seed), {draws})[1:]"
    return njit(eval(source))  # noqa: S307 - built from the fixed names above


@pytest.fixture(scope="module")
def samplers():
    compiled = {}

    def get(name):
        if name not in compiled:
            compiled[name] = _sampler(name, len(PARAMETERS[name][0]))
        return compiled[name]

    return get


def _outcome(func, *args):
    try:
        return func(*args), None
    except ValueError as error:
        return None, str(error)


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_draws_equal_numpys_after_the_same_seed(name, samplers):
    sampler = samplers(name)
    for params in PARAMETERS[name]:
        for seed in SEEDS:
            compiled = sampler(seed, *params)
            expected = sampler.py_func(seed, *params)  # NumPy's global RandomState
            for got, want in zip(compiled, expected):
                assert np.asarray(got).dtype == np.asarray(want).dtype
                assert np.shape(got) == np.shape(want)
                np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", sorted(BAD_PARAMETERS))
def test_bad_parameters_raise_numpys_value_error(name, samplers):
    sampler = samplers(name)
    for params in BAD_PARAMETERS[name]:
        compiled, compiled_error = _outcome(sampler, 0, *params)
        expected, expected_error = _outcome(sampler.py_func, 0, *params)
        assert expected_error is not None
        assert compiled_error == expected_error


@njit
def _tuple_sized(seed):
    np.random.seed(seed)
    return (
        np.random.binomial(1000, 0.8, (2, 3)),
        np.random.hypergeometric(100, 200, 50, (3, 1)),
        np.random.vonmises(1.0, 2.0, (2, 2)),
        np.random.noncentral_f(0.8, 2.0, 5.0, (1, 2)),
    )


def test_tuple_sizes_shape_the_draws_as_numpys():
    for seed in SEEDS:
        for got, want in zip(_tuple_sized(seed), _tuple_sized.py_func(seed)):
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)


@njit
def _vector_draws(seed, n, pvals, alpha):
    np.random.seed(seed)
    return (
        np.random.multinomial(n, pvals),
        np.random.multinomial(n, pvals, 4),
        np.random.multinomial(n, pvals, (2, 3)),
        np.random.dirichlet(alpha),
        np.random.dirichlet(alpha, 3),
        np.random.dirichlet(alpha, (2, 2)),
        np.random.random_sample(),
    )


VECTOR_CASES = [
    (20, [0.2, 0.3, 0.5], [0.5, 1.0, 2.0]),
    (1000, [0.1, 0.0, 0.6, 0.3], [3.0, 0.2, 1.0, 1.0]),
    (0, [0.5, 0.5], [0.01, 0.01]),
    (100, [1.0, 0.0], [40.0, 0.5]),
    (7, [0.4, 0.7], [1.0, 1.0]),  # pvals[-1] is never read: NumPy accepts the sum 1.1
]


@pytest.mark.parametrize("n, pvals, alpha", VECTOR_CASES)
def test_multinomial_and_dirichlet_equal_numpys(n, pvals, alpha):
    for seed in SEEDS:
        args = (seed, n, np.array(pvals), np.array(alpha))
        for got, want in zip(_vector_draws(*args), _vector_draws.py_func(*args)):
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "n, pvals, alpha",
    [
        (5, [-0.1, 1.1], [1.0]),
        (5, [0.5, float("nan")], [1.0]),
        (5, [0.7, 0.6, 0.0], [1.0]),
        (-1, [0.5, 0.5], [1.0]),
        (5, [0.5, 0.5], [0.0, 1.0]),
        (5, [0.5, 0.5], [1.0, -2.0]),
    ],
)
def test_multinomial_and_dirichlet_bad_parameters(n, pvals, alpha):
    args = (0, n, np.array(pvals), np.array(alpha))
    compiled, compiled_error = _outcome(_vector_draws, *args)
    expected, expected_error = _outcome(_vector_draws.py_func, *args)
    assert expected_error is not None
    assert compiled_error == expected_error


@njit
def _weighted_choices(seed, p, count):
    np.random.seed(seed)
    population = np.arange(p.shape[0]) * 10
    return (
        np.random.choice(p.shape[0], p=p),
        np.random.choice(p.shape[0], 6, p=p),
        np.random.choice(population, (2, 3), True, p),
        np.random.choice(p.shape[0], count, False, p),
        np.random.choice(population, (1, count), replace=False, p=p),
        np.random.choice(p.shape[0], replace=False, p=p),
        np.random.random_sample(),
    )


CHOICE_CASES = [
    ([0.1, 0.2, 0.3, 0.2, 0.2], 4),
    ([0.5, 0.0, 0.5, 0.0], 2),
    ([0.01] * 90 + [0.1], 30),
    ([0.0, 0.0, 1.0], 1),
]


@pytest.mark.parametrize("p, count", CHOICE_CASES)
def test_choice_with_probabilities_equals_numpys(p, count):
    for seed in SEEDS:
        args = (seed, np.array(p), count)
        for got, want in zip(_weighted_choices(*args), _weighted_choices.py_func(*args)):
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "p, count",
    [
        ([0.5, 0.6, 0.0], 1),
        ([-0.5, 1.5, 0.0], 1),
        ([0.5, float("nan"), 0.5], 1),
        ([1.0, 0.0, 0.0], 2),
        ([0.5, 0.5, 0.0], 4),
    ],
)
def test_choice_with_bad_probabilities(p, count):
    args = (0, np.array(p), count)
    compiled, compiled_error = _outcome(_weighted_choices, *args)
    expected, expected_error = _outcome(_weighted_choices.py_func, *args)
    assert expected_error is not None
    assert compiled_error == expected_error


@njit
def _binomial_hypergeometric(seed, n, p, good, bad, sample):
    np.random.seed(seed)
    return (
        np.random.binomial(n, p, 5),
        np.random.hypergeometric(good, bad, sample, 5),
        np.random.negative_binomial(n + 1, max(p, 0.01), 3),
    )


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(0, 5000),
    st.floats(0.0, 1.0),
    st.integers(0, 300),
    st.integers(0, 300),
    st.integers(1, 600),
)
def test_hypothesis_discrete_streams_stay_in_step(seed, n, p, good, bad, sample):
    sample = min(sample, good + bad) or 1
    if good + bad < sample:
        good += 1
    args = (seed, n, p, good, bad, sample)
    for got, want in zip(_binomial_hypergeometric(*args), _binomial_hypergeometric.py_func(*args)):
        np.testing.assert_array_equal(got, want)


@njit
def _aliases(seed, low, high):
    np.random.seed(seed)
    return (
        np.random.sample(),
        np.random.sample(3),
        np.random.ranf((2, 2)),
        np.random.random_integers(low, high, 4),
        np.random.random_integers(high),
        np.random.random_integers(low, high),
        np.random.random_sample(),
    )


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # NumPy's random_integers
@pytest.mark.parametrize("low, high", [(1, 6), (-3, 4), (0, 2**40)])
def test_sample_ranf_and_random_integers_equal_numpys(low, high):
    for seed in SEEDS:
        compiled = _aliases(seed, low, high)
        expected = _aliases.py_func(seed, low, high)
        for got, want in zip(compiled, expected):
            assert np.asarray(got).dtype == np.asarray(want).dtype
            np.testing.assert_array_equal(got, want)


@njit
def _location_scale(seed, loc, scale):
    np.random.seed(seed)
    return (
        np.random.normal(loc, scale),
        np.random.normal(loc, scale, 2),
        np.random.lognormal(loc, scale, 2),
        np.random.uniform(loc, scale, 2),
    )


@pytest.mark.parametrize(
    "loc, scale", [(0.0, -1.0), (1.0, -0.0), (0.0, float("inf")), (float("nan"), 1.0), (1.0, 2.0)]
)
def test_normal_lognormal_uniform_check_parameters_as_numpy(loc, scale):
    outcomes = []
    for func in (_location_scale, _location_scale.py_func):
        try:
            outcomes.append(func(5, loc, scale))
        except (ValueError, OverflowError) as error:
            outcomes.append((type(error), str(error)))
    compiled, expected = outcomes
    assert len(compiled) == len(expected)
    for got, want in zip(compiled, expected):
        np.testing.assert_array_equal(got, want)


@njit
def _from_lists(seed):
    np.random.seed(seed)
    return (
        np.random.choice(3, 4, p=[0.2, 0.3, 0.5]),
        np.random.choice(3, 2, False, [0.2, 0.3, 0.5]),
        np.random.multinomial(10, [0.2, 0.8], 2),
        np.random.dirichlet([1.0, 2.0]),
        np.random.random_sample(),
    )


def test_probabilities_pvals_and_alpha_given_as_lists():
    for seed in SEEDS:
        for got, want in zip(_from_lists(seed), _from_lists.py_func(seed)):
            np.testing.assert_array_equal(got, want)
