"""np.argsort (insertion-sorted runs, then merges that skip runs already in order) equals
NumPy's stable argsort: ties keep their order, NaNs go last, at lengths around the run size."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember


@ember.njit
def argsort(a):
    return np.argsort(a)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.5, 2.0, np.nan, np.inf]), max_size=80))
def test_floats_with_ties_and_nan(items):
    a = np.array(items, dtype=np.float64)
    np.testing.assert_array_equal(argsort(a), np.argsort(a, kind="stable"))


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 31, 32, 33, 1000, 1025])
@pytest.mark.parametrize(
    "shape", ["random", "sorted", "reversed", "few values", "descending pairs", "sawtooth"]
)
def test_lengths_around_the_run_size(n, shape):
    rng = np.random.default_rng(n)
    a = {
        "random": rng.standard_normal(n),
        "sorted": np.sort(rng.standard_normal(n)),
        "reversed": -np.arange(n, dtype=np.float64),
        "few values": rng.integers(0, 3, n).astype(np.float64),
        "descending pairs": np.repeat(np.arange(n)[::-1], 2)[:n].astype(np.float64),
        "sawtooth": (np.arange(n) % 37)[::-1].astype(np.float64),
    }[shape]
    np.testing.assert_array_equal(argsort(a), np.argsort(a, kind="stable"))
