"""Float -> integer conversions (`np.uint8(x)`, `astype`, stores into integer arrays) against
NumPy's casts: truncate toward zero, then wrap to the target's width. Beyond int32, 8- to
32-bit signed targets and 16-bit ones give int32's minimum before the wrap, as NumPy's int32
conversion does on x86-64; the others saturate at int64; NaN gives 0 (ember's documented rule)."""

import math
import re

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


THROUGH_INT32 = (np.uint8, np.int8, np.uint16, np.int16, np.int32)


def ember_rule(x: float, dtype) -> int:
    """Truncate, NaN as 0; beyond int32 int32's minimum (targets in THROUGH_INT32), else
    saturate at int64 (uint64: at [-2**63, 2**64)); then wrap."""
    bits = np.iinfo(dtype).bits
    if math.isnan(x):
        whole = 0
    elif dtype in THROUGH_INT32:
        whole = int(x) if abs(x) < 2.0**31 else -(2**31)
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


WRAP_POINTS = [2.0**k for k in (7, 8, 15, 16, 31, 32, 63)]
NEAR_WRAP_POINTS = st.sampled_from(WRAP_POINTS + [-p for p in WRAP_POINTS]).flatmap(
    lambda edge: st.floats(edge - 2.0, edge + 2.0)
)
ANY_FLOAT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf, 1e300, -1e300]),
    NEAR_WRAP_POINTS,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(ANY_FLOAT, min_size=1, max_size=40))
def test_stores_of_any_float_follow_the_rule_and_numpy(values):
    """A vectorized store loop (arrays of up to 40 items take its vector and scalar paths)
    and the scalar constructor give the rule's value; NumPy's own cast agrees wherever it is
    the same conversion through int32 (8- and 16-bit targets everywhere, int32 except NaN)."""
    source = np.array(values)
    for dtype in (np.uint8, np.int8, np.uint16, np.int16, np.int32):
        stored = np.zeros(source.shape[0], dtype)
        convert_all(source, stored)
        expected = [ember_rule(v, dtype) for v in values]
        assert stored.tolist() == expected, dtype
        assert CONSTRUCTORS[dtype](values[0]) == expected[0], dtype
        with np.errstate(invalid="ignore"):
            numpy_cast = source.astype(dtype)
        defined = ~np.isnan(source) if dtype == np.int32 else np.ones(source.shape[0], bool)
        np.testing.assert_array_equal(stored[defined], numpy_cast[defined])


@pytest.mark.parametrize("dtype", THROUGH_INT32)
def test_float32_sources_near_the_int32_bounds(dtype):
    values = np.array(
        [2.0**31, -(2.0**31), 2.0**31 - 128, -(2.0**31) + 128, 2.0**24 + 2], np.float32
    )
    stored = np.zeros(values.shape[0], dtype)
    convert_all(values, stored)
    assert stored.tolist() == [ember_rule(float(v), dtype) for v in values]
    np.testing.assert_array_equal(stored, values.astype(dtype))


def store_clamped(img, out):
    for i in range(img.shape[0]):
        out[i] = min(max(img[i] * 1.5 - 10.0, 0.0), 255.0)


def test_clamped_uint8_store_vectorizes_through_int32():
    """The store of a clamped float into uint8 converts a vector of lanes to int32 (x86-64:
    cvttpd2dq), as Numba's unchecked conversion does, not to int64 lane by lane."""
    compiled = njit(store_clamped)
    img = np.array([0.0, 3.0, 100.0, 200.0, math.nan, -5.0, 1e12, 170.3] * 5)
    out = np.zeros(img.shape[0], np.uint8)
    compiled(img, out)
    assert out.tolist() == [ember_rule(min(max(v * 1.5 - 10.0, 0.0), 255.0), np.uint8) for v in img]
    vector_converts = re.findall(
        r"fptosi <\d+ x double> %[\w.]+ to <\d+ x (i\d+)>",
        compiled.inspect_llvm(compiled.signatures[0]),
    )
    assert vector_converts and set(vector_converts) == {"i32"}
