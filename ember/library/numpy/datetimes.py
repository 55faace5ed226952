"""datetime64/timedelta64 arithmetic, comparisons and np.isnat on scalars and arrays, typed by
NumPy's own loop resolution (units promote to the finer one; NumPy's refusals are TypingErrors),
plus `np.datetime64(...)`/`np.timedelta64(...)` built from constant arguments.

The ufunc kernels of ember/library/numpy/ufuncs.py gain a datetime branch; Python operators on
datetime scalars and the ufunc calls with datetime scalars are typed here and lowered by the same
`lower_ufunc` as arrays, so scalars and array expressions share one implementation."""

from __future__ import annotations

import functools
import operator

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.library.numpy import indexing, ufuncs
from ember.library.numpy.support import numpy_dtype
from ember.lowering import datetimes as dt
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.registry import lower_builtin
from ember.typing.intrinsics import intrinsic
from ember.typing.overload import (
    NUMPY_ERRORS,
    overload,
    overload_method,
    register_jitable,
)
from ember.typing.signature import Signature, signature
from ember.typing.templates import registry

_DATETIME_LIKE = dt.DATETIME_LIKE
_I64 = llvm.IntType(64)
_F64 = llvm.DoubleType()


def _holds_datetime(typ: types.Type) -> bool:
    typ = types.unliteral(typ)
    return isinstance(typ.dtype if isinstance(typ, types.Array) else typ, _DATETIME_LIKE)


def _operand(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), (types.Array, types.Number, *_DATETIME_LIKE))


# ---------------------------------------------------------------------------- kernels


def _either_nat(builder, a, b):
    return builder.or_(dt.is_nat(builder, a), dt.is_nat(builder, b))


def _add_subtract(context, builder, loop, args):
    a, b = args
    result = builder.add(a, b) if loop.ufunc is np.add else builder.sub(a, b)
    return dt.nat_if(builder, _either_nat(builder, a, b), result)


def _timedelta_and_number(loop, args):
    """(timedelta value, number value, number type) of a mixed loop, whatever the order."""
    first, second = loop.in_types
    if isinstance(first, types.NPTimedelta):
        return args[0], args[1], second
    return args[1], args[0], first


def _from_float(builder, delta, result):
    """A float result as a timedelta: NaT when it is not finite (or the timedelta was NaT);
    fractions are dropped, as NumPy's cast does."""
    magnitude = call_intrinsic(builder, "llvm.fabs", [result])
    finite = builder.fcmp_ordered("<", magnitude, llvm.Constant(_F64, 2.0**63))
    bad = builder.or_(dt.is_nat(builder, delta), builder.not_(finite))
    return dt.nat_if(builder, bad, builder.fptosi(result, _I64))


def _multiply(context, builder, loop, args):
    delta, number, number_type = _timedelta_and_number(loop, args)
    if isinstance(number_type, types.Float):
        product = builder.fmul(builder.sitofp(delta, _F64), number)
        return _from_float(builder, delta, product)
    return dt.nat_if(builder, dt.is_nat(builder, delta), builder.mul(delta, number))


def _true_divide(context, builder, loop, args):
    a, b = args
    divisor_type = loop.in_types[1]
    if isinstance(divisor_type, types.NPTimedelta):  # a ratio: nan when either is NaT
        ratio = builder.fdiv(builder.sitofp(a, _F64), builder.sitofp(b, _F64))
        return builder.select(_either_nat(builder, a, b), llvm.Constant(_F64, float("nan")), ratio)
    if isinstance(divisor_type, types.Float):
        return _from_float(builder, a, builder.fdiv(builder.sitofp(a, _F64), b))
    zero = builder.icmp_signed("==", b, _I64(0))
    quotient = builder.sdiv(a, builder.select(zero, _I64(1), b))  # truncates, as NumPy's loop
    return dt.nat_if(builder, builder.or_(zero, dt.is_nat(builder, a)), quotient)


def _python_division(context, builder, impl, a, b):
    """Python's floor division or modulo of a by b, b made safe (nonzero) by the caller."""
    return context.compile_internal(builder, impl, types.int64(types.int64, types.int64), [a, b])


