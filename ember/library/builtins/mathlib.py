"""The `math` module in compiled code: constants are frozen globals; functions lower to LLVM
intrinsics or the C library's libm, with Python's integer results where Python gives them."""

from __future__ import annotations

import math
import operator
import struct

from llvmlite import ir as llvm

from ember import types
from ember.extending import overload
from ember.lowering.float_bounds import record_guard
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.numbers import c_pow, is_finite, is_infinite
from ember.lowering.powers import checks_only_flag, finite_above, power_with_float_exponent
from ember.lowering.registry import lower_builtin
from ember.typing.arith import integer_result
from ember.typing.signature import signature
from ember.typing.templates import registry

# name -> LLVM intrinsic (None: call the libm function of the same name)
_UNARY = {
    "sqrt": "llvm.sqrt", "exp": "llvm.exp", "log": "llvm.log", "log10": "llvm.log10",
    "log2": "llvm.log2", "sin": "llvm.sin", "cos": "llvm.cos", "tan": None, "fabs": "llvm.fabs",
    "asin": None, "acos": None, "atan": None, "sinh": None, "cosh": None, "tanh": None,
    "asinh": None, "acosh": None, "atanh": None, "expm1": None, "log1p": None, "erf": None,
    "erfc": None, "gamma": "tgamma", "lgamma": None, "exp2": "llvm.exp2", "cbrt": None,
}  # fmt: skip
_BINARY = {
    "atan2": None,
    "copysign": "llvm.copysign",
    "fmod": None,
    "pow": None,
    "nextafter": None,
    "remainder": None,  # IEEE's, exact in libm; x == inf or y == 0 give a NaN: a domain error
}
# CPython's math_1 and math_2 rules (error_model='python'): a NaN from operands that are not NaN
# is a domain error (ValueError); an infinity from finite operands is a range error
# (OverflowError) for the functions that can overflow, and a domain error (a pole, as log(0.0))
# for the others.
_CAN_OVERFLOW = {"exp", "exp2", "expm1", "cosh", "sinh"}
# Where CPython's double result overflows (x above the bound, or |x| for cosh and sinh): a
# float32 result overflows long before, to an infinity (Numba's value) where CPython's double
# is finite, so a float32 operand raises only beyond these.
_DOUBLE_OVERFLOW = {"exp": 709.782712893384, "expm1": 709.782712893384, "exp2": 1023.9999999999999,
                    "cosh": 710.4758600739439, "sinh": 710.4758600739439}  # fmt: skip
_POLES_AT_NONPOSITIVE_INTEGERS = {"gamma", "lgamma"}  # overflow anywhere else
# Computed on doubles even for float32 operands, as CPython does (the float32 neighbour of x
# is not the double one).
_DOUBLE_ONLY = {"nextafter"}
_NEVER_RAISE = {"copysign", "atan2", "nextafter"}
# Functions whose result is finite for every finite operand: no infinity check.
_BOUNDED = {"sqrt", "sin", "cos", "tan", "tanh", "asin", "acos", "atan", "erf", "erfc", "fabs",
            "cbrt"}  # fmt: skip
# Functions defined on every float, infinities included: a NaN comes only from a NaN operand, so
# no NaN check (with _BOUNDED: no check at all).
_TOTAL = {"tanh", "atan", "erf", "erfc", "fabs", "cbrt", "exp", "exp2", "expm1", "sinh", "cosh",
          "asinh", "lgamma"}  # fmt: skip
# Functions whose every error is a ValueError for an operand outside an interval (a NaN outside
# it, an infinity at a pole on its edge, as log(0.0)): name -> (comparison, bound, of |x|?).
# The check reads the operand, so it need not wait for the call's result (nor keep it around
# the next call); a NaN operand compares false and raises nothing, as in CPython.
_DOMAINS = {
    "sqrt": ("<", 0.0, False), "log": ("<=", 0.0, False), "log2": ("<=", 0.0, False),
    "log10": ("<=", 0.0, False), "log1p": ("<=", -1.0, False), "acosh": ("<", 1.0, False),
    "asin": (">", 1.0, True), "acos": (">", 1.0, True), "atanh": (">=", 1.0, True),
}  # fmt: skip


def _real_operand(arg: types.Type) -> types.Type | None:
    arg = types.unliteral(arg)
    if isinstance(arg, types.Float):
        return arg
    if isinstance(arg, (types.Integer, types.Boolean)):
        return types.float64
    return None


