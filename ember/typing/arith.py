"""Typing of Python operators on numbers, booleans and tuples (Numba's numeric rules).

Integers compute at 64 bits: signed with signed gives int64, unsigned with unsigned gives
uint64, and mixing gives int64 (also for uint64, as Numba: `np.uint64(7) - 3` is int64 4).
Anything involving a float or complex follows NumPy's promotion, except that a float raised
to an integer power keeps the float's type (Numba: `float32 ** 2` is float32) and that a 32-bit
float meets only integers of 8 bits and int16 in 32 bits (Numba: `uint16 + float32` is float64).
"""

from __future__ import annotations

import operator

from ember import types
from ember.typing.conversions import _numpy_promote
from ember.typing.signature import Signature, signature
from ember.typing.templates import registry

_ARITHMETIC = (operator.add, operator.sub, operator.mul)
_ORDERING = (operator.lt, operator.le, operator.gt, operator.ge)
_EQUALITY = (operator.eq, operator.ne)


def _is_int_like(t: types.Type) -> bool:
    return isinstance(t, (types.Integer, types.Boolean))


def _is_unsigned(t: types.Type) -> bool:
    return isinstance(t, types.Integer) and not t.signed


def integer_result(a: types.Type, b: types.Type) -> types.Number:
    """The type two integers (or booleans) compute in: uint64 when both are unsigned, else
    int64 (Numba's scalar rule; a uint64 above 2**63 - 1 wraps, as in Numba)."""
    return types.uint64 if _is_unsigned(a) and _is_unsigned(b) else types.int64


def as_number(t: types.Type) -> types.Type:
    """An extension type that converts to a number (its `can_convert_to` hook accepts int64,
    else float64) computes as that number, before any @overload of the operator is tried
    (Numba's order: its number templates come first)."""
    hook = getattr(t, "can_convert_to", None)
    if isinstance(t, types.Number) or hook is None:
        return t
    for number in (types.int64, types.float64):
        if hook(None, number) is not None:
            return number
    return t


def arithmetic_result(a: types.Type, b: types.Type) -> types.Number | None:
    a, b = as_number(types.unliteral(a)), as_number(types.unliteral(b))
    if not (isinstance(a, types.Number) and isinstance(b, types.Number)):
        return None
    if _is_int_like(a) and _is_int_like(b):
        return integer_result(a, b)
    promoted = _numpy_promote(a, b)
    if promoted in (types.float32, types.complex64) and any(map(_widens_small_floats, (a, b))):
        return types.float64 if promoted is types.float32 else types.complex128
    return promoted


def _widens_small_floats(t: types.Type) -> bool:
    """Whether an integer operand takes float32 (complex64) arithmetic to 64 bits in Numba's
    operator rules: a uint16 does too, though NumPy's promotion keeps float32 for it."""
    return isinstance(t, types.Integer) and (t.bitwidth > 16 or (t.bitwidth == 16 and not t.signed))


def comparison_operands(a: types.Type, b: types.Type) -> tuple[types.Type, types.Type] | None:
    """The types two numbers compare in: their arithmetic type, except that a uint64 with a
    signed integer stays (uint64, int64), which lowering compares exactly (any negative is
    below every uint64; Numba wraps the uint64 to int64 there, so `np.uint64(2**63) > -1` would
    be False, and float64 would make 2**63 equal 2**63 - 1)."""
    operand = arithmetic_result(a, b)
    if operand is None:
        return None
    if isinstance(operand, types.Integer) and operand.signed and mixes_uint64(a, b):
        return exact_operands(a, b)
    return operand, operand


def exact_operands(a: types.Type, b: types.Type) -> tuple[types.Integer, types.Integer]:
    """A uint64 and a signed integer as (uint64, int64) operands, for operations lowering
    computes exactly on both (comparisons, floor division and modulo at 128 bits)."""
    return tuple(
        types.uint64 if isinstance(t, types.Integer) and not t.signed else types.int64
        for t in (types.unliteral(a), types.unliteral(b))  # (a bool meets it as an int64)
    )


def mixes_uint64(a: types.Type, b: types.Type) -> bool:
    """Whether a uint64 meets a signed integer (their int64 computing type wraps the uint64)."""
    a, b = types.unliteral(a), types.unliteral(b)
    if not (_is_int_like(a) and _is_int_like(b)):
        return False
    return any(isinstance(t, types.Integer) and not t.signed and t.bitwidth == 64 for t in (a, b))