def _floor_divide(context, builder, loop, args):
    """timedelta // timedelta floors; timedelta // number truncates, as NumPy's loops do."""
    if not isinstance(loop.in_types[1], types.NPTimedelta):
        return _true_divide(context, builder, loop, args)
    a, b = args
    zero = builder.icmp_signed("==", b, _I64(0))
    quotient = _python_division(
        context, builder, _floor_quotient, a, builder.select(zero, _I64(1), b)
    )
    undefined = builder.or_(zero, _either_nat(builder, a, b))  # NumPy gives 0 then
    return builder.select(undefined, _I64(0), quotient)


def _remainder(context, builder, loop, args):
    a, b = args
    zero = builder.icmp_signed("==", b, _I64(0))
    rest = _python_division(context, builder, _floor_rest, a, builder.select(zero, _I64(1), b))
    return dt.nat_if(builder, builder.or_(zero, _either_nat(builder, a, b)), rest)


def _floor_quotient(a, b):
    return a // b


def _floor_rest(a, b):
    return a % b


_COMPARISONS = {np.equal: "==", np.not_equal: "!=", np.less: "<", np.less_equal: "<=",
                np.greater: ">", np.greater_equal: ">="}  # fmt: skip


def _compare(context, builder, loop, args):
    """NaT compares unequal to everything, itself included (NumPy >= 1.16)."""
    a, b = args
    symbol = _COMPARISONS[loop.ufunc]
    either = _either_nat(builder, a, b)
    result = builder.icmp_signed(symbol, a, b)
    if symbol == "!=":
        return builder.or_(either, result)
    return builder.and_(builder.not_(either), result)


def _unary(context, builder, loop, args):
    (a,) = args
    if loop.ufunc is np.positive:
        return a
    if loop.ufunc is np.negative:
        result = builder.neg(a)
    elif loop.ufunc is np.absolute:
        result = builder.select(builder.icmp_signed("<", a, _I64(0)), builder.neg(a), a)
    else:  # np.sign: NumPy's loop sees NaT as the negative count it is
        positive = builder.zext(builder.icmp_signed(">", a, _I64(0)), _I64)
        negative = builder.zext(builder.icmp_signed("<", a, _I64(0)), _I64)
        return builder.sub(positive, negative)
    return dt.nat_if(builder, dt.is_nat(builder, a), result)


def _isnat(context, builder, loop, args):
    return dt.is_nat(builder, args[0])


def _extreme(context, builder, loop, args):
    """maximum/minimum propagate NaT; fmax/fmin prefer the other operand."""
    a, b = args
    symbol = ">" if loop.ufunc in (np.maximum, np.fmax) else "<"
    chosen = builder.select(builder.icmp_signed(symbol, a, b), a, b)
    if loop.ufunc in (np.maximum, np.minimum):
        return dt.nat_if(builder, _either_nat(builder, a, b), chosen)
    a_nat, b_nat = dt.is_nat(builder, a), dt.is_nat(builder, b)
    return builder.select(a_nat, b, builder.select(b_nat, a, chosen))


_DATETIME_KERNELS = {
    np.add: _add_subtract, np.subtract: _add_subtract, np.multiply: _multiply,
    np.true_divide: _true_divide, np.floor_divide: _floor_divide, np.remainder: _remainder,
    **dict.fromkeys(_COMPARISONS, _compare),
    np.negative: _unary, np.positive: _unary, np.absolute: _unary, np.sign: _unary,
    np.isnat: _isnat,
    np.maximum: _extreme, np.minimum: _extreme, np.fmax: _extreme, np.fmin: _extreme,
}  # fmt: skip


def _with_datetime_branch(ufunc: np.ufunc, datetime_kernel):
    """The ufunc's kernel, taking `datetime_kernel` for loops over datetimes or timedeltas."""
    previous = ufuncs._KERNELS.get(ufunc)

    def kernel(context, builder, loop, args):
        if any(isinstance(t, _DATETIME_LIKE) for t in loop.in_types) or previous is None:
            return datetime_kernel(context, builder, loop, args)
        return previous(context, builder, loop, args)

    return kernel


for _ufunc, _kernel in _DATETIME_KERNELS.items():
    ufuncs.kernel(_ufunc)(_with_datetime_branch(_ufunc, _kernel))
