"""Python builtins in compiled code: abs, min, max, int, float, bool, complex, round, pow,
divmod; tuple indexing, comparison and membership."""

from __future__ import annotations

import operator

from llvmlite import ir as llvm

from ember import types
from ember.lowering.casts import make_complex
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.registry import VarArgs, lower_builtin
from ember.typing.arith import arithmetic_result
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
        if isinstance(types.unliteral(args[0]), types.Complex):
            return None
        return signature(types.int64, types.unliteral(args[0]))
    return None


@lower_builtin(int, types.Float)
def float_to_int(context, builder, sig, args):
    (value,) = args
    if context.options.error_model == "python":
        is_nan = builder.fcmp_unordered("uno", value, value)
        context.guard(builder, is_nan, ValueError, "cannot convert float NaN to integer")
        magnitude = call_intrinsic(builder, "llvm.fabs", [value])
        is_inf = builder.fcmp_ordered("==", magnitude, llvm.Constant(value.type, float("inf")))
        context.guard(builder, is_inf, OverflowError, "cannot convert float infinity to integer")
    return context.cast(builder, value, sig.args[0], sig.return_type)


@lower_builtin(int, types.Number)
def number_to_int(context, builder, sig, args):
    return context.cast(builder, args[0], sig.args[0], sig.return_type)


@registry.typer(float)
def _type_float(args, kws):
    if len(args) == 1 and not kws and _numbers(args):
        if isinstance(types.unliteral(args[0]), types.Complex):
            return None
        return signature(types.float64, types.unliteral(args[0]))
    return None


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
    real_part = context.cast(builder, args[0], sig.args[0], types.complex128)
    imag_part = context.cast(builder, args[1], sig.args[1], types.complex128)
    # complex(a, b) == a + b*1j, also for complex a and b
    real = builder.fsub(builder.extract_value(real_part, 0), builder.extract_value(imag_part, 1))
    imag = builder.fadd(builder.extract_value(real_part, 1), builder.extract_value(imag_part, 0))
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
    from ember.library.mathlib import call_libm

    real, imag = builder.extract_value(args[0], 0), builder.extract_value(args[0], 1)
    return call_libm(builder, "hypot", real, imag)


@registry.typer(round)
def _type_round(args, kws):
    if kws or not 1 <= len(args) <= 2 or not _numbers(args):
        return None
    value = types.unliteral(args[0])
    if isinstance(value, types.Complex):
        return None
    if len(args) == 1:
        operand = value if isinstance(value, types.Float) else types.int64
        return signature(types.int64, operand)
    if not isinstance(types.unliteral(args[1]), (types.Integer, types.Boolean)):
        return None
    operand = value if isinstance(value, types.Float) else types.int64
    return signature(operand, operand, types.int64)


@lower_builtin(round, types.Integer)
def int_round(context, builder, sig, args):
    return args[0]


@lower_builtin(round, types.Float)
def float_round(context, builder, sig, args):
    """Round half to even, as Python's round() does."""
    rounded = _roundeven(builder, args[0])
    return context.cast(builder, rounded, sig.args[0], sig.return_type)


@lower_builtin(round, types.Float, types.Integer)
def float_round_digits(context, builder, sig, args):
    value, digits = args
    ten = llvm.Constant(value.type, 10.0)
    scale = call_intrinsic(builder, "llvm.pow", [ten, builder.sitofp(digits, value.type)])
    scaled = builder.fmul(value, scale)
    return builder.fdiv(_roundeven(builder, scaled), scale)


@lower_builtin(round, types.Integer, types.Integer)
def int_round_digits(context, builder, sig, args):
    return args[0]


def _roundeven(builder, value):
    return call_intrinsic(builder, "llvm.roundeven", [value])


# ---------------------------------------------------------------------------- min, max


def _min_max_operands(args) -> tuple | None:
    if len(args) == 1 and isinstance(args[0], types.BaseTuple):
        args = tuple(args[0].types)
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
        if kws or found is None:
            return None
        result, count = found
        if len(args) == 1:
            return signature(result, types.UniTuple(result, count))
        return signature(result, *([result] * count))

    @lower_builtin(_builtin, VarArgs(types.Number))
    def _min_max(context, builder, sig, args, _symbol=_symbol):
        return _select_extreme(context, builder, sig.return_type, list(args), _symbol)

    @lower_builtin(_builtin, types.BaseTuple)
    def _min_max_tuple(context, builder, sig, args, _symbol=_symbol):
        items = [builder.extract_value(args[0], i) for i in range(len(sig.args[0]))]
        return _select_extreme(context, builder, sig.return_type, items, _symbol)


