"""Attributes and methods of numbers (`real`, `imag`, `conjugate()`, `item()`), complex powers
and the true division of integers.

Complex `**` (CPython's `complex_pow`) and the exact slow path of `int / int` are written in
Python and compiled by ember itself (see helpers.py).
"""

from __future__ import annotations

import math
import operator

from llvmlite import ir as llvm

from ember import types
from ember.decorators import njit
from ember.errors import TypingError
from ember.extending import intrinsic, overload_method
from ember.lowering.casts import make_complex
from ember.lowering.registry import lower_builtin, lower_getattr
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry

# Options of library helpers compiled with context.compile_internal: plain IEEE arithmetic
# (no fast-math reassociation, no ZeroDivisionError checks) whatever the caller asked for;
# a helper raises Python's exceptions itself where CPython raises them.
PLAIN_IEEE = {"error_model": "numpy", "fastmath": False}


@intrinsic
def libm_hypot(typingctx, x, y):
    """The C library's hypot(x, y) on doubles: what CPython's complex abs, ** and cmath call
    (math.hypot is CPython's own vector_norm: math_float_parts.py)."""
    if x is not types.float64 or y is not types.float64:
        return None

    def codegen(context, builder, sig, args):
        double = llvm.DoubleType()
        fnty = llvm.FunctionType(double, [double, double])
        function = builder.module.globals.get("hypot") or llvm.Function(
            builder.module, fnty, "hypot"
        )
        return builder.call(function, list(args))

    return signature(types.float64, x, y), codegen


# ---------------------------------------------------------------------------- real, imag


def _parts_type(value_type: types.Type) -> types.Type:
    """The type of `x.real` and `x.imag`: the float of a complex, int for a bool."""
    if isinstance(value_type, types.Complex):
        return value_type.underlying_float
    if isinstance(value_type, types.Boolean):
        return types.int64
    return value_type


@registry.register_attr
class NumberAttributes(AttributeTemplate):
    key = types.Number

    def resolve_real(self, value_type: types.Type) -> types.Type:
        return _parts_type(value_type)

    def resolve_imag(self, value_type: types.Type) -> types.Type:
        return _parts_type(value_type)


@overload_method(types.Number, "item")
@overload_method(types.Boolean, "item")
def scalar_item(x):
    """A NumPy scalar's `.item()`: the value itself (ember's numbers are already native)."""
    return lambda x: x


@lower_getattr(types.Number, "real")
def number_real(context, builder, value_type, value):
    if isinstance(value_type, types.Complex):
        return builder.extract_value(value, 0)
    return context.cast(builder, value, value_type, _parts_type(value_type))


@lower_getattr(types.Number, "imag")
def number_imag(context, builder, value_type, value):
    if isinstance(value_type, types.Complex):
        return builder.extract_value(value, 1)
    return context.get_constant(_parts_type(value_type), 0)


for _number_class in (types.Boolean, types.Integer, types.Float, types.Complex):

    @registry.typer((_number_class, "conjugate"))
    def _type_conjugate(args, kws):
        if len(args) != 1 or kws:
            return None
        result = _parts_type(args[0]) if not isinstance(args[0], types.Complex) else args[0]
        return signature(result, args[0])

    @lower_builtin((_number_class, "conjugate"), types.Number)
    def number_conjugate(context, builder, sig, args):
        (value,) = args
        if not isinstance(sig.args[0], types.Complex):
            return context.cast(builder, value, sig.args[0], sig.return_type)
        real, imag = builder.extract_value(value, 0), builder.extract_value(value, 1)
        return make_complex(context, builder, sig.return_type, real, builder.fneg(imag))


# ---------------------------------------------------------------------------- complex **


def complex_power(a, b):
    """CPython's complex ** (Objects/complexobject.c): `complex_power_ieee`'s value, with
    ZeroDivisionError for 0 (or a power that underflows to 0) to a negative or complex power
    and OverflowError for an infinite result."""
    if a.real == 0.0 and a.imag == 0.0 and (b.imag != 0.0 or b.real < 0.0):
        raise ZeroDivisionError("0.0 to a negative or complex power")
    if small_integer_exponent(b) and b.real < 0.0:
        power = repeated_products(a, -int(b.real))
        if power.real == 0.0 and power.imag == 0.0:
            raise ZeroDivisionError("0.0 to a negative or complex power")
        result = (1 + 0j) / power
    else:
        result = complex_power_ieee(a, b)
    if math.isinf(result.real) or math.isinf(result.imag):
        raise OverflowError("complex exponentiation")
    return result


