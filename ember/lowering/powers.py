"""A float raised to an integer (`x ** 3`, `x ** n`, `x ** 2.0`) and `x ** 0.5`: branch-free
double-double multiplication whose result is correctly rounded (a float32 base is computed in
double and rounded once), with Python's errors; others (`x ** 1.5`) call the C `pow`."""

from __future__ import annotations

import functools
import math
import operator
import struct
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

from llvmlite import ir as llvm

from ember import types
from ember.lowering.float_bounds import record_guard
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.numbers import (
    c_pow,
    float_power,
    is_finite,
    is_infinite,
    power_by_squaring,
)
from ember.lowering.registry import lower_builtin

#: Constant exponents up to this magnitude are unrolled; others run the squaring loop.
_UNROLL_LIMIT = 64
#: Up to this magnitude the squaring loop's double-double error stays far below half an ulp;
#: beyond it (results mostly overflow, underflow or are 1) the C pow decides, as in CPython.
_LOOP_LIMIT = 1024
#: Run-time magnitudes up to this one switch to straight-line code (no inner loop to wait on).
_SWITCHED_LIMIT = 8
#: In a loop that runs again with its checks in place where one fails, run-time magnitudes
#: below 2 ** this take branch-free code (so the loop vectorizes), larger ones the checked copy.
_BRANCH_FREE_BITS = 4

#: (exception, *arguments) for a zero base to a negative power, and for a finite base whose
#: power overflows; None: that error is not raised (error_model='numpy').
Errors = tuple[tuple | None, tuple | None]
OPERATOR_ERRORS: Errors = (
    (ZeroDivisionError, "0.0 cannot be raised to a negative power"),
    (OverflowError, 34, "Numerical result out of range"),
)


@lower_builtin(operator.pow, types.Float, types.Integer)
def float_power_int(context, builder, sig, args):
    base, exponent = args
    exponent_type = types.unliteral(sig.args[1])
    if context.options.fastmath_flags:
        return _fast_math_power(context, builder, base, exponent, exponent_type)
    errors = _operator_errors(context)
    if isinstance(sig.return_type, types.Float) and sig.return_type.bitwidth == 32:
        # float32 ** int is float32 (Numba's typing); a float32 that overflows is inf, as in
        # Numba and NumPy (CPython's OverflowError is for its float, a double)
        errors = (errors[0], None)
    return integer_power(context, builder, base, exponent, exponent_type, errors)


@lower_builtin(operator.pow, types.Float, types.Float)
def float_power_float(context, builder, sig, args):
    """`x ** 2.0` as `x ** 2`, `x ** 0.5` as a square root; other exponents call the C pow."""
    base, exponent = args
    number = _constant_float(exponent)
    if number == 0.5 and not context.options.fastmath_flags:
        return _square_root_power(context, builder, base)
    if _flagged_fractional(context, builder, number):
        return _flagged_fractional_power(context, builder, base, number)
    return power_with_float_exponent(
        context,
        builder,
        args,
        lambda: float_power(context, builder, sig, args),
        _operator_errors(context),
    )


def _flagged_fractional(context, builder, number: float | None) -> bool:
    """Whether base ** number (a positive constant, not an integer) takes
    `_flagged_fractional_power`: in a loop whose failing checks only flag it to run again with
    them in place, Python's errors raised."""
    return (
        number is not None
        and math.isfinite(number)
        and number > 0
        and not number.is_integer()
        and not context.options.fastmath_flags
        and None not in _operator_errors(context)
        and checks_only_flag(context, builder)
    )


