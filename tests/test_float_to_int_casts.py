"""Float -> integer conversions (`np.uint8(x)`, `astype`, stores into integer arrays) against
NumPy's casts: truncate toward zero, then wrap to the target's width; NaN and values beyond
int64 saturate at int64 before the wrap (ember's documented rule, where NumPy's is undefined)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember as numba
from ember import njit

INTEGER_TYPES = [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64]


def constructor(dtype):
    """A compiled `numba.<dtype>(x)`."""
    make = getattr(numba, dtype.__name__)
    return njit(lambda x: make(x))


CONSTRUCTORS = {dtype: constructor(dtype) for dtype in INTEGER_TYPES}
SAMPLES = [-1.5, -0.5, -0.0, 0.5, 0.99, 1.0, 127.9, 128.5, 255.5, 256.0, 300.7, -300.2]
SAMPLES += [-129.7, 65535.9, 65536.5, -65537.3, 1e6 + 0.25, -1e6 - 0.75, 2.0**31 - 1.5]


@njit
def convert_all(values, out):
    for i in range(values.shape[0]):
        out[i] = values[i]


def numpy_defined_range(dtype) -> tuple[float, float]:
    """Where NumPy's cast on x86-64 is a plain truncate-and-wrap (its 8-, 16- and 32-bit casts
    go through int32, int64 and uint64 through int64)."""
    if dtype == np.uint64:
        return -(2.0**63), 2.0**64
    if dtype == np.int64:
        return -(2.0**63), 2.0**63
    return -(2.0**31), 2.0**32 if dtype == np.uint32 else 2.0**31


def ember_rule(x: float, dtype) -> int:
    """Truncate, saturate at int64 (uint64: at [-2**63, 2**64)), NaN as 0, then wrap."""
    bits = np.iinfo(dtype).bits
    if math.isnan(x):
        whole = 0
    else:
        top = 2**64 - 1 if dtype == np.uint64 else 2**63 - 1
        whole = -(2**63) if x == -math.inf else top if x == math.inf else int(x)
        whole = max(-(2**63), min(top, whole))
    wrapped = whole % 2**bits
    return wrapped - 2**bits if np.iinfo(dtype).min < 0 and wrapped >= 2 ** (bits - 1) else wrapped


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
@pytest.mark.parametrize("source", [np.float64, np.float32])
def test_astype_and_stores_match_numpy(dtype, source):
    low, high = numpy_defined_range(dtype)
    values = np.array([v for v in SAMPLES if low < source(v) < high], dtype=source)
    expected = values.astype(dtype)
    np.testing.assert_array_equal(njit(lambda a: a.astype(dtype))(values), expected)
    stored = np.zeros(values.shape[0], dtype)
    convert_all(values, stored)
    np.testing.assert_array_equal(stored, expected)


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_scalar_constructor_matches_numpy(dtype):
    low, high = numpy_defined_range(dtype)
    for value in (v for v in SAMPLES if low < v < high):
        assert CONSTRUCTORS[dtype](value) == int(np.array(value).astype(dtype)), value


def test_the_reported_case():
    assert numba.njit(lambda x: numba.uint8(x))(-1.5) == 255 == np.array(-1.5).astype(np.uint8)


@settings(max_examples=40, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-(2.0**31), max_value=2.0**31))
def test_any_float_in_int32_range_matches_numpy(value):
    for dtype in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64):
        if -(2.0**31) < value < 2.0**31:
            assert CONSTRUCTORS[dtype](value) == int(np.array(value).astype(dtype)), dtype


@pytest.mark.parametrize("dtype", INTEGER_TYPES)
def test_nan_infinity_and_huge_values_follow_the_documented_rule(dtype):
    for value in (math.nan, math.inf, -math.inf, 1e30, -1e30, 2.0**63, 2.0**64 + 4096):
        assert CONSTRUCTORS[dtype](value) == ember_rule(value, dtype), value


def test_uint64_takes_values_above_int64_exactly():
    for value in (2.0**63, 2.0**63 + 2048.0, 2.0**64 - 2048.0):
        assert CONSTRUCTORS[np.uint64](value) == int(value) == int(np.uint64(value))
