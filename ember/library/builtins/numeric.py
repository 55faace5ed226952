"""Python builtins in compiled code: abs, min, max, int, float, bool, complex, round, pow,
divmod.

`divmod` and `min`/`max` of a tuple are `@overload` implementations (ember.extending): Python
code that LLVM inlines into the caller, as fast as the hand-written lowering they replace.
"""

from __future__ import annotations

import functools
import math
import operator

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import intrinsic, overload, register_jitable
from ember.library.builtins.number_methods import PLAIN_IEEE
from ember.lowering.callconv import EXCINFO_TYPE, return_exception_record, static_exceptions
from ember.lowering.casts import make_complex
from ember.lowering.intrinsics import X86_64, call_intrinsic
from ember.lowering.registry import VarArgs, lower_builtin, lower_cast
from ember.typing.arith import arithmetic_result, integer_result
from ember.typing.conversions import unify_pair
from ember.typing.signature import signature
from ember.typing.templates import registry

_NUMBER = (types.Number,)


def _numbers(args) -> bool:
    return all(isinstance(types.unliteral(a), types.Number) for a in args)


# ---------------------------------------------------------------------------- conversions


@registry.typer(int)
def _type_int(args, kws):
    if len(args) == 1 and not kws and _numbers(args):
        value = types.unliteral(args[0])
        if isinstance(value, types.Complex):
            return None
        if isinstance(value, types.Integer):
            # an integer keeps its type, as in Numba: int(np.uint64(2**64 - 1)) stays exact
            return signature(value, value)
        return signature(types.int64, value)
    return None


@lower_builtin(int, types.Float)
def float_to_int(context, builder, sig, args):
    """Truncate toward zero. A cheap test guards the common case (a plain conversion); the rare
    rest raises for NaN and infinity as Python does, and OverflowError for a finite value
    beyond int64 (Python's big int, which compiled code cannot hold); the NumPy error model
    saturates instead. The raise makes the loop around it multi-exit, which the JIT's unroller
    accepts (see codegen/jit.py)."""
    (value,) = args
    target = context.value_type(sig.return_type)
    deferred = context.deferred_checks
    if deferred is not None and deferred.flags_failures(builder) and target.width == 64:
        deferred.flag_beyond_int64(builder, value)
        # fptosi of an out-of-range value is poison: only in a run whose flag is set, whose
        # results (stores into its own arrays, scalars) the loop's second run replaces
        return builder.fptosi(value, target)
    if deferred is not None and deferred.deferring(builder):
        return _float_to_int_checked_later(context, builder, sig, value)
    plain, in_range = _truncate_with_range_test(builder, value, target)
    if context.options.error_model == "python":
        with builder.if_then(builder.not_(in_range), likely=False):
            _raise_unless_int64_at_one_exit(context, builder, value)
        return plain  # (what is left of the rare values: -2**63, which converts exactly)
    common_block = builder.block
    with builder.if_then(builder.not_(in_range), likely=False):
        saturated = context.cast(builder, value, sig.args[0], sig.return_type)
        rare_block = builder.block
    result = builder.phi(target)
    result.add_incoming(plain, common_block)
    result.add_incoming(saturated, rare_block)
    return result


def _float_to_int_checked_later(context, builder, sig, value):
    """The saturating conversion, branch-free, its NaN, infinity and range checks recorded by
    the loop that defers them (a loop of these vectorizes)."""
    if context.options.error_model == "python":
        _raise_unless_int64(context, builder, value)
    result_type = sig.return_type
    if not (isinstance(result_type, types.Integer) and result_type.signed):
        return context.cast(builder, value, sig.args[0], result_type)
    # fptosi and a select, not llvm.fptosi.sat, which x86 converts one lane at a time
    target = context.value_type(result_type)
    limit = llvm.Constant(value.type, 2.0 ** (target.width - 1))
    in_range = builder.fcmp_ordered("<", call_intrinsic(builder, "llvm.fabs", [value]), limit)
    positive = builder.fcmp_ordered(">", value, llvm.Constant(value.type, 0.0))
    saturated = builder.select(
        positive,
        llvm.Constant(target, result_type.maxval),
        llvm.Constant(target, result_type.minval),
    )
    # fptosi of an out-of-range value is poison, but the select then picks `saturated`
    return builder.select(in_range, builder.fptosi(value, target), saturated)


