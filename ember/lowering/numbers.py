"""Primitive operators on integers, floats, booleans and complex numbers, with Python semantics.

Arguments arrive already converted to the operand types the typing signature chose. Integer
arithmetic wraps at 64 bits; division by zero raises ZeroDivisionError unless the function was
compiled with error_model='numpy' (then it gives inf/nan for floats, 0 for integers).
"""

from __future__ import annotations

import math
import operator

from llvmlite import ir as llvm

from ember import types
from ember.lowering.casts import make_complex
from ember.lowering.float_bounds import record_guard
from ember.lowering.intrinsics import call_c_library, call_intrinsic
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature

_i1 = llvm.IntType(1)


def _python_errors(context) -> bool:
    return context.options.error_model == "python"


def _zero(value):
    return llvm.Constant(value.type, 0)


# ---------------------------------------------------------------------------- integers

_INT_SIMPLE = {operator.add: "add", operator.sub: "sub", operator.mul: "mul",
               operator.and_: "and_", operator.or_: "or_", operator.xor: "xor"}  # fmt: skip

for _fn, _method in _INT_SIMPLE.items():

    @lower_builtin(_fn, types.Integer, types.Integer)
    def _int_simple(context, builder, sig, args, _method=_method):
        return getattr(builder, _method)(*args)


for _fn in (operator.and_, operator.or_, operator.xor):

    @lower_builtin(_fn, types.Boolean, types.Boolean)
    def _bool_bitwise(context, builder, sig, args, _method=_INT_SIMPLE[_fn]):
        return getattr(builder, _method)(*args)


def _check_int_divisor(context, builder, divisor, message: str) -> None:
    is_zero = builder.icmp_unsigned("==", divisor, _zero(divisor))
    if _python_errors(context):
        context.guard(builder, is_zero, ZeroDivisionError, message)


def _safe_divisor(builder, divisor, signed: bool):
    """A divisor that never traps (0 -> 1; for signed, -1 handled by the caller)."""
    is_zero = builder.icmp_unsigned("==", divisor, _zero(divisor))
    return builder.select(is_zero, llvm.Constant(divisor.type, 1), divisor), is_zero


def _power_of_two(value) -> int | None:
    """log2 of a positive power-of-two constant divisor, else None."""
    if not isinstance(value, llvm.Constant) or not isinstance(value.constant, int):
        return None
    divisor = value.constant
    if divisor <= 0 or divisor & (divisor - 1):
        return None
    return divisor.bit_length() - 1


def _positive_constant(value) -> bool:
    return (
        isinstance(value, llvm.Constant) and isinstance(value.constant, int) and value.constant > 0
    )


def _floor_divmod_by_positive(builder, a, divisor):
    """Floor division and modulo of a signed `a` by a positive constant: by a multiply when
    one fits (`_floor_multiplier`), else the quotient as one unsigned division: floor(a / d)
    is ~(~a // d) for negative a, and ~a is then non-negative (fewer instructions than a
    signed division and its fix-ups for the remainder's sign)."""
    multiplier = _floor_multiplier(divisor.constant, a.type.width)
    if multiplier is not None:
        return _floor_divmod_by_multiply(builder, a, divisor, *multiplier)
    last_bit = llvm.Constant(a.type, a.type.width - 1)
    sign = builder.ashr(a, last_bit)  # 0, or all ones
    magnitude = builder.xor(a, sign)  # a, or ~a == -a - 1 >= 0
    quotient = builder.xor(builder.udiv(magnitude, divisor), sign)
    # The modulo on its own (the quotient's instructions then go unused) is shorter from the
    # truncated remainder, moved up by the divisor when negative: 12 cycles of latency, not 16.
    truncated = builder.srem(a, divisor)
    remainder = builder.add(truncated, builder.and_(builder.ashr(truncated, last_bit), divisor))
    return quotient, remainder


