"""`np.random.Generator` in compiled code (ember/library/numpy/random/generator.py): a generator
passed in, or made by `np.random.default_rng(seed)` inside, draws exactly what the same generator
draws in Python (NumPy's own C functions on its bit generator) and advances its state; nothing
leaks."""

import gc
import sys

import numpy as np
import pytest

import ember.runtime
from ember import njit


def _draws(rng):
    return (
        rng.random(),
        rng.random(4),
        rng.standard_normal((2, 3)),
        rng.normal(1.0, 2.0, 3),
        rng.normal(),
        rng.uniform(-1.0, 1.0, 3),
        rng.uniform(),
        rng.integers(0, 10, 6),
        rng.integers(7),
        rng.integers(-(2**40), 2**40, 3),
        rng.exponential(2.0, 3),
        rng.standard_exponential(),
        rng.poisson(3.0, 4),
        rng.gamma(2.0, 1.5),
        rng.standard_gamma(0.5, 2),
        rng.beta(0.5, 0.5, 2),
        rng.lognormal(0.0, 0.5, 2),
        rng.laplace(),
        rng.logistic(1.0, 2.0),
        rng.gumbel(size=2),
        rng.chisquare(3.0, 2),
        rng.weibull(1.5),
        rng.pareto(2.0),
        rng.rayleigh(2.0, 2),
        rng.standard_t(5.0),
        rng.triangular(0.0, 0.5, 2.0, 2),
        rng.geometric(0.3, 3),
    )


compiled_draws = njit(_draws)


def _assert_same(mine, theirs):
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype.kind == np.asarray(b).dtype.kind


@pytest.mark.parametrize("seed", [0, 5, 12345])
def test_a_generator_passed_in_draws_what_numpy_draws(seed):
    mine, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
    _assert_same(compiled_draws(mine), _draws(theirs))
    assert mine.random() == theirs.random()  # the state advanced alike


def test_other_bit_generators():
    for make in (np.random.PCG64, np.random.Philox, np.random.SFC64, np.random.MT19937):
        mine, theirs = np.random.Generator(make(9)), np.random.Generator(make(9))
        _assert_same(compiled_draws(mine), _draws(theirs))


@njit
def seeded(seed, n):
    rng = np.random.default_rng(seed)
    return rng.random(n), rng.integers(0, 100, n), rng.normal()


@njit
def made_and_returned(seed):
    return np.random.default_rng(seed)


def test_default_rng_inside_compiled_code():
    for seed in (0, 42, 2**40):
        mine, theirs = seeded(seed, 5), seeded.py_func(seed, 5)
        _assert_same(mine, theirs)
    returned = made_and_returned(3)
    assert isinstance(returned, np.random.Generator)
    assert returned.random() == np.random.default_rng(3).random()


def test_integers_rejects_an_empty_range_as_numpy():
    with pytest.raises(ValueError, match="low >= high"):
        np.random.default_rng(0).integers(5, 5)
    with pytest.raises(ValueError, match="low >= high"):
        njit(lambda rng: rng.integers(5, 5))(np.random.default_rng(0))


def test_nothing_leaks():
    seeded(1, 3)
    made_and_returned(1)
    rng = np.random.default_rng(0)
    compiled_draws(rng)
    gc.collect()
    live, references = ember.runtime.stats().live, sys.getrefcount(rng)
    for _ in range(300):
        seeded(1, 3)
        made_and_returned(1)
        compiled_draws(rng)
    gc.collect()
    assert ember.runtime.stats().live == live
    assert sys.getrefcount(rng) == references


@njit
def _permutations(rng, vector, rows):
    rng.shuffle(vector)
    rng.shuffle(rows)
    return (rng.permutation(10), rng.permutation(np.arange(5.0)), rng.choice(5, 4), rng.choice(7),
            rng.choice(np.arange(10.0), 3), rng.choice(np.arange(10.0), (2, 2)))  # fmt: skip


@pytest.mark.parametrize("seed", [0, 3])
def test_shuffle_permutation_and_choice_follow_numpy(seed):
    vectors = [np.arange(11), np.arange(11)]
    rows = [np.arange(15.0).reshape(5, 3), np.arange(15.0).reshape(5, 3)]
    mine = _permutations(np.random.default_rng(seed), vectors[0], rows[0])
    theirs = _permutations.py_func(np.random.default_rng(seed), vectors[1], rows[1])
    _assert_same(mine, theirs)
    np.testing.assert_array_equal(vectors[0], vectors[1])
    np.testing.assert_array_equal(rows[0], rows[1])


@njit
def _distinct_choices(rng, population, count):
    return (
        rng.choice(population, count, replace=False),
        rng.choice(population, (2, 2), False),
        rng.choice(np.arange(float(population)), replace=False),
        rng.random(),
    )


@pytest.mark.parametrize("population, count", [(10, 3), (10, 10), (20000, 500), (20000, 300)])
def test_choice_without_replacement_follows_numpy(population, count):
    # Floyd's algorithm and a shuffle; a partial tail shuffle for many of a large population
    for seed in (0, 7):
        mine = _distinct_choices(np.random.default_rng(seed), population, count)
        theirs = _distinct_choices.py_func(np.random.default_rng(seed), population, count)
        _assert_same(mine, theirs)


def test_choice_without_replacement_of_too_many_raises_numpys_error():
    with pytest.raises(ValueError, match="larger sample than population when replace is False"):
        _distinct_choices(np.random.default_rng(0), 3, 5)