def _flagged_fractional_power(context, builder, base, number: float):
    """The C pow of base and the constant `number` (> 0, not an integer), in a loop that runs
    again with its checks in place where one fails: one unsigned comparison of the base's bits
    flags a negative base (ValueError), one whose power may overflow (a bound a little below
    the threshold, which pow's error cannot cross) and, needlessly, -0.0, infinities and NaNs
    (the checked copy gives their values); no test of the result after the call."""
    is_float32 = isinstance(base.type, llvm.FloatType)
    largest = (2.0 - 2.0**-23) * 2.0**127 if is_float32 else sys.float_info.max
    bound = largest  # (below 1, no finite base overflows)
    if number > 1:
        bound = math.exp(math.log(largest) / number) * (1 - 2.0**-20)
    width = 32 if is_float32 else 64
    bits = builder.bitcast(base, llvm.IntType(width))
    beyond = builder.icmp_unsigned(">", bits, llvm.IntType(width)(_bits(bound, width)))
    context.guard(builder, beyond, *_operator_errors(context)[1])
    return c_pow(context, builder, base, llvm.Constant(base.type, number))


def _bits(number: float, width: int) -> int:
    """The bits of `number` as a float of `width` bits."""
    float_format, bits_format = ("<f", "<I") if width == 32 else ("<d", "<Q")
    return struct.unpack(bits_format, struct.pack(float_format, number))[0]


def power_with_float_exponent(context, builder, args, slow: Callable[[], llvm.Value], errors):
    """base ** exponent for float operands: by multiplication when the exponent is an
    integral constant (outside fastmath, where LLVM rewrites pow itself), else `slow()`."""
    base, exponent = args
    number = _constant_float(exponent)
    integral = number is not None and number.is_integer() and abs(number) <= _UNROLL_LIMIT
    if not integral or context.options.fastmath_flags:
        return slow()
    exponent = llvm.Constant(llvm.IntType(64), int(number))
    return integer_power(context, builder, base, exponent, types.int64, errors)


def integer_power(context, builder, base, exponent, exponent_type, errors: Errors):
    """base ** exponent (an integer of `exponent_type`), correctly rounded, raising `errors`."""
    zero_division, overflow = errors
    if isinstance(exponent, llvm.Constant):
        value = _constant_value(exponent, exponent_type)
        if value < 0 and zero_division is not None:
            _check_zero_base(context, builder, base, llvm.Constant(llvm.IntType(1), 1), errors)
        if overflow is not None and abs(value) <= _LOOP_LIMIT:
            flags_only = checks_only_flag(context, builder)
            deferred = context.deferred_checks
            if value > 2 and (deferred is None or not deferred.deferring(builder)):
                return _branching_power(context, builder, base, value, overflow)
            above = _check_overflowing_base(context, builder, base, value, overflow, flags_only)
            return _constant_power(context, builder, base, value, above, flags_only)
        result = _constant_power(context, builder, base, value)
    elif _branch_free(context, builder, base, errors):
        return _branch_free_power(context, builder, base, exponent, exponent_type, errors)
    else:
        result = _runtime_power(context, builder, base, exponent, exponent_type, errors)
    if overflow is not None:
        blew_up = builder.and_(is_infinite(builder, result), is_finite(builder, base))
        context.guard(builder, blew_up, *overflow)
    return result


def _check_overflowing_base(
    context, builder, base, value: int, overflow: tuple, flags_only: bool
) -> llvm.Value | None:
    """Raise `overflow` where the correctly rounded base ** value is infinite: a comparison of
    the base with a constant, since the power grows with |base| (cheaper in a vectorized loop
    than testing the result, and checks of several powers of one base fold together). Where a
    failure only flags the loop to run again with its checks in place (`flags_only`), an
    infinite base is flagged too, so one comparison does. Returns, for value > 1, whether
    |base| is beyond the threshold (an infinite base too; see `_final_product`)."""
    is_float32 = isinstance(base.type, llvm.FloatType)
    if value in (0, 1):
        return None
    magnitude = call_intrinsic(builder, "llvm.fabs", [base])
    threshold = _overflow_threshold(is_float32, value)
    if value < 0:  # small bases overflow (zero raised ZeroDivisionError already)
        blew_up = builder.fcmp_ordered("<", magnitude, llvm.Constant(base.type, threshold))
        record_guard(builder, blew_up)  # (false for a base bounded away: (1 + x * x) ** -2)
        context.guard(builder, blew_up, *overflow)
        return None
    above = builder.fcmp_ordered(">", magnitude, llvm.Constant(base.type, threshold))
    record_guard(builder, above)  # (false for a bounded base: math.sin(x) ** 2)
    finitely_above = above if flags_only else finite_above(builder, base, threshold)
    context.guard(builder, finitely_above, *overflow)
    return above


