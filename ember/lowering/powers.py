"""A float raised to an integer (`x ** 3`, `x ** n`): repeated multiplication carried in
double-double arithmetic, so the result equals the correctly rounded C `pow` that CPython calls
at the cost of a few multiplications; zeros, infinities, NaNs, overflow, subnormal results and
huge exponents take the C `pow` with Python's errors (ember/lowering/numbers.py)."""

from __future__ import annotations

import operator
from collections.abc import Callable

from llvmlite import ir as llvm

from ember import types
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.numbers import float_power, power_by_squaring
from ember.lowering.registry import lower_builtin

#: Constant exponents up to this magnitude are unrolled; others run the squaring loop.
_UNROLL_LIMIT = 64
#: Beyond this magnitude the double-double error could reach the last bit: the C pow decides.
_EXACT_LIMIT = 1 << 24


@lower_builtin(operator.pow, types.Float, types.Integer)
def float_power_int(context, builder, sig, args):
    base, exponent = args
    exponent_type = types.unliteral(sig.args[1])
    if context.options.fastmath_flags:
        return _fast_math_power(context, builder, base, exponent, exponent_type)
    return integer_power(
        builder, base, exponent, exponent_type, lambda: _c_power(context, builder, sig, args)
    )


@lower_builtin(operator.pow, types.Float, types.Float)
def float_power_float(context, builder, sig, args):
    """`x ** 2.0` as `x ** 2`: CPython's C pow gives the same for an integral exponent."""
    return power_with_float_exponent(
        context, builder, args, lambda: float_power(context, builder, sig, args)
    )


def power_with_float_exponent(context, builder, args, slow: Callable[[], llvm.Value]):
    """base ** exponent for float operands: by multiplication when the exponent is an
    integral constant (outside fastmath, where LLVM rewrites pow itself), else `slow()`."""
    base, exponent = args
    integral = _integral_constant(exponent)
    if integral is None or context.options.fastmath_flags:
        return slow()
    return integer_power(
        builder, base, llvm.Constant(llvm.IntType(64), integral), types.int64, slow
    )


def integer_power(builder, base, exponent, exponent_type, slow: Callable[[], llvm.Value]):
    """base ** exponent (an integer of `exponent_type`), equal to the C pow; `slow()` emits
    the C pow with the caller's errors, for the cases multiplication cannot decide."""
    if isinstance(exponent, llvm.Constant):
        value = _constant_value(exponent, exponent_type)
        if value == 0:
            return llvm.Constant(base.type, 1.0)
        if abs(value) > _UNROLL_LIMIT:
            return slow()
        power = _unrolled_power(builder, base, abs(value))
        return _finish(builder, base, power, value < 0, value > 0, value % 2 == 1, slow)
    magnitude, negative = _magnitude(builder, exponent, exponent_type.signed)
    power = _squaring_loop(builder, base, magnitude)
    small = builder.icmp_unsigned("<=", magnitude, llvm.Constant(magnitude.type, _EXACT_LIMIT))
    odd = builder.trunc(magnitude, llvm.IntType(1))
    nonzero = builder.icmp_unsigned("!=", magnitude, llvm.Constant(magnitude.type, 0))
    positive = builder.and_(nonzero, builder.not_(negative))
    return _finish(builder, base, power, negative, positive, odd, slow, small)


def _integral_constant(value) -> int | None:
    if not isinstance(value, llvm.Constant) or not isinstance(value.constant, float):
        return None
    number = value.constant
    return int(number) if number.is_integer() and abs(number) <= _UNROLL_LIMIT else None


def _fast_math_power(context, builder, base, exponent, exponent_type):
    """Under fastmath, as Numba: plain multiplications (the last bit may differ from CPython's),
    and no overflow check; a zero base to a negative power still raises ZeroDivisionError."""

    def multiply(a, b):
        return context.apply_fastmath(builder.fmul(a, b))

    one = llvm.Constant(base.type, 1.0)
    if isinstance(exponent, llvm.Constant):
        value = _constant_value(exponent, exponent_type)
        power, negative = _unrolled(base, abs(value), multiply) if value else one, value < 0
    else:
        magnitude, negative = _magnitude(builder, exponent, exponent_type.signed)
        power = power_by_squaring(builder, base, magnitude, one, multiply)
    if negative is False:
        return power
    zero_base = builder.fcmp_ordered("==", base, llvm.Constant(base.type, 0.0))
    if context.options.error_model == "python":
        context.guard(
            builder,
            builder.and_(zero_base, _as_i1(negative)),
            ZeroDivisionError,
            "0.0 cannot be raised to a negative power",
        )
    inverse = context.apply_fastmath(builder.fdiv(one, power))
    return _select(builder, negative, inverse, power)


