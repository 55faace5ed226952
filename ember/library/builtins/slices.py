"""`slice` objects of integers (`a:b:c` in an index): their typing, data model and lowering,
`start`/`stop`/`step` and Python's `slice.indices` for a length. Shared by array and list
indexing."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.errors import TypingError
from ember.extending import overload_method, register_jitable
from ember.lowering import arrays as arr
from ember.lowering.boxing import NativeValue
from ember.lowering.models import StructModel, register_model
from ember.lowering.registry import lower_builtin, lower_getattr, unbox
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry


@register_model(types.SliceType)
class SliceModel(StructModel):
    """{start, stop, step}; an omitted start or stop holds a sentinel that clamps right."""

    def __init__(self, fe_type: types.SliceType) -> None:
        super().__init__(
            fe_type, [("start", types.int64), ("stop", types.int64), ("step", types.int64)]
        )


_MAX = (1 << 63) - 1
_MIN = -(1 << 63)


@registry.typer(slice)
def _type_slice(args, kws):
    if kws or not 1 <= len(args) <= 3:
        return None
    args = tuple(types.unliteral(a) for a in args)
    if not all(isinstance(a, (types.Integer, types.Boolean, types.NoneType)) for a in args):
        return None
    has_step = len(args) == 3 and not isinstance(args[2], types.NoneType)
    return signature(types.SliceType(has_step), *args)


# ---------------------------------------------------------------------------- slices from Python


def native_slice_parts(value: slice) -> tuple[int, int, int]:
    """(start, stop, step) with the sentinels `lower_slice` gives omitted bounds: a slice
    argument's native value (typed by ember/dispatcher/typeof.py, passed by pycall.py)."""
    parts = (value.start, value.stop, value.step)  # ints or NumPy integers
    start, stop, step = (None if part is None else int(part) for part in parts)
    step = 1 if step is None else step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if start is None:
        start = _MAX if step < 0 else 0
    if stop is None:
        stop = _MIN if step < 0 else _MAX
    return start, stop, step


def python_slice(slice_type: types.SliceType, start: int, stop: int, step: int) -> slice:
    """The Python slice of a native one (a returned slice): the sentinels of omitted bounds
    read back as None (but an omitted start of a forward slice is 0 natively: it stays 0)."""
    backward = step < 0
    if backward and start == _MAX:
        start = None
    if stop == (_MIN if backward else _MAX):
        stop = None
    if step == 1 and not slice_type.has_step:
        step = None
    return slice(start, stop, step)


def _slice_part(context, builder, typ, value):
    if isinstance(typ, types.NoneType):
        return None
    return context.cast(builder, value, typ, types.int64)


def lower_slice(context, builder, sig, args):
    parts = [_slice_part(context, builder, t, v) for t, v in zip(sig.args, args)]
    if len(parts) == 1:
        parts = [None, parts[0], None]
    start, stop = parts[0], parts[1]
    step = parts[2] if len(parts) == 3 else None
    one = arr.const(1)
    if step is None:
        step = one
    else:
        is_zero = builder.icmp_signed("==", step, arr.const(0))
        context.guard(builder, is_zero, ValueError, "slice step cannot be zero")
    negative = builder.icmp_signed("<", step, arr.const(0))
    if start is None:
        start = builder.select(negative, arr.const(_MAX), arr.const(0))
    if stop is None:
        stop = builder.select(negative, arr.const(_MIN), arr.const(_MAX))
    value = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    for index, item in enumerate((start, stop, step)):
        value = builder.insert_value(value, item, index)
    return value


for _count in (1, 2, 3):
    lower_builtin(slice, *([types.Type] * _count))(lower_slice)


