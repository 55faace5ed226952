"""np.random and random draws inside prange bodies: each worker thread draws from its own
generator state, so no draw repeats beyond chance, values stay in range, np.random.seed in a
worker seeds that worker's state exactly as NumPy seeds, and seeded draws outside parallel
regions still give NumPy's and CPython's streams."""

import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember
from ember import config, njit, prange

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = 100_000  # 53-bit doubles: a repeat among N independent draws has odds about N**2 / 2**54

pytestmark = pytest.mark.skipif(config.NUM_THREADS < 2, reason="needs two worker threads")


@njit(parallel=True)
def _fill_np_random(n):
    out = np.empty(n)
    workers = np.empty(n, np.int64)
    for i in prange(n):
        out[i] = np.random.random()
        workers[i] = ember.get_thread_id()
    return out, workers


@njit(parallel=True)
def _fill_np_normal(n):
    out = np.empty(n)
    for i in prange(n):
        out[i] = np.random.normal(0.0, 1.0)
    return out


@njit(parallel=True)
def _fill_py_random(n):
    out = np.empty(n)
    for i in prange(n):
        out[i] = random.random()
    return out


@njit(parallel=True)
def _seed_then_draw_in_each(n, seed):
    out = np.empty((n, 3))
    for i in prange(n):
        np.random.seed(seed)
        out[i, 0] = np.random.random()
        out[i, 1] = np.random.normal()
        out[i, 2] = np.random.randint(0, 1000)
    return out


@njit
def _seed_then_draw(seed, n):
    np.random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.random()
    return out


@njit
def _py_seed_then_draw(seed, n):
    random.seed(seed)
    out = np.empty(n)
    for i in range(n):
        out[i] = random.random()
    return out


@pytest.fixture
def two_threads():
    ember.set_num_threads(2)
    yield
    ember.set_num_threads(config.NUM_THREADS)


def _assert_independent_uniforms(values):
    assert np.all((values >= 0.0) & (values < 1.0))
    assert np.unique(values).size == values.size  # shared state repeats draws
    assert abs(values.mean() - 0.5) < 0.01  # 0.01 is over 10 standard errors at N


def test_np_random_in_prange_draws_no_repeats(two_threads):
    values, workers = _fill_np_random(N)
    assert np.unique(workers).size == 2  # both threads drew
    _assert_independent_uniforms(values)


def test_np_normal_in_prange_draws_no_repeats(two_threads):
    values = _fill_np_normal(N)
    assert np.all(np.isfinite(values))
    assert np.unique(values).size == values.size
    assert abs(values.mean()) < 0.02 and abs(values.std() - 1.0) < 0.02


def test_python_random_in_prange_draws_no_repeats(two_threads):
    _assert_independent_uniforms(_fill_py_random(N))


def test_seed_in_a_worker_seeds_its_own_state_as_numpy(two_threads):
    state = np.random.RandomState(1234)
    expected = [state.random_sample(), state.normal(), state.randint(0, 1000)]
    got = _seed_then_draw_in_each(64, 1234)
    np.testing.assert_array_equal(got, np.tile(expected, (64, 1)))


def test_seeded_serial_streams_unchanged_after_parallel_draws(two_threads):
    _fill_np_random(N)
    np.testing.assert_array_equal(
        _seed_then_draw(99, 1000), np.random.RandomState(99).random_sample(1000)
    )
    _fill_py_random(N)
    expected = random.Random(99)
    np.testing.assert_array_equal(
        _py_seed_then_draw(99, 1000), [expected.random() for _ in range(1000)]
    )


_WORKQUEUE_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import ember
    from ember import njit, prange

    @njit(parallel=True)
    def fill(n):
        out = np.empty(n)
        for i in prange(n):
            out[i] = np.random.random()
        return out

    ember.set_num_threads(2)
    values = fill(100_000)
    print(ember.threading_layer(), np.unique(values).size, values.min() >= 0, values.max() < 1)
    """
)


def test_workqueue_layer_workers_draw_no_repeats():
    env = dict(os.environ, EMBER_THREADING_LAYER="workqueue", PYTHONPATH=REPO)
    done = subprocess.run(
        [sys.executable, "-c", _WORKQUEUE_SCRIPT], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["workqueue", "100000", "True", "True"]
