"""CPython's cmath algorithms for finite arguments, step for step, compiled by ember.

Each function takes a finite complex128 and returns what CPython's `c_<name>` computes, bit for
bit (the callers in cmathlib.py handle infinities, NaNs and the errors); `<name>_may_overflow(z)`
tells, for those that scale past LOG_LARGE, whether the result can be infinite at all. The
guards scale the operands away from overflow (|x| > DBL_MAX / 4) and from subnormal underflow,
as CPython does.
"""

from __future__ import annotations

import math

from ember.decorators import njit
from ember.library.builtins.number_methods import libm_hypot

LARGE = 1.7976931348623157e308 / 4.0  # CPython's CM_LARGE_DOUBLE
SQRT_LARGE = math.sqrt(LARGE)
LOG_LARGE = math.log(LARGE)
TINY = 2.2250738585072014e-308  # DBL_MIN
SQRT_TINY = math.sqrt(TINY)
LN2 = math.log(2.0)
LN10 = math.log(10.0)
TWO_53 = 9007199254740992.0
TWO_MINUS_27 = 7.450580596923828e-09

_compiled = njit(error_model="numpy")


@_compiled
def sqrt(z):
    """s = sqrt((|x| + |z|) / 2), with the operands scaled by 1/8 (or 2**53 when |z| is
    subnormal) so that nothing overflows or loses bits."""
    if z.real == 0.0 and z.imag == 0.0:
        return complex(0.0, z.imag)
    ax, ay = abs(z.real), abs(z.imag)
    if ax < TINY and ay < TINY:
        ax = ax * TWO_53
        s = math.sqrt(ax + libm_hypot(ax, ay * TWO_53)) * TWO_MINUS_27
    else:
        ax = ax / 8.0
        s = 2.0 * math.sqrt(ax + libm_hypot(ax, ay / 8.0))
    d = ay / (2.0 * s)
    if z.real >= 0.0:
        return complex(s, math.copysign(d, z.imag))
    return complex(d, math.copysign(s, z.imag))


@_compiled
def log(z):
    """log|z| + i arg z; log1p near the unit circle, where log(|z|) would cancel."""
    ax, ay = abs(z.real), abs(z.imag)
    if ax > LARGE or ay > LARGE:
        real = math.log(libm_hypot(ax / 2.0, ay / 2.0)) + LN2
    elif ax < TINY and ay < TINY:
        if ax > 0.0 or ay > 0.0:
            real = math.log(libm_hypot(ax * TWO_53, ay * TWO_53)) - 53.0 * LN2
        else:
            real = -math.inf
    else:
        h = libm_hypot(ax, ay)
        if 0.71 <= h <= 1.73:
            big, small = (ax, ay) if ax > ay else (ay, ax)
            real = math.log1p((big - 1.0) * (big + 1.0) + small * small) / 2.0
        else:
            real = math.log(h)
    return complex(real, math.atan2(z.imag, z.real))


@_compiled
def log10(z):
    logarithm = log(z)
    return complex(logarithm.real / LN10, logarithm.imag / LN10)


@_compiled
def exp(z):
    if z.real > LOG_LARGE:  # exp(x) would overflow before the product does
        scale = math.exp(z.real - 1.0)
        return complex(scale * math.cos(z.imag) * math.e, scale * math.sin(z.imag) * math.e)
    scale = math.exp(z.real)
    return complex(scale * math.cos(z.imag), scale * math.sin(z.imag))


@_compiled
def exp_may_overflow(z):
    """Whether exp(z) may be infinite: below LOG_LARGE its scale is at most DBL_MAX / 4."""
    return z.real > LOG_LARGE


@_compiled
def cosh_may_overflow(z):
    """Whether cosh(z) or sinh(z) may be infinite: within LOG_LARGE of 0 both are at most
    about DBL_MAX / 4."""
    return abs(z.real) > LOG_LARGE


sinh_may_overflow = cosh_may_overflow


@_compiled
def cos_may_overflow(z):
    """Whether cos(z) or sin(z) (cosh and sinh of i z) may be infinite."""
    return abs(z.imag) > LOG_LARGE


sin_may_overflow = cos_may_overflow


@_compiled
def _cosh_sinh(x):
    """(cosh x, sinh x, factor): past LOG_LARGE they are taken at x -+ 1 and the factor is e,
    so the products with cos y and sin y do not overflow first (factor 1.0 is exact)."""
    if abs(x) > LOG_LARGE:
        shifted = x - math.copysign(1.0, x)
        return math.cosh(shifted), math.sinh(shifted), math.e
    return math.cosh(x), math.sinh(x), 1.0


@_compiled
def cosh(z):
    ch, sh, factor = _cosh_sinh(z.real)
    return complex(math.cos(z.imag) * ch * factor, math.sin(z.imag) * sh * factor)


