"""The `math` module in compiled code: constants are frozen globals; functions lower to LLVM
intrinsics or the C library's libm, with Python's integer results where Python gives them."""

from __future__ import annotations

import math

from llvmlite import ir as llvm

from ember import types
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.registry import lower_builtin
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
    "hypot": None,
    "copysign": "llvm.copysign",
    "fmod": None,
    "pow": "llvm.pow",
}
# Domain errors Python raises where C returns NaN or infinity.
_DOMAIN = {"sqrt", "log", "log10", "log2", "log1p", "acos", "asin"}


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
        (value,) = args
        if name in _DOMAIN and context.options.error_model == "python":
            _domain_guard(context, builder, name, value)
        return call_math(builder, name, _UNARY[name], value)


def _register_binary(name: str) -> None:
    function = getattr(math, name)

    @registry.typer(function)
    def _type(args, kws):
        if len(args) != 2 or kws:
            return None
        operands = [_real_operand(a) for a in args]
        if None in operands:
            return None
        common = types.float32 if all(o is types.float32 for o in operands) else types.float64
        return signature(common, common, common)

    @lower_builtin(function, types.Float, types.Float)
    def _lower(context, builder, sig, args):
        if name == "fmod" and context.options.error_model == "python":
            zero = llvm.Constant(args[1].type, 0.0)
            is_zero = builder.fcmp_ordered("==", args[1], zero)
            context.guard(builder, is_zero, ValueError, "math domain error")
        return call_math(builder, name, _BINARY[name], *args)


def _domain_guard(context, builder, name: str, value) -> None:
    zero = llvm.Constant(value.type, 0.0)
    one = llvm.Constant(value.type, 1.0)
    if name == "sqrt":
        bad = builder.fcmp_ordered("<", value, zero)
    elif name in ("log", "log10", "log2"):
        bad = builder.fcmp_ordered("<=", value, zero)
    elif name == "log1p":
        bad = builder.fcmp_ordered("<=", value, builder.fneg(one))
    else:  # asin, acos
        bad = builder.fcmp_ordered(">", call_intrinsic(builder, "llvm.fabs", [value]), one)
    context.guard(builder, bad, ValueError, "math domain error")


def call_math(builder, name: str, implementation: str | None, *operands):
    if implementation is not None and implementation.startswith("llvm."):
        return call_intrinsic(builder, implementation, list(operands))
    return call_libm(builder, implementation or name, *operands)


def call_libm(builder, name: str, *operands):
    """Call the C library's double (or float, with an 'f' suffix) version of `name`."""
    is_float = operands[0].type == llvm.FloatType()
    symbol = name + "f" if is_float else name
    fnty = llvm.FunctionType(operands[0].type, [op.type for op in operands])
    module = builder.module
    function = module.globals.get(symbol) or llvm.Function(module, fnty, symbol)
    return builder.call(function, list(operands))


for _name in _UNARY:
    _register_unary(_name)
for _name in _BINARY:
    _register_binary(_name)


# ---------------------------------------------------------------------------- integer results


for _name, _intrinsic in (("floor", "llvm.floor"), ("ceil", "llvm.ceil"), ("trunc", "llvm.trunc")):

    @registry.typer(getattr(math, _name))
    def _type_rounding(args, kws):
        if len(args) != 1 or kws:
            return None
        arg = types.unliteral(args[0])
        if isinstance(arg, (types.Integer, types.Boolean)):
            return signature(types.int64, types.int64)
        if isinstance(arg, types.Float):
            return signature(types.int64, arg)
        return None

    @lower_builtin(getattr(math, _name), types.Float)
    def _lower_rounding(context, builder, sig, args, _intrinsic=_intrinsic):
        from ember.library.builtins import float_to_int

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

    @lower_builtin(getattr(math, _name), types.Number)
    def _lower_int_predicate(context, builder, sig, args, _test=_test):
        return llvm.Constant(llvm.IntType(1), int(_test == "finite"))


@registry.typer(math.degrees)
def _type_degrees(args, kws):
    operand = _real_operand(args[0]) if len(args) == 1 and not kws else None
    return None if operand is None else signature(operand, operand)


@lower_builtin(math.degrees, types.Float)
def _degrees(context, builder, sig, args):
    return builder.fmul(args[0], llvm.Constant(args[0].type, 180.0 / math.pi))


@registry.typer(math.radians)
def _type_radians(args, kws):
    return _type_degrees(args, kws)


@lower_builtin(math.radians, types.Float)
def _radians(context, builder, sig, args):
    return builder.fmul(args[0], llvm.Constant(args[0].type, math.pi / 180.0))
