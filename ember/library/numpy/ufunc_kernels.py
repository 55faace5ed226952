"""The scalar kernel of each NumPy ufunc, `kernel(context, builder, loop, args)` over the loop's
input types (registered with `ufuncs.kernel`): operators reused with the loop's types, float and
complex math, predicates, bitwise, min/max, gcd/lcm... Arrays run them element by element
(ember/library/numpy/ufuncs.py)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.library.builtins.number_methods import complex_power_ieee, repeated_products
from ember.library.numpy.complex_ufuncs import complex_kernel
from ember.library.numpy.ufuncs import Loop, kernel
from ember.lowering import arrays as arr
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.numbers import power_by_squaring
from ember.typing.signature import signature


def _via_operator(fn) -> Callable:
    """A kernel reusing ember's scalar operator implementations with the loop's types."""

    def lower(context, builder, loop, args):
        sig = signature(loop.out_type, *loop.in_types)
        return context.call_implementation(builder, fn, sig, args)

    return lower


for _ufunc, _fn in (
    (np.add, operator.add),
    (np.subtract, operator.sub),
    (np.multiply, operator.mul),
    (np.true_divide, operator.truediv),
    (np.floor_divide, operator.floordiv),
    (np.remainder, operator.mod),
    (np.power, operator.pow),
    (np.equal, operator.eq),
    (np.not_equal, operator.ne),
    (np.less, operator.lt),
    (np.less_equal, operator.le),
    (np.greater, operator.gt),
    (np.greater_equal, operator.ge),
):
    kernel(_ufunc)(_via_operator(_fn))


def _is_bool(typ) -> bool:
    return isinstance(typ, types.Boolean)


def _is_float(typ) -> bool:
    return isinstance(typ, types.Float)


def _is_complex(typ) -> bool:
    return isinstance(typ, types.Complex)


def _complex_ordering(symbol: str) -> Callable:
    """NumPy orders complex numbers lexicographically: real parts, then imaginary parts."""
    via_operator = _via_operator(
        {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[symbol]
    )

    def lower(context, builder, loop, args):
        if not _is_complex(loop.in_types[0]):
            return via_operator(context, builder, loop, args)
        (ar, ai), (br, bi) = ((builder.extract_value(v, 0), builder.extract_value(v, 1))
                              for v in args)  # fmt: skip
        strict = symbol[0]
        real_decides = builder.fcmp_ordered(strict, ar, br)
        real_equal = builder.fcmp_ordered("==", ar, br)
        imag_decides = builder.fcmp_ordered(symbol, ai, bi)
        return builder.or_(real_decides, builder.and_(real_equal, imag_decides))

    return lower


for _ufunc, _symbol in ((np.less, "<"), (np.less_equal, "<="), (np.greater, ">"),
                        (np.greater_equal, ">=")):  # fmt: skip
    kernel(_ufunc)(_complex_ordering(_symbol))


@kernel(np.add, np.multiply)
def _add_multiply(context, builder, loop, args):
    if _is_bool(loop.out_type):  # '??->?': logical or / and
        return builder.or_(*args) if loop.ufunc is np.add else builder.and_(*args)
    fn = operator.add if loop.ufunc is np.add else operator.mul
    return context.call_implementation(builder, fn, signature(loop.out_type, *loop.in_types), args)


@kernel(np.power, np.float_power)
def _power(context, builder, loop, args):
    base_type, exponent_type = loop.in_types
    if _is_float(base_type):
        return call_intrinsic(builder, "llvm.pow", args)
    if isinstance(base_type, types.Integer) and isinstance(exponent_type, types.Integer):
        base, exponent = args
        if exponent_type.signed:
            negative = builder.icmp_signed("<", exponent, llvm.Constant(exponent.type, 0))
            context.guard(builder, negative, ValueError,
                          "Integers to negative integer powers are not allowed.")  # fmt: skip
        return power_by_squaring(builder, base, exponent, llvm.Constant(base.type, 1))
    sig = signature(loop.out_type, *loop.in_types)
    if _is_complex(base_type) and _is_complex(exponent_type):
        return context.compile_internal(builder, _complex_power, sig, args, error_model="numpy")
    return context.call_implementation(builder, operator.pow, sig, args)


def _complex_power(a, b):
    """NumPy's complex power (npy_cpow), in complex128: 1 for a zero exponent; 0 to a power of
    positive real part is 0, to any other power NaN (Python raises ZeroDivisionError there);
    integer exponents below 100 in magnitude by plain products (a ** 1 is a itself, so
    (nan+0j) ** 1 keeps its 0j), others by the polar form."""
    a, b = complex(a), complex(b)
    if b.real == 0.0 and b.imag == 0.0:
        return 1 + 0j
    if a.real == 0.0 and a.imag == 0.0:
        return 0j if b.real > 0.0 else complex(np.nan, np.nan)
    if not (b.imag == 0.0 and b.real == math.floor(b.real) and math.fabs(b.real) < 100.0):
        return complex_power_ieee(a, b)
    exponent = int(b.real)
    if exponent == 1:
        return a
    if exponent == 2:
        return a * a
    if exponent == 3:
        return a * (a * a)
    if exponent > 0:
        return repeated_products(a, exponent)
    return (1 + 0j) / repeated_products(a, -exponent)


@kernel(np.left_shift, np.right_shift)
def _shift(context, builder, loop, args):
    """NumPy's shifts: a count outside [0, bits) (negative ones too) shifts every bit out,
    leaving 0, or -1 for a negative value shifted right."""
    value, count = args
    width = llvm.Constant(value.type, value.type.width)
    too_far = builder.icmp_unsigned(">=", count, width)
    zero = llvm.Constant(value.type, 0)
    if loop.ufunc is np.left_shift:
        return builder.select(too_far, zero, builder.shl(value, builder.select(too_far, zero,
                                                                               count)))  # fmt: skip
    if loop.in_types[0].signed:
        last = llvm.Constant(value.type, value.type.width - 1)
        return builder.ashr(value, builder.select(too_far, last, count))
    return builder.select(too_far, zero, builder.lshr(value, builder.select(too_far, zero, count)))


@kernel(np.bitwise_and, np.bitwise_or, np.bitwise_xor)
def _bitwise(context, builder, loop, args):
    method = {np.bitwise_and: "and_", np.bitwise_or: "or_", np.bitwise_xor: "xor"}[loop.ufunc]
    return getattr(builder, method)(*args)


@kernel(np.logical_and, np.logical_or, np.logical_xor)
def _logical(context, builder, loop, args):
    truths = [context.is_true(builder, t, v) for t, v in zip(loop.in_types, args)]
    method = {np.logical_and: "and_", np.logical_or: "or_", np.logical_xor: "xor"}[loop.ufunc]
    return getattr(builder, method)(*truths)


@kernel(np.logical_not)
def _logical_not(context, builder, loop, args):
    return builder.not_(context.is_true(builder, loop.in_types[0], args[0]))


@kernel(np.invert)
def _invert(context, builder, loop, args):
    return builder.not_(args[0])


@kernel(np.negative)
def _negative(context, builder, loop, args):
    return context.call_implementation(
        builder, operator.neg, signature(loop.out_type, loop.in_types[0]), args
    )


@kernel(np.positive, np.conjugate)
def _positive(context, builder, loop, args):
    (value,) = args
    if loop.ufunc is np.conjugate and _is_complex(loop.in_types[0]):
        return builder.insert_value(value, builder.fneg(builder.extract_value(value, 1)), 1)
    return value


@kernel(np.absolute)
def _absolute(context, builder, loop, args):
    (value,) = args
    typ = loop.in_types[0]
    if _is_complex(typ):
        from ember.library.builtins.mathlib import call_libm

        real, imag = builder.extract_value(value, 0), builder.extract_value(value, 1)
        return call_libm(builder, "hypot", real, imag)
    if _is_float(typ):
        return call_intrinsic(builder, "llvm.fabs", [value])
    if _is_bool(typ) or not typ.signed:
        return value
    negative = builder.icmp_signed("<", value, llvm.Constant(value.type, 0))
    return builder.select(negative, builder.neg(value), value)


@kernel(np.square)
def _square(context, builder, loop, args):
    return _add_multiply(context, builder, Loop(np.multiply, loop.in_types * 2, loop.out_type),
                         [args[0], args[0]])  # fmt: skip


@kernel(np.reciprocal)
def _reciprocal(context, builder, loop, args):
    typ = loop.in_types[0]
    if _is_complex(typ):
        return complex_kernel(np.reciprocal)(builder, args[0])
    if isinstance(typ, types.Integer):
        return _integer_reciprocal(builder, typ, args[0])
    if not _is_float(typ):
        raise TypingError(f"np.reciprocal of {typ} is not supported")
    return builder.fdiv(llvm.Constant(args[0].type, 1.0), args[0])


def _integer_reciprocal(builder, typ: types.Integer, value):
    """NumPy's integer reciprocal: 1.0 / x converted back to the integer type, so 1 and -1
    are their own reciprocals and every other nonzero x gives 0; for 0 (a float infinity
    converted to an integer) the value this machine's NumPy gives."""
    from ember.library.numpy.support import numpy_dtype

    with np.errstate(all="ignore"):
        of_zero = int(np.reciprocal(np.zeros(1, numpy_dtype(typ)))[0])
    zero, one = llvm.Constant(value.type, 0), llvm.Constant(value.type, 1)
    result = builder.select(builder.icmp_unsigned("==", value, zero),
                            llvm.Constant(value.type, of_zero), zero)  # fmt: skip
    result = builder.select(builder.icmp_unsigned("==", value, one), one, result)
    if typ.signed:
        minus_one = llvm.Constant(value.type, -1)
        result = builder.select(builder.icmp_signed("==", value, minus_one), minus_one, result)
    return result