def slice_bounds(builder, slice_value, length):
    """Python's slice.indices for a dimension of `length`: (start, count, step) as i64."""
    start = builder.extract_value(slice_value, 0)
    stop = builder.extract_value(slice_value, 1)
    step = builder.extract_value(slice_value, 2)
    zero, one = arr.const(0), arr.const(1)
    negative = builder.icmp_signed("<", step, zero)
    lower = builder.select(negative, arr.const(-1), zero)
    upper = builder.select(negative, builder.sub(length, one), length)

    def clamp(value):
        below = builder.icmp_signed("<", value, zero)
        shifted = builder.add(value, length)
        low_case = builder.select(builder.icmp_signed("<", shifted, zero), lower, shifted)
        high_case = builder.select(builder.icmp_signed(">=", value, length), upper, value)
        return builder.select(below, low_case, high_case)

    start, stop = clamp(start), clamp(stop)
    # count = (stop - start - 1) // step + 1 when the range is non-empty in step's direction
    forward = builder.icmp_signed("<", start, stop)
    backward = builder.icmp_signed(">", start, stop)
    distance = builder.select(negative, builder.sub(start, stop), builder.sub(stop, start))
    magnitude = builder.select(negative, builder.neg(step), step)
    count = builder.add(builder.sdiv(builder.sub(distance, one), magnitude), one)
    nonempty = builder.select(negative, backward, forward)
    return start, builder.select(nonempty, count, zero), step


# ---------------------------------------------------------------------------- attributes, indices

_SLICE_FIELDS = ("start", "stop", "step")


@registry.register_attr
class SliceAttributes(AttributeTemplate):
    """`s.start`, `s.stop`, `s.step` as integers (an omitted bound reads as the sentinel that
    stands for it, as in Numba)."""

    key = types.SliceType

    def generic_resolve(self, slice_type: types.SliceType, attr: str) -> types.Type | None:
        return types.int64 if attr in _SLICE_FIELDS else None


for _index, _field in enumerate(_SLICE_FIELDS):

    @lower_getattr(types.SliceType, _field)
    def _slice_field(context, builder, typ, value, _index=_index):
        return builder.extract_value(value, _index)


@overload_method(types.SliceType, "indices")
def slice_indices(s, *args):
    if len(args) != 1:  # CPython's words
        raise TypingError(f"indices() takes exactly one argument ({len(args)} given)")
    length = types.unliteral(args[0])
    if not isinstance(length, (types.Integer, types.Boolean)):
        raise TypingError(f"'{length}' object cannot be interpreted as an integer")

    def indices(s, length):
        if length < 0:
            raise ValueError("length should not be negative")
        step = s.step
        lower, upper = (-1, length - 1) if step < 0 else (0, length)
        return _clamp(s.start, length, lower, upper), _clamp(s.stop, length, lower, upper), step

    return indices


@register_jitable
def _clamp(bound, length, lower, upper):
    """CPython's PySlice_AdjustIndices for one bound."""
    if bound < 0:
        bound += length
        return lower if bound < 0 else bound
    return upper if bound >= upper else bound


@unbox(types.SliceType)
def _unbox_slice(typ, obj, c):
    """A slice passed beside a value only a boxing wrapper passes (the dispatcher's own path
    converts slices itself): its (start, stop, step) with the sentinels of omitted bounds."""
    builder = c.builder
    parts = c.pyapi.call_function_objargs(c.pyapi.borrow_constant(native_slice_parts), [obj])
    failed_slot = builder.alloca(llvm.IntType(1))
    builder.store(builder.icmp_unsigned("==", parts, c.pyapi.get_null_object()), failed_slot)
    value_type = c.context.value_type(typ)
    slot = builder.alloca(value_type)
    builder.store(llvm.Constant(value_type, None), slot)
    with builder.if_then(builder.not_(builder.load(failed_slot))):
        native = c.unbox(types.UniTuple(types.int64, 3), parts)
        c.pyapi.decref(parts)
        value = llvm.Constant(value_type, llvm.Undefined)
        for index in range(3):
            value = builder.insert_value(value, builder.extract_value(native.value, index), index)
        builder.store(value, slot)
        if native.is_error is not None:
            builder.store(native.is_error, failed_slot)
    return NativeValue(builder.load(slot), is_error=builder.load(failed_slot))