def _unrolled(base, magnitude: int, multiply):
    """base ** magnitude (> 0) by binary exponentiation unrolled at compile time."""
    result, square = None, base
    while True:
        if magnitude & 1:
            result = square if result is None else multiply(result, square)
        magnitude >>= 1
        if not magnitude:
            return result
        square = multiply(square, square)


def _constant_value(exponent: llvm.Constant, exponent_type: types.Integer) -> int:
    bits = exponent.constant % (1 << exponent_type.bitwidth)
    if exponent_type.signed and bits >= 1 << (exponent_type.bitwidth - 1):
        bits -= 1 << exponent_type.bitwidth
    return bits


def _magnitude(builder, exponent, signed: bool):
    """(|exponent| as an unsigned i64, exponent < 0 as an i1)."""
    i64 = llvm.IntType(64)
    if exponent.type.width < 64:
        exponent = (builder.sext if signed else builder.zext)(exponent, i64)
    if not signed:
        return exponent, llvm.Constant(llvm.IntType(1), 0)
    negative = builder.icmp_signed("<", exponent, llvm.Constant(i64, 0))
    return builder.select(negative, builder.neg(exponent), exponent), negative


# ---------------------------------------------------------------------------- double-double


def _two_product(builder, a, b):
    """(a * b rounded, its exact rounding error): a * b == high + low exactly."""
    high = builder.fmul(a, b)
    low = call_intrinsic(builder, "llvm.fma", [a, b, builder.fneg(high)])
    return high, low


def _dd_multiply(builder, x, y):
    """The product of two double-doubles (high, low-or-None), normalized."""
    high, low = _two_product(builder, x[0], y[0])
    for cross in ((x[0], y[1]), (x[1], y[0])):
        if cross[1] is not None and cross[0] is not None:
            low = builder.fadd(low, builder.fmul(*cross))
    total = builder.fadd(high, low)
    return total, builder.fsub(low, builder.fsub(total, high))


def _unrolled_power(builder, base, magnitude: int):
    """base ** magnitude (> 0) over double-doubles, unrolled at compile time."""
    return _unrolled((base, None), magnitude, lambda x, y: _dd_multiply(builder, x, y))


def _squaring_loop(builder, base, magnitude):
    """base ** magnitude (a run-time unsigned i64) by a squaring loop over double-doubles."""
    float_type = base.type
    one, zero = llvm.Constant(float_type, 1.0), llvm.Constant(float_type, 0.0)
    entry = builder.block
    loop = builder.append_basic_block("powi.loop")
    done = builder.append_basic_block("powi.done")
    builder.branch(loop)
    builder.position_at_end(loop)
    phis = [builder.phi(float_type) for _ in range(4)] + [builder.phi(magnitude.type)]
    for phi, start in zip(phis, (one, zero, base, zero, magnitude)):
        phi.add_incoming(start, entry)
    result, square, remaining = (phis[0], phis[1]), (phis[2], phis[3]), phis[4]
    odd = builder.trunc(remaining, llvm.IntType(1))
    product = _dd_multiply(builder, result, square)
    result = tuple(builder.select(odd, p, r) for p, r in zip(product, result))
    square = _dd_multiply(builder, square, square)
    remaining = builder.lshr(remaining, llvm.Constant(magnitude.type, 1))
    for phi, value in zip(phis, (*result, *square, remaining)):
        phi.add_incoming(value, builder.block)
    finished = builder.icmp_unsigned("==", remaining, llvm.Constant(magnitude.type, 0))
    builder.cbranch(finished, done, loop)
    builder.position_at_end(done)
    return result