@kernel(np.sign)
def _sign(context, builder, loop, args):
    (value,) = args
    typ = loop.in_types[0]
    if _is_float(typ):
        zero, one = llvm.Constant(value.type, 0.0), llvm.Constant(value.type, 1.0)
        positive = builder.select(builder.fcmp_ordered(">", value, zero), one, zero)
        signed = builder.select(builder.fcmp_ordered("<", value, zero), builder.fneg(one),
                                positive)  # fmt: skip
        return builder.select(builder.fcmp_unordered("uno", value, value), value, signed)
    if _is_complex(typ):
        return complex_kernel(np.sign)(builder, value)
    zero = llvm.Constant(value.type, 0)
    greater = builder.zext(
        builder.icmp_signed(">", value, zero) if typ.signed else builder.icmp_unsigned(
            ">", value, zero), value.type)  # fmt: skip
    if not typ.signed:
        return greater
    less = builder.zext(builder.icmp_signed("<", value, zero), value.type)
    return builder.sub(greater, less)


def _min_max(is_max: bool, propagate_nan: bool):
    def lower(context, builder, loop, args):
        a, b = args
        typ = loop.in_types[0]
        if _is_float(typ):
            if not propagate_nan:
                name = "llvm.maxnum" if is_max else "llvm.minnum"
                return call_intrinsic(builder, name, [a, b])
            better = builder.fcmp_ordered(">" if is_max else "<", a, b)
            a_nan = builder.fcmp_unordered("uno", a, a)
            return builder.select(builder.or_(better, a_nan), a, b)
        if _is_complex(typ):
            return _complex_min_max(builder, a, b, is_max, propagate_nan)
        symbol = ">" if is_max else "<"
        if _is_bool(typ) or not typ.signed:
            better = builder.icmp_unsigned(symbol, a, b)
        else:
            better = builder.icmp_signed(symbol, a, b)
        return builder.select(better, a, b)

    return lower


