"""`@cfunc`: a C entry point to compiled code, called through ctypes and by SciPy, equal to the
Python function; exceptions are reported, not propagated, and the result is zero."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import cfunc


@cfunc("float64(float64, int64)")
def _poly(x, n):
    return x**n + math.sin(x) * n


@cfunc("int32(int32, int32)")
def _floor_mod(a, b):
    return a // b + a % b


@cfunc("float64(float64)")
def _reciprocal(x):
    return 1.0 / x


@settings(max_examples=60, deadline=None)
@given(st.floats(-10, 10), st.integers(0, 6))
def test_ctypes_call_equals_python(x, n):
    assert _poly.ctypes(x, n) == pytest.approx(_poly(x, n), rel=1e-12, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(-1000, 1000), st.integers(-50, 50).filter(bool))
def test_integer_cfunc(a, b):
    assert _floor_mod.ctypes(a, b) == _floor_mod(a, b)


def test_attributes_and_python_call():
    assert isinstance(_poly.address, int) and _poly.address > 0
    assert _poly(2.0, 3) == 2.0**3 + math.sin(2.0) * 3  # calling the object runs Python
    assert "cfunc._poly" in _poly.native_name
    assert _poly.native_name in _poly.inspect_llvm()


def test_scipy_integrates_a_cfunc():
    integrate = pytest.importorskip("scipy.integrate")

    @cfunc("float64(float64)")
    def gaussian(x):
        return math.exp(-x * x)

    value, _ = integrate.quad(gaussian.ctypes, -10, 10)
    assert value == pytest.approx(math.sqrt(math.pi), rel=1e-12)


def test_exceptions_are_reported_and_give_zero():
    seen = []

    def hook(unraisable):
        seen.append(unraisable.exc_type)

    import sys

    previous, sys.unraisablehook = sys.unraisablehook, hook
    try:
        assert _reciprocal.ctypes(0.0) == 0.0
    finally:
        sys.unraisablehook = previous
    assert seen == [ZeroDivisionError]
    assert _reciprocal.ctypes(4.0) == 0.25


def test_signatures_it_cannot_expose():
    # Numba accepts array signatures (compiled code calls them through a FunctionType);
    # only the ctypes view needs C types
    with pytest.raises(TypeError, match="numbers, booleans and pointers"):
        _ = cfunc("float64[:](float64[:])")(lambda a: a).ctypes