def _branching_power(context, builder, base, value: int, overflow: tuple):
    """base ** value (> 2) where a failing check branches to raise: |base| beyond the overflow
    threshold (an unsigned comparison of the base's bits, the sign shifted out) branches off
    to the rare cases, where a finite base raises, an infinite one is its own power (or its
    magnitude, for an even value) and a NaN one gives the power, NaN; the usual path has no
    other test. Integer instructions, not a float comparison: in a loop whose
    iterations overlap, the float units' queue fills with work waiting on a division or a
    long chain, and lennard_jones ran 8% faster with this test (corpus run.py). (x ** 2, one
    multiplication, is right for an infinite base: its check is one branch to raise, which
    LLVM moves out of a loop for a base it does not change, and measured faster than this
    one in a scalar loop.)"""
    is_float32 = isinstance(base.type, llvm.FloatType)
    power = _constant_power(context, builder, base, value, fast=True)
    threshold = _bits(_overflow_threshold(is_float32, value), 32 if is_float32 else 64)
    int_type = llvm.IntType(32 if is_float32 else 64)
    doubled = builder.shl(builder.bitcast(base, int_type), int_type(1))  # the sign shifted out
    beyond = builder.icmp_unsigned(">", doubled, int_type(threshold << 1))
    usual = builder.block
    with builder.if_then(beyond, likely=False):
        context.guard(builder, is_finite(builder, base), *overflow)
        infinite = is_infinite(builder, base)
        own = base if value % 2 else call_intrinsic(builder, "llvm.fabs", [base])
        rare_power, rare = builder.select(infinite, own, power), builder.block
    return _phi(builder, [(power, usual), (rare_power, rare)])


def finite_above(builder, value, threshold: float, of_magnitude: bool = True):
    """threshold < |value| < inf (not `of_magnitude`: threshold < value < inf), by one unsigned
    comparison of the bits (which order as non-negative floats do; for the magnitude shifted
    left, which drops the sign in one instruction; else a negative value's sign bit puts it
    beyond every positive one) offset by those of the threshold's successor."""
    width = 32 if isinstance(value.type, llvm.FloatType) else 64
    int_type = llvm.IntType(width)
    bits = builder.bitcast(value, int_type)
    shift = 1 if of_magnitude else 0
    if of_magnitude:
        bits = builder.shl(bits, int_type(1))
    first = (_bits(threshold, width) + 1) << shift
    offset = builder.sub(bits, int_type(first))
    return builder.icmp_unsigned("<", offset, int_type((_bits(math.inf, width) << shift) - first))


def checks_only_flag(context, builder) -> bool:
    """Whether a failing check emitted now only flags its loop, which then runs again with its
    checks in place (ember/lowering/deferred_checks.py): the values computed meanwhile are
    discarded where a check failed."""
    deferred = context.deferred_checks
    return deferred is not None and deferred.flags_failures(builder)