def _complex_min_max(builder, a, b, is_max: bool, propagate_nan: bool):
    """NumPy's complex order: real parts, then imaginary parts (a NaN imaginary part makes the
    real comparison fail). maximum/minimum keep a NaN of `a`; fmax/fmin drop a NaN of `b`."""
    ar, ai = builder.extract_value(a, 0), builder.extract_value(a, 1)
    br, bi = builder.extract_value(b, 0), builder.extract_value(b, 1)
    symbol = ">" if is_max else "<"
    no_nan_imag = builder.and_(
        builder.fcmp_ordered("ord", ai, ai), builder.fcmp_ordered("ord", bi, bi)
    )
    real_wins = builder.and_(builder.fcmp_ordered(symbol, ar, br), no_nan_imag)
    imag_wins = builder.and_(
        builder.fcmp_ordered("==", ar, br), builder.fcmp_ordered(symbol + "=", ai, bi)
    )
    a_wins = builder.or_(real_wins, imag_wins)
    nan_side = a if propagate_nan else b
    nan_real = builder.extract_value(nan_side, 0)
    nan_imag = builder.extract_value(nan_side, 1)
    has_nan = builder.or_(
        builder.fcmp_unordered("uno", nan_real, nan_real),
        builder.fcmp_unordered("uno", nan_imag, nan_imag),
    )
    return builder.select(builder.or_(has_nan, a_wins), a, b)