BEYOND_INT64_MESSAGE = (
    "cannot convert float beyond int64 to integer (compiled code's int has 64 bits)"
)


def _int64_failures(builder, value) -> list:
    """(condition, exception class, message) of int(value)'s failures, in CPython's order."""
    is_nan = builder.fcmp_unordered("uno", value, value)
    infinity = llvm.Constant(value.type, math.inf)
    is_inf = builder.fcmp_ordered("==", call_intrinsic(builder, "llvm.fabs", [value]), infinity)
    above = builder.fcmp_ordered(">=", value, llvm.Constant(value.type, 2.0**63))
    below = builder.fcmp_ordered("<", value, llvm.Constant(value.type, -(2.0**63)))
    beyond = builder.and_(builder.or_(above, below), builder.not_(is_inf))
    return [
        (is_nan, ValueError, "cannot convert float NaN to integer"),
        (is_inf, OverflowError, "cannot convert float infinity to integer"),
        (beyond, OverflowError, BEYOND_INT64_MESSAGE),
    ]


def _raise_unless_int64_at_one_exit(context, builder, value) -> None:
    """Python's errors for int(value) of a float from one exit (the exception chosen by a
    select): a loop with one more exit per conversion no longer unrolls and vectorizes."""
    failures = _int64_failures(builder, value)
    exc_id = None
    for condition, exc_class, message in reversed(failures):
        this = llvm.Constant(
            EXCINFO_TYPE.elements[0], static_exceptions.register(exc_class, (message,))
        )
        exc_id = this if exc_id is None else builder.select(condition, this, exc_id)
    failed = functools.reduce(builder.or_, [condition for condition, _, _ in failures])
    with builder.if_then(failed, likely=False):
        deferred = context.deferred_checks
        if deferred is not None and deferred.raises_first(builder):
            deferred.raise_pending(builder)
        record = builder.insert_value(llvm.Constant(EXCINFO_TYPE, [0, None]), exc_id, 0)
        return_exception_record(builder, builder.function, record)


def _raise_unless_int64(context, builder, value) -> None:
    """Python's errors for int(value) of a float, each its own check (a loop deferring them
    records which one failed first)."""
    for condition, exc_class, message in _int64_failures(builder, value):
        context.guard(builder, condition, exc_class, message)


def _truncate_with_range_test(builder, value, target) -> tuple:
    """(truncated value, i1 'it was exact'): on x86 the hardware conversion answers INT64_MIN
    for NaN and out-of-range values, so an integer compare of its result is the test (fewer
    instructions in hot loops); elsewhere, |value| < 2**63 before a plain conversion."""
    if X86_64 and target.width == 64:
        double = (
            value if value.type == llvm.DoubleType() else builder.fpext(value, llvm.DoubleType())
        )
        lanes = builder.insert_element(
            llvm.Constant(llvm.VectorType(llvm.DoubleType(), 2), None), double, _I32_ZERO
        )
        truncated = call_intrinsic(builder, "llvm.x86.sse2.cvttsd2si64", [lanes], target, [])
        return truncated, builder.icmp_signed("!=", truncated, llvm.Constant(target, -(2**63)))
    magnitude = call_intrinsic(builder, "llvm.fabs", [value])
    in_range = builder.fcmp_ordered("<", magnitude, llvm.Constant(value.type, 2.0**63))
    # fptosi of an out-of-range value is poison, but only the in-range result is ever used
    return builder.fptosi(value, target), in_range


_I32_ZERO = llvm.Constant(llvm.IntType(32), 0)


