"""`cmath` and complex methods in compiled code against CPython's cmath: values (a few ulps),
special values and signed zeros (exact), and the errors CPython raises (same class, message)."""

from __future__ import annotations

import cmath
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit

SPECIAL = [-math.inf, -1e308, -2.5, -1.0, -1e-310, -0.0, 0.0, 1e-310, 0.5, 1.0, 710.0, math.inf]
SPECIAL += [math.nan, -710.0, 1e308, math.pi / 2]
parts = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from(SPECIAL),
    st.floats(-800, 800),
)
complexes = st.builds(complex, parts, parts)
UNARY = [
    "sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
]  # fmt: skip


def _compiled(source: str, arity: int = 1):
    names = "z, w"[: 3 * arity - 2]
    namespace = {"cmath": cmath}
    exec(f"def f({names}):\n    return {source}\n", namespace)  # noqa: S102 - test code
    return njit(namespace["f"])


COMPILED = {name: _compiled(f"cmath.{name}(z)") for name in UNARY}
COMPILED.update(
    {
        "phase": _compiled("cmath.phase(z)"),
        "polar": _compiled("cmath.polar(z)"),
        "isnan": _compiled("cmath.isnan(z)"),
        "isinf": _compiled("cmath.isinf(z)"),
        "isfinite": _compiled("cmath.isfinite(z)"),
        "log_base": _compiled("cmath.log(z, w)", 2),
        "rect": _compiled("cmath.rect(z, w)", 2),
    }
)


def close(got: float, expected: float) -> bool:
    """NaN matches NaN; zeros and infinities exactly (sign included); other values within
    a few ulps (CPython and the C library may round the last bit differently)."""
    if math.isnan(expected):
        return math.isnan(got)
    if math.isinf(expected):
        return got == expected
    if expected == 0.0:  # CPython flushes some subnormal results to zero; the sign must agree
        same_sign = math.copysign(1.0, got) == math.copysign(1.0, expected)
        return same_sign and abs(got) < 1e-320
    return math.isclose(got, expected, rel_tol=4e-15, abs_tol=1e-320)


def check(function, *args):
    """The compiled function answers as CPython does: same value(s) or same error."""
    try:
        expected = function.py_func(*args)
    except (ValueError, OverflowError, ZeroDivisionError) as error:
        with pytest.raises(type(error)) as raised:
            function(*args)
        assert str(raised.value) == str(error), args
        return
    got = function(*args)
    assert type(got) is type(expected), args
    if isinstance(expected, bool):
        assert got == expected, args
        return
    flat_expected = expected if isinstance(expected, tuple) else (expected,)
    flat_got = got if isinstance(got, tuple) else (got,)
    for g, e in zip(flat_got, flat_expected):
        g, e = complex(g), complex(e)
        assert close(g.real, e.real) and close(g.imag, e.imag), (args, got, expected)


@pytest.mark.parametrize("name", [*UNARY, "phase", "polar", "isnan", "isinf", "isfinite"])
def test_every_special_value_pair(name):
    for re, im in itertools.product(SPECIAL, SPECIAL):
        check(COMPILED[name], complex(re, im))


@pytest.mark.parametrize("name", [*UNARY, "phase", "polar", "isnan", "isinf", "isfinite"])
@settings(max_examples=150, deadline=None)
@given(z=complexes)
def test_unary_functions_match_cpython(name, z):
    check(COMPILED[name], z)


@pytest.mark.parametrize("name", [*UNARY, "phase", "polar", "isnan"])
@settings(deadline=None)
@given(x=st.one_of(st.integers(-50, 50), parts))
def test_real_arguments(name, x):
    check(COMPILED[name], x)


@settings(max_examples=300, deadline=None)
@given(complexes, st.one_of(complexes, st.sampled_from([1, 2, 10, 0, 1.0, 0.5])))
def test_log_with_a_base(z, base):
    check(COMPILED["log_base"], z, base)


@settings(max_examples=300, deadline=None)
@given(parts, parts)
def test_rect(r, phi):
    check(COMPILED["rect"], r, phi)


def test_rect_special_value_pairs():
    for r, phi in itertools.product(SPECIAL, SPECIAL):
        check(COMPILED["rect"], r, phi)


@settings(max_examples=300, deadline=None)
@given(complexes)
def test_results_are_cpythons_bit_for_bit(z):
    """Finite arguments run CPython's own algorithms: every bit and sign agrees."""
    for name in UNARY:
        try:
            expected = repr(getattr(cmath, name)(z))
        except (ValueError, OverflowError):
            continue  # the error itself is checked by the tests above
        assert repr(COMPILED[name](z)) == expected, (name, z)


def test_exact_results_and_branch_cuts():
    sqrt, log, asin = COMPILED["sqrt"], COMPILED["log"], COMPILED["asin"]
    assert sqrt(-4.0) == 2j
    assert sqrt(complex(-4.0, -0.0)) == -2j  # the other side of the cut
    assert math.copysign(1.0, sqrt(complex(-4.0, -0.0)).imag) == -1.0
    assert log(complex(-1.0, 0.0)).imag == math.pi
    assert log(complex(-1.0, -0.0)).imag == -math.pi
    assert asin(complex(2.0, 0.0)) == cmath.asin(complex(2.0, 0.0))
    assert asin(complex(2.0, -0.0)) == cmath.asin(complex(2.0, -0.0))


def test_errors_are_cpythons():
    with pytest.raises(ValueError, match="math domain error"):
        COMPILED["log"](0j)
    with pytest.raises(ValueError, match="math domain error"):
        COMPILED["atanh"](1.0)
    with pytest.raises(OverflowError, match="math range error"):
        COMPILED["exp"](1000.0)
    with pytest.raises(ValueError, match="math domain error"):
        COMPILED["log_base"](2.0, 1.0)


def test_constants():
    @njit
    def constants():
        return cmath.pi, cmath.e, cmath.tau, cmath.inf, cmath.infj, cmath.nan, cmath.nanj

    got = constants()
    expected = constants.py_func()
    assert got[:5] == expected[:5]
    assert math.isnan(got[5]) and math.isnan(got[6].imag) and got[6].real == 0.0


# ---------------------------------------------------------------------------- complex methods


@njit
def parts_of(z):
    return z.conjugate(), z.real, z.imag


@njit
def conjugates(a):
    return a.conj(), a.conjugate(), np.conj(a), np.conjugate(a), a.real, a.imag


@settings(deadline=None)
@given(st.one_of(complexes, parts, st.integers(-5, 5)))
def test_scalar_conjugate_real_imag(z):
    check(parts_of, z)


@settings(deadline=None)
@given(st.lists(complexes, min_size=0, max_size=8))
def test_array_conjugates(values):
    a = np.array(values, dtype=np.complex128)
    for got, expected in zip(conjugates(a), conjugates.py_func(a)):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        assert np.array_equal(np.signbit(got.real), np.signbit(expected.real))
        assert np.array_equal(np.signbit(np.imag(got)), np.signbit(np.imag(expected)))


def test_conjugate_of_real_and_complex64_arrays():
    @njit
    def conj(a):
        return a.conj()

    for a in (np.arange(4.0), np.array([1 + 2j, -3j], dtype=np.complex64)):
        got = conj(a)
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got, a.conj())