kernel(np.maximum)(_min_max(True, True))
kernel(np.minimum)(_min_max(False, True))
kernel(np.fmax)(_min_max(True, False))
kernel(np.fmin)(_min_max(False, False))

# unary float functions: ufunc -> LLVM intrinsic or libm name
_FLOAT_UNARY = {
    np.sqrt: "llvm.sqrt", np.exp: "llvm.exp", np.exp2: "llvm.exp2", np.log: "llvm.log",
    np.log2: "llvm.log2", np.log10: "llvm.log10", np.sin: "llvm.sin", np.cos: "llvm.cos",
    np.tan: "tan", np.arcsin: "asin", np.arccos: "acos", np.arctan: "atan", np.sinh: "sinh",
    np.cosh: "cosh", np.tanh: "tanh", np.arcsinh: "asinh", np.arccosh: "acosh",
    np.arctanh: "atanh", np.expm1: "expm1", np.log1p: "log1p", np.cbrt: "cbrt",
    np.floor: "llvm.floor", np.ceil: "llvm.ceil", np.trunc: "llvm.trunc", np.rint: "llvm.rint",
    np.fabs: "llvm.fabs",
}  # fmt: skip
_FLOAT_BINARY = {np.arctan2: "atan2", np.hypot: "hypot", np.copysign: "llvm.copysign",
                 np.fmod: "fmod", np.logaddexp: None, np.nextafter: "nextafter"}  # fmt: skip


def _call_float(builder, name: str, *operands):
    if name.startswith("llvm."):
        return call_intrinsic(builder, name, list(operands))
    from ember.library.builtins.mathlib import call_libm

    return call_libm(builder, name, *operands)


def _float_unary(name: str) -> Callable:
    def lower(context, builder, loop, args):
        typ = loop.in_types[0]
        if _is_complex(typ) and complex_kernel(loop.ufunc) is not None:
            return complex_kernel(loop.ufunc)(builder, args[0])
        if _is_complex(typ) and name == "llvm.rint":  # each part to the nearest even integer
            parts = [call_intrinsic(builder, name, [builder.extract_value(args[0], k)])
                     for k in (0, 1)]  # fmt: skip
            return builder.insert_value(builder.insert_value(args[0], parts[0], 0), parts[1], 1)
        if not _is_float(typ):
            if name in ("llvm.floor", "llvm.ceil", "llvm.trunc", "llvm.rint"):
                return args[0]  # integers round to themselves
            raise TypingError(f"np.{loop.ufunc.__name__} of {typ} is not supported")
        return context.apply_fastmath(_call_float(builder, name, args[0]))

    return lower


for _ufunc, _name in _FLOAT_UNARY.items():
    kernel(_ufunc)(_float_unary(_name))


