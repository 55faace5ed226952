"""perf25: complex division lowered with one set of divisions, and a real divisor promoted to
complex divided by directly (ember/lowering/numbers.py); results are compared bit for bit with
CPython's on corner cases (zeros of both signs, infinities, NaN, subnormals, huge values)."""

import math

import numpy as np

import ember
from tests.oracle import same

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e-310, 1e308, -1e308, math.inf, -math.inf]
_SPECIAL += [math.nan, 0.5, 7.0]


def _quotient(f, a, b):
    try:
        return f(a, b)
    except ZeroDivisionError:
        return "ZeroDivisionError"


def _divide(a, b):
    return a / b


def test_complex_division_matches_cpython_bit_for_bit():
    by_complex, by_float, by_int = (ember.njit(_divide) for _ in range(3))
    numbers = [complex(r, i) for r in _SPECIAL for i in _SPECIAL]
    for a in numbers:
        for b in numbers:
            assert same(_quotient(by_complex, a, b), _quotient(_divide, a, b)), (a, b)
        for f in _SPECIAL:
            assert same(_quotient(by_float, a, f), _quotient(_divide, a, f)), (a, f)
        for k in (0, 1, -1, 3, -7, 2**60):
            assert same(_quotient(by_int, a, k), _quotient(_divide, a, k)), (a, k)


def _divide_all(zs, ds):
    out = np.empty_like(zs)
    for i in range(zs.shape[0]):
        out[i] = zs[i] / (1.0 + abs(ds[i])) + zs[i] / ds[i]
    return out


def test_complex_division_in_a_loop_matches_cpython():
    rng = np.random.default_rng(25)
    zs = rng.normal(size=300) + 1j * rng.normal(size=300)
    ds = rng.normal(size=300) * 10.0 ** rng.integers(-5, 5, 300) + 1j * rng.normal(size=300)
    ds[::7] = ds[::7].real  # real divisors among them
    got = ember.njit(_divide_all)(zs, ds)
    pairs = [(complex(z), complex(d)) for z, d in zip(zs, ds)]
    expected = [z / (1.0 + abs(d)) + z / d for z, d in pairs]
    assert all(same(complex(g), e) for g, e in zip(got, expected))
