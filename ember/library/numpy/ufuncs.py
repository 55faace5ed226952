"""NumPy ufuncs and Python operators on arrays: broadcasting, NumPy's type promotion and
NumPy's floating-point behaviour (no Python exceptions for division by zero or domain errors).

Types come from NumPy itself (`ufunc.resolve_dtypes`), with Python's scalars passed as the
"weak" Python types of NEP 50: `float32_array * 2.0` stays float32, `int8_array + 1` stays int8.
ember cannot tell a Python float from an np.float64 scalar, so every scalar operand is weak.
An integer scalar that does not fit a narrower integer loop raises NumPy's OverflowError
(`uint8_array + 300`), except in comparisons, which are exact for every value
(ember/library/builtins/int_scalars.py).

Each ufunc has a scalar kernel `kernel(context, builder, loop, args)` over the loop's input
types; arrays run it in `arrays_kernels.elementwise`, scalars call it once. `np.where` and the
array-expression nodes of ember/rewrites/arrayexpr.py use the same kernels.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.library.builtins import int_scalars
from ember.library.numpy.complex_ufuncs import complex_kernel
from ember.library.numpy.support import from_numpy_dtype, make_pysig, numpy_dtype
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.numbers import power_by_squaring
from ember.lowering.registry import VarArgs, lower_builtin
from ember.typing.signature import Signature, signature
from ember.typing.templates import registry

# ---------------------------------------------------------------------------- loop resolution


@dataclass(frozen=True)
class Loop:
    """The inner loop NumPy picks for some operand types: input types and the output type."""

    ufunc: np.ufunc
    in_types: tuple
    out_type: types.Type


def _weak_or_strong(typ: types.Type, weak: bool):
    typ = types.unliteral(typ)
    if isinstance(typ, types.Array):
        return numpy_dtype(typ.dtype)
    if weak and not isinstance(typ, types.Boolean):
        if isinstance(typ, types.Integer):
            return int
        if isinstance(typ, types.Float):
            return float
        if isinstance(typ, types.Complex):
            return complex
    return numpy_dtype(typ)


@functools.cache
def resolve_loop(ufunc: np.ufunc, operand_types: tuple) -> Loop:
    """NumPy's loop for these operand types (arrays strong, scalars weak when an array is
    present); TypingError when NumPy has none or ember lacks its types."""
    has_array = any(isinstance(t, types.Array) for t in operand_types)
    if any(isinstance(t, types.Array) and _holds_text(t.dtype) for t in operand_types):
        raise TypingError(
            f"np.{ufunc.__name__} of a NumPy string array is not supported in compiled code: "
            "loop over its elements (`s[i]` is a str), or compare with `s == 'x'`"
        )
    dtypes = tuple(_weak_or_strong(t, has_array) for t in operand_types)
    try:
        resolved = ufunc.resolve_dtypes((*dtypes, *([None] * ufunc.nout)))
    except (TypeError, ValueError) as error:
        names = ", ".join(str(types.unliteral(t)) for t in operand_types)
        raise TypingError(f"np.{ufunc.__name__} is not defined for ({names}): {error}") from None
    try:
        converted = tuple(from_numpy_dtype(d) for d in resolved)
    except TypingError:
        raise TypingError(
            f"np.{ufunc.__name__} of {', '.join(str(d) for d in dtypes)} computes in "
            f"{', '.join(str(d) for d in resolved)}, a dtype ember does not support"
        ) from None
    return Loop(ufunc, converted[: ufunc.nin], converted[ufunc.nin])


def _holds_text(dtype: types.Type) -> bool:
    return isinstance(dtype, (types.UnicodeCharSeq, types.CharSeq))


def _operand(typ: types.Type) -> bool:
    typ = types.unliteral(typ)
    return isinstance(typ, (types.Array, types.Number))


def result_ndim(operand_types: tuple) -> int | None:
    """The broadcast ndim, or None when no operand is an array."""
    dims = [t.ndim for t in operand_types if isinstance(t, types.Array)]
    return max(dims) if dims else None


def result_type(loop: Loop, operand_types: tuple) -> types.Type:
    ndim = result_ndim(operand_types)
    if ndim is None:
        return loop.out_type
    return types.Array(loop.out_type, ndim, result_layout(operand_types, ndim))


def result_layout(operand_types: tuple, ndim: int) -> str:
    """'F' when every full-rank array operand is Fortran-ordered (so the loop streams through
    memory, and NumPy's default order='K' gives the same), else 'C' (as Numba decides)."""
    full_rank = [t for t in operand_types if isinstance(t, types.Array) and t.ndim == ndim]
    if ndim > 1 and full_rank and all(t.layout == "F" for t in full_rank):
        return "F"
    return "C"


# ---------------------------------------------------------------------------- kernels

_KERNELS: dict[np.ufunc, Callable] = {}


def kernel(*ufuncs: np.ufunc) -> Callable:
    def decorate(fn: Callable) -> Callable:
        for ufunc in ufuncs:
            _KERNELS[ufunc] = fn
        return fn

    return decorate


def numpy_context(context):
    """The caller's context with NumPy's error model (no exceptions for x/0 and friends)."""
    if context.options.error_model == "numpy":
        return context
    derived = copy.copy(context)
    derived.options = dataclasses.replace(context.options, error_model="numpy")
    return derived


def apply_loop(context, builder, loop: Loop, operand_types: tuple, values: list):
    """Cast scalar operands to the loop's input types and run the kernel: the loop's output."""
    args = [
        context.cast(builder, value, types.unliteral(typ), want)
        for value, typ, want in zip(values, operand_types, loop.in_types)
    ]
    return _KERNELS[loop.ufunc](context, builder, loop, args)


def _unchanged(builder, result):
    return result


def prepare_scalars(context, builder, loop: Loop, operand_types: tuple, values: list):
    """Before the element loop: integer scalars that may not fit a narrower integer loop are
    range-checked (OverflowError) or, in comparisons, saturated with the out-of-range answer
    kept aside. Returns (operand types, values, finish): `finish(builder, result)` completes
    each element's result. Array operands (and their placeholder values) pass through."""
    if result_ndim(operand_types) is None:
        return operand_types, values, _unchanged
    new_types, new_values, finish = list(operand_types), list(values), _unchanged
    for position, (typ, want) in enumerate(zip(operand_types, loop.in_types)):
        if isinstance(typ, types.Array):
            continue
        if isinstance(want, types.Boolean):  # NumPy converts through a C long first
            int_scalars.emit_range_check(context, builder, values[position], typ, types.int64)
        if not int_scalars.is_narrowing(typ, want):
            continue
        value = values[position]
        if loop.ufunc in int_scalars.COMPARISONS:
            value, finish = int_scalars.exact_comparison(
                context, builder, loop.ufunc, position, value, typ, want
            )
        else:
            value = int_scalars.cast_checked(context, builder, value, typ, want)
        new_types[position], new_values[position] = want, value
    return tuple(new_types), new_values, finish


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
    """NumPy's complex power: 0 to a power of positive real part is 0, to any other nonzero
    power NaN (Python raises ZeroDivisionError there)."""
    if a.real == 0.0 and a.imag == 0.0 and not (b.real == 0.0 and b.imag == 0.0):
        return 0j if b.real > 0.0 else complex(np.nan, np.nan)
    return a**b


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
    if not _is_float(typ):
        raise TypingError(f"np.reciprocal of {typ} is not supported (only floats)")
    return builder.fdiv(llvm.Constant(args[0].type, 1.0), args[0])


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


SUPPORTED_UFUNCS = tuple(_KERNELS)


# ---------------------------------------------------------------------------- lowering


def lower_ufunc(context, builder, loop: Loop, operand_types: tuple, values: list,
                out=None):  # fmt: skip
    """Apply `loop` to scalars or arrays; returns a scalar, or a new array (or fills `out`, an
    (array type, value) pair, and returns nothing)."""
    context = numpy_context(context)
    operand_types = tuple(types.unliteral(t) for t in operand_types)
    ndim = result_ndim(operand_types)
    if ndim is None and out is None:
        return apply_loop(context, builder, loop, operand_types, values)
    operand_types, values, finish = prepare_scalars(context, builder, loop, operand_types, values)
    operands = [kernels.operand(builder, t, v) for t, v in zip(operand_types, values)]
    dtypes = tuple(op.dtype for op in operands)

    def body(b, items):
        result = finish(b, apply_loop(context, b, loop, dtypes, items))
        return context.cast(b, result, loop.out_type, out_dtype)

    if out is not None:
        out_type, out_value = out
        out_dtype = out_type.dtype
        fill_output(context, builder, out_type, out_value, operands, body)
        return None
    out_dtype = loop.out_type
    out_type = result_type(loop, operand_types)
    shape = kernels.broadcast_shapes(
        context, builder, [op.fields.shape for op in operands if op.is_array]
    )
    result = arr.allocate(context, builder, out_type, shape, order=out_type.layout)
    kernels.elementwise(
        context, builder, out_type, arr.unpack(builder, out_type, result), operands, body
    )
    return result


def fill_output(context, builder, out_type, out_value, operands: list, body) -> None:
    """out[idx] = body(builder, items at idx) with the operands broadcast to out's shape, as
    NumPy treats an output operand (ValueError when they do not broadcast to it); operands that
    overlap `out` other than element for element are read from copies."""
    target = arr.unpack(builder, out_type, out_value)
    shapes = [op.fields.shape for op in operands if op.is_array]
    kernels.broadcast_shapes(context, builder, [*shapes, target.shape])
    for op in operands:
        if op.is_array:
            kernels.check_broadcast_to(
                context, builder, op.fields.shape, target.shape,
                "non-broadcastable output operand (its shape is not the broadcast shape)",
            )  # fmt: skip
    operands, temporaries = _without_overlap(context, builder, target, operands)
    kernels.elementwise(context, builder, out_type, target, operands, body)
    for needs_copy, typ, slot in temporaries:
        with builder.if_then(needs_copy, likely=False):
            arr.decref(builder, typ, builder.load(slot, typ=context.value_type(typ)))


def _without_overlap(context, builder, target, operands: list) -> tuple[list, list]:
    """Operands that overlap the output, other than as the very same view, are copied first
    (`a += a.T`): returns the operands to read and the (condition, type, slot) of temporaries
    to release."""
    result, temporaries = [], []
    for op in operands:
        if not op.is_array:
            result.append(op)
            continue
        overlap = kernels.may_overlap(builder, target, op.fields)
        needs_copy = builder.and_(overlap, builder.not_(_same_view(builder, target, op.fields)))
        read_type = op.typ.copy(layout="A", readonly=False)
        slot = arr.alloca_in_entry(builder, op.value.type, name="operand")
        builder.store(op.value, slot)
        with builder.if_then(needs_copy, likely=False):
            builder.store(kernels.copy_array(context, builder, op.typ, op.value), slot)
        value = builder.load(slot, typ=op.value.type)
        result.append(kernels.operand(builder, read_type, value))
        temporaries.append((needs_copy, read_type, slot))
    return result, temporaries


def _same_view(builder, target, fields):
    """Run-time check: `fields` addresses exactly the elements of `target`, in its order, so
    each element is read before it is written."""
    if len(fields.shape) != len(target.shape):
        return llvm.Constant(arr.i1, 0)
    same = builder.icmp_unsigned(
        "==", builder.ptrtoint(fields.data, arr.i64), builder.ptrtoint(target.data, arr.i64)
    )
    for mine, theirs in (*zip(fields.shape, target.shape), *zip(fields.strides, target.strides)):
        same = builder.and_(same, builder.icmp_signed("==", mine, theirs))
    return same


# ---------------------------------------------------------------------------- typing: calls


def check_output(ufunc: np.ufunc, loop: Loop, operand_types: tuple, out: types.Array) -> None:
    """TypingError unless `out` can receive the loop's result, as NumPy requires: writable,
    at least the inputs' ndim (outputs never broadcast), castable with casting='same_kind'."""
    if out.readonly:
        raise TypingError(  # Numba's words first
            f"ufunc '{ufunc.__name__}' called with an explicit output that is read-only ({out})"
        )
    ndim = result_ndim(operand_types) or 0
    if ndim > out.ndim:
        raise TypingError(
            f"np.{ufunc.__name__}: non-broadcastable output operand: a {out.ndim}-d output "
            f"cannot hold the broadcast result of {ndim}-d inputs"
        )
    result, target = numpy_dtype(loop.out_type), numpy_dtype(out.dtype)
    if not np.can_cast(result, target, casting="same_kind"):
        raise TypingError(
            f"Cannot cast ufunc '{ufunc.__name__}' output from {result} to {target} with "
            f"casting rule 'same_kind'"
        )


def _ufunc_pysig(ufunc: np.ufunc):
    """NumPy's parameters of a ufunc call ember accepts: the inputs (positional only), then
    `out`."""
    inputs = ["x"] if ufunc.nin == 1 else [f"x{k + 1}" for k in range(ufunc.nin)]
    return make_pysig(", ".join([*inputs, "/", "out=None"]))


def register_ufunc_call(ufunc: np.ufunc) -> None:
    """Type and lower calls of `ufunc` (anything with `nin`, `nout`, `__name__` and
    `resolve_dtypes` whose kernel is registered) in jitted code."""
    pysig = _ufunc_pysig(ufunc)

    @registry.typer(ufunc)
    def _typer(args, kws):
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError:
            return None
        operand_types = tuple(types.unliteral(a) for a in args[: ufunc.nin])
        if len(operand_types) != ufunc.nin or not all(_operand(a) for a in operand_types):
            return None
        loop = resolve_loop(ufunc, operand_types)
        out = types.unliteral(bound.arguments.get("out", types.none))
        if isinstance(out, types.NoneType):
            return Signature(result_type(loop, operand_types), operand_types, pysig=pysig)
        if not isinstance(out, types.Array):
            raise TypingError(f"np.{ufunc.__name__}: out must be an array, not {out}")
        check_output(ufunc, loop, operand_types, out)
        return Signature(out, (*operand_types, out), pysig=pysig)

    @lower_builtin(ufunc, VarArgs(types.Type))
    def _lower(context, builder, sig, args):
        operand_types = tuple(sig.args[: ufunc.nin])
        loop = resolve_loop(ufunc, operand_types)
        operands = list(args[: ufunc.nin])
        if len(sig.args) == ufunc.nin:
            return lower_ufunc(context, builder, loop, operand_types, operands)
        out_type, out_value = sig.args[-1], args[-1]
        lower_ufunc(context, builder, loop, operand_types, operands, out=(out_type, out_value))
        arr.incref(builder, out_type, out_value)  # the call returns `out`: a new reference
        return out_value


for _ufunc in SUPPORTED_UFUNCS:
    if _ufunc.nout == 1:
        register_ufunc_call(_ufunc)


# ---------------------------------------------------------------------------- operators

OPERATOR_UFUNCS = {
    operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
    operator.truediv: np.true_divide, operator.floordiv: np.floor_divide,
    operator.mod: np.remainder, operator.pow: np.power, operator.lshift: np.left_shift,
    operator.rshift: np.right_shift, operator.and_: np.bitwise_and, operator.or_: np.bitwise_or,
    operator.xor: np.bitwise_xor, operator.eq: np.equal, operator.ne: np.not_equal,
    operator.lt: np.less, operator.le: np.less_equal, operator.gt: np.greater,
    operator.ge: np.greater_equal, operator.neg: np.negative, operator.pos: np.positive,
    operator.invert: np.invert,
}  # fmt: skip
INPLACE_OPERATORS = {
    operator.iadd: np.add, operator.isub: np.subtract, operator.imul: np.multiply,
    operator.itruediv: np.true_divide, operator.ifloordiv: np.floor_divide,
    operator.imod: np.remainder, operator.ipow: np.power, operator.ilshift: np.left_shift,
    operator.irshift: np.right_shift, operator.iand: np.bitwise_and,
    operator.ior: np.bitwise_or, operator.ixor: np.bitwise_xor,
}  # fmt: skip


def _operator_ufunc(fn, ufunc: np.ufunc) -> None:
    @registry.typer(fn)
    def _typer(args, kws):
        if len(args) != ufunc.nin or not any(isinstance(a, types.Array) for a in args):
            return None
        if not all(_operand(a) for a in args):
            return None
        if any(isinstance(a, types.Array) and _holds_text(a.dtype) for a in args):
            return None  # string arrays compare by their own rules (char_arrays.py)
        operand_types = tuple(types.unliteral(a) for a in args)
        if ufunc is np.invert and isinstance(operand_types[0].dtype, types.Boolean):
            loop = resolve_loop(np.logical_not, operand_types)
        else:
            loop = resolve_loop(ufunc, operand_types)
        return Signature(result_type(loop, operand_types), operand_types)

    def _lower(context, builder, sig, args):
        target = ufunc
        if ufunc is np.invert and isinstance(sig.args[0].dtype, types.Boolean):
            target = np.logical_not
        loop = resolve_loop(target, tuple(sig.args))
        return lower_ufunc(context, builder, loop, tuple(sig.args), list(args))

    # only signatures with an array: scalars keep their own implementations
    if ufunc.nin == 1:
        lower_builtin(fn, types.Array)(_lower)
    else:
        lower_builtin(fn, types.Array, types.Type)(_lower)
        lower_builtin(fn, types.Type, types.Array)(_lower)


def _inplace_operator(fn, ufunc: np.ufunc) -> None:
    @registry.typer(fn)
    def _typer(args, kws):
        if len(args) != 2 or not isinstance(args[0], types.Array) or not _operand(args[1]):
            return None
        target, other = args[0], types.unliteral(args[1])
        if target.readonly:
            raise TypingError(f"cannot modify a read-only array ({target}) in place")
        loop = resolve_loop(ufunc, (target, other))
        check_output(ufunc, loop, (target, other), target)
        return signature(target, target, other)

    @lower_builtin(fn, types.Array, types.Type)
    def _lower(context, builder, sig, args):
        target_type, other_type = sig.args
        loop = resolve_loop(ufunc, (target_type, other_type))
        lower_ufunc(context, builder, loop, sig.args, list(args), out=(target_type, args[0]))
        arr.incref(builder, target_type, args[0])
        return args[0]


for _fn, _ufunc in OPERATOR_UFUNCS.items():
    if _fn not in (operator.neg, operator.pos, operator.invert):
        _operator_ufunc(_fn, _ufunc)
for _fn in (operator.neg, operator.pos, operator.invert):
    _operator_ufunc(_fn, OPERATOR_UFUNCS[_fn])
for _fn, _ufunc in INPLACE_OPERATORS.items():
    _inplace_operator(_fn, _ufunc)


# ---------------------------------------------------------------------------- np.where


@registry.typer(np.where)
def _type_where(args, kws):
    if kws or len(args) != 3 or not all(_operand(a) for a in args):
        return None
    cond, x, y = (types.unliteral(a) for a in args)
    dtype = _where_dtype(x, y)
    ndim = result_ndim((cond, x, y))
    if ndim is None:  # three scalars: a 0-d array, as NumPy
        return signature(types.Array(dtype, 0, "C"), cond, x, y)
    return signature(types.Array(dtype, ndim, result_layout((cond, x, y), ndim)), cond, x, y)


def _where_dtype(x, y) -> types.Type:
    has_array = isinstance(x, types.Array) or isinstance(y, types.Array)
    dx, dy = _weak_or_strong(x, has_array), _weak_or_strong(y, has_array)
    return from_numpy_dtype(np.result_type(_probe(dx), _probe(dy)))


def _probe(dtype):
    """What np.result_type needs for NEP 50: a dtype, or a Python scalar for a weak one."""
    return {int: 0, float: 0.0, complex: 0j}.get(dtype, dtype)


@lower_builtin(np.where, types.Type, types.Type, types.Type)
def np_where(context, builder, sig, args):
    cond_type, x_type, y_type = (types.unliteral(t) for t in sig.args)
    dtype = sig.return_type.dtype if isinstance(sig.return_type, types.Array) else sig.return_type
    args = list(args)
    for position in (1, 2):  # NumPy 2 casts a scalar choice unsafely: 300 among uint8s is 44
        if not isinstance(sig.args[position], types.Array):
            args[position] = context.cast(
                builder, args[position], types.unliteral(sig.args[position]), dtype
            )
    x_type, y_type = (t if isinstance(t, types.Array) else dtype for t in (x_type, y_type))

    def choose(b, items):
        c, x, y = items
        truth = context.is_true(b, _dtype_of(cond_type), c)
        x = context.cast(b, x, _dtype_of(x_type), dtype)
        y = context.cast(b, y, _dtype_of(y_type), dtype)
        return b.select(truth, x, y)

    if not any(isinstance(t, types.Array) for t in (cond_type, x_type, y_type)):
        result = arr.allocate(context, builder, sig.return_type, [])
        fields = arr.unpack(builder, sig.return_type, result)
        arr.store_item(builder, dtype, choose(builder, list(args)), fields.data)
        return result
    operands = [kernels.operand(builder, t, v) for t, v in zip((cond_type, x_type, y_type), args)]
    shape = kernels.broadcast_shapes(
        context, builder, [op.fields.shape for op in operands if op.is_array]
    )
    out_type = sig.return_type
    result = arr.allocate(context, builder, out_type, shape, order=out_type.layout)
    kernels.elementwise(
        context, builder, out_type, arr.unpack(builder, out_type, result), operands, choose
    )
    return result


def _dtype_of(typ):
    return typ.dtype if isinstance(typ, types.Array) else typ


# ---------------------------------------------------------------------------- builtins on arrays


@registry.typer(abs)
def _type_abs(args, kws):
    if len(args) == 1 and not kws and isinstance(args[0], types.Array):
        loop = resolve_loop(np.absolute, (args[0],))
        return signature(result_type(loop, (args[0],)), args[0])
    return None


@lower_builtin(abs, types.Array)
def array_abs(context, builder, sig, args):
    loop = resolve_loop(np.absolute, tuple(sig.args))
    return lower_ufunc(context, builder, loop, tuple(sig.args), list(args))


# The methods of ufuncs in jitted code (np.add.reduce, f.accumulate, np.multiply.outer...):
# registered with NumPy's library, as they apply to NumPy's ufuncs too.
import ember.ufuncs  # noqa: E402, F401