def _unsigned_constants(args: tuple) -> tuple:
    """A constant int that is not negative beside a uint64 is a uint64 (NumPy's rule for a
    Python int, NEP 50): `np.uint64(2**64 - 2) + 1` is 2**64 - 1, where Numba's int64 gives
    -1. A negative one (and any variable int) keeps Numba's int64 arithmetic."""
    if len(args) != 2 or not any(types.unliteral(a) is types.uint64 for a in args):
        return args
    return tuple(
        types.uint64 if isinstance(a, types.IntegerLiteral) and a.literal_value >= 0 else a
        for a in args
    )


def _operator(fn):
    def decorate(rule):
        registry.typer(fn)(_keeping_numpy_scalars(rule))
        return rule

    return decorate


def _keeping_numpy_scalars(rule):
    """A NumPy scalar operand makes the result a NumPy scalar (np.int64(5) + 1 is np.int64,
    strong beside an array in NumPy's promotion); the operands compute as plain numbers."""

    def typer(args, kws):
        sig = rule(_unsigned_constants(args), kws)
        if sig is None or not any(map(types.is_numpy_scalar, args)):
            return sig
        return signature(types.numpy_scalar(sig.return_type), *sig.args)

    return typer


def _same(result: types.Type | None, args_type: types.Type | None = None) -> Signature | None:
    if result is None:
        return None
    operand = args_type or result
    return signature(result, operand, operand)


for _fn in _ARITHMETIC:

    @_operator(_fn)
    def _arith(args, kws):
        return _same(arithmetic_result(*args)) if len(args) == 2 else None


@_operator(operator.truediv)
def _truediv(args, kws):
    result = arithmetic_result(*args)
    if result is None:
        return None
    if _is_int_like(result):
        # a uint64 with a signed integer divides as floats, so a uint64 above 2**63 - 1
        # keeps its sign (an int64 operand would wrap it negative)
        operand = types.float64 if mixes_uint64(*args) else result
        return signature(types.float64, operand, operand)
    return _same(result)


for _fn in (operator.floordiv, operator.mod):

    @_operator(_fn)
    def _floor_ops(args, kws):
        result = arithmetic_result(*args)
        if result is None or isinstance(result, types.Complex):
            return None
        if result is types.int64 and mixes_uint64(*args):
            # exact (at 128 bits) then wrapped: the uint64 wrapped to int64 first would make
            # `np.uint64(2**64 - 2) // 3` -1 (Numba's value) and `% -3` -2
            return signature(result, *exact_operands(*args))
        return _same(result)


@_operator(operator.pow)
def _power(args, kws):
    result = arithmetic_result(*args)
    if result is None:
        return None
    base, exponent = (types.unliteral(a) for a in args)
    # an unsigned exponent stays unsigned: 2 ** np.uint64(2**63) is no negative power
    integer_exponent = types.uint64 if _is_unsigned(exponent) else types.int64
    if isinstance(base, types.Float) and _is_int_like(exponent):
        return signature(base, base, integer_exponent)  # Numba: float32 ** 2 stays float32
    if isinstance(result, types.Float | types.Integer) and _is_int_like(exponent):
        return signature(result, result, integer_exponent)
    return _same(result)


for _fn in (operator.lshift, operator.rshift):

    @_operator(_fn)
    def _shift(args, kws):
        left, right = (types.unliteral(a) for a in args)
        if not (_is_int_like(left) and _is_int_like(right)):
            return None
        result = types.uint64 if _is_unsigned(left) else types.int64
        return signature(result, result, types.uint64 if _is_unsigned(right) else types.int64)


for _fn in (operator.and_, operator.or_, operator.xor):

    @_operator(_fn)
    def _bitwise(args, kws):
        left, right = (types.unliteral(a) for a in args)
        if isinstance(left, types.Boolean) and isinstance(right, types.Boolean):
            return _same(types.boolean)
        if not (_is_int_like(left) and _is_int_like(right)):
            return None
        if _unsigned_bits(*args):
            return _same(types.uint64)
        result = integer_result(left, right)
        return _same(result) if isinstance(result, types.Integer) else None


def _unsigned_bits(a: types.Type, b: types.Type) -> bool:
    """Whether `&`, `|`, `^` of an unsigned integer with a bool stays unsigned: its bits are
    exact as a uint64 (CPython's and NumPy's value), where Numba's int64 turns
    `np.uint64(2**64 - 2) | True` negative."""
    a, b = types.unliteral(a), types.unliteral(b)
    unsigned_or_bool = all(_is_unsigned(t) or isinstance(t, types.Boolean) for t in (a, b))
    return unsigned_or_bool and (_is_unsigned(a) or _is_unsigned(b))


