"""Python's `random` module in compiled code against CPython's: after the same seed, every draw
(floats and ints) equals the interpreter's exactly; errors match CPython's."""

import random
from random import randint as imported_randint
from random import random as imported_random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

SEEDS = [0, 1, 42, 2**32 - 1, 2**32, 2**40 + 12345, -7, 2**63 - 1, -(2**63)]


def cpython_draws(seed, draw, count):
    """The interpreter's draws after seeding its own module."""
    state = random.getstate()
    try:
        random.seed(seed)
        return [draw() for _ in range(count)]
    finally:
        random.setstate(state)


@ember.njit
def seeded_randoms(seed, count):
    random.seed(seed)
    out = np.empty(count)
    for i in range(count):
        out[i] = random.random()
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_random_after_seed(seed):
    # 700 draws: past one twist of the 624-word key
    assert seeded_randoms(seed, 700).tolist() == cpython_draws(seed, random.random, 700)


@ember.njit
def mixed_draws(seed):
    random.seed(seed)
    return (
        random.uniform(-2.0, 3.5),
        random.randint(1, 6),
        random.randrange(10),
        random.randrange(-5, 17),
        random.randrange(100, -3, -7),
        random.expovariate(1.5),
        random.normalvariate(1.0, 2.0),
        random.getrandbits(17),
        random.getrandbits(45),
        random.getrandbits(64),
        random.random(),
    )


def cpython_mixed(seed):
    return tuple(
        cpython_draws(
            seed,
            lambda: (
                random.uniform(-2.0, 3.5),
                random.randint(1, 6),
                random.randrange(10),
                random.randrange(-5, 17),
                random.randrange(100, -3, -7),
                random.expovariate(1.5),
                random.normalvariate(1.0, 2.0),
                random.getrandbits(17),
                random.getrandbits(45),
                random.getrandbits(64),
                random.random(),
            ),
            1,
        )[0]
    )


@pytest.mark.parametrize("seed", SEEDS[:5])
def test_mixed_draws(seed):
    assert mixed_draws(seed) == cpython_mixed(seed)


@ember.njit
def randints(seed, low, high, count):
    random.seed(seed)
    out = np.empty(count, np.int64)
    for i in range(count):
        out[i] = random.randint(low, high)
    return out


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(-(2**63), 2**63 - 1),
    low=st.integers(-(2**40), 2**40),
    span=st.one_of(st.integers(0, 100), st.integers(0, 2**45)),
)
def test_randint_ranges(seed, low, span):
    high = low + span
    expected = cpython_draws(seed, lambda: random.randint(low, high), 30)
    assert randints(seed, low, high, 30).tolist() == expected


@pytest.mark.parametrize("low, high", [(0, 2**32), (-(2**33), 2**33 + 5), (5, 2**62)])
def test_randint_beyond_32_bits(low, high):
    assert randints(9, low, high, 50).tolist() == cpython_draws(
        9, lambda: random.randint(low, high), 50
    )


@ember.njit
def shuffled(seed, values):
    random.seed(seed)
    random.shuffle(values)
    return values


@ember.njit
def shuffled_list(seed, n):
    random.seed(seed)
    values = list(range(n))
    random.shuffle(values)
    return values


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_shuffle(seed):
    expected = list(range(40))
    state = random.getstate()
    random.seed(seed)
    random.shuffle(expected)
    random.setstate(state)
    assert shuffled(seed, np.arange(40.0)).tolist() == expected
    assert list(shuffled_list(seed, 40)) == expected


@ember.njit
def choices(seed, values, count):
    random.seed(seed)
    out = np.empty(count, values.dtype)
    for i in range(count):
        out[i] = random.choice(values)
    return out


@ember.njit
def choices_from_list(seed, count):
    random.seed(seed)
    values = [3, 1, 4, 1, 5, 9, 2, 6]
    total = 0
    for _ in range(count):
        total = total * 10 + random.choice(values)
    return total