def _integer_fmod(builder, typ: types.Integer, a, b):
    """C's remainder (the sign of `a`), 0 for a zero divisor as NumPy gives; -1 divides
    everything (and would overflow for the most negative `a`)."""
    zero, one = llvm.Constant(a.type, 0), llvm.Constant(a.type, 1)
    trivial = builder.icmp_unsigned("==", b, zero)
    if typ.signed:
        trivial = builder.or_(trivial, builder.icmp_signed("==", b, llvm.Constant(a.type, -1)))
    divisor = builder.select(trivial, one, b)
    remainder = builder.srem(a, divisor) if typ.signed else builder.urem(a, divisor)
    return builder.select(trivial, zero, remainder)


def _float_binary(name: str | None) -> Callable:
    def lower(context, builder, loop, args):
        if loop.ufunc is np.fmod and isinstance(loop.in_types[0], types.Integer):
            return _integer_fmod(builder, loop.in_types[0], *args)
        if not all(_is_float(t) for t in loop.in_types):
            raise TypingError(f"np.{loop.ufunc.__name__} of {loop.in_types} is not supported")
        if name is None:  # logaddexp, as npy_logaddexp
            a, b = args
            difference = builder.fsub(a, b)
            positive = builder.fcmp_ordered(">", difference, llvm.Constant(a.type, 0.0))
            big = builder.select(positive, a, b)
            magnitude = call_intrinsic(builder, "llvm.fabs", [difference])
            tail = _call_float(builder, "llvm.exp", builder.fneg(magnitude))
            result = builder.fadd(big, _call_float(builder, "log1p", tail))
            equal = builder.fcmp_ordered("==", a, b)  # also infinities of one sign
            result = builder.select(equal, builder.fadd(a, llvm.Constant(a.type, math.log(2))),
                                    result)  # fmt: skip
            is_nan = builder.fcmp_unordered("uno", difference, difference)
            return builder.select(builder.and_(is_nan, builder.not_(equal)), difference, result)
        return _call_float(builder, name, *args)

    return lower


for _ufunc, _name in _FLOAT_BINARY.items():
    kernel(_ufunc)(_float_binary(_name))


@kernel(np.isnan, np.isinf, np.isfinite, np.signbit)
def _predicates(context, builder, loop, args):
    (value,) = args
    typ = loop.in_types[0]
    if _is_complex(typ):
        real = builder.extract_value(value, 0)
        imag = builder.extract_value(value, 1)
        part = Loop(loop.ufunc, (typ.underlying_float,), loop.out_type)
        first = _predicates(context, builder, part, [real])
        second = _predicates(context, builder, part, [imag])
        return builder.and_(first, second) if loop.ufunc is np.isfinite else builder.or_(
            first, second)  # fmt: skip
    if isinstance(typ, (types.NPDatetime, types.NPTimedelta)) and loop.ufunc is not np.signbit:
        # NaT (the smallest int64) is NumPy's NaN of datetimes; they are never infinite
        is_nat = builder.icmp_signed("==", value, llvm.Constant(value.type, -(2**63)))
        if loop.ufunc is np.isnan:
            return is_nat
        return builder.not_(is_nat) if loop.ufunc is np.isfinite else llvm.Constant(arr.i1, 0)
    if not _is_float(typ):
        if loop.ufunc is np.signbit and not _is_bool(typ) and typ.signed:
            return builder.icmp_signed("<", value, llvm.Constant(value.type, 0))
        return llvm.Constant(arr.i1, int(loop.ufunc is np.isfinite))
    if loop.ufunc is np.isnan:
        return builder.fcmp_unordered("uno", value, value)
    if loop.ufunc is np.signbit:
        bits = builder.bitcast(value, llvm.IntType(typ.bitwidth))
        return builder.icmp_signed("<", bits, llvm.Constant(bits.type, 0))
    magnitude = call_intrinsic(builder, "llvm.fabs", [value])
    infinity = llvm.Constant(value.type, float("inf"))
    if loop.ufunc is np.isinf:
        return builder.fcmp_ordered("==", magnitude, infinity)
    return builder.fcmp_ordered("<", magnitude, infinity)


