"""`math` functions that take floats apart or measure them as CPython 3.11 does: frexp, ldexp,
modf, ulp, and hypot of any arity and dist (CPython's vector_norm, exact to its last bit).
nextafter and remainder are libm calls in mathlib.py."""

from __future__ import annotations

import math
import sys

from llvmlite import ir as llvm

from ember import types
from ember.extending import intrinsic
from ember.lowering.intrinsics import call_intrinsic
from ember.misc.literal import literal_unroll
from ember.typing.overload import overload, register_jitable
from ember.typing.signature import signature

_INT_MAX = 2**31 - 1  # ldexp's exponent is a C int
_INT_MIN = -(2**31)
_DBL_MIN = sys.float_info.min
_TWO_TO_MINUS_1024 = 2.0**-1024


def _real(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean, types.Float))


def _integer(typ) -> bool:
    return isinstance(types.unliteral(typ), (types.Integer, types.Boolean))


@intrinsic
def _c_frexp(typingctx, x):
    """C's frexp(x): (mantissa in [0.5, 1), exponent) for a finite nonzero x."""
    if not isinstance(x, types.Float) or x is not types.float64:
        return None
    result = types.Tuple((types.float64, types.int64))

    def codegen(context, builder, sig, args):
        exponent = builder.alloca(llvm.IntType(32))
        fnty = llvm.FunctionType(llvm.DoubleType(), [llvm.DoubleType(), exponent.type])
        function = builder.module.globals.get("frexp") or llvm.Function(
            builder.module, fnty, "frexp"
        )
        mantissa = builder.call(function, [args[0], exponent])
        wide = builder.sext(builder.load(exponent), llvm.IntType(64))
        return context.make_tuple(builder, result, [mantissa, wide])

    return signature(result, x), codegen


