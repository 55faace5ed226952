"""perf23's optimizations keep their semantics: float -> integer stores of clamped values (the
range test narrowed to a NaN test) give NumPy's values for NaN, inf and huge inputs, and
Python's `random` draws (entry points inlined, errors out of line) give CPython's numbers and
errors. Results are compared with the interpreter running the same function."""

import math
import random
import warnings

import numpy as np
import pytest

import ember

SPECIALS = np.array(
    [
        0.0,
        -0.0,
        0.4,
        0.6,
        1.5,
        -1.5,
        254.6,
        255.0,
        255.9,
        256.0,
        -3.7,
        127.5,
        -128.5,
        1e300,
        -1e300,
        2.0**31,
        -(2.0**31),
        2.0**63,
        np.inf,
        -np.inf,
        np.nan,
        -np.nan,
        3e9,
        -3e9,
    ],
)
INTEGER_TYPES = [np.uint8, np.int16, np.int32, np.int64]


@ember.njit
def _store_unbounded(values, out):
    """The conversion with its full range test (nothing bounds these values)."""
    flat_out = out.reshape(-1)
    flat_values = values.reshape(-1)
    for i in range(flat_values.shape[0]):
        flat_out[i] = flat_values[i]
    return out


def _python(func, *args):
    """`func` run by the interpreter into a float64 array, then converted to the integer type of
    the last argument as an unbounded store converts (for types up to 16 bits that is
    NumPy's array cast, checked too; int32's NaN and int64's large values are ember's choices)."""
    *rest, out = args
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        floats = func(*rest, np.zeros(out.shape))
        expected = _store_unbounded(floats, np.zeros_like(out))
        if out.dtype.itemsize < 4:
            np.testing.assert_array_equal(expected, floats.astype(out.dtype))
    return expected


def _clamp_forms(a, lo, hi, out):
    """Clamps written the ways users write them, stored into `out` (one row per form)."""
    for i in range(a.shape[0]):
        x = a[i] * 1.0
        out[0, i] = min(max(x, lo), hi)
        out[1, i] = max(min(x, hi), lo)
        out[2, i] = max(lo, min(hi, x))
        y = x
        if y < lo:
            y = lo
        elif y > hi:
            y = hi
        out[3, i] = y
        out[4, i] = min(max(x, 0.0), 255.0)
    return out


def test_clamped_stores_equal_numpy_for_every_integer_type():
    compiled = ember.njit(_clamp_forms)
    bounds = [(0.0, 255.0), (-128.0, 127.0), (-1e10, 1e10), (-np.inf, np.inf), (0.0, 3e9)]
    for dtype in INTEGER_TYPES:
        for lo, hi in bounds:
            expected = _python(_clamp_forms, SPECIALS, lo, hi, np.zeros((5, SPECIALS.size), dtype))
            got = compiled(SPECIALS, lo, hi, np.zeros((5, SPECIALS.size), dtype))
            np.testing.assert_array_equal(got, expected, err_msg=f"{dtype} {lo} {hi}")


def _reassigned_after_store(a, out):
    """`v` holds a clamped value where it is stored, but a later statement of the loop assigns
    it a huge one: the store must keep its range test."""
    v = 0.0
    for i in range(a.shape[0]):
        out[i] = v
        v = min(max(a[i], 0.0), 255.0)
        if a[i] > 100.0:
            v = a[i] * 1e12
    return out


def _wide_clamp(a, out):
    for i in range(a.shape[0]):
        out[i] = min(max(a[i] * 1e3, -1e12), 1e12)  # beyond int32's range: tests stay
    return out


def _scaled_ints(n, out):
    for i in range(n):
        out[i] = float(i * 7919 - 1000) * 1e7
    return out


@pytest.mark.parametrize("func", [_reassigned_after_store, _wide_clamp])
def test_values_that_can_leave_the_range_keep_their_test(func):
    compiled = ember.njit(func)
    for dtype in (np.uint8, np.int16, np.int32, np.int64):
        expected = _python(func, SPECIALS, np.zeros(SPECIALS.size, dtype))
        got = compiled(SPECIALS, np.zeros(SPECIALS.size, dtype))
        np.testing.assert_array_equal(got, expected, err_msg=str(dtype))


def test_converted_integers_beyond_int32_keep_the_range_test():
    compiled = ember.njit(_scaled_ints)
    expected = _python(_scaled_ints, 1000, np.zeros(1000, np.int32))
    np.testing.assert_array_equal(compiled(1000, np.zeros(1000, np.int32)), expected)


def _brighten(img, gain, offset, out):
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            out[i, j] = min(max(img[i, j] * gain + offset, 0.0), 255.0)
    return out


def test_brighten_uint8_on_special_gains():
    compiled = ember.njit(_brighten)
    img = np.arange(256, dtype=np.uint8).reshape(16, 16)
    for gain, offset in [
        (1.2, 3.0),
        (np.nan, 0.0),
        (np.inf, 0.0),
        (-np.inf, 1.0),
        (0.5, -1e300),
        (1e300, 0.0),
        (-2.0, 300.0),
    ]:
        expected = _python(_brighten, img, gain, offset, np.zeros_like(img))
        np.testing.assert_array_equal(compiled(img, gain, offset, np.zeros_like(img)), expected)