@functools.cache
def _overflow_threshold(is_float32: bool, value: int) -> float:
    """For value > 0, the largest float whose power rounds to a finite float (larger bases
    overflow); for value < 0, the smallest positive one (smaller bases overflow). A power
    rounds to infinity from halfway between the largest float and the next power of two."""
    float_format, bits_format, top, precision = (
        ("<f", "<I", 128, 24) if is_float32 else ("<d", "<Q", 1024, 53)
    )
    limit = Fraction(2) ** top - Fraction(2) ** (top - precision - 1)

    def number(bits: int) -> float:
        return struct.unpack(float_format, struct.pack(bits_format, bits))[0]

    def finite(bits: int) -> bool:
        base = Fraction(number(bits))
        return (base != 0 or value > 0) and base**value < limit

    # Positive floats in the order of their bits; finite(small) != finite(large) throughout.
    small, large = 0, struct.unpack(bits_format, struct.pack(float_format, math.inf))[0]
    while large - small > 1:
        middle = (small + large) // 2
        if finite(middle) == (value > 0):
            small = middle
        else:
            large = middle
    return number(small if value > 0 else large)


def _operator_errors(context) -> Errors:
    return OPERATOR_ERRORS if context.options.error_model == "python" else (None, None)


def _check_zero_base(context, builder, base, negative, errors: Errors) -> None:
    zero_base = builder.fcmp_ordered("==", base, llvm.Constant(base.type, 0.0))
    record_guard(builder, zero_base)  # (false for a base bounded away from zero)
    context.guard(builder, builder.and_(zero_base, negative), *errors[0])


def _constant_float(value) -> float | None:
    if isinstance(value, llvm.Constant) and isinstance(
        value.type, llvm.FloatType | llvm.DoubleType
    ):
        return float(value.constant)  # a float32 constant may hold a NumPy scalar
    return None


def _square_root_power(context, builder, base):
    """`x ** 0.5`: the correctly rounded square root, with pow's values at the edges
    (`(-0.0) ** 0.5 == 0.0`, `(-inf) ** 0.5 == inf`) and Python's error for a negative base."""
    zero, infinity = (llvm.Constant(base.type, v) for v in (0.0, float("inf")))
    if context.options.error_model == "python":
        negative = builder.and_(builder.fcmp_ordered("<", base, zero), is_finite(builder, base))
        context.guard(
            builder, negative, ValueError, "negative number cannot be raised to a fractional power"
        )
    root = builder.fadd(call_intrinsic(builder, "llvm.sqrt", [base]), zero)  # -0.0 -> 0.0
    minus_infinity = builder.fcmp_ordered("==", base, builder.fneg(infinity))
    return builder.select(minus_infinity, infinity, root)


# ---------------------------------------------------------------------------- exponents


def _constant_power(context, builder, base, value: int, above=None, fast: bool = False):
    """base ** value. For value > 1 `above` may tell whether |base| is beyond the overflow
    threshold (overflow raises, so the result need only be right for an infinite base there);
    `fast`: such bases flag the loop to run again (the result need not be right for them)."""
    if value == 0:
        return llvm.Constant(base.type, 1.0)
    if value == 1:
        return base
    if value == 2:  # one rounding: already correctly rounded
        return builder.fmul(base, base)
    if value == -1:
        return builder.fdiv(llvm.Constant(base.type, 1.0), base)
    if abs(value) > _LOOP_LIMIT:
        return c_pow(context, builder, base, llvm.Constant(base.type, float(value)))
    start = _start(builder, base, value < 0)
    if abs(value) > _UNROLL_LIMIT:
        magnitude = llvm.Constant(llvm.IntType(64), abs(value))
        lower, top = _squaring_loop(builder, start, magnitude)
    else:
        lower, top = _unrolled_factors(start, abs(value), lambda x, y: _dd_multiply(builder, x, y))
    if value < 0:
        above, fast = None, False
    # x ** 3 (x times the exact square h + l) rounds x * h + x * l, whose sign is x's even where
    # it underflows, by one fma; higher odd powers gather cross terms of either sign in `low`.
    sign = base if value % 2 and value != 3 else None
    return _final_product(builder, base.type, lower, top, sign, above, fast)