def _reciprocal(builder, value):
    """1 / (high + low) as a normalized (rounded, remainder) pair."""
    high, low = value
    one = llvm.Constant(high.type, 1.0)
    quotient = builder.fdiv(one, high)
    residual = call_intrinsic(builder, "llvm.fma", [builder.fneg(high), quotient, one])
    if low is not None:
        residual = builder.fsub(residual, builder.fmul(low, quotient))
    correction = builder.fmul(quotient, residual)
    total = builder.fadd(quotient, correction)
    return total, builder.fsub(correction, builder.fsub(total, quotient))


# ---------------------------------------------------------------------------- result


def _finish(builder, base, power, negative, positive, odd, slow, small=None):
    """The fast result when it is a normal number safely away from a rounding tie (or an exact
    signed zero), else the C pow's answer and errors, on a branch that is rarely taken.

    CPython calls the C library's pow, which is correctly rounded except within a tiny fraction
    of a unit in the last place of a tie; near one, the C pow decides, so both agree."""
    float_type = base.type
    if negative is False:
        high, low = power
    elif negative is True:
        high, low = _reciprocal(builder, power)
    else:
        reciprocal = _reciprocal(builder, power)
        high, low = (builder.select(negative, r, p) for r, p in zip(reciprocal, power))
    usable = _is_normal(builder, high)
    if low is not None:  # else the value is exact (x ** 1)
        usable = builder.and_(usable, builder.not_(_near_tie(builder, high, low)))
    if negative is not False:  # the power itself must be exact enough to be inverted
        usable = builder.and_(usable, _is_normal(builder, power[0]))
    # A zero base to a positive power is a zero whose sign is the base's for odd powers.
    zero_base = builder.fcmp_ordered("==", base, llvm.Constant(float_type, 0.0))
    positive_zero = builder.and_(zero_base, _as_i1(positive))
    fast = builder.select(
        positive_zero, _select(builder, odd, base, llvm.Constant(float_type, 0.0)), high
    )
    usable = builder.or_(usable, positive_zero)
    if small is not None:
        usable = builder.and_(usable, small)
    with builder.if_else(usable, likely=True) as (then, otherwise):
        with then:
            fast_block = builder.block
        with otherwise:
            slow_result = slow()
            slow_block = builder.block
    result = builder.phi(float_type)
    result.add_incoming(fast, fast_block)
    result.add_incoming(slow_result, slow_block)
    return result


def _layout(float_type):
    """(integer type of the same width, mantissa bits, smallest normal) of a float type."""
    if isinstance(float_type, llvm.FloatType):
        return llvm.IntType(32), 23, 2.0**-126
    return llvm.IntType(64), 52, 2.0**-1022


def _is_normal(builder, value):
    """|value| is finite and large enough that the low half of a double-double of its size
    (about 2**-mantissa_bits times smaller) is itself a normal number."""
    magnitude = call_intrinsic(builder, "llvm.fabs", [value])
    _, mantissa_bits, smallest_normal = _layout(value.type)
    smallest = llvm.Constant(value.type, smallest_normal * 2.0 ** (mantissa_bits + 2))
    return builder.and_(
        builder.fcmp_ordered(">=", magnitude, smallest),
        builder.fcmp_ordered("<", magnitude, llvm.Constant(value.type, float("inf"))),
    )


def _near_tie(builder, high, low):
    """The exact value high + low lies within 4% of a rounding tie of high's neighbours: moving
    it 4% further from high changes which float is nearest."""
    nudged = call_intrinsic(builder, "llvm.fma", [low, llvm.Constant(high.type, 1.04), high])
    return builder.fcmp_unordered("!=", nudged, high)


def _c_power(context, builder, sig, args):
    base, exponent = args
    convert = builder.sitofp if types.unliteral(sig.args[1]).signed else builder.uitofp
    float_sig = sig.replace(args=(sig.args[0],) * 2)
    return float_power(context, builder, float_sig, [base, convert(exponent, base.type)])


def _as_i1(flag):
    return llvm.Constant(llvm.IntType(1), int(flag)) if isinstance(flag, bool) else flag


def _select(builder, flag, if_true, if_false):
    if isinstance(flag, bool):
        return if_true if flag else if_false
    return builder.select(flag, if_true, if_false)