@intrinsic
def truncated_or_int64_min(typingctx, value):
    """int(value) of a float, or -2**63 where Python raises (NaN, infinity) or the result is
    beyond int64: a conversion without a branch, for kernels that test its range anyway."""
    if not isinstance(value, types.Float):
        return None

    def codegen(context, builder, sig, args):
        target = context.value_type(types.int64)
        truncated, in_range = _truncate_with_range_test(builder, args[0], target)
        # (on x86 the hardware's answer already: LLVM drops the select)
        return builder.select(in_range, truncated, llvm.Constant(target, -(2**63)))

    return signature(types.int64, value), codegen


@lower_builtin(int, types.Integer)
@lower_builtin(int, types.Boolean)
def number_to_int(context, builder, sig, args):
    return context.cast(builder, args[0], sig.args[0], sig.return_type)


@registry.typer(float)
def _type_float(args, kws):
    if len(args) == 1 and not kws and _float_literal(args[0]) is not None:
        return signature(types.float64, args[0])  # float("inf"): a constant
    if len(args) == 1 and not kws and _numbers(args):
        if isinstance(types.unliteral(args[0]), types.Complex):
            return None
        return signature(types.float64, types.unliteral(args[0]))
    return None


def _float_literal(arg: types.Type) -> float | None:
    """The value of float("...") for a constant string that spells a float, else None."""
    if not isinstance(arg, types.StringLiteral):
        return None
    try:
        return float(arg.literal_value)
    except ValueError:
        return None


@lower_builtin(float, types.StringLiteral)
def string_to_float(context, builder, sig, args):
    return context.get_constant(types.float64, _float_literal(sig.args[0]))


@lower_builtin(float, types.Number)
def number_to_float(context, builder, sig, args):
    return context.cast(builder, args[0], sig.args[0], sig.return_type)


@registry.typer(bool)
def _type_bool(args, kws):
    if len(args) == 1 and not kws:
        return signature(types.boolean, types.unliteral(args[0]))
    return None


@lower_builtin(bool, types.Type)
def value_to_bool(context, builder, sig, args):
    return context.is_true(builder, sig.args[0], args[0])


# Python objects with neither __bool__ nor __len__ are true (iterators, generators, slices).
_ALWAYS_TRUE = (
    types.SliceType,
    types.ArrayIterator,
    types.EnumerateType,
    types.ZipType,
    types.UniTupleIterator,
    types.RangeIteratorType,
    types.HashTableIterator,
    types.ListIterator,
    types.UnicodeIterator,
    types.Generator,
)
for _always_true in _ALWAYS_TRUE:

    @lower_cast(_always_true, types.Boolean)
    def _object_truth(context, builder, from_type, to_type, value):
        return llvm.Constant(llvm.IntType(1), 1)


# `not x` of values whose truth is a cast to bool (lowered by ember/lowering/numbers.py)
_NEGATABLE = (
    *_ALWAYS_TRUE,
    types.RangeType,
    types.NPDatetime,
    types.NPTimedelta,
    types.EnumMember,
    types.Record,
)


@registry.typer(operator.not_)
def _type_not_of_objects(args, kws):
    if len(args) == 1 and not kws and isinstance(types.unliteral(args[0]), _NEGATABLE):
        return signature(types.boolean, types.unliteral(args[0]))
    return None


@registry.typer(complex)
def _type_complex(args, kws):
    if 1 <= len(args) <= 2 and not kws and _numbers(args):
        return signature(types.complex128, *(types.unliteral(a) for a in args))
    return None


@lower_builtin(complex, types.Number)
def number_to_complex(context, builder, sig, args):
    return context.cast(builder, args[0], sig.args[0], types.complex128)