@njit
def small_integer_exponent(b):
    """Whether CPython (and NumPy) raise to `b` by repeated products rather than the polar
    form."""
    return b.imag == 0.0 and b.real == math.floor(b.real) and math.fabs(b.real) <= 100.0


@njit(**PLAIN_IEEE)
def repeated_products(a, exponent):
    """a ** exponent (>= 0) by squaring, CPython's c_powu step for step."""
    result = 1 + 0j
    power = a
    mask = 1
    while mask > 0 and exponent >= mask:
        if exponent & mask:
            result = result * power
        mask <<= 1
        power = power * power
    return result


@njit(**PLAIN_IEEE)
def complex_power_ieee(a, b):
    """CPython's complex_pow step for step, so that it rounds alike: repeated products for
    small integer exponents, else the polar form (_Py_c_pow); IEEE values (inf, NaN) where
    CPython raises."""
    if small_integer_exponent(b):
        exponent = int(b.real)
        if exponent >= 0:
            return repeated_products(a, exponent)
        return (1 + 0j) / repeated_products(a, -exponent)
    if a.real == 0.0 and a.imag == 0.0:
        return 0j if b.imag == 0.0 and b.real >= 0.0 else complex(math.nan, math.nan)
    magnitude = libm_hypot(a.real, a.imag)
    length = magnitude**b.real
    angle = math.atan2(a.imag, a.real)
    phase = angle * b.real
    if b.imag != 0.0:
        length /= math.exp(angle * b.imag)
        phase += b.imag * math.log(magnitude)
    return complex(length * math.cos(phase), length * math.sin(phase))


@lower_builtin(operator.pow, types.Complex, types.Complex)
def lower_complex_power(context, builder, sig, args):
    wide = signature(types.complex128, types.complex128, types.complex128)
    operands = [context.cast(builder, v, t, types.complex128) for v, t in zip(args, sig.args)]
    result = context.compile_internal(builder, complex_power, wide, operands, **PLAIN_IEEE)
    return context.cast(builder, result, types.complex128, sig.return_type)


# ---------------------------------------------------------------------------- int / int


@lower_builtin(operator.truediv, types.Integer, types.Integer)
def int_true_division(context, builder, sig, args):
    """int / int correctly rounded, as CPython: one float division when both operands are
    exact doubles (at most 2**53 in magnitude), else the exact long division below."""
    a, b = args
    if context.options.error_model == "python":
        is_zero = builder.icmp_unsigned("==", b, llvm.Constant(b.type, 0))
        context.guard(builder, is_zero, ZeroDivisionError, "division by zero")
    as_floats = [context.cast(builder, v, t, types.float64) for v, t in zip(args, sig.args)]
    quick = context.apply_fastmath(builder.fdiv(*as_floats))
    if not all(isinstance(t, types.Integer) and t.signed and t.bitwidth == 64 for t in sig.args):
        return quick  # narrower ints are exact doubles; uint64 keeps the float division
    exact_doubles = builder.and_(_at_most_2_53(builder, a), _at_most_2_53(builder, b))
    zero = llvm.Constant(a.type, 0)
    has_zero = builder.or_(builder.icmp_signed("==", a, zero), builder.icmp_signed("==", b, zero))
    with builder.if_else(builder.or_(exact_doubles, has_zero), likely=True) as (fast, slow):
        with fast:
            fast_block = builder.block
        with slow:
            exact_sig = signature(types.float64, types.int64, types.int64)
            exact = context.compile_internal(
                builder, int_true_divide, exact_sig, [a, b], **PLAIN_IEEE
            )
            slow_block = builder.block
    result = builder.phi(quick.type)
    result.add_incoming(quick, fast_block)
    result.add_incoming(exact, slow_block)
    return result


def _at_most_2_53(builder, value):
    negative = builder.icmp_signed("<", value, llvm.Constant(value.type, 0))
    magnitude = builder.select(negative, builder.neg(value), value)  # -2**63 stays "large"
    return builder.icmp_unsigned("<=", magnitude, llvm.Constant(value.type, 2**53))


