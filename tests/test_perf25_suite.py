"""perf25: complex division lowered with one set of divisions (ember/lowering/numbers.py), and
the other performance changes of perf25; every result is compared with CPython's or NumPy's on
corner cases (zeros of both signs, infinities, NaN, subnormals, huge values)."""

import math

import numpy as np

import ember

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e-310, 1e308, -1e308, math.inf, -math.inf]
_SPECIAL += [math.nan, 0.5, 7.0]


def _same_float(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


def _same(x, y) -> bool:
    if isinstance(x, str) or isinstance(y, str):
        return x == y
    return _same_float(x.real, y.real) and _same_float(x.imag, y.imag)


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
            assert _same(_quotient(by_complex, a, b), _quotient(_divide, a, b)), (a, b)
        for f in _SPECIAL:
            assert _same(_quotient(by_float, a, f), _quotient(_divide, a, f)), (a, f)
        for k in (0, 1, -1, 3, -7, 2**60):
            assert _same(_quotient(by_int, a, k), _quotient(_divide, a, k)), (a, k)


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
    assert all(_same(complex(g), e) for g, e in zip(got, expected))