def _register_unary(name: str) -> None:
    function = getattr(math, name)

    @registry.typer(function)
    def _type(args, kws):
        if len(args) != 1 or kws:
            return None
        operand = _real_operand(args[0])
        return None if operand is None else signature(operand, operand)

    @lower_builtin(function, types.Float)
    def _lower(context, builder, sig, args):
        python_errors = context.options.error_model == "python"
        checked_first = python_errors and _checks_operand_only(name, args[0])
        if checked_first:  # the operand need not live across the call (a spill in loops)
            _python_errors(context, builder, name, list(args), None)
        result = context.apply_fastmath(call_math(builder, name, _UNARY[name], *args))
        if python_errors and not checked_first:
            _python_errors(context, builder, name, list(args), result)
        return result


def _register_binary(name: str) -> None:
    function = getattr(math, name)

    @registry.typer(function)
    def _type(args, kws):
        if len(args) != 2 or kws:
            return None
        operands = [_real_operand(a) for a in args]
        if None in operands:
            return None
        single = all(o is types.float32 for o in operands) and name not in _DOUBLE_ONLY
        common = types.float32 if single else types.float64
        return signature(common, common, common)

    @lower_builtin(function, types.Float, types.Float)
    def _lower(context, builder, sig, args):
        def with_errors():
            if name == "pow":
                result = c_pow(context, builder, *args)
            else:
                result = context.apply_fastmath(call_math(builder, name, _BINARY[name], *args))
            if name == "remainder":
                result = _zero_signed_as(builder, result, args[0])
            if context.options.error_model == "python" and name not in _NEVER_RAISE:
                _python_errors(context, builder, name, list(args), result)
            return result

        if name == "pow":
            return power_with_float_exponent(
                context, builder, args, with_errors, _pow_errors(context)
            )
        return with_errors()


def _checks_operand_only(name: str, operand) -> bool:
    """Whether every Python error of `name` is decided by its operand alone (a domain interval,
    a float32 operand beyond the double overflow bound), not by the call's result."""
    return name in _DOMAINS or (name in _CAN_OVERFLOW and operand.type == llvm.FloatType())


def _pow_errors(context):
    """What `math.pow` raises for a zero base to a negative integral power and an overflow."""
    if context.options.error_model != "python":
        return None, None
    return (ValueError, "math domain error"), (OverflowError, "math range error")


def _python_errors(context, builder, name: str, operands: list, result) -> None:
    """Raise what CPython's math module raises for this result (see the rules above)."""
    if name in _DOMAINS:
        comparison, bound, of_magnitude = _DOMAINS[name]
        operand = operands[0]
        if of_magnitude:
            operand = call_intrinsic(builder, "llvm.fabs", [operand])
        outside = builder.fcmp_ordered(comparison, operand, llvm.Constant(operand.type, bound))
        record_guard(builder, outside)  # (dropped for an operand that cannot be outside)
        context.guard(builder, outside, ValueError, "math domain error")
        return
    if name in _CAN_OVERFLOW and operands[0].type == llvm.FloatType():
        blew_up = _beyond_double_overflow(context, builder, name, operands[0])
        context.guard(builder, blew_up, OverflowError, "math range error")
        return
    if name in _TOTAL and name in _BOUNDED:
        return
    if name not in _TOTAL:
        _raise_on_nan_from_numbers(context, builder, operands, result)
    if name in _BOUNDED:
        return
    blew_up = is_infinite(builder, result)
    if not checks_only_flag(context, builder):
        # (where a failure only flags the loop to run again with its checks in place, an
        # infinite operand may flag it too: the operand need not live across the call)
        finite_operands = _all(builder, [is_finite(builder, op) for op in operands])
        blew_up = builder.and_(blew_up, finite_operands)
    if name in _CAN_OVERFLOW:
        context.guard(builder, blew_up, OverflowError, "math range error")
        return
    if name in _POLES_AT_NONPOSITIVE_INTEGERS or name == "pow":
        pole = _pole(builder, name, operands[0])
        context.guard(builder, builder.and_(blew_up, pole), ValueError, "math domain error")
        context.guard(builder, blew_up, OverflowError, "math range error")
        return
    context.guard(builder, blew_up, ValueError, "math domain error")