def _start(builder, base, negative) -> _Power:
    """The double-double raised to |exponent|: the base, or its reciprocal for a negative
    exponent (`negative`: a bool, or an i1 chosen at run time)."""
    wide = _widened(builder, base)
    if negative is False:
        return _Power(wide, None)
    reciprocal = _reciprocal(builder, wide)
    if negative is True:
        return reciprocal
    plain = (wide, llvm.Constant(wide.type, 0.0))
    return _Power(*(builder.select(negative, r, p) for r, p in zip(reciprocal, plain)))


def _runtime_power(context, builder, base, exponent, exponent_type, errors: Errors):
    """base ** exponent: straight-line code for each small exponent (a switch: the exponent
    rarely changes in a loop), else the double-double squaring loop, or the C pow past the
    limit. A zero base raises for a negative exponent only: the check is in those branches."""
    magnitude, negative = _magnitude(builder, exponent, exponent_type.signed)
    done = builder.append_basic_block("power.done")
    general = builder.append_basic_block("power.general")
    switch = builder.switch(builder.select(negative, builder.neg(magnitude), magnitude), general)
    results = []
    negatives = range(-_SWITCHED_LIMIT, 0) if exponent_type.signed else ()
    for value in (*range(1, _SWITCHED_LIMIT + 1), *negatives):
        block = builder.append_basic_block(f"power.{value}")
        switch.add_case(llvm.Constant(magnitude.type, value), block)
        builder.position_at_end(block)
        if value < 0 and errors[0] is not None:
            _check_zero_base(context, builder, base, llvm.Constant(llvm.IntType(1), 1), errors)
        results.append((_constant_power(context, builder, base, value), builder.block))
        builder.branch(done)
    builder.position_at_end(general)
    if errors[0] is not None:
        _check_zero_base(context, builder, base, negative, errors)
    results.append((_general_power(context, builder, base, exponent, exponent_type), builder.block))
    builder.branch(done)
    builder.position_at_end(done)
    return _phi(builder, results)


def _branch_free(context, builder, base, errors: Errors) -> bool:
    """Whether a double raised to a run-time exponent takes `_branch_free_power`: in a loop
    whose checks only flag it to run again with them in place, both errors raised."""
    return (
        isinstance(base.type, llvm.DoubleType)
        and None not in errors
        and checks_only_flag(context, builder)
    )


def _branch_free_power(context, builder, base, exponent, exponent_type, errors: Errors):
    """base ** exponent where a failing check flags the loop to run again with its checks in
    place: for an exponent from 0 to 2 ** _BRANCH_FREE_BITS - 1, the squaring steps of the
    largest, each product kept or not by a select that is the same in every lane (so the
    loop vectorizes), multiplied as `_squaring_loop` does; another exponent leaves the loop
    for its checked copy (the test does not change in the loop: LLVM makes it once, before;
    a negative one would need a division in every lane). A non-finite power of a base that
    is not NaN (an overflow, an infinite base) flags the loop: its value may be wrong."""
    magnitude, _ = _magnitude(builder, exponent, signed=False)  # (a negative one is huge)
    i64 = magnitude.type
    outside = builder.icmp_unsigned(">=", magnitude, i64(1 << _BRANCH_FREE_BITS))
    context.deferred_checks.run_checked_copy_if(builder, outside)
    leading_zeros = call_intrinsic(builder, "llvm.ctlz", [magnitude, llvm.IntType(1)(0)])
    top_bit = builder.sub(i64(63), leading_zeros)  # -1 for a zero exponent
    one = llvm.Constant(base.type, 1.0)
    lower = top = _Power(one, None)  # (exact parts: no low part, as the base)
    square = _Power(base, None)
    for bit in range(_BRANCH_FREE_BITS):
        top = _selected(builder, builder.icmp_signed("==", top_bit, i64(bit)), square, top)
        if bit == _BRANCH_FREE_BITS - 1:
            break
        set_below_top = builder.and_(
            builder.trunc(builder.lshr(magnitude, i64(bit)), llvm.IntType(1)),
            builder.icmp_signed(">", top_bit, i64(bit)),
        )
        lower = _selected(builder, set_below_top, _dd_multiply(builder, lower, square), lower)
        square = _dd_multiply(builder, square, square)
    odd = builder.trunc(magnitude, llvm.IntType(1))
    sign = builder.select(odd, base, one)
    power = _final_product(builder, base.type, lower, top, sign, fast=True)
    not_finite = builder.fcmp_unordered(
        ">=", call_intrinsic(builder, "llvm.fabs", [power]), llvm.Constant(base.type, math.inf)
    )
    flagged = builder.and_(not_finite, builder.fcmp_ordered("ord", base, base))
    context.guard(builder, flagged, *errors[1])
    return power