@_compiled
def sinh(z):
    ch, sh, factor = _cosh_sinh(z.real)
    return complex(math.cos(z.imag) * sh * factor, math.sin(z.imag) * ch * factor)


@_compiled
def tanh(z):
    x, y = z.real, z.imag
    if abs(x) > LOG_LARGE:
        return complex(
            math.copysign(1.0, x), 4.0 * math.sin(y) * math.cos(y) * math.exp(-2.0 * abs(x))
        )
    tx = math.tanh(x)
    ty = math.tan(y)
    cx = 1.0 / math.cosh(x)
    txty = tx * ty
    denom = 1.0 + txty * txty
    return complex(tx * (1.0 + ty * ty) / denom, ((ty / denom) * cx) * cx)


@_compiled
def asinh(z):
    x, y = z.real, z.imag
    if abs(x) > LARGE or abs(y) > LARGE:
        magnitude = math.log(libm_hypot(x / 2.0, y / 2.0)) + LN2 * 2.0
        real = math.copysign(magnitude, x) if y >= 0.0 else -math.copysign(magnitude, -x)
        return complex(real, math.atan2(y, abs(x)))
    s1 = sqrt(complex(1.0 + y, -x))
    s2 = sqrt(complex(1.0 - y, x))
    return complex(
        math.asinh(s1.real * s2.imag - s2.real * s1.imag),
        math.atan2(y, s1.real * s2.real - s1.imag * s2.imag),
    )


@_compiled
def acos(z):
    x, y = z.real, z.imag
    if abs(x) > LARGE or abs(y) > LARGE:
        magnitude = math.log(libm_hypot(x / 2.0, y / 2.0)) + LN2 * 2.0
        imag = -math.copysign(magnitude, y) if x < 0.0 else math.copysign(magnitude, -y)
        return complex(math.atan2(abs(y), x), imag)
    s1 = sqrt(complex(1.0 - x, -y))
    s2 = sqrt(complex(1.0 + x, y))
    return complex(
        2.0 * math.atan2(s1.real, s2.real), math.asinh(s2.real * s1.imag - s2.imag * s1.real)
    )


@_compiled
def acosh(z):
    x, y = z.real, z.imag
    if abs(x) > LARGE or abs(y) > LARGE:
        return complex(math.log(libm_hypot(x / 2.0, y / 2.0)) + LN2 * 2.0, math.atan2(y, x))
    s1 = sqrt(complex(x - 1.0, y))
    s2 = sqrt(complex(x + 1.0, y))
    return complex(
        math.asinh(s1.real * s2.real + s1.imag * s2.imag), 2.0 * math.atan2(s1.imag, s2.real)
    )


@_compiled
def _atanh_right_half(x, y):
    """atanh(x + iy) for x >= 0 (the other half follows by symmetry)."""
    ay = abs(y)
    if x > SQRT_LARGE or ay > SQRT_LARGE:
        h = libm_hypot(x / 2.0, y / 2.0)
        return complex(x / 4.0 / h / h, -math.copysign(math.pi / 2.0, -y))
    if x == 1.0 and ay < SQRT_TINY:
        if ay == 0.0:
            return complex(math.inf, y)  # the pole: the caller raises CPython's ValueError
        real = -math.log(math.sqrt(ay) / math.sqrt(libm_hypot(ay, 2.0)))
        return complex(real, math.copysign(math.atan2(2.0, -ay) / 2.0, y))
    real = math.log1p(4.0 * x / ((1.0 - x) * (1.0 - x) + ay * ay)) / 4.0
    return complex(real, -math.atan2(-2.0 * y, (1.0 - x) * (1.0 + x) - ay * ay) / 2.0)


@_compiled
def atanh(z):
    if z.real < 0.0:
        mirrored = _atanh_right_half(-z.real, -z.imag)
        return complex(-mirrored.real, -mirrored.imag)
    return _atanh_right_half(z.real, z.imag)


# The circular functions are the hyperbolic ones turned by i: f(z) = -i g(iz) or g(iz).


@_compiled
def asin(z):
    turned = asinh(complex(-z.imag, z.real))
    return complex(turned.imag, -turned.real)


@_compiled
def atan(z):
    turned = atanh(complex(-z.imag, z.real))
    return complex(turned.imag, -turned.real)


@_compiled
def sin(z):
    turned = sinh(complex(-z.imag, z.real))
    return complex(turned.imag, -turned.real)


@_compiled
def cos(z):
    return cosh(complex(-z.imag, z.real))


@_compiled
def tan(z):
    turned = tanh(complex(-z.imag, z.real))
    return complex(turned.imag, -turned.real)
