"""np.random distributions, shuffles and choice in compiled code draw exactly what NumPy's
legacy global generator draws after the same seed."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

DRAWS = [
    "np.random.standard_exponential()",
    "np.random.exponential(2.0, 5)",
    "np.random.gamma(2.5, 1.0, 6)",
    "np.random.gamma(0.5, 2.0, 6)",
    "np.random.standard_gamma(1.0)",
    "np.random.standard_gamma(0.0, 3)",
    "np.random.beta(0.5, 0.7, 5)",
    "np.random.beta(2.0, 3.0, 5)",
    "np.random.chisquare(3.0, 4)",
    "np.random.lognormal(0.0, 1.0, 4)",
    "np.random.laplace(1.0, 2.0, 5)",
    "np.random.poisson(3.0, 10)",
    "np.random.poisson(50.0, 10)",
    "np.random.poisson(0.0)",
    "np.random.poisson(1234.5, (2, 3))",
    "np.random.permutation(10)",
    "np.random.permutation(np.arange(6.0))",
    "np.random.permutation(np.arange(6).reshape(3, 2))",
    "np.random.choice(5)",
    "np.random.choice(5, 4)",
    "np.random.choice(np.arange(10.0), (2, 2))",
    "np.random.choice(10, 5, False)",
    "np.random.choice(np.arange(7) * 2, 3, replace=False)",
    "np.random.exponential(-1.0)",
    "np.random.beta(0.0, 1.0)",
    "np.random.choice(3, 5, replace=False)",
]

_compiled = {}


def _draw(source):
    if source not in _compiled:
        _compiled[source] = njit(eval(f"lambda seed: (np.random.seed(seed), {source})[1]"))  # noqa: S307
    return _compiled[source]


def _numpy_draw(source, seed):
    np.random.seed(seed)
    return eval(source)  # noqa: S307 - the fixed sources above


def _outcome(func, *args):
    try:
        return func(*args), None
    except ValueError:
        return None, ValueError


@pytest.mark.parametrize("source", DRAWS)
def test_draws_equal_numpys_after_the_same_seed(source):
    for seed in (1, 12345, 2**32 - 1):
        compiled, compiled_error = _outcome(_draw(source), seed)
        expected, expected_error = _outcome(_numpy_draw, source, seed)
        assert compiled_error == expected_error
        if expected_error is None:
            assert np.asarray(compiled).dtype == np.asarray(expected).dtype
            np.testing.assert_array_equal(compiled, expected)


@njit
def _shuffled(seed):
    np.random.seed(seed)
    vector = np.arange(10)
    np.random.shuffle(vector)
    rows = np.arange(12).reshape(4, 3)
    np.random.shuffle(rows)
    return vector, rows


def test_shuffle_of_vectors_and_rows():
    for seed in (0, 3, 99):
        for compiled, expected in zip(_shuffled(seed), _shuffled.py_func(seed)):
            np.testing.assert_array_equal(compiled, expected)


@njit
def _mixed(seed, shape, scale, lam, a, b):
    np.random.seed(seed)
    return (
        np.random.gamma(shape, scale, 3),
        np.random.poisson(lam, 3),
        np.random.beta(a, b, 3),
        np.random.normal(0.0, 1.0, 2),
    )


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.floats(0.05, 30.0),
    st.floats(0.1, 10.0),
    st.floats(0.0, 500.0),
    st.floats(0.05, 5.0),
    st.floats(0.05, 5.0),
)
def test_hypothesis_streams_stay_in_step(seed, shape, scale, lam, a, b):
    compiled = _mixed(seed, shape, scale, lam, a, b)
    expected = _mixed.py_func(seed, shape, scale, lam, a, b)
    for c, e in zip(compiled, expected):
        np.testing.assert_array_equal(c, e)
