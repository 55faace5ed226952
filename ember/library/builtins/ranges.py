"""`range` objects and their iteration: typing and lowering of range(), iter(), next(), len()."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.extending import overload
from ember.lowering.callconv import alloca_in_entry
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.models import model_of
from ember.lowering.registry import lower_builtin, lower_cast
from ember.typing.signature import signature
from ember.typing.templates import registry


@registry.typer(range)
def _type_range(args, kws):
    if kws or not 1 <= len(args) <= 3:
        return None
    args = tuple(types.unliteral(a) for a in args)
    # Numba's rule: a float bound converts to int64, truncated toward zero (CPython raises
    # TypeError; librosa's beat tracker relies on `range(i - np.round(x / 2), ...)`)
    if not all(isinstance(a, (types.Integer, types.Boolean, types.Float)) for a in args):
        return None
    dtype = types.int64
    has_uint64 = any(
        isinstance(a, types.Integer) and not a.signed and a.bitwidth == 64 for a in args
    )
    if has_uint64 and all(isinstance(a, types.Integer) and not a.signed for a in args):
        dtype = types.uint64  # int64 could not hold the bounds
    return signature(types.RangeType(dtype), *([dtype] * len(args)))


@lower_builtin(range, types.Integer)
def range_stop(context, builder, sig, args):
    zero = llvm.Constant(args[0].type, 0)
    one = llvm.Constant(args[0].type, 1)
    return _make_range(context, builder, sig.return_type, zero, args[0], one)


@lower_builtin(range, types.Integer, types.Integer)
def range_start_stop(context, builder, sig, args):
    one = llvm.Constant(args[0].type, 1)
    return _make_range(context, builder, sig.return_type, args[0], args[1], one)


@lower_builtin(range, types.Integer, types.Integer, types.Integer)
def range_start_stop_step(context, builder, sig, args):
    is_zero = builder.icmp_signed("==", args[2], llvm.Constant(args[2].type, 0))
    context.guard(builder, is_zero, ValueError, "range() arg 3 must not be zero")
    return _make_range(context, builder, sig.return_type, *args)


def _make_range(context, builder, range_type, start, stop, step):
    value = llvm.Constant(context.value_type(range_type), llvm.Undefined)
    for index, item in enumerate((start, stop, step)):
        value = builder.insert_value(value, item, index)
    return value


def _range_length(builder, start, stop, step, signed: bool = True):
    """max(0, ceil((stop - start) / step)) for any 64-bit bounds: the distance and the step's
    magnitude always fit as unsigned numbers (range(-2**62, 2**62, 2**61) has 4 items)."""
    zero = llvm.Constant(start.type, 0)
    one = llvm.Constant(start.type, 1)
    compare = builder.icmp_signed if signed else builder.icmp_unsigned
    positive = compare(">", step, zero)
    nonempty = builder.select(positive, compare("<", start, stop), compare(">", start, stop))
    distance = builder.select(positive, builder.sub(stop, start), builder.sub(start, stop))
    magnitude = builder.select(positive, step, builder.neg(step))
    count = builder.add(builder.udiv(builder.sub(distance, one), magnitude), one)
    return builder.select(nonempty, count, zero)


@registry.typer(len)
def _type_len(args, kws):
    if len(args) == 1 and isinstance(args[0], types.RangeType):
        return signature(types.int64, args[0])
    return None


@lower_builtin(len, types.RangeType)
def range_len(context, builder, sig, args):
    start, stop, step = (builder.extract_value(args[0], i) for i in range(3))
    return _range_length(builder, start, stop, step, sig.args[0].dtype.signed)


@lower_cast(types.RangeType, types.Boolean)
def range_truth(context, builder, from_type, to_type, value):
    """`bool(range(...))`, `if range(...):`: whether it has items (start before stop in the
    step's direction)."""
    start, stop, step = (builder.extract_value(value, i) for i in range(3))
    compare = builder.icmp_signed if from_type.dtype.signed else builder.icmp_unsigned
    forward = compare(">", step, llvm.Constant(step.type, 0))
    return builder.select(forward, compare("<", start, stop), compare(">", start, stop))


@overload(len)
def tuple_len(x):
    """Seed 004's example: a tuple's length is known while compiling, so reify it."""
    if isinstance(x, types.BaseTuple):
        n = len(x)

        def len_impl(x):
            return n

        return len_impl


@registry.typer(iter)
def _type_iter(args, kws):
    if len(args) == 1 and isinstance(args[0], types.RangeType):
        return signature(args[0].iterator_type, args[0])
    return None


@lower_builtin(iter, types.RangeType)
def range_iter(context, builder, sig, args):
    """The state {next, stop, step, count}; a unit step's stop is raised to the start when
    below it, so that such an iterator's `next` reaches its stop exactly (`loop_next` relies
    on it). `count`, the range's length, drives a `for` loop's own iterator of another step
    (`loop_next`); explicit `next` leaves it be (unread, LLVM drops it)."""
    iterator_type = sig.return_type
    state = alloca_in_entry(builder, model_of(iterator_type).state_type, name="range.state")
    start, stop, step = (builder.extract_value(args[0], i) for i in range(3))
    if_unit = builder.select(
        _is_unit(builder, step), _later(builder, start, stop, iterator_type), stop
    )
    count = _range_length(builder, start, stop, step, iterator_type.dtype.signed)
    for index, item in enumerate((start, if_unit, step, count)):
        builder.store(item, _field(builder, iterator_type, state, index))
    return state


@lower_builtin(next, types.RangeIteratorType)
def range_iternext(context, builder, sig, args):
    """A range iterator yields `next` while it lies before `stop` in the step's direction, then
    moves it on by `step`: one induction variable and a `next < stop` exit test, the loop LLVM's
    passes recognize best. A step of 1 adds with `nsw` (no value of the range is the largest
    integer, so only the step after an exhausted one may wrap: `keep_exhausted` undoes that),
    and LLVM sees an induction variable from its first loop passes on; other steps saturate
    at the integers' limit, which lies beyond any `stop`."""
    iterator_type, state = sig.args[0], args[0]
    current, stop, step = _load_fields(builder, iterator_type, state, (0, 1, 2))
    valid = _before_stop(builder, current, stop, step, iterator_type.dtype.signed)
    return _advance(context, builder, sig, state, current, valid)


def loop_next(context, builder, sig, state, unit_step: bool):
    """`next` of the iterator a `for` loop made of a range and no other code sees (the lowerer
    proves that). A step of 1 known while compiling (`unit_step`) exits on `next != stop`, the
    counted loop LLVM keeps as is. Its `<` form is rewritten by LLVM into a test of the value
    after `next`, which drops the `nsw` of that addition (it may wrap past an exhausted range's
    stop): the loop variable is then no longer known non-negative, nor anything counted from it
    (a `while j < n` inside, starting at `i + 1`, kept its negative-index fix-up:
    first_duplicate_gap 1.4x Numba). Any other step counts the values left down to 0
    (`count`, the length `iter` computed): LLVM then knows the trip count and vectorizes (a
    saturating `next < stop` has none: a scan of every third item ran 2x Numba's). The step
    past the last value happens once, as the loop ends (it may wrap: `nsw` makes that poison,
    which nothing reads)."""
    iterator_type = sig.args[0]
    current, stop, step, count = _load_fields(builder, iterator_type, state, (0, 1, 2, 3))
    flags = ["nsw"] if iterator_type.dtype.signed else ["nuw"]
    one = llvm.Constant(step.type, 1)
    if unit_step:
        valid = builder.icmp_unsigned("!=", current, stop)
        following = builder.add(current, one, flags=flags)
    else:
        valid = builder.icmp_unsigned("!=", count, llvm.Constant(step.type, 0))
        builder.store(builder.sub(count, one), _field(builder, iterator_type, state, 3))
        following = builder.add(current, step, flags=flags)
    builder.store(following, _field(builder, iterator_type, state, 0))
    return _pair(context, builder, sig, current, valid)


def _advance(context, builder, sig, state, current, valid):
    """Store the value after `current` and return the (current, valid) pair."""
    iterator_type = sig.args[0]
    signed = iterator_type.dtype.signed
    step = _load_fields(builder, iterator_type, state, (2,))[0]
    one = llvm.Constant(step.type, 1)
    unit = builder.add(current, one, flags=["nsw"] if signed else ["nuw"])
    saturated = call_intrinsic(
        builder, "llvm.sadd.sat" if signed else "llvm.uadd.sat", [current, step]
    )
    following = builder.select(_is_unit(builder, step), unit, saturated)
    builder.store(following, _field(builder, iterator_type, state, 0))
    return _pair(context, builder, sig, current, valid)


def _pair(context, builder, sig, current, valid):
    pair = llvm.Constant(context.value_type(sig.return_type), llvm.Undefined)
    pair = builder.insert_value(pair, current, 0)
    return builder.insert_value(pair, valid, 1)


def keep_exhausted(context, builder, iterator_type, state, item, valid) -> None:
    """After an explicit `next` gave `item`: an exhausted iterator stays at the value it
    stopped at (a `for` loop never steps again, an explicit `next` may)."""
    slot = _field(builder, iterator_type, state, 0)
    following = _load_fields(builder, iterator_type, state, (0,))[0]
    builder.store(builder.select(valid, following, item), slot)


def _is_unit(builder, step) -> llvm.Value:
    return builder.icmp_unsigned("==", step, llvm.Constant(step.type, 1))


def _later(builder, start, stop, iterator_type: types.RangeIteratorType) -> llvm.Value:
    """max(start, stop)."""
    compare = builder.icmp_signed if iterator_type.dtype.signed else builder.icmp_unsigned
    return builder.select(compare("<", start, stop), stop, start)


def _before_stop(builder, current, stop, step, signed: bool) -> llvm.Value:
    """Whether `current` is a value of the range: before `stop` in the direction of `step`."""
    if not signed:  # (an unsigned step is positive)
        return builder.icmp_unsigned("<", current, stop)
    positive = builder.icmp_signed(">", step, llvm.Constant(step.type, 0))
    ascending = builder.icmp_signed("<", current, stop)
    return builder.select(positive, ascending, builder.icmp_signed(">", current, stop))


def _field(builder, iterator_type: types.RangeIteratorType, state, index: int):
    """A pointer to the iterator's next value (0), stop (1), step (2) or count (3)."""
    indices = [_i32(0), _i32(index)]
    if state.type.is_opaque:  # (a pointer loaded from a variable's slot)
        return builder.gep(state, indices, source_etype=model_of(iterator_type).state_type)
    return builder.gep(state, indices)


def _load_fields(builder, iterator_type: types.RangeIteratorType, state, indices) -> list:
    int_type = model_of(iterator_type.dtype).value_type
    return [builder.load(_field(builder, iterator_type, state, i), typ=int_type) for i in indices]


def _i32(value: int) -> llvm.Constant:
    return llvm.Constant(llvm.IntType(32), value)


def remaining_items(builder, iterator_type: types.RangeIteratorType, state) -> llvm.Value:
    """How many values the range iterator at `state` has left to yield."""
    current, stop, step = _load_fields(builder, iterator_type, state, (0, 1, 2))
    return _range_length(builder, current, stop, step, iterator_type.dtype.signed)


def keep_items(builder, iterator_type: types.RangeIteratorType, state, count) -> None:
    """Make the range iterator at `state` yield only its next `count` (at least 1) values: its
    stop moves to just past the last of them (which lies in the range, so this cannot wrap),
    and its count is `count`."""
    current, step = _load_fields(builder, iterator_type, state, (0, 2))
    one = llvm.Constant(step.type, 1)
    last = builder.add(current, builder.mul(step, builder.sub(count, one)))
    past = one
    if iterator_type.dtype.signed:
        positive = builder.icmp_signed(">", step, llvm.Constant(step.type, 0))
        past = builder.select(positive, one, llvm.Constant(step.type, -1))
    builder.store(builder.add(last, past), _field(builder, iterator_type, state, 1))
    builder.store(count, _field(builder, iterator_type, state, 3))
