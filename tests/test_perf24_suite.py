"""perf24: the native call entry is installed right after a function's first compile from Python
(ember/dispatcher/dispatcher.py), so from the second call on no Python-level code runs; every
dispatcher behaviour stays: more signatures, compiling for new types, keyword arguments and
defaults, errors, arrays in and out. Results are compared with the interpreter's."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

import ember
from ember import config
from tests.oracle import assert_frees_all

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "corpus"))
from kernels_wild4 import minmax_pairs as _extremes_of_pairs  # noqa: E402


@pytest.fixture(autouse=True)
def default_threshold(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)  # the default, whatever conftests say


def _mix(a, b=3, scale=1.0):
    return (a * b + 1) * scale


def _scaled_rows(x, k):
    return x * k + x.sum()


def test_entry_exists_after_the_first_call_and_takes_every_later_one():
    f = ember.njit(_mix)
    assert f(2) == _mix(2)
    assert f._entries  # built at the first call
    slow = f._slow_calls
    for a in range(-50, 50):
        assert f(a) == _mix(a)
        assert f(a, -7) == _mix(a, -7)
        assert f(a, 2, 0.5) == _mix(a, 2, 0.5)
    assert f._slow_calls == slow  # none of them took the Python path


def test_new_types_compile_and_join_the_entry():
    f = ember.njit(_mix)
    values = [3, -4.5, True, 2 + 1j, np.int32(7), np.float32(0.25), -(2**40)]
    for _ in range(2):  # first round compiles each type, second takes the native entry
        for v in values:
            got, expected = f(v), _mix(v)
            assert got == expected
    assert len(f.signatures) == len(set(type(v) for v in values))
    slow = f._slow_calls
    assert [f(v) for v in values] == [_mix(v) for v in values]
    assert f._slow_calls <= slow + 2  # numpy scalars may take the Python path


def test_keywords_and_defaults_after_the_entry():
    f = ember.njit(_mix)
    assert f(1) == _mix(1)
    cases = [((2,), {"b": 5}), ((), {"a": 3, "scale": 2.0}), ((1, 2), {"scale": -1.0})]
    for args, kwargs in cases * 3:
        assert f(*args, **kwargs) == _mix(*args, **kwargs)


def test_errors_still_reach_python():
    @ember.njit
    def checked_sqrt(x):
        if x < 0:
            raise ValueError("negative")
        return math.sqrt(x)

    assert checked_sqrt(4.0) == 2.0
    for _ in range(3):
        with pytest.raises(ValueError, match="negative"):
            checked_sqrt(-1.0)
        with pytest.raises(TypeError):
            checked_sqrt(1.0, 2.0)  # too many arguments
        with pytest.raises(TypeError):
            checked_sqrt()
        assert checked_sqrt(9.0) == 3.0
    assert checked_sqrt(2**64) == math.sqrt(2**64)  # a huge int for a float parameter


def test_explicit_signature_is_native_from_its_second_call():
    f = ember.njit("float64(float64, int64)")(lambda x, n: x**n)
    assert f(1.5, 3) == 1.5**3
    slow = f._slow_calls
    assert [f(x, 2) for x in (0.0, -2.5, 1e10)] == [x**2 for x in (0.0, -2.5, 1e10)]
    assert f._slow_calls == slow
    with pytest.raises(TypeError):
        f("no", 1)


def test_arrays_through_the_first_and_later_calls():
    f = ember.njit(_scaled_rows)
    rng = np.random.default_rng(24)
    for shape in [(5,), (0,), (3, 4)]:
        x = rng.random(shape)
        np.testing.assert_array_equal(f(x, 2.0), _scaled_rows(x, 2.0))
        np.testing.assert_array_equal(f(x, 3), _scaled_rows(x, 3))
    fortran = np.asfortranarray(rng.random((3, 2)))
    np.testing.assert_array_equal(f(fortran, 1.5), _scaled_rows(fortran, 1.5))
    assert_frees_all(f, lambda: rng.random(7), lambda: 2.0, calls=50)


def test_recursion_and_calls_between_jitted_functions():
    @ember.njit
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    @ember.njit
    def fib_sum(n):
        return sum([fib(k) for k in range(n)])

    assert fib_sum(15) == sum(fib.py_func(k) for k in range(15))
    assert [fib(k) for k in range(20)] == [fib.py_func(k) for k in range(20)]


def test_strings_after_a_scalar_only_entry():
    f = ember.njit(lambda s, n: len(s) * n)
    assert f("abc", 2) == 6
    assert f("", 5) == 0
    assert [f("x" * k, k) for k in range(6)] == [k * k for k in range(6)]


def test_running_min_and_max_together_keep_pythons_nan_and_zero_rules():
    """Optimized without SLP (ember/codegen/slp_guard.py): results are still Python's, NaN
    kept only where Python keeps it (min(x, nan) is x, min(nan, x) is nan) and -0.0 vs 0.0
    by position."""
    f = ember.njit(_extremes_of_pairs)
    rng = np.random.default_rng(2024)
    specials = [np.nan, -0.0, 0.0, np.inf, -np.inf, 1e308, -5e-324]
    for trial in range(40):
        points = rng.normal(size=(int(rng.integers(0, 12)), 2))
        for _ in range(int(rng.integers(0, 4))):
            if points.size:
                points.flat[rng.integers(0, points.size)] = specials[rng.integers(0, 7)]
        got, expected = f(points), _extremes_of_pairs(points)
        assert np.array_equal(np.array(got), np.array(expected), equal_nan=True), (trial, points)
        assert np.array_equal(np.signbit(got), np.signbit(expected))


def test_a_view_of_an_argument_in_another_dtype_is_not_the_argument():
    """The entry returns an argument itself when the result is it unchanged; a same-size view
    in another dtype has the argument's data, shape and strides but is a new array."""
    as_int = ember.njit(lambda a: a.view(np.int64))
    as_unsigned = ember.njit(lambda a: a.view(np.uint32))
    same = ember.njit(lambda a: a)
    floats = np.array([1.5, -0.0, np.inf, np.nan])
    ints = np.array([-1, 0, 7, -(2**31)], dtype=np.int32)
    days = np.array(["2020-01-01", "NaT", "1969-07-20"], dtype="datetime64[D]")
    for _ in range(3):  # first call (Python path then entry) and later ones (entry)
        for source, jitted, dtype in ((floats, as_int, np.int64), (ints, as_unsigned, np.uint32),
                                      (days, as_int, np.int64)):  # fmt: skip
            got = jitted(source)
            assert got is not source and got.dtype == dtype
            np.testing.assert_array_equal(got, source.view(dtype))
        assert same(floats) is floats and same(days) is days
