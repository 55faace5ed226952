"""np.random calls under parallel=True (uniform, normal, exponential, lognormal, randint): each
chunk of the array comes from its own generator seeded from the serial one, so the values are
checked against NumPy's RandomState built the same way (an exact oracle), plus shapes, ranges
and moments three ways (Python, njit, njit(parallel=True)), determinism after np.random.seed for
any thread count, argument errors and the diagnostics."""

import numpy as np
import pytest

import ember
from ember import njit
from ember.parallel.random_streams import CHUNK

N = 2 * CHUNK + 1234  # two parallel chunks and a serial tail


@njit
def _seed(s):
    np.random.seed(s)


def _oracle(seed, n, draw):
    """What the parallel call gives after np.random.seed(seed): `draw(state, count)` of a
    generator per full chunk, seeded in order from the global one, then the tail drawn from
    the global generator itself."""
    np.random.seed(seed)
    count = n // CHUNK if n >= 2 * CHUNK else 0
    seeds = [np.random.randint(0, 1 << 32) for _ in range(count)]
    parts = [draw(np.random.RandomState(s), CHUNK) for s in seeds]
    parts.append(draw(np.random.mtrand._rand, n - count * CHUNK))
    return np.concatenate(parts)


def random_1d(n):
    return np.random.random(n)


def uniform_kw(n):
    return np.random.uniform(-2.0, 3.0, size=n)