@kernel(np.deg2rad, np.radians, np.rad2deg, np.degrees)
def _angles(context, builder, loop, args):
    factor = math.pi / 180.0 if loop.ufunc in (np.deg2rad, np.radians) else 180.0 / math.pi
    return builder.fmul(args[0], llvm.Constant(args[0].type, factor))


def _spacing_of(infinity: float) -> Callable:
    """NumPy's spacing in the float type of `infinity`: the distance to the next float away
    from zero (negative below zero), NaN for infinities and NaN."""

    def spacing(x):
        if np.isinf(x) or np.isnan(x):
            return np.nan * x
        return np.nextafter(x, infinity if x >= 0 else -infinity) - x

    return spacing


_SPACINGS = {32: _spacing_of(np.float32(np.inf)), 64: _spacing_of(np.inf)}


@kernel(np.spacing)
def _spacing_kernel(context, builder, loop, args):
    typ = loop.in_types[0]
    if not _is_float(typ) or typ.bitwidth not in _SPACINGS:
        raise TypingError(f"np.spacing of {typ} is not supported")
    sig = signature(loop.out_type, typ)
    spacing = _SPACINGS[typ.bitwidth]  # a float32 x steps in float32 (not through float64)
    return context.compile_internal(builder, spacing, sig, args, error_model="numpy")


@kernel(np.ldexp)
def _ldexp(context, builder, loop, args):
    """C's ldexp(x, int): exponents beyond int32 saturate (the result is 0 or inf anyway)."""
    mantissa_type, exponent_type = loop.in_types
    if not (_is_float(mantissa_type) and isinstance(exponent_type, types.Integer)):
        raise TypingError(f"np.ldexp of {loop.in_types} is not supported")
    exponent = context.cast(builder, args[1], exponent_type, types.int64)
    low, high = (llvm.Constant(arr.i64, bound) for bound in (-(2**31), 2**31 - 1))
    exponent = builder.select(builder.icmp_signed("<", exponent, low), low, exponent)
    exponent = builder.select(builder.icmp_signed(">", exponent, high), high, exponent)
    exponent = builder.trunc(exponent, llvm.IntType(32))
    return _call_float(builder, "ldexp", args[0], exponent)


def _logaddexp2(x, y):
    """NumPy's npy_logaddexp2: log2(2**x + 2**y) without overflow."""
    if x == y:  # also infinities of one sign
        return x + 1.0
    difference = x - y
    if difference > 0:
        return x + np.log1p(np.exp2(-difference)) * _LOG2_E
    if difference <= 0:
        return y + np.log1p(np.exp2(difference)) * _LOG2_E
    return difference  # NaN


_LOG2_E = 1.0 / math.log(2.0)


@kernel(np.logaddexp2)
def _logaddexp2_kernel(context, builder, loop, args):
    if not all(_is_float(t) for t in loop.in_types):
        raise TypingError(f"np.logaddexp2 of {loop.in_types} is not supported")
    sig = signature(loop.out_type, *loop.in_types)
    return context.compile_internal(builder, _logaddexp2, sig, args, error_model="numpy")


def _gcd(a, b):
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


def _lcm(a, b):
    if a == 0 or b == 0:
        return a * 0
    return abs(a // _gcd_jit(a, b) * b)


_gcd_jit = njit(_gcd)


@kernel(np.gcd, np.lcm)
def _gcd_lcm(context, builder, loop, args):
    if not all(isinstance(t, types.Integer) for t in loop.in_types):
        raise TypingError(f"np.{loop.ufunc.__name__} of {loop.in_types} is not supported")
    impl = _gcd if loop.ufunc is np.gcd else _lcm
    operands = [context.cast(builder, v, t, loop.out_type) for v, t in zip(args, loop.in_types)]
    sig = signature(loop.out_type, loop.out_type, loop.out_type)
    return context.compile_internal(builder, impl, sig, operands, error_model="numpy")
