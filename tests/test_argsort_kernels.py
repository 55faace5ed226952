"""np.argsort's kernels (ember/library/numpy/sorting.py): introsort of (value, index) pairs with
ties then put in index order, its heapsort after bad pivots, an LSD radix sort for integers
(insertion below 128 items), and the ordered / strictly descending shortcuts all give NumPy's
`kind='stable'` order."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.library.numpy import sorting


@ember.njit
def argsort(a):
    return np.argsort(a)


@ember.njit
def argsort_along(a, axis):
    return np.argsort(a, axis=axis)


def stable(a, axis=-1):
    return np.argsort(a, axis=axis, kind="stable")


INTEGER_DTYPES = [np.int8, np.int32, np.int64, np.uint16, np.uint64]
SIZES = [0, 1, 2, 15, 16, 17, 127, 128, 129, 1000, 5000]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_integers_of_every_width_and_sign(dtype):
    rng = np.random.default_rng(1)
    info = np.iinfo(dtype)
    for size in SIZES:
        wide = rng.integers(info.min, info.max, size=size, dtype=dtype, endpoint=True)
        few = rng.integers(0, 5, size=size).astype(dtype)  # long runs of ties
        extremes = rng.choice(np.array([info.min, info.max, 0, 1], dtype=dtype), size=size)
        for a in (wide, few, extremes):
            np.testing.assert_array_equal(argsort(a), stable(a))


def test_floats_with_ties_nans_infinities_and_signed_zeros():
    rng = np.random.default_rng(2)
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0])
    for size in SIZES:
        for a in (
            rng.normal(size=size),
            rng.choice(specials, size=size),
            np.round(rng.normal(size=size), 1),
            rng.normal(size=size).astype(np.float32),
        ):
            np.testing.assert_array_equal(argsort(a), stable(a))


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint8])
def test_ordered_descending_and_nearly_ordered_input(dtype):
    base = np.arange(3000).astype(dtype) if dtype != np.uint8 else np.arange(3000) % 256
    base = base.astype(dtype)
    swapped = base.copy()
    swapped[[10, 2000]] = swapped[[2000, 10]]
    organ_pipe = np.concatenate([base[:1500], base[:1500][::-1]])
    for a in (base, base[::-1].copy(), swapped, organ_pipe, np.full(500, base[7])):
        np.testing.assert_array_equal(argsort(a), stable(a))
    with_nan_first = np.array([np.nan, 3.0, 2.0, 1.0])  # descending with NaN ordered last
    np.testing.assert_array_equal(argsort(with_nan_first), stable(with_nan_first))


tied_floats = st.one_of(st.integers(-3, 3).map(float), st.sampled_from([np.nan, -0.0]))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(tied_floats, max_size=80),
    st.lists(st.integers(-(2**63), 2**63 - 1), max_size=300),
)
def test_random_inputs_match_numpys_stable_order(floats, integers):
    a = np.array(floats, dtype=np.float64)
    np.testing.assert_array_equal(argsort(a), stable(a))
    b = np.array(integers, dtype=np.int64)
    np.testing.assert_array_equal(argsort(b), stable(b))


def test_lanes_along_every_axis():
    rng = np.random.default_rng(3)
    for a in (rng.integers(-50, 50, size=(6, 300, 4)), rng.normal(size=(5, 7, 300))):
        for axis in range(3):
            np.testing.assert_array_equal(argsort_along(a, axis), stable(a, axis))


def test_heapsort_after_bad_pivots_then_ties_by_index_is_stable():
    rng = np.random.default_rng(4)
    for keys in (rng.integers(0, 9, size=777).astype(np.float64), rng.normal(size=1000)):
        expected = stable(keys)
        index = np.arange(keys.size)
        sorted_keys = keys.copy()
        sorting._heapsort_pairs_jit(sorted_keys, index)
        np.testing.assert_array_equal(sorted_keys, np.sort(keys))
        sorting._order_ties_by_index_jit(sorted_keys, index)
        np.testing.assert_array_equal(index, expected)


def test_argsort_frees_its_buffers():
    a = np.random.default_rng(5).integers(0, 100, size=4000)
    b = a.astype(np.float64)
    argsort(a), argsort(b), argsort_along(a.reshape(40, 100), 0)
    before = ember.runtime.stats().live
    for _ in range(20):
        argsort(a), argsort(b), argsort_along(a.reshape(40, 100), 0)
    assert ember.runtime.stats().live == before