def normal_2d(n):
    return np.random.normal(1.5, 2.0, (n // 4, 4))


def standard_normal_1d(n):
    return np.random.standard_normal(n)


def rand_2d(n):
    return np.random.rand(n // 2, 2)


def randn_1d(n):
    return np.random.randn(n)


def randint_1d(n):
    return np.random.randint(3, 17, n)


def randint_below(n):
    return np.random.randint(5, size=n)


def randint_wide(n):
    return np.random.randint(-(2**40), 2**40, (n // 2, 2))


def exponential_2d(n):
    return np.random.exponential(2.0, (n // 4, 4))


def standard_exponential_1d(n):
    return np.random.standard_exponential(n)


def lognormal_1d(n):
    return np.random.lognormal(0.5, 0.3, size=n)


NEW_CASES = [
    (randint_1d, lambda st, k: st.randint(3, 17, k)),
    (randint_below, lambda st, k: st.randint(5, size=k)),
    (randint_wide, lambda st, k: st.randint(-(2**40), 2**40, k, dtype=np.int64)),
    (exponential_2d, lambda st, k: st.exponential(2.0, k)),
    (standard_exponential_1d, lambda st, k: st.standard_exponential(k)),
    (lognormal_1d, lambda st, k: st.lognormal(0.5, 0.3, k)),
]

CASES = [
    (random_1d, lambda st, k: st.random_sample(k)),
    (uniform_kw, lambda st, k: st.uniform(-2.0, 3.0, k)),
    (normal_2d, lambda st, k: st.normal(1.5, 2.0, k)),
    (standard_normal_1d, lambda st, k: st.standard_normal(k)),
    (rand_2d, lambda st, k: st.random_sample(k)),
    (randn_1d, lambda st, k: st.standard_normal(k)),
    *NEW_CASES,
]


@pytest.mark.parametrize("fn, draw", CASES, ids=[c[0].__name__ for c in CASES])
def test_values_match_the_chunked_numpy_oracle(fn, draw):
    parallel = njit(parallel=True)(fn)
    _seed(12345)
    got = parallel(N)
    expected = _oracle(12345, got.size, draw)
    assert got.dtype == expected.dtype and got.shape == fn(N).shape
    np.testing.assert_array_equal(got.ravel(), expected)
    report = parallel.overloads[(ember.typeof(N),)].parallel_report
    assert report.conversions() == {f"np.random.{fn.__code__.co_names[-1]}": 1}


@pytest.mark.parametrize("fn, draw", CASES[:2], ids=["random", "uniform"])
def test_small_arrays_draw_the_serial_stream(fn, draw):
    serial, parallel = njit(fn), njit(parallel=True)(fn)
    _seed(7)
    expected = serial(1000)
    _seed(7)
    np.testing.assert_array_equal(parallel(1000), expected)


@pytest.mark.parametrize("fn", [c[0] for c in NEW_CASES])
def test_small_arrays_of_other_draws_agree_three_ways(fn):
    np.random.seed(7)
    expected = fn(1000)
    for dispatcher in (njit(fn), njit(parallel=True)(fn)):
        _seed(7)
        got = dispatcher(1000)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-13)
    report = dispatcher.overloads[(ember.typeof(1000),)].parallel_report
    assert report.conversions() == {f"np.random.{fn.__code__.co_names[-1]}": 1}


@pytest.mark.parametrize("fn", [standard_normal_1d, randint_1d, exponential_2d])
def test_same_seed_same_numbers_for_any_thread_count(fn):
    parallel = njit(parallel=True)(fn)
    _seed(99)
    first = parallel(N)
    ember.set_num_threads(1)
    try:
        _seed(99)
        one_thread = parallel(N)
    finally:
        ember.set_num_threads(ember.config.NUM_THREADS)
    np.testing.assert_array_equal(first, one_thread)
    assert not np.array_equal(first, parallel(N))  # the stream moves on


def test_serial_code_is_unchanged():
    serial = njit(random_1d)
    _seed(3)
    np.random.seed(3)
    np.testing.assert_array_equal(serial(N), np.random.random_sample(N))


def summary(n):
    u = np.random.random(n)
    z = np.random.standard_normal((n // 2, 2))
    return u.shape, z.shape, bool(u.min() >= 0.0), bool(u.max() < 1.0), round(u.mean(), 1)


def test_shapes_ranges_and_moments_three_ways():
    expected = summary(N)
    assert njit(summary)(N) == expected
    assert njit(parallel=True)(summary)(N) == expected == ((N,), (N // 2, 2), True, True, 0.5)


def test_distribution_of_the_parallel_draws():
    u = njit(parallel=True)(random_1d)(4 * CHUNK)
    counts = np.histogram(u, bins=16, range=(0.0, 1.0))[0]
    expected = u.size / 16
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 45  # 15 degrees of freedom: p < 1e-4
    z = njit(parallel=True)(standard_normal_1d)(4 * CHUNK)
    assert abs(z.mean()) < 5 / np.sqrt(z.size) and abs(z.std() - 1) < 0.02
    halves = u[:CHUNK], u[CHUNK : 2 * CHUNK]  # two chunks: independent generators
    assert abs(np.corrcoef(*halves)[0, 1]) < 5 / np.sqrt(CHUNK)


def scalar_draw_stays_serial(n):
    total = 0.0
    for _ in range(n):
        total += np.random.random()
    return total


def test_scalar_draws_are_not_converted():
    parallel = njit(parallel=True)(scalar_draw_stays_serial)
    serial = njit(scalar_draw_stays_serial)
    _seed(5)
    expected = serial(10)
    _seed(5)
    assert parallel(10) == expected
    assert parallel.overloads[(ember.typeof(10),)].parallel_report.conversions() == {}


def integers(n):
    return np.random.poisson(3.0, n)


def test_other_draws_stay_serial_with_a_reason():
    parallel, serial = njit(parallel=True)(integers), njit(integers)
    _seed(4)
    expected = serial(N)
    _seed(4)
    np.testing.assert_array_equal(parallel(N), expected)  # the serial stream itself
    report = parallel.overloads[(ember.typeof(N),)].parallel_report
    assert report.conversions() == {}
    assert any("np.random.poisson runs serially" in note for note in report.notes), report.notes


def bad_scale(n):
    return np.random.exponential(-1.0, n)


def bad_sigma(n):
    return np.random.lognormal(0.0, -0.5, n)


def empty_range(n):
    return np.random.randint(5, 5, n)


BAD = [(bad_scale, "scale < 0"), (bad_sigma, "sigma < 0"), (empty_range, "low >= high")]


@pytest.mark.parametrize("fn, message", BAD)
def test_bad_arguments_raise_three_ways(fn, message):
    for dispatcher in (fn, njit(fn), njit(parallel=True)(fn)):
        with pytest.raises(ValueError, match=message):
            dispatcher(N)