# ---------------------------------------------------------------------------- Python's random


def _draws(seed, n, a, b):
    random.seed(seed)
    ints = np.empty(n, np.int64)
    floats = np.empty(n)
    for i in range(n):
        ints[i] = random.randint(a, b)
        floats[i] = random.random() + random.uniform(a, b)
    return ints, floats


def test_randint_random_uniform_equal_cpython():
    compiled = ember.njit(_draws)
    for seed, a, b in [(12, 1, 6), (0, -5, 5), (3, 0, 0), (7, -(2**40), 2**40), (9, 10, 2**62)]:
        got_ints, got_floats = compiled(seed, 200, a, b)
        expected_ints, expected_floats = _draws(seed, 200, a, b)
        np.testing.assert_array_equal(got_ints, expected_ints)
        np.testing.assert_array_equal(got_floats, expected_floats)


def _randint_sum(a, b, n):
    total = 0
    for _ in range(n):
        total += random.randint(a, b)
    return total


def _randrange_one(a, b):
    return random.randrange(a, b)


@pytest.mark.parametrize(("func", "args"), [(_randint_sum, (5, 4, 3)), (_randrange_one, (2, 2))])
def test_empty_ranges_raise_cpythons_error(func, args):
    with pytest.raises(ValueError) as expected:
        func(*args)
    with pytest.raises(ValueError) as got:
        ember.njit(func)(*args)
    assert str(got.value) == str(expected.value)


def test_randint_error_after_draws_keeps_the_state_consistent():
    compiled = ember.njit(_randint_sum)
    random.seed(5)
    expected = _randint_sum(1, 100, 50)
    compiled_seed = ember.njit(lambda s: random.seed(s))
    compiled_seed(5)
    assert compiled(1, 100, 50) == expected


# ---------------------------------------------------------------------------- integer // and %


def _divmod_table(a, b):
    quotients = np.empty(a.shape[0], np.int64)
    remainders = np.empty(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        quotients[i] = a[i] // b[i]
        remainders[i] = a[i] % b[i]
    return quotients, remainders


def _divmod_by_one_divisor(a, d):
    """The divisor is fixed in the loop (a select of -1 hoisted), unlike _divmod_table's."""
    out = np.empty((2, a.shape[0]), np.int64)
    for i in range(a.shape[0]):
        out[0, i] = a[i] // d
        out[1, i] = a[i] % d
    return out


def _euclid(x, y):
    while y:
        x, y = y, x % y
    return x


def test_floor_divmod_by_variables_including_minus_one():
    int_min, int_max = -(2**63), 2**63 - 1
    values = [0, 1, -1, 2, -2, 7, -7, 10**9 + 7, -(10**12), int_max, int_min, int_min + 1]
    divisors = [1, -1, 2, -2, 3, -3, 7, -7, 1000, -1000, int_max, int_min]
    pairs = [(x, d) for x in values for d in divisors]
    a = np.array([x for x, _ in pairs], np.int64)
    b = np.array([d for _, d in pairs], np.int64)
    quotients, remainders = ember.njit(_divmod_table)(a, b)
    by_one = ember.njit(_divmod_by_one_divisor)
    fixed = {d: by_one(np.array(values, np.int64), d) for d in divisors}
    for i, (x, d) in enumerate(pairs):
        # Python's integers, wrapped to int64 (only int_min // -1 wraps)
        expected = (((x // d + 2**63) % 2**64) - 2**63, x % d)
        assert (int(quotients[i]), int(remainders[i])) == expected, (x, d)
        column = fixed[d][:, values.index(x)]
        assert (int(column[0]), int(column[1])) == expected, (x, d)


def test_gcd_loop_and_modulo_by_zero():
    euclid = ember.njit(_euclid)
    for x, y in [
        (12, 18),
        (-12, 18),
        (12, -18),
        (0, 5),
        (5, 0),
        (-7, -1),
        (2**62, 6),
        (-(2**63), -1),
    ]:
        assert euclid(x, y) == _euclid(x, y)
    with pytest.raises(ZeroDivisionError) as expected:
        3 // np.int64(0).item()
    with pytest.raises(ZeroDivisionError) as got:
        ember.njit(_divmod_table)(np.array([3]), np.array([0]))
    assert str(got.value) == str(expected.value)


# ---------------------------------------------------------------------------- float32 tanh


def _tanh_all(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = math.tanh(a[i])
    return out


def test_float32_tanh_is_cpythons_double_tanh_rounded():
    edges = [0.0, -0.0, 2.0**-12, -(2.0**-12), 2.0**-13, 1e-45, -1e-45, 1e-38, 0.5, 1.0, 9.0,
             9.1, 9.2, -9.1, 20.0, 1e30, np.inf, -np.inf, np.nan]  # fmt: skip
    rng = np.random.default_rng(5)
    values = np.concatenate(
        [
            np.array(edges),
            rng.normal(size=3000),
            rng.normal(scale=1e-3, size=1000),
            rng.uniform(-12, 12, 3000),
        ]  # fmt: skip
    ).astype(np.float32)
    got = ember.njit(_tanh_all)(values)
    assert got.dtype == np.float32
    expected = np.array([math.tanh(float(x)) for x in values]).astype(np.float32)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))  # (-0.0 stays -0.0)