def _selected(builder, condition, if_true: _Power, if_false: _Power) -> _Power:
    """if_true if `condition` else if_false (a low part None on one side is zero)."""
    if if_true.low is None and if_false.low is None:
        return _Power(builder.select(condition, if_true.high, if_false.high), None)
    zero = llvm.Constant(if_true.high.type, 0.0)
    return _Power(
        *(builder.select(condition, t or zero, f or zero) for t, f in zip(if_true, if_false))
    )


def _general_power(context, builder, base, exponent, exponent_type):
    """base ** exponent for any run-time exponent: the squaring loop, or the C pow past
    `_LOOP_LIMIT`."""
    magnitude, negative = _magnitude(builder, exponent, exponent_type.signed)
    start = _start(builder, base, negative)
    within = builder.icmp_unsigned("<=", magnitude, llvm.Constant(magnitude.type, _LOOP_LIMIT))
    results = []
    with builder.if_else(within, likely=True) as (then, otherwise):
        with then:
            lower, top = _squaring_loop(builder, start, magnitude)
            power = _final_product(builder, base.type, lower, top)
            results.append((power, builder.block))
        with otherwise:
            convert = builder.sitofp if exponent_type.signed else builder.uitofp
            slow = c_pow(context, builder, base, convert(exponent, base.type))
            results.append((slow, builder.block))
    return _phi(builder, results)


def _phi(builder, incoming: list):
    """A phi of (value, block) pairs."""
    phi = builder.phi(incoming[0][0].type)
    for value, block in incoming:
        phi.add_incoming(value, block)
    return phi


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
    lower, top = _unrolled_factors(base, magnitude, multiply)
    return top if lower is None else multiply(lower, top)


def _unrolled_factors(base, magnitude: int, multiply):
    """(the product of base's squares for the bits of magnitude (> 0) below its top bit, None
    if none is set; the square for its top bit): their product is base ** magnitude."""
    lower, square = None, base
    while magnitude > 1:
        if magnitude & 1:
            lower = square if lower is None else multiply(lower, square)
        magnitude >>= 1
        square = multiply(square, square)
    return lower, square


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


class _Power(NamedTuple):
    """A double-double, high + low (low None: zero), left unnormalized: `high` is the power by
    plain multiplications (the answer where the double-double is meaningless: a zero, infinite
    or NaN base, an overflow, an underflow to zero) and `low` gathers the rounding errors, a few
    units in the last place of `high` at most. Every partial product lies between the base and
    the result (or its reciprocal), so none overflows or underflows unless the result does."""

    high: llvm.Value
    low: llvm.Value | None


def _widened(builder, base):
    """A float32 base as a double: its power is computed in double-double and rounded once."""
    if isinstance(base.type, llvm.FloatType):
        return builder.fpext(base, llvm.DoubleType())
    return base