def int_true_divide(a, b):
    """a / b for nonzero int64 operands, one of them beyond 2**53, correctly rounded (CPython's
    long_true_divide): long division to at least 55 quotient bits, a sticky bit for the rest,
    then one rounding int -> float and an exact scaling by a power of two."""
    negative = (a < 0) != (b < 0)
    scale = 1.0
    if a == -9223372036854775808:  # -2**63: |a| would not fit, so halve it (exactly)
        a = -4611686018427387904
        scale = 2.0
    if b == -9223372036854775808:
        b = -4611686018427387904
        scale *= 0.5
    numerator = a if a > 0 else -a
    denominator = b if b > 0 else -b
    quotient = numerator // denominator
    remainder = numerator - quotient * denominator
    exponent = 0
    while quotient < 18014398509481984:  # 2**54: one bit below rounding, one for the sticky
        if remainder >= denominator - remainder:  # 2 * remainder >= denominator, no overflow
            quotient = 2 * quotient + 1
            remainder = remainder - (denominator - remainder)
        else:
            quotient = 2 * quotient
            remainder = remainder + remainder
        exponent -= 1
    if remainder != 0:
        quotient |= 1  # sticky: something nonzero below the bits kept
    result = float(quotient) * 2.0**exponent * scale
    return -result if negative else result


# ---------------------------------------------------------------------------- is, is not


def _scalar(typ: types.Type) -> bool:
    return isinstance(typ, (types.Number, types.Boolean))


for _fn in (operator.is_, operator.is_not):

    @registry.typer(_fn)
    def _type_scalar_identity(args, kws):
        """`flag is True`, `x is y` of numbers, as Numba: values of one type are the same
        object when equal (True and False are singletons in CPython too); of different types,
        never (lowered in ember/lowering/numbers.py)."""
        if len(args) != 2 or kws:
            return None
        left, right = (types.unliteral(a) for a in args)
        if not (_scalar(left) and _scalar(right)):
            return None
        return signature(types.boolean, left, right)


# ---------------------------------------------------------------------------- dunder methods

# `x.__add__(y)`, `x.__hash__()`...: the operator or builtin the method stands for.
_BINARY_DUNDERS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "divmod": divmod,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "lshift": operator.lshift,
    "rshift": operator.rshift,
}
_COMPARISON_DUNDERS = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
_UNARY_DUNDERS = {
    "neg": operator.neg,
    "pos": operator.pos,
    "abs": abs,
    "invert": operator.invert,
    "hash": hash,
    "bool": bool,
    "int": int,
    "float": float,
    "trunc": math.trunc,
    "floor": math.floor,
    "ceil": math.ceil,
}


def _number_kind(typ: types.Type) -> int:
    """How far up bool/int < float < complex a number is: a method of a narrower kind given a
    wider operand returns NotImplemented in CPython (`(1).__add__(2.5)`)."""
    typ = types.unliteral(typ)
    if isinstance(typ, types.Complex):
        return 2
    return 1 if isinstance(typ, types.Float) else 0


def _check_operand(this: types.Type, other: types.Type, method: str) -> None:
    if not _scalar(types.unliteral(other)):
        return None
    if _number_kind(other) > _number_kind(this):
        raise TypingError(
            f"{types.unliteral(this)}.{method}({types.unliteral(other)}) is NotImplemented in "
            "Python (the other operand's method decides): write the operator itself"
        )


def _register_binary_dunder(name: str, fn, reflected: bool) -> None:
    method = f"__r{name}__" if reflected else f"__{name}__"

    def dunder(this, other):
        _check_operand(this, other, method)
        if reflected:
            return lambda this, other: fn(other, this)
        return lambda this, other: fn(this, other)

    for type_class in (types.Number, types.Boolean):
        overload_method(type_class, method)(dunder)


def _register_unary_dunder(name: str, fn) -> None:
    def dunder(this):
        return lambda this: fn(this)

    for type_class in (types.Number, types.Boolean):
        overload_method(type_class, f"__{name}__")(dunder)


for _name, _fn in _BINARY_DUNDERS.items():
    _register_binary_dunder(_name, _fn, reflected=False)
    _register_binary_dunder(_name, _fn, reflected=True)
for _name, _fn in _COMPARISON_DUNDERS.items():
    _register_binary_dunder(_name, _fn, reflected=False)
for _name, _fn in _UNARY_DUNDERS.items():
    _register_unary_dunder(_name, _fn)


@overload_method(types.BaseTuple, "__hash__")
@overload_method(types.UnicodeType, "__hash__")
def object_hash_method(this):
    """`t.__hash__()` of a tuple or a str: hash(t)."""
    return lambda this: hash(this)