@intrinsic
def _c_ldexp(typingctx, x, exponent):
    """C's ldexp(x, exponent) with an exponent already clamped to a C int."""
    if x is not types.float64 or not isinstance(exponent, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        narrow = builder.trunc(args[1], llvm.IntType(32))
        fnty = llvm.FunctionType(llvm.DoubleType(), [llvm.DoubleType(), llvm.IntType(32)])
        function = builder.module.globals.get("ldexp") or llvm.Function(
            builder.module, fnty, "ldexp"
        )
        return builder.call(function, [args[0], narrow])

    return signature(types.float64, x, types.int64), codegen


@intrinsic
def _trunc(typingctx, x):
    if x is not types.float64:
        return None

    def codegen(context, builder, sig, args):
        return call_intrinsic(builder, "llvm.trunc", [args[0]])

    return signature(types.float64, x), codegen


@intrinsic
def _inverse_binade(typingctx, x):
    """2**-e for a positive normal double x = m * 2**e with m in [0.5, 1) (frexp's e): read
    from x's exponent bits (2**-e is subnormal for the two top binades)."""
    if x is not types.float64:
        return None

    def codegen(context, builder, sig, args):
        i64 = llvm.IntType(64)
        biased = builder.lshr(builder.bitcast(args[0], i64), i64(52))  # e + 1022
        normal = builder.shl(builder.sub(i64(2045), biased), i64(52))  # 2**(1022 - biased)
        subnormal = builder.lshr(i64(1 << 51), builder.sub(biased, i64(2045)))
        top = builder.icmp_signed(">=", biased, i64(2045))
        return builder.bitcast(builder.select(top, subnormal, normal), llvm.DoubleType())

    return signature(types.float64, x), codegen


# ---------------------------------------------------------------------------- parts of floats


@overload(math.frexp)
def math_frexp(x):
    if not _real(x):
        return None

    def frexp(x):
        x = float(x)
        if x == 0.0 or not math.isfinite(x):
            return x, 0
        return _c_frexp(x)

    return frexp


@overload(math.ldexp)
def math_ldexp(x, i):
    if not _real(x):
        return None
    if not _integer(i):
        raise TypeError("ldexp(): the exponent must be an integer")

    def ldexp(x, i):
        x = float(x)
        if x == 0.0 or not math.isfinite(x):
            return x
        if i > _INT_MAX:
            raise OverflowError("math range error")
        if i < _INT_MIN:
            return math.copysign(0.0, x)
        result = _c_ldexp(x, i)
        if math.isinf(result):
            raise OverflowError("math range error")
        return result

    return ldexp


@overload(math.modf)
def math_modf(x):
    if not _real(x):
        return None

    def modf(x):
        x = float(x)
        if math.isinf(x):
            return math.copysign(0.0, x), x
        whole = _trunc(x)
        return math.copysign(x - whole, x), whole

    return modf


@overload(math.ulp)
def math_ulp(x):
    if not _real(x):
        return None

    def ulp(x):
        x = abs(float(x))
        if not math.isfinite(x):
            return x
        above = math.nextafter(x, math.inf)
        if math.isinf(above):
            return x - math.nextafter(x, -math.inf)
        return above - x

    return ulp


# ---------------------------------------------------------------------------- norms


@intrinsic
def _fused_multiply_add(typingctx, x, y, z):
    """x * y + z rounded once (LLVM's fma)."""
    if not all(types.unliteral(t) is types.float64 for t in (x, y, z)):
        return None

    def codegen(context, builder, sig, args):
        return call_intrinsic(builder, "llvm.fma", list(args))

    return signature(types.float64, x, y, z), codegen


@register_jitable
def _compensated_squares(values, scale):
    """1 + the sum of (|v| * scale)**2 as (csum, frac1, frac2): the sum, then the rounding
    errors of the squares (by fma) and of the additions, kept aside."""
    csum = 1.0
    frac1 = 0.0
    frac2 = 0.0
    for i in range(len(values)):
        x = abs(float(values[i])) * scale
        square = x * x
        frac1 += _fused_multiply_add(x, x, -square)
        total = csum + square
        frac2 += (csum - total) + square  # |csum| >= |square|: the addition's exact error
        csum = total
    return csum, frac1, frac2


@register_jitable
def _tiny_norm(values, largest):
    """CPython 3.11's norm when largest < 2**-1024: each value divided by the largest, their
    squares summed with the additions' errors kept aside, no correction."""
    csum = 1.0
    frac = 0.0
    for i in range(len(values)):
        x = abs(float(values[i])) / largest
        square = x * x
        total = csum + square
        frac += (csum - total) + square
        csum = total
    return largest * math.sqrt(csum - 1.0 + frac)


@register_jitable
def _vector_norm(values):
    """sqrt of the sum of squares of `values` (a homogeneous tuple, list or 1-d array of reals),
    as CPython 3.11's vector_norm: scaled by a power of two, squared exactly (fma), summed with
    the rounding errors kept aside, then one differential correction of the square root."""
    n = len(values)
    largest = 0.0
    found_nan = False
    for i in range(n):
        x = abs(float(values[i]))
        found_nan |= x != x
        if x > largest:
            largest = x
    if math.isinf(largest):
        return largest
    if found_nan:
        return math.nan
    if largest == 0.0 or n <= 1:
        return largest
    if largest < _TWO_TO_MINUS_1024:  # 2**-e would overflow: CPython divides by largest
        return _tiny_norm(values, largest)
    if largest < _DBL_MIN:  # subnormal: no exponent bits to read
        scale = math.ldexp(1.0, -math.frexp(largest)[1])
    else:
        scale = _inverse_binade(largest)
    csum, frac1, frac2 = _compensated_squares(values, scale)
    h = math.sqrt(csum - 1.0 + (frac1 + frac2))
    square = -h * h
    frac1 += _fused_multiply_add(-h, h, -square)
    total = csum + square
    frac2 += (csum - total) + square
    csum = total
    x = csum - 1.0 + (frac1 + frac2)
    h += x / (2.0 * h)
    return h / scale


@overload(math.hypot)
def math_hypot(*coordinates):
    if not all(_real(c) for c in coordinates):
        return None
    if not coordinates:
        return lambda *coordinates: 0.0
    if len({types.unliteral(c) for c in coordinates}) == 1:  # a homogeneous tuple: no copy
        return lambda *coordinates: _vector_norm(coordinates)

    def hypot_mixed(*coordinates):
        values = [0.0 for _ in range(0)]
        for c in literal_unroll(coordinates):
            values.append(float(c))
        return _vector_norm(values)

    return hypot_mixed


def _point(typ) -> bool:
    """A tuple, list or 1-D array of real numbers, indexable by position."""
    typ = types.unliteral(typ)
    if isinstance(typ, types.UniTuple) or isinstance(typ, types.List):
        return _real(typ.dtype)
    if isinstance(typ, types.Array):
        return typ.ndim == 1 and _real(typ.dtype)
    return False


@overload(math.dist)
def math_dist(p, q):
    if not (_point(p) and _point(q)):
        return None

    def dist(p, q):
        if len(p) != len(q):
            raise ValueError("both points must have the same number of dimensions")
        return _vector_norm([float(p[i]) - float(q[i]) for i in range(len(p))])

    return dist