def _dd_multiply(builder, x: _Power, y: _Power) -> _Power:
    """The product of two double-doubles: high * high rounded, its exact error by an fma, plus
    the cross terms and low * low. (The parts are left unnormalized: a low part may be several
    units in the last place of its high part, as in 1 / (1 - 2**-53) = (1 + 2**-52) - 2**-53,
    whose square's low * low is 2**-106 of it, and 4**k times that after k more squarings:
    without it (1 - 2**-53) ** -33, 2**-106 above a tie, rounded the wrong way.)"""
    high = builder.fmul(x.high, y.high)
    low = call_intrinsic(builder, "llvm.fma", [x.high, y.high, builder.fneg(high)])
    if x.low is not None and y.low is not None:
        low = call_intrinsic(builder, "llvm.fma", [x.low, y.low, low])
    for small, large in ((x.low, y.high), (y.low, x.high)):
        if small is not None:
            low = call_intrinsic(builder, "llvm.fma", [small, large, low])
    return _Power(high, low)


def _reciprocal(builder, value) -> _Power:
    """1 / value: the rounded quotient, and the division's remainder (exact by an fma)
    divided by value."""
    one = llvm.Constant(value.type, 1.0)
    quotient = builder.fdiv(one, value)
    remainder = call_intrinsic(builder, "llvm.fma", [builder.fneg(quotient), value, one])
    return _Power(quotient, builder.fmul(remainder, quotient))


def _squaring_loop(builder, start: _Power, magnitude) -> tuple[_Power, _Power]:
    """start ** magnitude (a run-time unsigned i64) by squaring, as two factors (see
    `_unrolled_factors`; the lower one is 1 where `_unrolled_factors` has None, which
    multiplies exactly; both are 1 for a zero magnitude)."""
    float_type = start.high.type
    one, zero = llvm.Constant(float_type, 1.0), llvm.Constant(float_type, 0.0)
    entry = builder.block
    header = builder.append_basic_block("powi.header")
    loop = builder.append_basic_block("powi.loop")
    done = builder.append_basic_block("powi.done")
    builder.branch(header)
    builder.position_at_end(header)
    initial = (one, zero, start.high, start.low or zero, magnitude)
    phis = [builder.phi(value.type) for value in initial]
    for phi, value in zip(phis, initial):
        phi.add_incoming(value, entry)
    lower, square, remaining = _Power(*phis[:2]), _Power(*phis[2:4]), phis[4]
    top_bit = builder.icmp_unsigned("<=", remaining, llvm.Constant(magnitude.type, 1))
    builder.cbranch(top_bit, done, loop)
    builder.position_at_end(loop)
    odd = builder.trunc(remaining, llvm.IntType(1))
    product = _dd_multiply(builder, lower, square)
    next_lower = _Power(*(builder.select(odd, p, r) for p, r in zip(product, lower)))
    next_square = _dd_multiply(builder, square, square)
    next_remaining = builder.lshr(remaining, llvm.Constant(magnitude.type, 1))
    for phi, value in zip(phis, (*next_lower, *next_square, next_remaining)):
        phi.add_incoming(value, loop)
    builder.branch(header)
    builder.position_at_end(done)
    nothing = builder.icmp_unsigned("==", magnitude, llvm.Constant(magnitude.type, 0))
    return lower, _selected(builder, nothing, _Power(one, zero), square)