@lower_builtin(complex, types.Number, types.Number)
def parts_to_complex(context, builder, sig, args):
    """complex(a, b) == a + b*1j; like CPython, only complex arguments add their other part
    (so complex(1.0, -0.0) keeps its negative zero)."""
    real_type, imag_type = sig.args
    real_part = context.cast(builder, args[0], real_type, types.complex128)
    imag_part = context.cast(builder, args[1], imag_type, types.complex128)
    real = builder.extract_value(real_part, 0)
    imag = builder.extract_value(imag_part, 0)
    if isinstance(imag_type, types.Complex):
        real = builder.fsub(real, builder.extract_value(imag_part, 1))
    if isinstance(real_type, types.Complex):
        imag = builder.fadd(imag, builder.extract_value(real_part, 1))
    return make_complex(context, builder, types.complex128, real, imag)


# ---------------------------------------------------------------------------- abs, round


@registry.typer(abs)
def _type_abs(args, kws):
    if len(args) != 1 or kws or not _numbers(args):
        return None
    value = types.unliteral(args[0])
    if isinstance(value, types.Complex):
        return signature(value.underlying_float, value)
    if isinstance(value, types.Boolean):
        return signature(types.int64, types.int64)
    return signature(value, value)


@lower_builtin(abs, types.Integer)
def int_abs(context, builder, sig, args):
    (value,) = args
    if not sig.args[0].signed:
        return value
    negative = builder.icmp_signed("<", value, llvm.Constant(value.type, 0))
    return builder.select(negative, builder.neg(value), value)


@lower_builtin(abs, types.Float)
def float_abs(context, builder, sig, args):
    return call_intrinsic(builder, "llvm.fabs", list(args))


@lower_builtin(abs, types.Complex)
def complex_abs(context, builder, sig, args):
    from ember.library.builtins.mathlib import call_libm

    real, imag = builder.extract_value(args[0], 0), builder.extract_value(args[0], 1)
    return call_libm(builder, "hypot", real, imag)


@registry.typer(round)
def _type_round(args, kws):
    if kws or not 1 <= len(args) <= 2 or not _numbers(args):
        return None
    value = types.unliteral(args[0])
    if isinstance(value, types.Complex):
        return None
    # an unsigned integer stays unsigned (round(np.uint64(2**64 - 1)) is itself)
    operand = value if isinstance(value, types.Float) else integer_result(value, value)
    if len(args) == 1:
        return signature(operand if isinstance(operand, types.Integer) else types.int64, operand)
    if not isinstance(types.unliteral(args[1]), (types.Integer, types.Boolean)):
        return None
    return signature(operand, operand, types.int64)


@lower_builtin(round, types.Integer)
def int_round(context, builder, sig, args):
    return args[0]


@lower_builtin(round, types.Float)
def float_round(context, builder, sig, args):
    """Round half to even, as Python's round() does; NaN and infinities raise as int() does.
    In a loop that runs again on a failure, one instruction: the conversion rounding to
    nearest even itself (llvm.llrint; its value for what is beyond int64 is not used)."""
    (value,) = args
    deferred = context.deferred_checks
    if deferred is not None and deferred.flags_failures(builder):
        # (|x| >= 2**63 exactly when |round(x)| is: the doubles just below are integers)
        deferred.flag_beyond_int64(builder, value)
        integer = context.value_type(sig.return_type)
        return call_intrinsic(builder, "llvm.llrint", [value], integer, [integer, value.type])
    rounded = _roundeven(builder, value)
    return float_to_int(context, builder, sig, [rounded])


@lower_builtin(round, types.Float, types.Integer)
def float_round_digits(context, builder, sig, args):
    return context.compile_internal(builder, round_float_digits, sig, args, **PLAIN_IEEE)


@lower_builtin(round, types.Integer, types.Integer)
def int_round_digits(context, builder, sig, args):
    digits = round_integer_digits if sig.args[0].signed else round_unsigned_digits
    return context.compile_internal(builder, digits, sig, args, **PLAIN_IEEE)