def _beyond_double_overflow(context, builder, name: str, operand):
    """Whether CPython's double result of the float32 `operand` overflows: compared in float32
    with the largest float32 not above the double bound (no conversion per item). Where a
    failure only flags the loop to run again with its checks in place, one comparison that
    flags +inf too (no error: the checked run tells); else one of the bits."""
    bound = _float32_at_most(_DOUBLE_OVERFLOW[name])
    of_magnitude = name in ("cosh", "sinh")
    if not checks_only_flag(context, builder):
        return finite_above(builder, operand, bound, of_magnitude)
    if of_magnitude:
        operand = call_intrinsic(builder, "llvm.fabs", [operand])
    return builder.fcmp_ordered(">", operand, llvm.Constant(llvm.FloatType(), bound))


def _float32_at_most(bound: float) -> float:
    """The largest float32 value not above the positive `bound`."""
    bits = struct.unpack("<I", struct.pack("<f", bound))[0]  # the nearest float32
    if struct.unpack("<f", struct.pack("<I", bits))[0] > bound:
        bits -= 1  # (positive: one step down in the bits is one float32 down)
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _raise_on_nan_from_numbers(context, builder, operands: list, result) -> None:
    """A domain error: a NaN result from operands that are not NaN."""
    no_nan_operand = _all(builder, [builder.fcmp_ordered("ord", op, op) for op in operands])
    nan_result = builder.fcmp_unordered("uno", result, result)
    context.guard(
        builder, builder.and_(nan_result, no_nan_operand), ValueError, "math domain error"
    )


def _pole(builder, name: str, value):
    """gamma and lgamma have poles at 0, -1, -2...; pow(x, y) has one at x == 0."""
    zero = llvm.Constant(value.type, 0.0)
    if name == "pow":
        return builder.fcmp_ordered("==", value, zero)
    integral = builder.fcmp_ordered("==", value, call_intrinsic(builder, "llvm.floor", [value]))
    return builder.and_(integral, builder.fcmp_ordered("<=", value, zero))


def _all(builder, conditions: list):
    result = conditions[0]
    for condition in conditions[1:]:
        result = builder.and_(result, condition)
    return result


def _zero_signed_as(builder, value, sign_source):
    """`value`, or a zero of `sign_source`'s sign when it is zero: IEEE's (and CPython's)
    remainder, which glibc gets wrong for subnormal divisors (remainder(1e-282, 5e-324))."""
    signed_zero = call_intrinsic(builder, "llvm.copysign", [value, sign_source])
    is_zero = builder.fcmp_ordered("==", value, value.type(0.0))
    return builder.select(is_zero, signed_zero, value)


def call_math(builder, name: str, implementation: str | None, *operands):
    if name == "tanh" and operands[0].type == llvm.FloatType():
        return _float32_tanh(builder, operands[0])
    if implementation is not None and implementation.startswith("llvm."):
        return call_intrinsic(builder, implementation, list(operands))
    return call_libm(builder, implementation or name, *operands)


def _float32_tanh(builder, x):
    """tanh of a float32 as CPython's double tanh rounded to float32 (C's tanhf is off by an
    ulp for about a third of normal operands, and 2.5x slower): (e - 1) / (e + 1) with
    e = exp(2|x|) in double, whose error is far below float32's; x itself below 2**-12 (where
    tanh x rounds to x); |x| above 9.1 (tanh rounds to 1) taken as 9.1. NaN stays NaN."""
    double = llvm.DoubleType()
    wide = builder.fpext(x, double)
    magnitude = call_intrinsic(builder, "llvm.fabs", [wide])
    saturate = builder.fcmp_ordered(">", magnitude, llvm.Constant(double, 9.1))
    magnitude = builder.select(saturate, llvm.Constant(double, 9.1), magnitude)
    e = call_intrinsic(builder, "llvm.exp", [builder.fmul(magnitude, llvm.Constant(double, 2.0))])
    one = llvm.Constant(double, 1.0)
    ratio = builder.fdiv(builder.fsub(e, one), builder.fadd(e, one))
    tiny = builder.fcmp_ordered("<", magnitude, llvm.Constant(double, 2.0**-12))
    result = builder.select(tiny, magnitude, ratio)
    return builder.fptrunc(call_intrinsic(builder, "llvm.copysign", [result, wide]), x.type)


def call_libm(builder, name: str, *operands):
    """Call the C library's double (or float, with an 'f' suffix) version of `name`, as a call
    that reads and writes no memory: compiled code never reads errno (it tests results
    itself), and LLVM then drops a call whose result goes unused. (A libm call may set errno,
    so LLVM kept one, and the chain computing its operand: a deferred-check loop storing into
    a caller's array recomputed all its math in its unchecked copy, which only copies the
    buffered results: haversine into `out` ran 1.9x Numba's time.)"""
    is_float = operands[0].type == llvm.FloatType()
    symbol = name + "f" if is_float else name
    fnty = llvm.FunctionType(operands[0].type, [op.type for op in operands])
    module = builder.module
    function = module.globals.get(symbol) or llvm.Function(module, fnty, symbol)
    return builder.call(function, list(operands), attrs=("nounwind", "readnone"))