def _final_product(builder, float_type, lower, top: _Power, sign=None, above=None, fast=False):
    """lower * top (lower None: 1), the power of a base, rounded to `float_type`. For a double,
    one fma adds the cross terms to the product of the high parts, rounding once. Where that is
    meaningless (a zero, infinite or NaN part) the plain product of the high parts is the
    answer, as in `_rounded`. For a positive exponent the parts are infinite only where |base|
    is `above` its overflow threshold: then the product is chosen by that, off the critical
    path, or with `fast` not at all (the caller handles those bases apart); and a zero total
    has its sign fixed: the base's (`sign`, for an odd exponent) or positive."""
    if isinstance(float_type, llvm.FloatType) or lower is None:
        product = top if lower is None else _dd_multiply(builder, lower, top)
        return _rounded(builder, float_type, product)
    cross = [(a, b) for a, b in ((top.low, lower.high), (lower.low, top.high)) if a is not None]
    if not cross:
        return builder.fmul(lower.high, top.high)
    (a, b), *rest = cross
    error = builder.fmul(a, b)
    for a, b in rest:
        error = call_intrinsic(builder, "llvm.fma", [a, b, error])
    total = call_intrinsic(builder, "llvm.fma", [lower.high, top.high, error])
    high = builder.fmul(lower.high, top.high)
    if above is None and not fast:
        meaningless = builder.fcmp_unordered("==", total, llvm.Constant(total.type, 0.0))
        return _zero_signed(builder, builder.select(meaningless, high, total), sign)
    if sign is not None:  # an odd power has its base's sign, an underflow to zero too
        total = call_intrinsic(builder, "llvm.copysign", [total, sign])
    elif lower.low is not None:  # else a zero total has the right sign
        total = call_intrinsic(builder, "llvm.fabs", [total])
    return total if fast else builder.select(above, high, total)


def _zero_signed(builder, result, sign):
    """An odd power (`sign`: its base) that underflows to zero keeps the base's sign, as
    (-1e-150) ** 5 is -0.0; an even one (`sign` None) is left as it is."""
    if sign is None:
        return result
    zero = builder.fcmp_ordered("==", result, llvm.Constant(result.type, 0.0))
    return builder.select(zero, call_intrinsic(builder, "llvm.copysign", [result, sign]), result)


def _rounded(builder, float_type, power: _Power):
    """`power` rounded to `float_type`: high + low rounded once is the correctly rounded double;
    a float32 rounds that to odd first (see below). Where `high` is zero, infinite or NaN it is
    the answer itself. A result below 2**-969 is within one unit in the last place: the low part
    is then too small to be a normal float and is itself rounded."""
    if power.low is None:
        return (
            builder.fptrunc(power.high, float_type) if power.high.type != float_type else power.high
        )
    total = builder.fadd(power.high, power.low)
    if isinstance(float_type, llvm.FloatType):
        remainder = builder.fsub(power.low, builder.fsub(total, power.high))
        total = _rounded_to_odd(builder, total, remainder)
    # NaN when high is infinite (its error is then meaningless); a zero whose sign is lost when
    # high is zero (else high + low is never zero but in a tie with the smallest subnormal).
    meaningless = builder.fcmp_unordered("==", total, llvm.Constant(total.type, 0.0))
    result = builder.select(meaningless, power.high, total)
    return builder.fptrunc(result, float_type) if result.type != float_type else result


def _rounded_to_odd(builder, high, low):
    """high + low rounded to odd (an inexact sum becomes the neighbour whose last bit is odd),
    which rounds to float32 as the exact sum does: at a float32 tie, rounding `high` alone would
    go to even whichever side `low` is on."""
    i64 = llvm.IntType(64)
    zero = llvm.Constant(high.type, 0.0)
    bits = builder.bitcast(high, i64)
    even = builder.icmp_unsigned("==", builder.and_(bits, i64(1)), i64(0))
    inexact = builder.fcmp_ordered("!=", low, zero)
    # One more in the bits moves away from zero, one less towards it.
    low_negative = builder.fcmp_ordered("<", low, zero)
    away = builder.icmp_unsigned("==", low_negative, builder.fcmp_ordered("<", high, zero))
    step = builder.select(away, i64(1), i64(-1))
    nudge = builder.select(builder.and_(even, inexact), step, i64(0))
    return builder.bitcast(builder.add(bits, nudge), high.type)


# ---------------------------------------------------------------------------- helpers


def _as_i1(flag):
    return llvm.Constant(llvm.IntType(1), int(flag)) if isinstance(flag, bool) else flag


def _select(builder, flag, if_true, if_false):
    if isinstance(flag, bool):
        return if_true if flag else if_false
    return builder.select(flag, if_true, if_false)