ufuncs.register_ufunc_call(np.isnat)


# ---------------------------------------------------------------------------- typing


def _loop_signature(ufunc: np.ufunc, args: tuple) -> Signature | None:
    """The signature of `ufunc` applied to these operands when a datetime is among them."""
    if len(args) != ufunc.nin or not any(map(_holds_datetime, args)):
        return None
    if not all(map(_operand, args)):
        return None
    operand_types = tuple(types.unliteral(a) for a in args)
    try:
        loop = ufuncs.resolve_loop(ufunc, operand_types)
    except TypingError as error:  # Numba's words first, NumPy's reason after
        kinds = " and ".join(str(getattr(t, "dtype", t)) for t in operand_types)
        raise TypingError(
            f"ufunc '{ufunc.__name__}' is not supported between {kinds}: {error}"
        ) from None
    return Signature(ufuncs.result_type(loop, operand_types), operand_types)


def _lower_through_loop(ufunc: np.ufunc):
    def lower(context, builder, sig, args):
        loop = ufuncs.resolve_loop(ufunc, tuple(sig.args))
        return ufuncs.lower_ufunc(context, builder, loop, tuple(sig.args), list(args))

    return lower


def _register(key, ufunc: np.ufunc, into_array: bool = False) -> None:
    """Typing and lowering of `key` (an operator or the ufunc itself) on datetime scalars;
    `into_array`: an in-place operator, whose array targets `_register_inplace` handles."""

    @registry.typer(key)
    def _typer(args, kws):
        if kws or (into_array and args and isinstance(args[0], types.Array)):
            return None
        return _loop_signature(ufunc, tuple(args))

    lower = _lower_through_loop(ufunc)
    for datetime_class in _DATETIME_LIKE:
        if ufunc.nin == 1:
            lower_builtin(key, datetime_class)(lower)
        else:
            lower_builtin(key, datetime_class, types.Type)(lower)
            lower_builtin(key, types.Type, datetime_class)(lower)


_OPERATORS = {
    operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
    operator.truediv: np.true_divide, operator.floordiv: np.floor_divide,
    operator.mod: np.remainder, operator.eq: np.equal, operator.ne: np.not_equal,
    operator.lt: np.less, operator.le: np.less_equal, operator.gt: np.greater,
    operator.ge: np.greater_equal, operator.neg: np.negative, operator.pos: np.positive,
    abs: np.absolute,
}  # fmt: skip
_INPLACE_OPERATORS = {
    operator.iadd: np.add, operator.isub: np.subtract, operator.imul: np.multiply,
    operator.itruediv: np.true_divide, operator.ifloordiv: np.floor_divide,
    operator.imod: np.remainder,
}  # fmt: skip


def _register_inplace(key, ufunc: np.ufunc) -> None:
    """`array op= datetime scalar` writes into the array (as NumPy's `out=`); on scalars the
    plain operator's signature applies (the name is rebound)."""

    @registry.typer(key)
    def _typer(args, kws):
        if kws or len(args) != 2 or not isinstance(args[0], types.Array):
            return None
        target, other = args[0], types.unliteral(args[1])
        if not isinstance(other, _DATETIME_LIKE):
            return None
        if target.readonly:
            raise TypingError(f"cannot modify a read-only array ({target}) in place")
        loop = ufuncs.resolve_loop(ufunc, (target, other))
        ufuncs.check_output(ufunc, loop, (target, other), target)
        return signature(target, target, other)

    for datetime_class in _DATETIME_LIKE:

        @lower_builtin(key, types.Array, datetime_class)
        def _lower(context, builder, sig, args):
            target_type = sig.args[0]
            loop = ufuncs.resolve_loop(ufunc, tuple(sig.args))
            out = (target_type, args[0])
            ufuncs.lower_ufunc(context, builder, loop, tuple(sig.args), list(args), out=out)
            ufuncs.arr.incref(builder, target_type, args[0])
            return args[0]


for _key, _ufunc in _OPERATORS.items():
    _register(_key, _ufunc)
for _key, _ufunc in _INPLACE_OPERATORS.items():
    _register(_key, _ufunc, into_array=True)
    _register_inplace(_key, _ufunc)  # registered last: its lowering is found first
