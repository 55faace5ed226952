"""`fastmath=`: True, a set of LLVM flags or a dict of flag: bool; the flags reach arithmetic and
the calls of math functions, and anything else is refused when the function is decorated."""

import math

import numpy as np
import pytest

from ember import njit, vectorize


def sine_plus(x):
    return x + math.sin(x)


def cancel(x, y):
    return (x - y) + y


def _ir(dispatcher) -> str:
    return dispatcher.inspect_llvm(dispatcher.signatures[0])


def test_fastmath_true_flags_arithmetic_and_math_calls():
    fast, plain = njit(fastmath=True)(sine_plus), njit(sine_plus)
    for x in (0.5, -3.25, 100.0):
        assert fast(x) == pytest.approx(sine_plus(x), rel=1e-15) and plain(x) == sine_plus(x)
    assert "fadd fast" in _ir(fast) and "call fast" in _ir(fast)
    assert "fadd fast" not in _ir(plain) and "call fast" not in _ir(plain)


@pytest.mark.parametrize(
    "flags", [{"reassoc", "nsz"}, {"reassoc": True, "nsz": True, "afn": False}]
)
def test_a_subset_of_flags_is_applied_as_given(flags):
    subset = njit(fastmath=flags)(sine_plus)
    assert subset(0.5) == pytest.approx(sine_plus(0.5), rel=1e-15)
    code = _ir(subset)
    assert "fadd nsz reassoc" in code or "fadd reassoc nsz" in code
    assert "call nsz reassoc" in code or "call reassoc nsz" in code
    assert "afn" not in code


def test_flags_change_what_llvm_may_assume():
    # (x - inf) + inf is nan in IEEE arithmetic; reassociation with no signed zeros folds it to x
    assert njit(fastmath={"reassoc", "nsz"})(cancel)(0.5, np.inf) == 0.5
    assert math.isnan(njit(fastmath={"reassoc"})(cancel)(0.5, np.inf))
    assert math.isnan(njit(cancel)(0.5, np.inf))


@pytest.mark.parametrize(
    "option, message",
    [
        ({"spqr"}, "Unrecognized fastmath flags"),
        ({"spqr": False}, "Unrecognized fastmath flags"),
        (1337, "Expected fastmath option"),
        ("fast", "Expected fastmath option"),
    ],
)
def test_unknown_fastmath_options_are_refused(option, message):
    with pytest.raises(ValueError, match=message):
        njit(fastmath=option)(lambda x: x + 1)(1)
    with pytest.raises(ValueError, match=message):
        vectorize(fastmath=option)(lambda x: x + 1)(np.arange(3.0))


def test_vectorize_with_fastmath_matches_the_plain_kernel():
    x = np.linspace(-4, 4, 17).astype(np.float32)
    fast = vectorize(fastmath=True)(sine_plus)(x)
    np.testing.assert_allclose(fast, x + np.sin(x), rtol=1e-6)
    assert fast.dtype == np.float32
