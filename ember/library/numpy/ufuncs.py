"""NumPy ufuncs and Python operators on arrays: broadcasting, NumPy's type promotion and
NumPy's floating-point behaviour (no Python exceptions for division by zero or domain errors).

Types come from NumPy itself (`ufunc.resolve_dtypes`), with Python's scalars passed as the
"weak" Python types of NEP 50: `float32_array * 2.0` stays float32, `int8_array + 1` stays int8.
A scalar of Python's types (int64, uint64, float64, complex128) is weak unless its type says
it is a NumPy scalar (types.np_int64...: np.int64(5) passed in or made inside, an array's
item); a narrower one is always a NumPy scalar, strong.
An integer scalar that does not fit a narrower integer loop raises NumPy's OverflowError
(`uint8_array + 300`), except in comparisons, which are exact for every value
(ember/library/builtins/int_scalars.py).

Each ufunc has a scalar kernel `kernel(context, builder, loop, args)` (ufunc_kernels.py) over
the loop's input types; arrays run it in `arrays_kernels.elementwise`, scalars call it once.
`np.where` and the array-expression nodes of ember/rewrites/arrayexpr.py use the same kernels.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.library.builtins import int_scalars
from ember.library.numpy.support import from_numpy_dtype, make_pysig, numpy_dtype, parse_dtype
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
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
    # NumPy's loop is float16 (ember has none): it runs in float32, each result rounded to
    # float16's precision and range, so the values are NumPy's (the dtype is float32)
    half_rounded: bool = False


# the scalar types a Python int, float or complex has in compiled code (NEP 50's weak ones)
_PYTHON_SCALAR_TYPES = (types.int64, types.uint64, types.float64, types.complex128)


def may_be_python_scalar(typ: types.Type) -> bool:
    """Whether a value of type `typ` may be a Python number (weak in NumPy's promotion)."""
    if types.is_numpy_scalar(typ):
        return False
    return isinstance(typ, types.Literal) or types.unliteral(typ) in _PYTHON_SCALAR_TYPES


def operand_type(typ: types.Type) -> types.Type:
    """An operand's type for NumPy's promotion: a literal widened, a NumPy scalar's type kept
    (types.unliteral would make np.int64(100) weak)."""
    return typ.literal_type if isinstance(typ, types.Literal) else typ


def _weak_or_strong(typ: types.Type, weak: bool):
    """A scalar operand beside an array is weak (NEP 50) when it may be a Python scalar: a
    constant, or a value of the type Python's numbers have in compiled code. A narrower one
    (int8..int32, uint8..uint32, float32, complex64) can only be a NumPy scalar, which NumPy
    keeps strong: `int8_array + np.int16(300)` is int16, `uint8_array - np.int8(3)` int16."""
    weak = weak and may_be_python_scalar(typ)
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


# ufunc -> (operand types -> (input types, output type) or None): loops picked by their
# declared types before NumPy's resolution (@vectorize's datetime loops, which NumPy keeps
# without their units)
_DECLARED_LOOPS: dict[np.ufunc, Callable] = {}
DATETIME_TYPES = (types.NPDatetime, types.NPTimedelta)


def declare_loops(ufunc: np.ufunc, pick: Callable) -> None:
    """Called as `ufunc` is registered, before any call of it is typed (none is cached)."""
    _DECLARED_LOOPS[ufunc] = pick


@functools.cache
def resolve_loop(
    ufunc: np.ufunc,
    operand_types: tuple,
    dtype: np.dtype | None = None,
    signature: tuple | None = None,
    casting: str | None = None,
) -> Loop:
    """NumPy's loop for these operand types (arrays strong, scalars weak when an array is
    present; `dtype`: the call's `dtype=`, the loop's output dtype; `signature`/`casting`: the
    call's keywords); TypingError when NumPy has none or ember lacks its types."""
    declared = _DECLARED_LOOPS.get(ufunc)
    if declared is not None and dtype is None and signature is None:
        found = declared(operand_types)
        if found is not None:
            return Loop(ufunc, *found)
    has_array = any(isinstance(t, types.Array) for t in operand_types)
    if any(isinstance(t, types.Array) and _holds_text(t.dtype) for t in operand_types):
        raise TypingError(
            f"np.{ufunc.__name__} of a NumPy string array is not supported in compiled code: "
            "loop over its elements (`s[i]` is a str), or compare with `s == 'x'`"
        )
    dtypes = tuple(_weak_or_strong(t, has_array) for t in operand_types)
    fixed = {} if dtype is None else {"signature": (*([None] * ufunc.nin), dtype)}
    if signature is not None:
        fixed["signature"] = signature
    strict = casting in ("no", "equiv", "safe")
    if casting is not None:
        # NumPy 2.x crashes resolving a Python scalar under the strict rules: the inputs are
        # checked below instead (a Python scalar takes the loop's dtype, as in NumPy)
        fixed["casting"] = "unsafe" if strict else casting
    try:
        resolved = ufunc.resolve_dtypes((*dtypes, *([None] * ufunc.nout)), **fixed)
        for position, (given, wanted) in enumerate(zip(dtypes, resolved)):
            if strict and isinstance(given, np.dtype) and not np.can_cast(given, wanted, casting):
                raise TypeError(
                    f"Cannot cast ufunc '{ufunc.__name__}' input {position} from {given!r} to "
                    f"{wanted!r} with casting rule '{casting}'"
                )  # NumPy's words
    except (TypeError, ValueError) as error:
        names = ", ".join(str(types.unliteral(t)) for t in operand_types)
        raise TypingError(f"np.{ufunc.__name__} is not defined for ({names}): {error}") from None
    half = any(d == np.float16 for d in resolved) and ufunc not in _FLOAT16_ANSWERS
    if half:  # only int8, uint8 and bool operands get here: exact in float32 too
        resolved = tuple(np.dtype(np.float32) if d == np.float16 else d for d in resolved)
    try:
        converted = tuple(from_numpy_dtype(d) for d in resolved)
    except TypingError:
        raise TypingError(
            f"np.{ufunc.__name__} of {', '.join(str(d) for d in dtypes)} computes in "
            f"{', '.join(str(d) for d in resolved)}, a dtype ember does not support"
            + (": convert the operands to float32 first" if np.float16 in resolved else "")
        ) from None
    return Loop(ufunc, converted[: ufunc.nin], converted[ufunc.nin], half)


# ufuncs whose answer is float16's precision itself: float32 cannot stand in for it
_FLOAT16_ANSWERS = frozenset({np.spacing, np.nextafter})


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
    """A scalar when no operand has a dimension (scalars and 0-d arrays: NumPy's ufuncs return
    a scalar then, `np.array(3) + 1` is 4, and Numba does the same), else the new array."""
    ndim = result_ndim(operand_types)
    if not ndim:
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
    result = _KERNELS[loop.ufunc](context, builder, loop, args)
    return round_to_half(builder, result) if loop.half_rounded else result


def round_to_half(builder, value):
    """A float32 (or a struct of them) rounded to the nearest float16 (NumPy's float16 loops
    compute in float32, then round so); other values unchanged."""
    if isinstance(value.type, llvm.FloatType):
        return builder.fpext(builder.fptrunc(value, llvm.HalfType()), value.type)
    if isinstance(value.type, llvm.LiteralStructType):
        for position in range(len(value.type.elements)):
            member = builder.extract_value(value, position)
            value = builder.insert_value(value, round_to_half(builder, member), position)
    return value


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


# Each ufunc's scalar kernel (ufunc_kernels.py), registered with `kernel` above.
import ember.library.numpy.ufunc_kernels  # noqa: E402, F401

SUPPORTED_UFUNCS = tuple(_KERNELS)


# ---------------------------------------------------------------------------- lowering


def lower_ufunc(context, builder, loop: Loop, operand_types: tuple, values: list,
                out=None, where=None):  # fmt: skip
    """Apply `loop` to scalars or arrays; returns a scalar, or a new array (or fills `out`, an
    (array type, value) pair, and returns nothing; `where`, a (boolean array type, value)
    pair, then selects the elements written: the others keep out's values)."""
    context = numpy_context(context)
    operand_types = tuple(types.unliteral(t) for t in operand_types)
    ndim = result_ndim(operand_types)
    if ndim is None and out is None:
        return apply_loop(context, builder, loop, operand_types, values)
    operand_types, values, finish = prepare_scalars(context, builder, loop, operand_types, values)
    if ndim == 0 and out is None:  # only 0-d arrays and scalars: a scalar result
        operand_types, values = _zero_d_items(builder, operand_types, values)
        return finish(builder, apply_loop(context, builder, loop, operand_types, values))
    operands = [kernels.operand(builder, t, v) for t, v in zip(operand_types, values)]
    dtypes = tuple(op.dtype for op in operands)

    def body(b, items):
        result = finish(b, apply_loop(context, b, loop, dtypes, items))
        return context.cast(b, result, loop.out_type, out_dtype)

    if out is not None:
        out_type, out_value = out
        out_dtype = out_type.dtype
        if where is not None:
            body, operands = _masked(context, builder, body, operands, where, out)
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


def _zero_d_items(builder, operand_types: tuple, values: list) -> tuple[tuple, list]:
    """The operands with each 0-d array replaced by its only element (type and value)."""
    new_types, new_values = [], []
    for typ, value in zip(operand_types, values):
        if isinstance(typ, types.Array):
            value = arr.load_item(builder, typ.dtype, arr.unpack(builder, typ, value).data)
            typ = typ.dtype
        new_types.append(typ)
        new_values.append(value)
    return tuple(new_types), new_values


def _masked(context, builder, body, operands: list, where: tuple, out: tuple) -> tuple:
    """(body, operands) computing only where the mask is true: the mask and `out` itself join
    the operands, and a false mask keeps out's element (NumPy's `where=`)."""
    count, mask_type = len(operands), where[0]

    def masked_body(b, items):
        computed = body(b, items[:count])
        chosen = context.cast(b, items[count], mask_type.dtype, types.boolean)
        return b.select(chosen, computed, items[count + 1])

    extra = [kernels.operand(builder, t, v) for t, v in (where, out)]
    return masked_body, [*operands, *extra]


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


def check_output(ufunc: np.ufunc, loop: Loop, operand_types: tuple, out: types.Array,
                 casting: str = "same_kind") -> None:  # fmt: skip
    """TypingError unless `out` can receive the loop's result, as NumPy requires: writable,
    at least the inputs' ndim (outputs never broadcast), castable by the call's `casting=`."""
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
    if not np.can_cast(result, target, casting=casting):
        raise TypingError(
            f"Cannot cast ufunc '{ufunc.__name__}' output from {result!r} to {target!r} with "
            f"casting rule '{casting}'"
        )  # NumPy's words


# A call's keywords after `out`, in the order the typed signature carries them
_KEYWORDS = ("where", "casting", "order", "dtype", "subok", "signature")
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_ORDERS = ("K", "A", "C", "F")


def _ufunc_pysig(ufunc: np.ufunc):
    """NumPy's parameters of a ufunc call: the inputs (positional only), `out`, then the
    keywords (None standing for NumPy's defaults casting='same_kind', order='K', subok=True)."""
    inputs = ["x"] if ufunc.nin == 1 else [f"x{k + 1}" for k in range(ufunc.nin)]
    keywords = ["where=True", *(f"{name}=None" for name in _KEYWORDS[1:])]
    return make_pysig(", ".join([*inputs, "/", "out=None", "*", *keywords]))


@dataclass(frozen=True)
class CallKeywords:
    """A call's casting=, order=, dtype=/signature= (constants, read when typing)."""

    casting: str = "same_kind"
    order: str = "K"
    signature: tuple | None = None  # NumPy's signature=: nin + nout dtypes or Nones

    @classmethod
    def of(cls, ufunc: np.ufunc, given: dict) -> CallKeywords:
        name = ufunc.__name__
        casting = _constant_choice(name, "casting", given.get("casting"), _CASTINGS)
        order = _constant_choice(name, "order", given.get("order"), _ORDERS)
        subok = given.get("subok")
        if subok is not None and not isinstance(
            types.unliteral(subok), (types.Boolean, types.NoneType)
        ):
            raise TypingError(f"np.{name}: subok= must be a bool, not {subok}")
        dtype = _call_dtype(ufunc, given.get("dtype", types.none))
        signature = _call_signature(ufunc, given.get("signature", types.none))
        if dtype is not None and signature is not None:
            raise TypingError(f"np.{name}: cannot specify both 'signature' and 'dtype'")
        if dtype is not None:
            signature = (*([None] * ufunc.nin), dtype)
        return cls(casting or "same_kind", order or "K", signature)

    def loop(self, ufunc: np.ufunc, operand_types: tuple) -> Loop:
        return resolve_loop(ufunc, operand_types, None, self.signature, self.casting)

    def result(self, loop: Loop, operand_types: tuple) -> types.Type:
        """The new array's type: `order=` picks its layout (K and A: as the inputs are)."""
        typ = result_type(loop, operand_types)
        if isinstance(typ, types.Array) and typ.ndim > 1 and self.order in "CF":
            return typ.copy(layout=self.order)
        return typ


def _constant_choice(name: str, keyword: str, given, choices: tuple) -> str | None:
    """The constant string a keyword names (None when omitted); NumPy's words otherwise."""
    if given is None or isinstance(given, (types.NoneType, types.Omitted)):
        return None
    if not isinstance(given, types.StringLiteral):
        raise TypingError(f"np.{name}: {keyword}= must be a constant string, not {given}")
    if given.literal_value not in choices:
        listed = ", ".join(repr(choice) for choice in choices)
        raise TypingError(
            f"np.{name}: {keyword} must be one of {listed} (got {given.literal_value!r})"
        )
    return given.literal_value


def _call_dtype(ufunc: np.ufunc, dtype: types.Type) -> np.dtype | None:
    """The NumPy dtype a call's `dtype=` names (None when not given)."""
    if isinstance(dtype, (types.NoneType, types.Omitted)):
        return None
    try:
        return numpy_dtype(parse_dtype(dtype))
    except TypingError as error:
        raise TypingError(f"np.{ufunc.__name__}: dtype= {error}") from None


def _call_signature(ufunc: np.ufunc, given: types.Type) -> tuple | None:
    """NumPy's `signature=` as nin + nout dtypes (None: NumPy picks): a type string 'dd->d',
    a tuple of dtypes and Nones, or one dtype (every operand's)."""
    name, count = ufunc.__name__, ufunc.nin + ufunc.nout
    if isinstance(given, (types.NoneType, types.Omitted)):
        return None
    if isinstance(given, types.StringLiteral) and "->" in given.literal_value:
        before, after = given.literal_value.split("->")
        codes = before.replace(",", "") + after
        if len(before.replace(",", "")) != ufunc.nin or len(after) != ufunc.nout:
            raise TypingError(
                f"np.{name}: signature= {given.literal_value!r}: a type-string for {name} has "
                f"{ufunc.nin} typecode(s) before and {ufunc.nout} after the -> sign"
            )
        try:
            return tuple(np.dtype(code) for code in codes)
        except TypeError as error:
            raise TypingError(f"np.{name}: signature= {error}") from None
    if isinstance(given, types.BaseTuple):
        if len(given.types) != count:
            raise TypingError(f"np.{name}: signature= needs {count} dtypes or Nones, not {given}")
        return tuple(
            None if isinstance(t, types.NoneType) else _call_dtype(ufunc, t) for t in given.types
        )
    return (_call_dtype(ufunc, given),) * count


def _where_type(ufunc: np.ufunc, where: types.Type) -> types.Type:
    """The type of a call's `where=` mask: a bool or an array of bools."""
    if isinstance(where, types.BooleanLiteral) and where.literal_value is True:
        return types.boolean  # everywhere: the plain call
    where = types.unliteral(where)
    dtype = where.dtype if isinstance(where, types.Array) else where
    if not isinstance(dtype, types.Boolean):
        raise TypingError(f"np.{ufunc.__name__}: where= must be a bool or bool array, not {where}")
    return where


def _masked_result_type(result: types.Type, where: types.Type) -> types.Type:
    """A new result with `where=` and no `out=`: the mask broadcasts with the inputs, so a
    mask array of more dimensions makes the result an array of its ndim."""
    if not isinstance(where, types.Array):
        return result
    if isinstance(result, types.Array):
        return result if result.ndim >= where.ndim else result.copy(ndim=where.ndim, layout="C")
    return types.Array(result, where.ndim, "C")


def register_ufunc_call(ufunc: np.ufunc) -> None:
    """Type and lower calls of `ufunc` (anything with `nin`, `nout`, `__name__` and
    `resolve_dtypes` whose kernel is registered) in jitted code. A call with any keyword is
    typed with out and every keyword as arguments (omitted ones as None)."""
    pysig = _ufunc_pysig(ufunc)

    @registry.typer(ufunc)
    def _typer(args, kws):
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError:
            return None
        operand_types = tuple(operand_type(a) for a in args[: ufunc.nin])
        declared = ufunc in _DECLARED_LOOPS  # datetime scalars too (@vectorize's loops)
        if len(operand_types) != ufunc.nin or not all(
            _operand(a) or (declared and isinstance(a, DATETIME_TYPES)) for a in operand_types
        ):
            return None
        given = bound.arguments
        keywords = CallKeywords.of(ufunc, given)
        loop = keywords.loop(ufunc, operand_types)
        out = types.unliteral(given.get("out", types.none))
        if not isinstance(out, (types.NoneType, types.Array)):
            raise TypingError(f"np.{ufunc.__name__}: out must be an array, not {out}")
        if isinstance(out, types.Array):
            check_output(ufunc, loop, operand_types, out, keywords.casting)
        if any(name in given for name in _KEYWORDS):
            where = _where_type(ufunc, given["where"]) if "where" in given else types.boolean
            returned = out
            if out == types.none:
                returned = _masked_result_type(keywords.result(loop, operand_types), where)
                everywhere = (
                    isinstance(given.get("where"), types.BooleanLiteral)
                    and given["where"].literal_value is True
                )
                if "out" not in given and "where" in given and not everywhere:
                    _warn_where_without_out(ufunc)
            rest = [given.get(name, types.none) for name in _KEYWORDS[1:]]
            return Signature(returned, (*operand_types, out, where, *rest), pysig=pysig)
        if isinstance(out, types.NoneType):
            return Signature(result_type(loop, operand_types), operand_types, pysig=pysig)
        return Signature(out, (*operand_types, out), pysig=pysig)

    @lower_builtin(ufunc, VarArgs(types.Type))
    def _lower(context, builder, sig, args):
        nin = ufunc.nin
        operand_types = tuple(sig.args[:nin])
        if len(sig.args) > nin + 1:
            named = dict(zip(_KEYWORDS, sig.args[nin + 1 :]))
            loop = CallKeywords.of(ufunc, named).loop(ufunc, operand_types)
        else:
            loop = resolve_loop(ufunc, operand_types)
        operands = list(args[:nin])
        if len(sig.args) == nin:
            return lower_ufunc(context, builder, loop, operand_types, operands)
        where = (sig.args[nin + 1], args[nin + 1]) if len(sig.args) > nin + 1 else None
        if isinstance(sig.args[nin], types.NoneType):
            if where is None or where[0] == types.boolean:
                new = _new_result(context, builder, loop, sig, operands)
                if where is None:
                    return new
                return _zero_unless(context, builder, sig.return_type, new, where[1])
            out = (sig.return_type, _zeros(context, builder, sig, operands, where))
            lower_ufunc(context, builder, loop, operand_types, operands, out=out, where=where)
            return out[1]  # the new array's only reference
        out = (sig.args[nin], args[nin])
        if where is None or not isinstance(where[0], types.Array):
            _fill_unless_false(context, builder, loop, sig, args, out)
        else:
            lower_ufunc(context, builder, loop, operand_types, operands, out=out, where=where)
        arr.incref(builder, *out)  # the call returns `out`: a new reference
        return out[1]


def _warn_where_without_out(ufunc: np.ufunc) -> None:
    """NumPy leaves the elements a `where=` mask excludes uninitialized when no `out=` is given
    (and warns); ember makes them zero and warns the same when compiling."""
    import warnings

    warnings.warn(
        f"np.{ufunc.__name__}: 'where' used without 'out', expect unitialized memory in output. "
        "If this is intentional, use out=None. (Compiled code sets those elements to 0.)",
        UserWarning,
        stacklevel=2,
    )  # NumPy's words, then ember's


def _new_result(context, builder, loop: Loop, sig, operands: list):
    """The call's new result (scalar or array) in the layout the typer chose (`order=`)."""
    nin = loop.ufunc.nin
    operand_types = tuple(sig.args[:nin])
    result = sig.return_type
    if (
        not isinstance(result, types.Array)
        or result.layout == result_type(loop, operand_types).layout
    ):
        return lower_ufunc(context, builder, loop, operand_types, operands)
    out = (result, _zeros(context, builder, sig, operands, None, zero=False))
    lower_ufunc(context, builder, loop, operand_types, operands, out=out)
    return out[1]


def _zeros(context, builder, sig, operands: list, where, zero: bool = True):
    """A new array of the call's result type and broadcast shape (the mask's too), zeroed."""
    nin = len(operands)
    result = sig.return_type
    pairs = [(t, v) for t, v in zip(sig.args[:nin], operands)]
    if where is not None:
        pairs.append(where)
    shapes = [
        arr.unpack(builder, types.unliteral(t), v).shape
        for t, v in pairs
        if isinstance(types.unliteral(t), types.Array)
    ]
    shape = kernels.broadcast_shapes(context, builder, shapes)
    new = arr.allocate(context, builder, result, shape, order=result.layout)
    if zero:
        fields = arr.unpack(builder, result, new)
        nbytes = builder.mul(fields.nitems, fields.itemsize)
        arr.memset_zero(builder, fields.data, nbytes)
    return new


def _zero_unless(context, builder, typ: types.Type, value, chosen):
    """`value` when the scalar mask `chosen` is true, else a zero of `typ` (the masked-out
    result, which NumPy leaves uninitialized)."""
    chosen = context.cast(builder, chosen, types.boolean, types.boolean)
    if isinstance(typ, types.Array):
        fields = arr.unpack(builder, typ, value)
        with builder.if_then(builder.not_(chosen)):
            arr.memset_zero(builder, fields.data, builder.mul(fields.nitems, fields.itemsize))
        return value
    return builder.select(chosen, value, context.get_constant_null(typ))


def _fill_unless_false(context, builder, loop: Loop, sig, args, out: tuple) -> None:
    """Fill `out`, unless a scalar `where=` is false (then out is left as it was)."""
    nin = loop.ufunc.nin
    operand_types, operands = tuple(sig.args[:nin]), list(args[:nin])
    if len(sig.args) == nin + 1:
        lower_ufunc(context, builder, loop, operand_types, operands, out=out)
        return
    chosen = context.cast(builder, args[nin + 1], sig.args[nin + 1], types.boolean)
    with builder.if_then(chosen):
        lower_ufunc(context, builder, loop, operand_types, operands, out=out)


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
        operand_types = tuple(operand_type(a) for a in args)
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
        target, other = args[0], operand_type(args[1])
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
    cond, x, y = (operand_type(a) for a in args)
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