_POWERS_OF_TEN = tuple(10.0**i for i in range(23))  # exact doubles
_SPLITTER = 134217729.0  # 2**27 + 1, Veltkamp's constant for splitting a double in halves


@intrinsic
def _nearest_even(typingctx, x):
    """The float x rounded to the nearest integer, ties to even (llvm.roundeven): round(x) as
    a float, with no conversion to an integer and back."""

    def codegen(context, builder, sig, args):
        return _roundeven(builder, args[0])

    return signature(x, x), codegen


@register_jitable(_llvm_inline="never", **PLAIN_IEEE)
def _rounded_at_tie(x, ndigits, scale, scaled, rounded, near_half):
    """round_float_digits where the scaled value `scaled` is a half-integer or, above 2**52, an
    integer next to a tie: the exact error of the scaling says which way to go. Never inlined:
    the usual path stays a few instructions (a caller's loop neither vectorizes this nor
    carries it, 1.3x-2.5x Numba's time on round(x, 2) in a loop)."""
    # a * b == product + error exactly, with (a, b, product) the scaling's operands.
    a = x if ndigits >= 0 else scaled
    product = scaled if ndigits >= 0 else x
    a_big = _SPLITTER * a
    a_high = a_big - (a_big - a)
    a_low = a - a_high
    b_big = _SPLITTER * scale
    b_high = b_big - (b_big - scale)
    b_low = scale - b_high
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    # (exact value - scaled): error itself, or -error / scale for a division.
    above = error > 0.0 if ndigits >= 0 else error < 0.0
    below = error < 0.0 if ndigits >= 0 else error > 0.0
    half = 0.5 if ndigits >= 0 else 0.5 * scale
    if near_half and above:
        return scaled + 0.5
    if near_half and below:
        return scaled - 0.5
    # (scaled is integral here, and odd when its half, exact, is not)
    if not near_half and math.fabs(error) == half and _nearest_even(scaled / 2) != scaled / 2:
        return scaled + 1.0 if above else scaled - 1.0  # a tie: to the even neighbour
    return rounded


def round_float_digits(x, ndigits):
    """round(x, ndigits) as CPython's dtoa-based rounding gives it: x's exact binary value
    rounded to a multiple of 10**-ndigits, ties to even (exact for |ndigits| <= 22, where
    10**|ndigits| is a double; approximate beyond).

    x is scaled with one rounding; the exact error of that scaling (Dekker's product, no fma
    needed) then says on which side of the scaled value the exact one lies, which matters only
    when the scaled value is a half-integer or, above 2**52, an integer next to a tie.
    """
    if math.isinf(x) or math.isnan(x) or ndigits > 323:
        return x
    if ndigits < -308:
        return 0.0 * x
    if ndigits > 308:  # 10**ndigits is no double: scale in two steps (approximate, x is tiny)
        scaled = (x * 1e300) * 10.0 ** (ndigits - 300)
        if math.fabs(scaled) >= 9007199254740992.0:  # 2**53: x has no digits to drop
            return x
        rounded = math.copysign(float(round(scaled)), x)
        return (rounded / 10.0 ** (ndigits - 300)) / 1e300
    magnitude = ndigits if ndigits >= 0 else -ndigits
    scale = _POWERS_OF_TEN[magnitude] if magnitude <= 22 else 10.0**magnitude
    scaled = x * scale if ndigits >= 0 else x / scale
    if math.isinf(scaled) or math.fabs(scaled) >= 9007199254740992.0:  # 2**53
        return x  # so large that rounding moves it less than half an ulp of x
    rounded = _nearest_even(scaled)  # (|scaled| < 2**53: Python's round(), kept a float)
    near_half = math.fabs(scaled - rounded) == 0.5
    if near_half or math.fabs(scaled) >= 4503599627370496.0:  # 2**52: scaled is integral
        rounded = _rounded_at_tie(x, ndigits, scale, scaled, rounded, near_half)
    return rounded / scale if ndigits >= 0 else rounded * scale