for _fn in _ORDERING + _EQUALITY:

    @_operator(_fn)
    def _compare(args, kws, _fn=_fn):
        left, right = (types.unliteral(a) for a in args)
        if isinstance(left, types.BaseTuple) and isinstance(right, types.BaseTuple):
            return _tuple_compare(_fn, left, right)
        operands = comparison_operands(left, right)
        if operands is None:
            return None
        operand = operands[0]
        if isinstance(operand, types.Complex) and _fn in _ORDERING:
            return None
        if isinstance(operand, types.Float) and _is_int_and_float(left, right):
            return _exact_int_float_compare(left, right)
        return signature(types.boolean, *operands)


def _is_int_and_float(left: types.Type, right: types.Type) -> bool:
    pair = (left, right)
    return any(isinstance(t, types.Integer) for t in pair) and any(
        isinstance(t, types.Float) for t in pair
    )


def _exact_int_float_compare(left: types.Type, right: types.Type) -> Signature:
    """Python compares an int with a float exactly (2**53 + 1 != 2.0**53): keep the integer an
    integer (64-bit) and the float a float64, and let lowering compare them exactly."""

    def widen(t: types.Type) -> types.Type:
        if isinstance(t, types.Float):
            return types.float64
        return types.uint64 if not t.signed and t.bitwidth == 64 else types.int64

    return signature(types.boolean, widen(left), widen(right))


def _tuple_compare(fn, left: types.BaseTuple, right: types.BaseTuple) -> Signature | None:
    """Lexicographic, as Python: members pair up to the shorter length, then lengths decide."""
    if not all(comparable(fn, a, b) for a, b in zip(left.types, right.types)):
        return None
    return signature(types.boolean, left, right)


_SCALARS = (types.Number, types.Boolean, types.NoneType, types.Optional)


def comparable(fn, a: types.Type, b: types.Type) -> bool:
    """Whether two tuple members compare with `fn`: numbers, tuples of such (nested), or
    values of other types with an `fn` (strings, lists...)."""
    a, b = types.unliteral(a), types.unliteral(b)
    if isinstance(a, types.BaseTuple) and isinstance(b, types.BaseTuple):
        return _tuple_compare(fn, a, b) is not None
    if not isinstance(a, _SCALARS) and not isinstance(b, _SCALARS):
        from ember.typing.context import TypingContext

        # strings, lists...: the library's overload of `fn` (containers/tuples.py compiles
        # a call of it for each pair of members)
        found = TypingContext().resolve_operator(fn, (a, b))
        return found is not None and isinstance(found.return_type, types.Boolean)
    operands = comparison_operands(a, b)
    return operands is not None and not (fn in _ORDERING and isinstance(operands[0], types.Complex))


for _fn in (operator.is_, operator.is_not):

    @_operator(_fn)
    def _identity(args, kws):
        left, right = args
        if left is types.none or right is types.none or left is right is types.ellipsis_type:
            return signature(types.boolean, left, right)
        return None


@_operator(operator.neg)
def _negate(args, kws):
    (value,) = (types.unliteral(a) for a in args)
    if isinstance(value, types.Boolean):
        return signature(types.int64, types.int64)
    if isinstance(value, types.Integer):
        return _widened_unary(value)
    if isinstance(value, types.Number):
        return signature(value, value)
    return None


def _widened_unary(value: types.Integer) -> Signature:
    """-x, +x, ~x of an integer are 64-bit (Numba: at least intp wide, so `{1: -x}` of an int8
    holds int64s), of the value computed at x's own width (Numba: -np.int8(-128) is -128,
    ~np.uint8(5) is 250)."""
    return signature(integer_result(value, value), value)


@_operator(operator.pos)
def _positive(args, kws):
    return _negate(args, kws)


@_operator(operator.invert)
def _invert(args, kws):
    (value,) = (types.unliteral(a) for a in args)
    if isinstance(value, types.Boolean):
        # logical not, as Numba and np.bool_ (Python's ~True is -2): `if ~np.isnan(v):`
        return signature(types.boolean, types.boolean)
    if isinstance(value, types.Integer):
        return _widened_unary(value)
    return None


@registry.typer(operator.not_)
def _logical_not(args, kws):
    (value,) = args
    if isinstance(types.unliteral(value), (types.Number, types.NoneType, types.BaseTuple)):
        return signature(types.boolean, value)
    return None


@registry.typer(operator.contains)
def _contains(args, kws):
    container, item = (types.unliteral(a) for a in args)
    if isinstance(container, types.LiteralStrKeyDict):  # its keys: containers/literal_containers
        return None
    if isinstance(container, types.BaseTuple) and all(
        comparable(operator.eq, member, item) for member in container.types
    ):
        return signature(types.boolean, container, item)
    return None