@ember.njit
def choices_from_tuple(seed):
    random.seed(seed)
    return random.choice((1.5, 2.5, 3.5)), random.choice("xyz"), random.getrandbits(0)


def test_choice():
    values = np.array([2.5, -1.0, 7.0, 0.5, 9.0])
    expected = cpython_draws(5, lambda: random.choice(values.tolist()), 40)
    assert choices(5, values, 40).tolist() == expected
    digits = cpython_draws(6, lambda: random.choice([3, 1, 4, 1, 5, 9, 2, 6]), 12)
    assert choices_from_list(6, 12) == int("".join(map(str, digits)))
    expected = cpython_draws(
        4, lambda: (random.choice((1.5, 2.5, 3.5)), random.choice("xyz"), random.getrandbits(0)), 1
    )[0]
    assert choices_from_tuple(4) == expected


@ember.njit
def gauss_draws(seed):
    random.seed(seed)
    a = random.gauss(0.0, 1.0)
    b = random.gauss(2.0, 3.0)  # the cached second value of the first pair
    c = random.gauss()
    random.seed(seed)  # seeding drops the cached value
    d = random.gauss(1.0, 0.5)
    e = random.gauss(1.0, 0.5)
    return a, b, c, d, e


def test_gauss_caches_the_second_value():
    state = random.getstate()
    random.seed(3)
    a, b, c = random.gauss(0.0, 1.0), random.gauss(2.0, 3.0), random.gauss()
    random.seed(3)
    d, e = random.gauss(1.0, 0.5), random.gauss(1.0, 0.5)
    random.setstate(state)
    assert gauss_draws(3) == (a, b, c, d, e)


@ember.njit
def distribution_draws(seed):
    random.seed(seed)
    return (
        random.lognormvariate(0.5, 0.25),
        random.triangular(1.0, 4.0),
        random.triangular(1.0, 4.0, 3.5),
        random.gammavariate(0.5, 2.0),
        random.gammavariate(1.0, 2.0),
        random.gammavariate(4.5, 0.5),
        random.betavariate(2.0, 3.0),
        random.betavariate(0.3, 0.7),
        random.paretovariate(2.5),
        random.weibullvariate(1.5, 2.0),
        random.vonmisesvariate(1.0, 4.0),
        random.vonmisesvariate(1.0, 0.0),
    )


@pytest.mark.parametrize("seed", [0, 11, 2**35])
def test_more_distributions(seed):
    expected = cpython_draws(
        seed,
        lambda: (
            random.lognormvariate(0.5, 0.25),
            random.triangular(1.0, 4.0),
            random.triangular(1.0, 4.0, 3.5),
            random.gammavariate(0.5, 2.0),
            random.gammavariate(1.0, 2.0),
            random.gammavariate(4.5, 0.5),
            random.betavariate(2.0, 3.0),
            random.betavariate(0.3, 0.7),
            random.paretovariate(2.5),
            random.weibullvariate(1.5, 2.0),
            random.vonmisesvariate(1.0, 4.0),
            random.vonmisesvariate(1.0, 0.0),
        ),
        1,
    )[0]
    assert distribution_draws(seed) == expected


@ember.njit
def randrange_call(start, stop, step):
    return random.randrange(start, stop, step)


@ember.njit
def randrange_below(stop):
    return random.randrange(stop)


@ember.njit
def randint_call(a, b):
    return random.randint(a, b)


@ember.njit
def choice_call(values):
    return random.choice(values)


@ember.njit
def bits_call(k):
    return random.getrandbits(k)


@ember.njit
def expo_call(lambd):
    return random.expovariate(lambd)


@ember.njit
def gamma_call(alpha, beta):
    return random.gammavariate(alpha, beta)