def round_integer_digits(x, ndigits):
    """round(int, ndigits): x itself, or for negative ndigits the nearest multiple of
    10**-ndigits, ties to even (integers wrap at 64 bits like all ember integers)."""
    if ndigits >= 0:
        return x
    if ndigits < -18:
        # 10**19 exceeds int64: only -19 can round away from 0, to +-10**19 (wrapped)
        if ndigits == -19 and (x > 5000000000000000000 or x < -5000000000000000000):
            return (1 if x > 0 else -1) * 1000000000000000000 * 10
        return 0
    scale = 10 ** (-ndigits)
    quotient, remainder = divmod(x, scale)
    twice = 2 * remainder
    if twice > scale or (twice == scale and quotient % 2 == 1):
        quotient += 1
    return quotient * scale


def round_unsigned_digits(x, ndigits):
    """round(uint64, ndigits) as round_integer_digits, in unsigned arithmetic (a value above
    2**63 - 1 must not wrap negative); 10**20 exceeds uint64, so from -20 on it is 0."""
    if ndigits >= 0:
        return x
    if ndigits < -19:
        return x - x
    scale = as_uint64(10 ** (-ndigits))
    quotient, remainder = x // scale, x % scale
    above_half = remainder > scale - remainder  # (2 * remainder may not fit)
    if above_half or (remainder == scale - remainder and quotient % 2 == 1):
        return (quotient + as_uint64(1)) * scale  # (uint64 + a signed 1 would be int64)
    return quotient * scale


@intrinsic
def as_uint64(typingctx, value):
    """The uint64 of an integer (a two's complement reinterpretation of a negative one)."""
    if not isinstance(value, types.Integer | types.Boolean):
        return None

    def codegen(context, builder, sig, args):
        return context.cast(builder, args[0], sig.args[0], types.uint64)

    return signature(types.uint64, value), codegen


def _roundeven(builder, value):
    return call_intrinsic(builder, "llvm.roundeven", [value])


# ---------------------------------------------------------------------------- min, max


def _min_max_operands(args) -> tuple | None:
    if len(args) < 1 or not _numbers(args):
        return None
    result = types.unliteral(args[0])
    for arg in args[1:]:
        result = unify_pair(result, arg)
        if result is None or isinstance(result, types.Complex):
            return None
    return result, len(args)


for _builtin, _symbol in ((min, "<"), (max, ">")):

    @registry.typer(_builtin)
    def _type_min_max(args, kws):
        found = _min_max_operands(args)
        if not kws and found is None and _numbers_and_datetimes(args):
            names = ", ".join(str(types.unliteral(a)) for a in args)
            raise TypingError(f"Given types cannot be unified: [{names}]")  # Numba's words
        if kws or found is None:
            return None
        result, count = found
        return signature(result, *([result] * count))

    @lower_builtin(_builtin, VarArgs(types.Number))
    def _min_max(context, builder, sig, args, _symbol=_symbol):
        return _select_extreme(context, builder, sig.return_type, list(args), _symbol)


@overload(min)
def tuple_min(iterable):
    """min() of a tuple of numbers, unrolled: `best = t[0]; if t[1] < best: best = t[1]...`"""
    return _tuple_extreme(iterable, "<")


@overload(max)
def tuple_max(iterable):
    return _tuple_extreme(iterable, ">")


def _numbers_and_datetimes(args) -> bool:
    """Numbers mixed with datetimes or timedeltas: values min/max can never compare."""
    dates = sum(isinstance(a, types.NPDatetime | types.NPTimedelta) for a in args)
    numbers = sum(isinstance(types.unliteral(a), types.Number | types.Boolean) for a in args)
    return dates > 0 and numbers > 0 and dates + numbers == len(args)