for _ufunc in _DATETIME_KERNELS:
    _register(_ufunc, _ufunc)


@registry.typer(np.where)
def _type_where(args, kws):
    """np.where(condition, x, y) with datetime choices (NumPy's common dtype of x and y)."""
    if kws or len(args) != 3 or not any(map(_holds_datetime, args[1:])):
        return None
    if not all(map(_operand, args)):
        return None
    cond, x, y = (types.unliteral(a) for a in args)
    try:
        dtype = ufuncs._where_dtype(x, y)
    except TypeError as error:
        raise TypingError(f"np.where: no common dtype of {x} and {y}: {error}") from None
    ndim = ufuncs.result_ndim((cond, x, y))
    if ndim is None:
        return signature(dtype, cond, x, y)
    layout = ufuncs.result_layout((cond, x, y), ndim)
    return signature(types.Array(dtype, ndim, layout), cond, x, y)


# ---------------------------------------------------------------------------- element stores


@registry.typer(operator.setitem)
def _type_setitem(args, kws):
    """a[i] = value (or a slice) for datetime arrays: a value of the same kind, in any unit
    ember converts (to a coarser unit it rounds down, as NumPy does)."""
    if len(args) != 3 or not isinstance(args[0], types.Array):
        return None
    array_type, index_type, value_type = args
    dtype, value_type = array_type.dtype, types.unliteral(value_type)
    if not isinstance(dtype, _DATETIME_LIKE) or not isinstance(value_type, _DATETIME_LIKE):
        return None
    if indexing.analyze(array_type, index_type) is None:
        return None
    if array_type.readonly:
        raise indexing.read_only_assignment(array_type)
    if not dt.convertible(value_type, dtype):
        raise TypingError(f"cannot store a {value_type} in an array of {dtype}")
    return signature(types.none, array_type, index_type, value_type)


# ---------------------------------------------------------------------------- constructors


def _constant_scalar(cls, args: tuple):
    """np.datetime64(...) / np.timedelta64(...) of literal arguments: the NumPy scalar that
    CPython would build, computed now; None when an argument is not a constant."""
    values = []
    for arg in args:
        if not isinstance(arg, types.Literal):
            return None
        values.append(arg.literal_value)
    try:
        return cls(*values)
    except (TypeError, ValueError) as error:
        raise TypingError(f"np.{cls.__name__}{tuple(values)!r}: {error}") from None


def _register_constructor(cls) -> None:
    kind = types.NPDatetime if cls is np.datetime64 else types.NPTimedelta

    @registry.typer(cls)
    def _typer(args, kws):
        if kws or not args:
            return None
        result = _run_time_form(kind, args)
        if result is not None:
            return signature(result, *args)
        if not all(isinstance(a, types.Literal) for a in args):
            names = ", ".join(str(a) for a in args)
            raise TypingError(
                f"np.{cls.__name__}({names}): compiled code builds a {cls.__name__} from "
                f"constant arguments (np.{cls.__name__}(1, 'D')), from an integer and a "
                f"constant unit (np.{cls.__name__}(n, 'D')) or from a {cls.__name__} value"
            )
        value = _constant_scalar(cls, tuple(args))
        return signature(types.unliteral(_typeof_scalar(value)), *args)

    @lower_builtin(cls, types.VarArg(types.Type))
    def _lower(context, builder, sig, args):
        if _run_time_form(kind, sig.args) is not None:
            return _lower_run_time_form(context, builder, sig, args)
        literal_args = tuple(sig.args)
        value = _constant_scalar(cls, literal_args)
        return dt.datetime_constant(context, builder, sig.return_type, value)


def _run_time_form(kind, args: tuple) -> types.Type | None:
    """The result type of the constructors compiled code runs on values: np.timedelta64(n,
    'D') of an integer variable and a constant unit; np.datetime64(x) of a datetime64 (or of
    a 0-d array of them; likewise timedelta64): x itself, unit kept."""
    first = types.unliteral(args[0])
    if (
        len(args) == 2
        and isinstance(first, types.Integer)
        and not isinstance(args[0], types.Literal)
    ):
        unit = args[1]
        known = (
            unit.literal_value in types.datetimes.UNITS[:-1]
            if isinstance(unit, types.StringLiteral)
            else False
        )
        if known:
            return kind(unit.literal_value)
        return None
    if len(args) == 1 and isinstance(first, types.Array) and first.ndim == 0:
        first = first.dtype
    if len(args) == 1 and isinstance(first, kind):
        return first
    return None