def _floor_multiplier(divisor: int, width: int) -> tuple[int, int] | None:
    """(m, k) with m < 2**(width-1) such that, for every `width`-bit signed n, the floor of
    n * m / 2**k is floor(n / divisor), or one less when n < 0 is a multiple of it (m is
    2**k / divisor rounded up, k the least that keeps its excess e = m * divisor - 2**k at
    most 2**(k - width + 1): then |n| * e < 2**k); None for a power of two or no such m."""
    if divisor < 3 or divisor & (divisor - 1) == 0:
        return None
    for shift in range(width, 2 * width):
        multiplier = -(-(1 << shift) // divisor)
        if multiplier >= 1 << (width - 1):
            return None
        if multiplier * divisor - (1 << shift) <= 1 << (shift - width + 1):
            return multiplier, shift
    return None


def _floor_divmod_by_multiply(builder, a, divisor, multiplier: int, shift: int):
    """floor(a / d) and a mod d from the high half of a widening signed multiply; the one
    case it is short by one (a negative multiple of d) shows as a remainder of d itself."""
    wide = llvm.IntType(2 * a.type.width)
    product = builder.mul(builder.sext(a, wide), llvm.Constant(wide, multiplier))
    quotient = builder.trunc(builder.ashr(product, llvm.Constant(wide, shift)), a.type)
    remainder = builder.sub(a, builder.mul(quotient, divisor))
    short = builder.icmp_signed("==", remainder, divisor)
    quotient = builder.add(quotient, builder.zext(short, a.type))
    return quotient, builder.select(short, _zero(a), remainder)


def _int_divmod(context, builder, sig, a, b, message):
    """Python's floor division and modulo of two integers (wrapping, never trapping)."""
    shift = _power_of_two(b)
    if shift is not None and shift < a.type.width - 1:
        # Floor semantics are exactly an arithmetic shift and a mask for 2**k divisors.
        signed = sig.args[0].signed
        shifted = (
            builder.ashr(a, llvm.Constant(a.type, shift))
            if signed
            else builder.lshr(a, llvm.Constant(a.type, shift))
        )
        return shifted, builder.and_(a, llvm.Constant(a.type, (1 << shift) - 1))
    signed = sig.args[0].signed
    if signed and _positive_constant(b):
        return _floor_divmod_by_positive(builder, a, b)
    _check_int_divisor(context, builder, b, message)
    divisor, is_zero = _safe_divisor(builder, b, signed)
    if not signed:
        quotient = builder.udiv(a, divisor)
        remainder = builder.urem(a, divisor)
    else:
        if getattr(context, "divisor_varies", False):  # (set by Lower, int_ranges.py)
            quotient, remainder = _truncating_divmod_branching(builder, a, divisor)
        else:
            quotient, remainder = _truncating_divmod_selecting(builder, a, divisor)
        # Python rounds toward negative infinity: fix up when signs differ.
        signs_differ = builder.icmp_signed("<", builder.xor(remainder, divisor), _zero(remainder))
        needs_fix = builder.and_(
            builder.icmp_signed("!=", remainder, _zero(remainder)), signs_differ
        )
        quotient = builder.select(
            needs_fix, builder.sub(quotient, llvm.Constant(a.type, 1)), quotient
        )
        remainder = builder.select(needs_fix, builder.add(remainder, divisor), remainder)
    quotient = builder.select(is_zero, _zero(a), quotient)
    remainder = builder.select(is_zero, _zero(a), remainder)
    return quotient, remainder


def _truncating_divmod_selecting(builder, a, divisor):
    """sdiv and srem of a non-zero `divisor`, -1 (minimum // -1 traps) replaced by 1: a select
    LLVM hoists out of a loop that does not change the divisor."""
    is_minus_one = builder.icmp_signed("==", divisor, llvm.Constant(divisor.type, -1))
    divisor = builder.select(is_minus_one, llvm.Constant(divisor.type, 1), divisor)
    quotient = builder.select(is_minus_one, builder.neg(a), builder.sdiv(a, divisor))
    return quotient, builder.srem(a, divisor)  # (the remainder by 1 is -1's: 0)


def _truncating_divmod_branching(builder, a, divisor):
    """sdiv and srem of a non-zero `divisor`, the trapping minimum // -1 on a branch of its own
    (predicted; no instruction between the divisor and the division)."""
    minimum = llvm.Constant(a.type, -(1 << (a.type.width - 1)))
    overflows = builder.and_(
        builder.icmp_signed("==", a, minimum),
        builder.icmp_signed("==", divisor, llvm.Constant(divisor.type, -1)),
    )
    with builder.if_else(overflows, likely=False) as (by_minus_one, otherwise):
        with by_minus_one:
            minimum_block = builder.block  # the minimum // -1 wraps to itself, as NumPy's
        with otherwise:
            quotient = builder.sdiv(a, divisor)
            remainder = builder.srem(a, divisor)
            divided_block = builder.block
    merged_quotient = builder.phi(a.type)
    merged_quotient.add_incoming(minimum, minimum_block)
    merged_quotient.add_incoming(quotient, divided_block)
    merged_remainder = builder.phi(a.type)
    merged_remainder.add_incoming(_zero(a), minimum_block)
    merged_remainder.add_incoming(remainder, divided_block)
    return merged_quotient, merged_remainder


@lower_builtin(operator.floordiv, types.Integer, types.Integer)
def int_floordiv(context, builder, sig, args):
    message = "integer division or modulo by zero"
    if sig.args[0].signed != sig.args[1].signed:
        return _mixed_signs_divmod(context, builder, sig, *args, message)[0]
    return _int_divmod(context, builder, sig, *args, message)[0]


@lower_builtin(operator.mod, types.Integer, types.Integer)
def int_mod(context, builder, sig, args):
    message = "integer modulo by zero"
    if sig.args[0].signed != sig.args[1].signed:
        return _mixed_signs_divmod(context, builder, sig, *args, message)[1]
    return _int_divmod(context, builder, sig, *args, message)[1]


def _mixed_signs_divmod(context, builder, sig, a, b, message):
    """Python's floor division and modulo of a uint64 and a signed integer (typing's
    `exact_operands`), exact where the result fits int64, else wrapped: unsigned division of
    the magnitudes, then the floor's correction when the signed operand is negative."""
    i64 = llvm.IntType(64)
    a, b = (
        builder.sext(v, i64) if t.signed else builder.zext(v, i64) if v.type != i64 else v
        for v, t in zip((a, b), sig.args)
    )
    signed_value = b if sig.args[1].signed else a
    negative = builder.icmp_signed("<", signed_value, _zero(signed_value))
    magnitude = builder.select(negative, builder.neg(signed_value), signed_value)
    dividend, divisor = (a, magnitude) if sig.args[1].signed else (magnitude, b)
    _check_int_divisor(context, builder, divisor, message)
    safe, is_zero = _safe_divisor(builder, divisor, signed=False)
    quotient, remainder = builder.udiv(dividend, safe), builder.urem(dividend, safe)
    # a negative operand: the quotient is -ceil(|a / b|), the remainder takes the divisor's sign
    exact = builder.icmp_unsigned("==", remainder, _zero(remainder))
    negated = builder.select(exact, builder.neg(quotient), builder.not_(quotient))
    corrected = (
        builder.sub(remainder, divisor) if sig.args[1].signed else builder.sub(divisor, remainder)
    )
    negated_remainder = builder.select(exact, _zero(remainder), corrected)
    quotient = builder.select(negative, negated, quotient)
    remainder = builder.select(negative, negated_remainder, remainder)
    target = context.value_type(sig.return_type)
    return tuple(
        builder.trunc(builder.select(is_zero, _zero(v), v), target)
        if target != i64
        else builder.select(is_zero, _zero(v), v)
        for v in (quotient, remainder)
    )


def _shift(context, builder, sig, args, left: bool):
    value, count = args
    if sig.args[1].signed:
        is_negative = builder.icmp_signed("<", count, _zero(count))
        context.guard(builder, is_negative, ValueError, "negative shift count")
    width = llvm.Constant(count.type, value.type.width)
    too_far = builder.icmp_unsigned(">=", count, width)
    clamped = builder.select(too_far, llvm.Constant(count.type, value.type.width - 1), count)
    clamped = builder.zext(clamped, value.type) if clamped.type != value.type else clamped
    if left:
        shifted = builder.shl(value, clamped)
        return builder.select(too_far, _zero(value), shifted)
    if sig.args[0].signed:
        return builder.ashr(value, clamped)  # past the width: all sign bits, as Python gives
    return builder.select(too_far, _zero(value), builder.lshr(value, clamped))


# int / int lives in ember/library/builtins/number_methods.py: its exact slow path is written in
# Python.


@lower_builtin(operator.pow, types.Integer, types.Integer)
def int_power(context, builder, sig, args):
    """Exponentiation by squaring; a negative exponent has no integer result except for
    bases 1 and -1, so it raises rather than silently truncating to 0."""
    base, exponent = args
    one = llvm.Constant(base.type, 1)
    if sig.args[1].signed and context.options.error_model != "python":
        return _int_power_numpy_errors(builder, base, exponent, one)
    if sig.args[1].signed:
        negative = builder.icmp_signed("<", exponent, _zero(exponent))
        with builder.if_then(negative, likely=False):
            is_zero = builder.icmp_signed("==", base, _zero(base))
            context.guard(
                builder, is_zero, ZeroDivisionError, "0.0 cannot be raised to a negative power"
            )
            not_unit = builder.icmp_signed("!=", builder.mul(base, base), one)
            context.guard(
                builder,
                not_unit,
                ValueError,
                "integer ** negative integer has no integer result; use a float base",
            )
        # Only bases 1 and -1 get here with a negative exponent: b**-n == b**n for them.
        exponent = builder.select(negative, builder.neg(exponent), exponent)
    return power_by_squaring(builder, base, exponent, one)


def _int_power_numpy_errors(builder, base, exponent, one):
    """int ** int under error_model='numpy' (ufunc kernels), as Numba computes it: a negative
    exponent gives 1 / base**n truncated, so 0 for |base| > 1, +-1 for bases +-1, and for
    base 0 the conversion of inf (the type's minimum), never an exception."""
    negative = builder.icmp_signed("<", exponent, _zero(exponent))
    magnitude = builder.select(negative, builder.neg(exponent), exponent)
    power = power_by_squaring(builder, base, magnitude, one)
    unit = builder.icmp_signed("==", builder.mul(base, base), one)
    zero_base = builder.icmp_signed("==", base, _zero(base))
    minimum = llvm.Constant(base.type, 1 << (base.type.width - 1))
    inverse = builder.select(zero_base, minimum, builder.select(unit, power, _zero(base)))
    return builder.select(negative, inverse, power)


def power_by_squaring(builder, base, exponent, one, multiply=None):
    """base ** exponent (an unsigned integer) by a squaring loop; `multiply(a, b)` defaults to
    integer multiplication."""
    multiply = multiply or builder.mul
    entry = builder.block
    loop = builder.append_basic_block("pow.loop")
    done = builder.append_basic_block("pow.done")
    builder.branch(loop)
    builder.position_at_end(loop)
    result_phi = builder.phi(base.type)
    base_phi = builder.phi(base.type)
    exponent_phi = builder.phi(exponent.type)
    result_phi.add_incoming(one, entry)
    base_phi.add_incoming(base, entry)
    exponent_phi.add_incoming(exponent, entry)
    odd = builder.trunc(exponent_phi, _i1)
    result = builder.select(odd, multiply(result_phi, base_phi), result_phi)
    next_exponent = builder.lshr(exponent_phi, llvm.Constant(exponent.type, 1))
    next_base = multiply(base_phi, base_phi)
    result_phi.add_incoming(result, builder.block)
    base_phi.add_incoming(next_base, builder.block)
    exponent_phi.add_incoming(next_exponent, builder.block)
    finished = builder.icmp_unsigned("==", next_exponent, _zero(next_exponent))
    builder.cbranch(finished, done, loop)
    builder.position_at_end(done)
    final = builder.phi(base.type)
    final.add_incoming(result, loop)
    return final


@lower_builtin(operator.lshift, types.Integer, types.Integer)
def int_lshift(context, builder, sig, args):
    return _shift(context, builder, sig, args, left=True)


@lower_builtin(operator.rshift, types.Integer, types.Integer)
def int_rshift(context, builder, sig, args):
    return _shift(context, builder, sig, args, left=False)


_COMPARISONS = {operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
                operator.eq: "==", operator.ne: "!="}  # fmt: skip

for _fn, _symbol in _COMPARISONS.items():

    @lower_builtin(_fn, types.Integer, types.Integer)
    def _int_compare(context, builder, sig, args, _symbol=_symbol):
        left, right = sig.args
        if left.signed != right.signed:
            return _compare_mixed_signs(builder, _symbol, left.signed, *args)
        if left.signed:
            return builder.icmp_signed(_symbol, *args)
        return builder.icmp_unsigned(_symbol, *args)

    @lower_builtin(_fn, types.Boolean, types.Boolean)
    def _bool_compare(context, builder, sig, args, _symbol=_symbol):
        return builder.icmp_unsigned(_symbol, *args)

    @lower_builtin(_fn, types.Float, types.Float)
    def _float_compare(context, builder, sig, args, _symbol=_symbol):
        return _compare_floats(builder, _symbol, *args)

    @lower_builtin(_fn, types.Integer, types.Float)
    def _int_float_compare(context, builder, sig, args, _symbol=_symbol):
        return _compare_int_float(context, builder, _symbol, sig.args[0], *args)

    @lower_builtin(_fn, types.Float, types.Integer)
    def _float_int_compare(context, builder, sig, args, _symbol=_symbol):
        mirrored = _MIRRORED.get(_symbol, _symbol)
        return _compare_int_float(context, builder, mirrored, sig.args[1], args[1], args[0])


_MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _compare_mixed_signs(builder, symbol: str, left_signed: bool, a, b):
    """A signed and an unsigned integer of one width, compared exactly: a negative signed value
    is below every unsigned one, else both compare as unsigned."""
    signed_value = a if left_signed else b
    negative = builder.icmp_signed("<", signed_value, _zero(signed_value))
    holds_when_negative = (">", ">=", "!=") if not left_signed else ("<", "<=", "!=")
    answer_if_negative = llvm.Constant(llvm.IntType(1), int(symbol in holds_when_negative))
    return builder.select(negative, answer_if_negative, builder.icmp_unsigned(symbol, a, b))


def _compare_floats(builder, symbol: str, a, b):
    if symbol == "!=":
        return builder.fcmp_unordered(symbol, a, b)
    return builder.fcmp_ordered(symbol, a, b)


def _compare_int_float(context, builder, symbol: str, int_type, integer, value):
    """`integer <symbol> value` exactly, as Python compares an int with a float.

    The int converts to a float with monotonic rounding, so the float comparison is the answer
    unless the converted int lands exactly on `value`. Then `value` is integral and compares as
    an integer, or it is 2**63 (2**64 unsigned), above every integer of the type.
    """
    as_float = context.cast(builder, integer, int_type, types.float64)
    by_float = _compare_floats(builder, symbol, as_float, value)
    if _converts_exactly(int_type, integer):
        return by_float
    # An int within 2**53 is a float exactly: the float comparison decides, and the test, on
    # the int alone, leaves a loop where the int does not change (`v * 100 < n`).
    if int_type.signed:
        shifted = builder.add(integer, llvm.Constant(integer.type, 2**53))
        exact_float = builder.icmp_unsigned("<=", shifted, llvm.Constant(integer.type, 2**54))
    else:
        exact_float = builder.icmp_unsigned("<=", integer, llvm.Constant(integer.type, 2**53))
    with builder.if_else(exact_float, likely=True) as (small, large):
        with small:
            after_small = builder.block
        with large:
            exact = _compare_beyond_53_bits(
                context, builder, symbol, int_type, integer, value, as_float, by_float
            )
            after_large = builder.block
    result = builder.phi(_i1)
    result.add_incoming(by_float, after_small)
    result.add_incoming(exact, after_large)
    return result


def _compare_beyond_53_bits(context, builder, symbol, int_type, integer, value, as_float, by_float):
    """The comparison of an int past 2**53 (which may round on its way to a float)."""
    lands_on_value = builder.fcmp_ordered("==", as_float, value)
    limit = 2.0**63 if int_type.signed else 2.0**64
    beyond = builder.fcmp_ordered(">=", value, llvm.Constant(value.type, limit))
    as_int = context.cast(builder, value, types.float64, int_type)
    if int_type.signed:
        by_int = builder.icmp_signed(symbol, integer, as_int)
    else:
        by_int = builder.icmp_unsigned(symbol, integer, as_int)
    below_value = llvm.Constant(_i1, int(symbol in ("<", "<=", "!=")))
    exact = builder.select(beyond, below_value, by_int)
    return builder.select(lands_on_value, exact, by_float)


def _converts_exactly(int_type: types.Integer, integer: llvm.Value) -> bool:
    """Whether the int is a float64 exactly (53-bit significand): any int of 32 bits or less,
    a constant such as the `0` of `x < 0`."""
    if int_type.bitwidth <= 32:
        return True
    return isinstance(integer, llvm.Constant) and abs(int(integer.constant)) <= 2**53


@lower_builtin(operator.neg, types.Integer)
def int_negate(context, builder, sig, args):
    return _widen_unary_result(context, builder, sig, builder.neg(args[0]))


@lower_builtin(operator.pos, types.Number)
def number_positive(context, builder, sig, args):
    return _widen_unary_result(context, builder, sig, args[0])


@lower_builtin(operator.invert, types.Integer)
def int_invert(context, builder, sig, args):
    return _widen_unary_result(context, builder, sig, builder.not_(args[0]))


def _widen_unary_result(context, builder, sig, value):
    """A unary operator's value, computed at its operand's width, as its (64-bit) result type
    (ember/typing/arith.py `_widened_unary`)."""
    return context.cast(builder, value, sig.args[0], sig.return_type)


@lower_builtin(operator.invert, types.Boolean)
def boolean_invert(context, builder, sig, args):
    return builder.not_(args[0])  # an i1: flipping its one bit is logical not


@lower_builtin(operator.not_, types.Type)
def logical_not(context, builder, sig, args):
    return builder.not_(context.is_true(builder, sig.args[0], args[0]))


# ---------------------------------------------------------------------------- floats

_FLOAT_SIMPLE = {operator.add: "fadd", operator.sub: "fsub", operator.mul: "fmul"}

for _fn, _method in _FLOAT_SIMPLE.items():

    @lower_builtin(_fn, types.Float, types.Float)
    def _float_simple(context, builder, sig, args, _method=_method):
        return context.apply_fastmath(getattr(builder, _method)(*args))


def _check_float_divisor(context, builder, divisor, message: str) -> None:
    if _python_errors(context):
        is_zero = builder.fcmp_ordered("==", divisor, llvm.Constant(divisor.type, 0.0))
        record_guard(builder, is_zero)  # (dropped where the divisor cannot be zero: 1 + x * x)
        context.guard(builder, is_zero, ZeroDivisionError, message)


@lower_builtin(operator.truediv, types.Float, types.Float)
def float_truediv(context, builder, sig, args):
    _check_float_divisor(context, builder, args[1], "float division by zero")
    return context.apply_fastmath(builder.fdiv(*args))


def _float_intrinsic(builder, name: str, *operands):
    return call_intrinsic(builder, name, list(operands))


def _float_divmod(context, builder, a, b):
    """Python's float floor division and modulo (CPython's float_divmod, branch-free)."""
    zero = llvm.Constant(a.type, 0.0)
    mod = builder.frem(a, b)
    div = builder.fdiv(builder.fsub(a, mod), b)
    mod_nonzero = builder.fcmp_unordered("!=", mod, zero)
    signs_differ = builder.xor(
        builder.fcmp_ordered("<", b, zero), builder.fcmp_ordered("<", mod, zero)
    )
    adjust = builder.and_(mod_nonzero, signs_differ)
    mod = builder.select(adjust, builder.fadd(mod, b), mod)
    div = builder.select(adjust, builder.fsub(div, llvm.Constant(a.type, 1.0)), div)
    mod = builder.select(mod_nonzero, mod, _float_intrinsic(builder, "llvm.copysign", zero, b))
    floor_div = _float_intrinsic(builder, "llvm.floor", div)
    round_up = builder.fcmp_ordered(">", builder.fsub(div, floor_div), llvm.Constant(a.type, 0.5))
    floor_div = builder.select(
        round_up, builder.fadd(floor_div, llvm.Constant(a.type, 1.0)), floor_div
    )
    div_nonzero = builder.fcmp_unordered("!=", div, zero)
    signed_zero = _float_intrinsic(builder, "llvm.copysign", zero, builder.fdiv(a, b))
    floor_div = builder.select(div_nonzero, floor_div, signed_zero)
    return floor_div, mod


@lower_builtin(operator.floordiv, types.Float, types.Float)
def float_floordiv(context, builder, sig, args):
    _check_float_divisor(context, builder, args[1], "float floor division by zero")
    return _float_floor_quotient(context, builder, *args)


def _float_floor_quotient(context, builder, a, b):
    """`a // b`; a zero divisor (error_model='numpy') gives inf or nan, as NumPy does."""
    quotient = _float_divmod(context, builder, a, b)[0]
    if _python_errors(context):
        return quotient
    is_zero = builder.fcmp_ordered("==", b, llvm.Constant(b.type, 0.0))
    return builder.select(is_zero, builder.fdiv(a, b), quotient)


@lower_builtin(operator.mod, types.Float, types.Float)
def float_mod(context, builder, sig, args):
    _check_float_divisor(context, builder, args[1], "float modulo")
    return _float_divmod(context, builder, *args)[1]


@lower_builtin(operator.neg, types.Float)
def float_negate(context, builder, sig, args):
    return builder.fneg(args[0])


def float_power(context, builder, sig, args):
    """Python's float `**`: the C pow, plus the errors CPython raises around it.

    A negative base with a fractional exponent has a complex result in Python; the result type
    must be static here, so it raises ValueError (as Python 2 did) rather than giving nan.
    """
    base, exponent = args
    if not _python_errors(context):
        return _float_intrinsic(builder, "llvm.pow", base, exponent)
    zero = llvm.Constant(base.type, 0.0)
    finite_exponent = is_finite(builder, exponent)
    negative_exponent = builder.and_(builder.fcmp_ordered("<", exponent, zero), finite_exponent)
    zero_base = builder.fcmp_ordered("==", base, zero)
    context.guard(
        builder,
        builder.and_(zero_base, negative_exponent),
        ZeroDivisionError,
        "0.0 cannot be raised to a negative power",
    )
    fractional = builder.fcmp_ordered(
        "!=", exponent, _float_intrinsic(builder, "llvm.floor", exponent)
    )
    negative_base = builder.and_(builder.fcmp_ordered("<", base, zero), is_finite(builder, base))
    context.guard(
        builder,
        builder.and_(negative_base, fractional),
        ValueError,
        "negative number cannot be raised to a fractional power",
    )
    result = c_pow(context, builder, base, exponent)
    overflow = builder.and_(
        builder.not_(is_finite(builder, result)),
        builder.and_(is_finite(builder, base), finite_exponent),
    )
    context.guard(builder, overflow, OverflowError, 34, "Numerical result out of range")
    return result


def c_pow(context, builder, base, exponent):
    """The C library's pow, which CPython calls; LLVM may rewrite it only under fastmath (it
    turns pow(x, 2.0) into x * x, which rounds differently in rare cases)."""
    if context.options.fastmath_flags:
        return context.apply_fastmath(_float_intrinsic(builder, "llvm.pow", base, exponent))
    if _not_rewritten_by_llvm(exponent):
        return _float_intrinsic(builder, "llvm.pow", base, exponent)
    name = "powf" if isinstance(base.type, llvm.FloatType) else "pow"
    return call_c_library(builder, name, [base, exponent])


def _not_rewritten_by_llvm(exponent) -> bool:
    """Whether LLVM leaves `llvm.pow(x, exponent)` a call of the C pow without fastmath: a
    constant exponent that is not a whole number nor ±0.5 (LLVM turns those into products,
    quotients or square roots). Unlike a call under a private symbol, the intrinsic lets
    loops calling it vectorize (one call per lane) as Numba's do."""
    if not isinstance(exponent, llvm.Constant) or not isinstance(exponent.constant, float):
        return False
    value = exponent.constant
    return math.isfinite(value) and value != int(value) and abs(value) != 0.5


def is_finite(builder, value):
    """Whether the float `value` is neither infinite nor NaN (an i1)."""
    magnitude = _float_intrinsic(builder, "llvm.fabs", value)
    return builder.fcmp_ordered("<", magnitude, llvm.Constant(value.type, float("inf")))


def is_infinite(builder, value):
    """Whether the float `value` is +inf or -inf (an i1)."""
    magnitude = _float_intrinsic(builder, "llvm.fabs", value)
    return builder.fcmp_ordered("==", magnitude, llvm.Constant(value.type, float("inf")))


# ---------------------------------------------------------------------------- complex


def _parts(builder, value):
    """The real and imaginary parts of a complex; those of one built just before (a real
    promoted to complex) are its inserted values, so a constant part stays visible."""
    built = _inserted_parts(value)
    if built is not None:
        return built
    return builder.extract_value(value, 0), builder.extract_value(value, 1)


def _inserted_parts(value):
    """(real, imag) of `insertvalue(insertvalue(_, real, 0), imag, 1)`, else None."""
    if not (isinstance(value, llvm.InsertValue) and list(value.indices) == [1]):
        return None
    inner = value.aggregate
    if not (isinstance(inner, llvm.InsertValue) and list(inner.indices) == [0]):
        return None
    return inner.value, value.value


def _is_positive_zero(value) -> bool:
    constant = getattr(value, "constant", None) if isinstance(value, llvm.Constant) else None
    return isinstance(constant, float) and constant == 0.0 and math.copysign(1.0, constant) > 0


@lower_builtin(operator.add, types.Complex, types.Complex)
def complex_add(context, builder, sig, args):
    (ar, ai), (br, bi) = (_parts(builder, a) for a in args)
    return make_complex(
        context, builder, sig.return_type, builder.fadd(ar, br), builder.fadd(ai, bi)
    )


@lower_builtin(operator.sub, types.Complex, types.Complex)
def complex_sub(context, builder, sig, args):
    (ar, ai), (br, bi) = (_parts(builder, a) for a in args)
    return make_complex(
        context, builder, sig.return_type, builder.fsub(ar, br), builder.fsub(ai, bi)
    )


@lower_builtin(operator.mul, types.Complex, types.Complex)
def complex_mul(context, builder, sig, args):
    (ar, ai), (br, bi) = (_parts(builder, a) for a in args)
    real = builder.fsub(builder.fmul(ar, br), builder.fmul(ai, bi))
    imag = builder.fadd(builder.fmul(ar, bi), builder.fmul(ai, br))
    return make_complex(context, builder, sig.return_type, real, imag)


@lower_builtin(operator.truediv, types.Complex, types.Complex)
def complex_truediv(context, builder, sig, args):
    """Smith's algorithm, as CPython's complex division (_Py_c_quot)."""
    (ar, ai), (br, bi) = (_parts(builder, a) for a in args)
    zero = llvm.Constant(ar.type, 0.0)
    checked = _python_errors(context)
    if checked:
        both_zero = builder.and_(
            builder.fcmp_ordered("==", br, zero), builder.fcmp_ordered("==", bi, zero)
        )
        context.guard(builder, both_zero, ZeroDivisionError, "complex division by zero")
    if checked and _is_positive_zero(bi):
        real, imag = _quotient_by_real(builder, ar, ai, br)
    else:
        real, imag = _smith_quotient(builder, ar, ai, br, bi)
    return make_complex(context, builder, sig.return_type, real, imag)


def _smith_quotient(builder, ar, ai, br, bi):
    """(ar + ai j) / (br + bi j) by Smith's two cases, chosen by selecting their operands so
    only one case's three divisions run (selecting the results of both cases made LLVM compute
    six, e.g. for every element divided in a loop)."""
    abs_br = _float_intrinsic(builder, "llvm.fabs", br)
    abs_bi = _float_intrinsic(builder, "llvm.fabs", bi)
    # |br| >= |bi|: ratio = bi/br, denom = br + bi*ratio, real = (ar + ai*ratio)/denom,
    #               imag = (ai - ar*ratio)/denom;
    # otherwise (or a NaN): ratio = br/bi, denom = br*ratio + bi, real = (ar*ratio + ai)/denom,
    #               imag = (ai*ratio - ar)/denom.
    real_larger = builder.fcmp_ordered(">=", abs_br, abs_bi)
    big, small = builder.select(real_larger, br, bi), builder.select(real_larger, bi, br)
    ratio = builder.fdiv(small, big)
    denom = builder.fadd(big, builder.fmul(small, ratio))
    kept, scaled = builder.select(real_larger, ar, ai), builder.select(real_larger, ai, ar)
    real = builder.fdiv(builder.fadd(kept, builder.fmul(scaled, ratio)), denom)
    imag1 = builder.fsub(ai, builder.fmul(ar, ratio))
    imag2 = builder.fsub(builder.fmul(ai, ratio), ar)  # not -imag1: the sign of a zero differs
    imag = builder.fdiv(builder.select(real_larger, imag1, imag2), denom)
    return real, imag


def _quotient_by_real(builder, ar, ai, br):
    """Smith's first case for a divisor `br + 0j` with br != 0 (a real promoted to complex):
    ratio = 0/br is a zero with br's sign and denom = br + 0*ratio is br itself (a NaN br
    makes both results NaN by dividing by it, as CPython's NaN case)."""
    ratio = _float_intrinsic(builder, "llvm.copysign", llvm.Constant(br.type, 0.0), br)
    real = builder.fdiv(builder.fadd(ar, builder.fmul(ai, ratio)), br)
    imag = builder.fdiv(builder.fsub(ai, builder.fmul(ar, ratio)), br)
    return real, imag


@lower_builtin(operator.neg, types.Complex)
def complex_negate(context, builder, sig, args):
    real, imag = _parts(builder, args[0])
    return make_complex(context, builder, sig.return_type, builder.fneg(real), builder.fneg(imag))


for _fn in (operator.eq, operator.ne):

    @lower_builtin(_fn, types.Complex, types.Complex)
    def _complex_equality(context, builder, sig, args, _fn=_fn):
        (ar, ai), (br, bi) = (_parts(builder, a) for a in args)
        equal = builder.and_(builder.fcmp_ordered("==", ar, br), builder.fcmp_ordered("==", ai, bi))
        return equal if _fn is operator.eq else builder.not_(equal)


# ---------------------------------------------------------------------------- identity


for _fn in (operator.is_, operator.is_not):

    @lower_builtin(_fn, types.Type, types.Type)
    def _identity(context, builder, sig, args, _fn=_fn):
        left, right = sig.args
        if left == right and isinstance(left, (types.Number, types.Boolean)):
            # as Numba: numbers of one type are the same object when equal
            equal_sig = signature(types.boolean, left, right)
            same = context.call_implementation(builder, operator.eq, equal_sig, list(args))
            return same if _fn is operator.is_ else builder.not_(same)
        singleton = isinstance(left, types.NoneType) or left is types.ellipsis_type
        same = left == right and singleton  # None and ... are one object each
        return llvm.Constant(_i1, int(same == (_fn is operator.is_)))