def _select_extreme(context, builder, typ, items, symbol):
    """Python's rule: keep the current item unless a later one compares strictly better."""
    key = operator.lt if symbol == "<" else operator.gt
    compare = context.get_function(key, signature(types.boolean, typ, typ))
    current = items[0]
    for item in items[1:]:
        better = compare(context, builder, signature(types.boolean, typ, typ), [item, current])
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


@registry.typer(divmod)
def _type_divmod(args, kws):
    if len(args) != 2 or kws:
        return None
    operand = arithmetic_result(*args)
    if operand is None or isinstance(operand, types.Complex):
        return None
    return signature(types.UniTuple(operand, 2), operand, operand)


@lower_builtin(divmod, types.Number, types.Number)
def builtin_divmod(context, builder, sig, args):
    operand = sig.args[0]
    op_sig = signature(operand, operand, operand)
    quotient = context.call_implementation(builder, operator.floordiv, op_sig, args)
    remainder = context.call_implementation(builder, operator.mod, op_sig, args)
    result = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    result = builder.insert_value(result, quotient, 0)
    return builder.insert_value(result, remainder, 1)


# ---------------------------------------------------------------------------- tuples


@registry.typer(operator.getitem)
def _type_tuple_getitem(args, kws):
    container, index = (types.unliteral(a) for a in args)
    if isinstance(container, types.UniTuple) and isinstance(index, types.Integer):
        return signature(container.dtype, container, types.int64)
    return None


@lower_builtin(operator.getitem, types.UniTuple, types.Integer)
def tuple_getitem(context, builder, sig, args):
    """A dynamic index into a homogeneous tuple: spill it and load the element."""
    from ember.lowering.callconv import alloca_in_entry

    tuple_type = sig.args[0]
    container, index = args
    count = llvm.Constant(index.type, len(tuple_type))
    negative = builder.icmp_signed("<", index, llvm.Constant(index.type, 0))
    index = builder.select(negative, builder.add(index, count), index)
    out_of_range = builder.icmp_unsigned(">=", index, count)
    context.guard(builder, out_of_range, IndexError, "tuple index out of range")
    element_type = context.value_type(tuple_type.dtype)
    storage = alloca_in_entry(builder, llvm.ArrayType(element_type, len(tuple_type)))
    for position in range(len(tuple_type)):
        slot = builder.gep(storage, [_i32(0), _i32(position)])
        builder.store(builder.extract_value(container, position), slot)
    return builder.load(builder.gep(storage, [_i32(0), index]))


@lower_builtin(operator.contains, types.BaseTuple, types.Number)
def tuple_contains(context, builder, sig, args):
    container, item = args
    found = llvm.Constant(llvm.IntType(1), 0)
    for position, member in enumerate(sig.args[0].types):
        common = arithmetic_result(member, sig.args[1])
        eq_sig = signature(types.boolean, common, common)
        left = context.cast(builder, builder.extract_value(container, position), member, common)
        right = context.cast(builder, item, sig.args[1], common)
        equal = context.call_implementation(builder, operator.eq, eq_sig, [left, right])
        found = builder.or_(found, equal)
    return found


for _fn in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):

    @lower_builtin(_fn, types.BaseTuple, types.BaseTuple)
    def _tuple_compare(context, builder, sig, args, _fn=_fn):
        return _lexicographic(context, builder, sig, args, _fn)


def _lexicographic(context, builder, sig, args, fn):
    """Python tuple comparison: the first unequal members decide, else the lengths."""
    left_type, right_type = sig.args
    pairs = list(zip(left_type.types, right_type.types))
    if fn in (operator.eq, operator.ne) and len(left_type) != len(right_type):
        return llvm.Constant(llvm.IntType(1), int(fn is operator.ne))
    length_result = fn(len(left_type), len(right_type))
    result = llvm.Constant(llvm.IntType(1), int(length_result))
    decided = llvm.Constant(llvm.IntType(1), 0)
    for position, (a_type, b_type) in enumerate(pairs):
        common = arithmetic_result(a_type, b_type)
        a = context.cast(builder, builder.extract_value(args[0], position), a_type, common)
        b = context.cast(builder, builder.extract_value(args[1], position), b_type, common)
        bool_sig = signature(types.boolean, common, common)
        equal = context.call_implementation(builder, operator.eq, bool_sig, [a, b])
        outcome = context.call_implementation(builder, fn, bool_sig, [a, b])
        decides_here = builder.and_(builder.not_(decided), builder.not_(equal))
        result = builder.select(decides_here, outcome, result)
        decided = builder.or_(decided, decides_here)
    return result


def _i32(value: int) -> llvm.Constant:
    return llvm.Constant(llvm.IntType(32), value)
