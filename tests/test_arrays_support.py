"""Shared inputs and checks for the array tests (no tests here): sample arrays of every dtype
family in C, F, strided and negative-stride layouts, value+dtype comparison, leak checks."""

from __future__ import annotations

import numpy as np

import ember.runtime

DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float32, np.float64,
          np.complex64, np.complex128]  # fmt: skip
NUMERIC = [d for d in DTYPES if d is not np.bool_]


def sample(dtype, shape, layout="C", seed=0):
    """An array of `shape` and `dtype` in the layout: 'C', 'F', 'A' (strided) or 'N'
    (negative strides)."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    if dtype is np.bool_:
        flat = rng.integers(0, 2, size * 4).astype(bool)
    elif np.issubdtype(dtype, np.complexfloating):
        flat = (rng.integers(-5, 6, size * 4) + 1j * rng.integers(-5, 6, size * 4)).astype(dtype)
    elif np.issubdtype(dtype, np.unsignedinteger):
        flat = rng.integers(0, 50, size * 4).astype(dtype)
    else:
        flat = rng.integers(-20, 21, size * 4).astype(dtype)
        if np.issubdtype(dtype, np.floating):
            flat = flat / np.asarray(4, dtype)
    if layout == "C":
        return np.ascontiguousarray(flat[:size].reshape(shape))
    if layout == "F":
        return np.asfortranarray(flat[:size].reshape(shape))
    if layout == "A":
        big = flat[: size * 2].reshape((*shape[:-1], shape[-1] * 2)) if shape else flat[:1]
        return big[..., ::2] if shape else big.reshape(())
    big = flat[:size].reshape(shape)
    return big[::-1] if shape else big


LAYOUTS = ["C", "F", "A", "N"]


def assert_same(got, expected):
    """Same values, dtype and shape (NaN-aware)."""
    if isinstance(expected, np.ndarray):
        assert isinstance(got, np.ndarray), f"expected an array, got {got!r}"
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert got.shape == expected.shape, (got.shape, expected.shape)
        np.testing.assert_array_equal(got, expected)
    elif isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
    else:
        np.testing.assert_equal(got, expected)


class live_allocations:
    """Context manager asserting that the runtime's live-allocation count is unchanged."""

    def __enter__(self):
        self.before = ember.runtime.stats().live
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            assert ember.runtime.stats().live == self.before