for _name in _UNARY:
    _register_unary(_name)
for _name in _BINARY:
    _register_binary(_name)


@registry.typer(math.log)
def _type_log_base(args, kws):
    if len(args) != 2 or kws or None in [_real_operand(a) for a in args]:
        return None
    return signature(types.float64, types.float64, types.float64)


@lower_builtin(math.log, types.Float, types.Float)
def _log_base(context, builder, sig, args):
    """math.log(x, base) is log(x) / log(base), as CPython computes it (a base of 1 divides
    by zero: ZeroDivisionError)."""
    log_sig = signature(types.float64, types.float64)
    logs = [context.call_implementation(builder, math.log, log_sig, [a]) for a in args]
    return context.call_implementation(builder, operator.truediv, sig, logs)


# ---------------------------------------------------------------------------- integer results


for _name, _intrinsic in (("floor", "llvm.floor"), ("ceil", "llvm.ceil"), ("trunc", "llvm.trunc")):

    @registry.typer(getattr(math, _name))
    def _type_rounding(args, kws):
        if len(args) != 1 or kws:
            return None
        arg = types.unliteral(args[0])
        if isinstance(arg, (types.Integer, types.Boolean)):
            # as Numba: an unsigned integer stays unsigned (2**64 - 1 stays itself)
            integer = integer_result(arg, arg)
            return signature(integer, integer)
        if isinstance(arg, types.Float):
            return signature(types.int64, arg)
        return None

    @lower_builtin(getattr(math, _name), types.Float)
    def _lower_rounding(context, builder, sig, args, _intrinsic=_intrinsic):
        from ember.library.builtins.numeric import float_to_int

        rounded = call_math(builder, "", _intrinsic, args[0])
        return float_to_int(context, builder, sig, [rounded])

    @lower_builtin(getattr(math, _name), types.Integer)
    def _lower_int_rounding(context, builder, sig, args):
        return args[0]


# ---------------------------------------------------------------------------- predicates


for _name, _test in (("isnan", "uno"), ("isinf", "inf"), ("isfinite", "finite")):

    @registry.typer(getattr(math, _name))
    def _type_predicate(args, kws):
        if len(args) != 1 or kws:
            return None
        arg = types.unliteral(args[0])
        if isinstance(arg, (types.Integer, types.Boolean, types.Float)):
            return signature(types.boolean, arg)
        return None

    @lower_builtin(getattr(math, _name), types.Float)
    def _lower_predicate(context, builder, sig, args, _test=_test):
        (value,) = args
        if _test == "uno":
            return builder.fcmp_unordered("uno", value, value)
        magnitude = call_intrinsic(builder, "llvm.fabs", [value])
        infinity = llvm.Constant(value.type, float("inf"))
        if _test == "inf":
            return builder.fcmp_ordered("==", magnitude, infinity)
        return builder.fcmp_ordered("<", magnitude, infinity)

    @lower_builtin(getattr(math, _name), types.Integer)
    @lower_builtin(getattr(math, _name), types.Boolean)
    def _lower_int_predicate(context, builder, sig, args, _test=_test):
        return llvm.Constant(llvm.IntType(1), int(_test == "finite"))


# CPython's constants and formulas: degrees(x) = x * (180/pi), radians(x) = x * (pi/180).
_RAD_TO_DEG = 180.0 / math.pi
_DEG_TO_RAD = math.pi / 180.0


@overload(math.degrees)
def degrees(x):
    factor = _float_constant(x, _RAD_TO_DEG)
    if factor is not None:

        def degrees_impl(x):
            return x * factor

        return degrees_impl


@overload(math.radians)
def radians(x):
    factor = _float_constant(x, _DEG_TO_RAD)
    if factor is not None:

        def radians_impl(x):
            return x * factor

        return radians_impl


def _float_constant(x: types.Type, value: float):
    """`value` as a constant of x's float type (float64 for integers), or None."""
    if isinstance(x, (types.Integer, types.Boolean)) or types.unliteral(x) is types.float64:
        return value
    if x is types.float32:
        import numpy as np  # a float32 constant; only needed for float32 arguments

        return np.float32(value)
    return None