def _lower_run_time_form(context, builder, sig, args):
    source = sig.args[0]
    if isinstance(source, types.Array):  # the 0-d array's item
        item_sig = signature(sig.return_type, source)
        return context.compile_internal(builder, lambda a: a[()], item_sig, args[:1])
    if isinstance(source, types.NPDatetime | types.NPTimedelta):
        return args[0]
    return context.cast(builder, args[0], source, types.int64)  # a count of the unit


def _typeof_scalar(value) -> types.Type:
    from ember.dispatcher.typeof import typeof

    return typeof(value)


_register_constructor(np.datetime64)
_register_constructor(np.timedelta64)


# ---------------------------------------------------------------------------- reductions


@functools.cache
def _extreme_impl(is_max: bool):
    word = "maximum" if is_max else "minimum"

    def extreme(a, axis=None):
        """NaT wins, as in NumPy (>= 1.18)."""
        flat = a.ravel()
        if flat.size == 0:
            raise ValueError("zero-size array to reduction operation " + word
                             + " which has no identity")  # fmt: skip
        best = flat[0]
        for i in range(flat.size):
            item = flat[i]
            if np.isnat(item):
                return item
            if (item > best) if is_max else (item < best):
                best = item
        return best

    return extreme


def _register_reduction(name: str, make_impl, dtype_classes=_DATETIME_LIKE) -> None:
    """`np.<name>(a)` and `a.<name>()` (whole arrays) for arrays of `dtype_classes`, with the
    implementation `make_impl(dtype)`."""

    def typer(a, axis=None):
        if not (isinstance(a, types.Array) and isinstance(a.dtype, dtype_classes)):
            return None
        if not isinstance(axis, (types.NoneType, types.Omitted)) and axis is not None:
            raise TypingError(f"{name}() of a datetime array along an axis is not supported")
        return make_impl(a.dtype)

    overload(getattr(np, name), jit_options=NUMPY_ERRORS)(typer)
    if hasattr(np.ndarray, name):
        overload_method(types.Array, name, jit_options=NUMPY_ERRORS)(typer)
        # before the numeric reductions' typer, which refuses datetime arrays
        methods = registry.functions[(types.Array, name)]
        methods.insert(0, methods.pop())


@functools.cache
def _sum_impl(dtype: types.NPTimedelta):
    zero = np.timedelta64(0, dtype.unit) if dtype.unit else np.timedelta64(0)

    def total(a, axis=None):
        """NaT makes the sum NaT, as in NumPy."""
        flat = a.ravel()
        result = zero
        for i in range(flat.size):
            result += flat[i]
        return result

    return total


@functools.cache
def _arg_extreme_impl(is_max: bool):
    word = "argmax" if is_max else "argmin"

    def arg_extreme(a, axis=None):
        """The index of the first NaT, else of the first extreme item, as NumPy's."""
        flat = a.ravel()
        if flat.size == 0:
            raise ValueError("attempt to get " + word + " of an empty sequence")
        best = 0
        for i in range(flat.size):
            item = flat[i]
            if np.isnat(item):
                return i
            if (item > flat[best]) if is_max else (item < flat[best]):
                best = i
        return best

    return arg_extreme


for _name, _is_max in (("min", False), ("max", True), ("amin", False), ("amax", True)):
    _register_reduction(_name, lambda dtype, is_max=_is_max: _extreme_impl(is_max))
for _name, _is_max in (("argmin", False), ("argmax", True)):
    _register_reduction(_name, lambda dtype, is_max=_is_max: _arg_extreme_impl(is_max))
_register_reduction("sum", _sum_impl, dtype_classes=types.NPTimedelta)