def _tuple_extreme(tup: types.Type, symbol: str):
    if isinstance(tup, types.BaseTuple) and len(tup) == 0:
        name = "min" if symbol == "<" else "max"
        raise TypingError(f"{name}() argument is an empty tuple")  # Numba's words
    if not isinstance(tup, types.BaseTuple) or _min_max_operands(tuple(tup.types)) is None:
        return None
    return _unrolled_extreme(len(tup), symbol)


@functools.cache
def _unrolled_extreme(count: int, symbol: str):
    """The implementation for tuples of `count` items: static indexes, so members of
    different types work (the result has their unified type, as for min(a, b, ...))."""
    lines = ["def extreme(t):", "    best = t[0]"]
    for index in range(1, count):
        lines += [f"    if t[{index}] {symbol} best:", f"        best = t[{index}]"]
    lines.append("    return best")
    namespace: dict = {}
    filename = f"<ember {'min' if symbol == '<' else 'max'} of {count} items>"
    exec(compile("\n".join(lines), filename, "exec"), namespace)  # noqa: S102 - built above
    return namespace["extreme"]


def _select_extreme(context, builder, typ, items, symbol):
    """Python's rule: keep the current item unless a later one compares strictly better."""
    key = operator.lt if symbol == "<" else operator.gt
    compare = context.get_function(key, signature(types.boolean, typ, typ))
    current = items[0]
    for item in items[1:]:
        better = compare(builder, [item, current])
        current = builder.select(better, item, current)
    return current


# ---------------------------------------------------------------------------- pow, divmod


@registry.typer(pow)
def _type_pow(args, kws):
    if len(args) != 2 or kws:
        return None
    from ember.typing.arith import _power

    return _power(args, kws)


@lower_builtin(pow, types.Number, types.Number)
def builtin_pow(context, builder, sig, args):
    return context.call_implementation(builder, operator.pow, sig, args)


@overload(divmod)
def builtin_divmod(a, b):
    operand = arithmetic_result(a, b)
    if operand is None or isinstance(operand, types.Complex):
        return None
    if isinstance(operand, types.Float):

        def float_divmod(a, b):
            _check_float_divisor(b)
            return a // b, a % b

        return float_divmod

    def int_divmod(a, b):
        return a // b, a % b

    return int_divmod


@intrinsic
def _check_float_divisor(typingctx, divisor):
    """Python's ZeroDivisionError('float divmod()'), under error_model='python' only."""

    def codegen(context, builder, sig, args):
        if context.options.error_model == "python":
            (value,) = args
            zero = llvm.Constant(value.type, 0)
            if isinstance(divisor, types.Float):
                is_zero = builder.fcmp_ordered("==", value, zero)
            else:
                is_zero = builder.icmp_unsigned("==", value, zero)
            context.guard(builder, is_zero, ZeroDivisionError, "float divmod()")
        return context.get_dummy_value(types.none)

    return signature(types.none, divisor), codegen


# ---------------------------------------------------------------------------- number == str


def _number_and_string(a: types.Type, b: types.Type) -> bool:
    a, b = types.unliteral(a), types.unliteral(b)
    return (isinstance(a, types.Number) and isinstance(b, types.UnicodeType)) or (
        isinstance(b, types.Number) and isinstance(a, types.UnicodeType)
    )


for _comparison in (operator.eq, operator.ne, operator.is_, operator.is_not):

    @registry.typer(_comparison)
    def _type_number_string_comparison(args, kws):
        """A number never equals a string, nor is it (CPython's answer; Numba types the pair
        too). `is` is lowered by ember/lowering/numbers.py's identity of unlike types."""
        if len(args) == 2 and not kws and _number_and_string(*args):
            return signature(types.boolean, *(types.unliteral(a) for a in args))
        return None


for _equality in (operator.eq, operator.ne):

    @lower_builtin(_equality, types.Number, types.UnicodeType)  # booleans are Numbers
    @lower_builtin(_equality, types.UnicodeType, types.Number)
    def _number_string_equality(context, builder, sig, args, _equality=_equality):
        return llvm.Constant(llvm.IntType(1), int(_equality is operator.ne))