def cpython_error(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize(
    "compiled, interpreted",
    [
        (lambda: randrange_below(0), lambda: random.randrange(0)),
        (lambda: randint_call(5, 3), lambda: random.randint(5, 3)),
        (lambda: randrange_call(0, 10, 0), lambda: random.randrange(0, 10, 0)),
        (lambda: randrange_call(0, 10, -1), lambda: random.randrange(0, 10, -1)),
        (lambda: randrange_call(4, 4, 1), lambda: random.randrange(4, 4, 1)),
        (lambda: choice_call(np.empty(0)), lambda: random.choice([])),
        (lambda: gamma_call(-1.0, 1.0), lambda: random.gammavariate(-1.0, 1.0)),
        (lambda: bits_call(-1), lambda: random.getrandbits(-1)),
        (lambda: expo_call(0.0), lambda: random.expovariate(0.0)),
        (lambda: randrange_call(10, None, 2), lambda: random.randrange(10, None, 2)),
    ],
)
def test_errors_match_cpython(compiled, interpreted):
    error_type, message = cpython_error(interpreted)
    with pytest.raises(error_type) as info:
        compiled()
    assert str(info.value) == message


@ember.njit
def unseeded(count):
    out = np.empty(count)
    for i in range(count):
        out[i] = random.random()
    return out, random.randint(10, 20), random.uniform(-1.0, 1.0)


def test_unseeded_draws_are_in_range_and_differ():
    values, integer, uniform = unseeded(100)
    assert ((values >= 0.0) & (values < 1.0)).all()
    assert len(set(values.tolist())) == 100
    assert 10 <= integer <= 20 and -1.0 <= uniform < 1.0
    assert not np.array_equal(unseeded(100)[0], values)


def test_compiled_state_is_separate_from_the_interpreters():
    random.seed(8)
    expected = random.random()
    random.seed(8)
    seeded_randoms(123, 3)  # seeds and draws the compiled state only
    assert random.random() == expected


@ember.njit
def reseeded(count, seed):
    random.seed(seed)
    random.gauss()  # leaves a cached value that reseeding drops
    random.seed()
    out = np.empty(count)
    for i in range(count):
        out[i] = random.random()
    return out


def test_seed_without_a_seed_draws_from_the_os():
    first = reseeded(50, 1)
    second = reseeded(50, 1)
    assert ((first >= 0.0) & (first < 1.0)).all()
    assert len(set(first.tolist()) | set(second.tolist())) == 100


@ember.njit
def stepped(seed, start, stop, step, count):
    random.seed(seed)
    out = np.empty(count, np.int64)
    for i in range(count):
        out[i] = random.randrange(start, stop, step)
    return out


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**40),
    start=st.integers(-(2**34), 2**34),
    stop=st.integers(-(2**34), 2**34),
    step=st.integers(-(2**20), 2**20).filter(lambda step: step != 0),
)
def test_randrange_with_a_step(seed, start, stop, step):
    if len(range(start, stop, step)) == 0:
        return
    expected = cpython_draws(seed, lambda: random.randrange(start, stop, step), 20)
    assert stepped(seed, start, stop, step, 20).tolist() == expected


@ember.njit
def by_imported_names(seed):
    random.seed(seed)
    return imported_random(), imported_randint(np.int32(1), np.int32(6))


def test_functions_imported_by_name():
    expected = cpython_draws(12, lambda: (random.random(), random.randint(1, 6)), 1)[0]
    assert by_imported_names(12) == expected


@ember.njit
def seeded_unsigned(seed):
    random.seed(seed, 2)
    return random.random()


def test_unsigned_seed_beyond_int64():
    seed = 2**64 - 3
    assert seeded_unsigned(np.uint64(seed)) == cpython_draws(seed, random.random, 1)[0]


@ember.njit
def shuffled_typed(seed, values):
    random.seed(seed)
    random.shuffle(values)
    return values


def test_shuffle_typed_and_reflected_lists():
    expected = cpython_draws(1, lambda: random.shuffle(order := list(range(12))) or order, 1)[0]
    typed = ember.typed.List(range(12))
    shuffled_typed(1, typed)
    assert list(typed) == expected
    reflected = list(range(12))
    shuffled_typed(1, reflected)
    assert reflected == expected