def _builtin_extreme(is_max: bool):
    def typer(a, b):
        a, b = types.unliteral(a), types.unliteral(b)
        if not isinstance(a, _DATETIME_LIKE) or type(a) is not type(b):
            return None
        if a is not b:  # units differ: both in the finer (NumPy's maximum), one result type
            if is_max:
                return lambda a, b: _extreme_of(*_in_common_unit(a, b), True)
            return lambda a, b: _extreme_of(*_in_common_unit(a, b), False)
        if is_max:
            return lambda a, b: b if b > a else a  # Python's max: the first unless beaten
        return lambda a, b: b if b < a else a

    return typer


@register_jitable
def _extreme_of(a, b, is_max):
    if is_max:
        return b if b > a else a
    return b if b < a else a


@intrinsic
def _in_common_unit(typingctx, a, b):
    """Two datetimes (or timedeltas) of different units as values of the finer one."""
    common = types.datetimes.datetime_type_of_dtype(np.result_type(numpy_dtype(a), numpy_dtype(b)))
    if common is None or not (dt.convertible(a, common) and dt.convertible(b, common)):
        return None

    def codegen(context, builder, sig, args):
        values = [context.cast(builder, v, t, common) for v, t in zip(args, sig.args)]
        return context.make_tuple(builder, sig.return_type, values)

    return signature(types.UniTuple(common, 2), a, b), codegen


overload(max)(_builtin_extreme(True))
overload(min)(_builtin_extreme(False))


# ---------------------------------------------------------------------------- int(x), hash(x)

# Units whose scalars NumPy's int() reads as their count (coarser ones become Python dates).
_COUNTED_UNITS = ("", "ns", "ps", "fs", "as")


@intrinsic
def _count(typingctx, value):
    """The int64 count of units a datetime64/timedelta64 holds (NaT: the smallest int64)."""
    if not isinstance(value, _DATETIME_LIKE):
        return None
    return signature(types.int64, value), lambda context, builder, sig, args: args[0]


@overload(int)
def _datetime_int(x):
    if not isinstance(x, _DATETIME_LIKE):
        return None
    if x.unit not in _COUNTED_UNITS:
        raise TypingError(
            f"int() of {x} is not supported: only datetime64[ns] and timedelta64[ns] (or "
            f"finer units) convert to their count, as in NumPy; got unit '{x.unit}'"
        )
    return lambda x: _count(x)


@overload(hash)
def _datetime_hash(x):
    """The count itself, as Numba gives (NumPy hashes the Python date it makes); a generic
    timedelta64 (no unit) is NumPy's ValueError."""
    if isinstance(x, types.NPTimedelta) and not x.unit:
        return _hash_generic_timedelta
    if isinstance(x, _DATETIME_LIKE):
        return lambda x: _count(x)
    return None


def _hash_generic_timedelta(x):
    raise ValueError("Can't hash generic timedelta64")


# ---------------------------------------------------------------------------- np.arange


def _arange_dtype(*args) -> np.dtype | None:
    """NumPy's result dtype of np.arange(start, stop[, step]) of datetimes: start and stop
    datetime64 (or all timedelta64), a timedelta64 step; the finer unit of them all."""
    kinds = [type(types.unliteral(a)) for a in args]
    if kinds[:2] not in ([types.NPDatetime] * 2, [types.NPTimedelta] * 2):
        return None
    if len(args) == 3 and kinds[2] is not types.NPTimedelta:
        return None
    return np.result_type(*(numpy_dtype(types.unliteral(a)) for a in args))


@overload(np.arange)
def datetime_arange(start, stop, step=None):
    """np.arange of datetimes (or timedeltas) by a timedelta step (one unit when omitted)."""
    bounds = (start, stop) if step is None or isinstance(step, types.Omitted) else None
    dtype = _arange_dtype(*(bounds or (start, stop, step)))
    if dtype is None:
        return None
    unit = np.datetime_data(dtype)[0]
    one, zero = np.timedelta64(1, unit), np.timedelta64(0, unit)

    def arange(start, stop, step=None):
        by = one if step is None else step
        if np.isnat(start) or np.isnat(stop) or np.isnat(by):
            raise ValueError("arange: cannot use NaT (not-a-time) datetime values")
        if by == zero:
            raise ValueError("arange: step cannot be zero")
        span = stop - start
        count = span // by
        if count * by != span:  # a partial step still yields its item
            count += 1
        out = np.empty(max(count, 0), dtype)
        for i in range(out.size):
            out[i] = start + i * by
        return out

    return arange
