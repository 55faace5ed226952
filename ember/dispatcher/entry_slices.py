"""The native entry's kind for `slice` arguments of ints or None: matches a slice object (its
step decides between the two- and three-part slice types, as typeof does) and unboxes it to the
(start, stop, step) int64 triple the compiled code takes (native_slice_parts' sentinels)."""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass
from typing import Any

from llvmlite import ir

_I64 = ir.IntType(64)
_PTR = ir.PointerType()
_MAX = (1 << 63) - 1
_MIN = -(1 << 63)


@dataclass(frozen=True)
class SliceKind:
    """A slice argument; `has_step`: the three-part type (a step other than None and 1)."""

    has_step: bool


def slice_kind(typ: Any) -> SliceKind | None:
    """The kind of a SliceType argument; None where CPython's slice layout is not the one this
    module reads."""
    return SliceKind(typ.has_step) if _part_offsets() is not None else None


@functools.cache
def _part_offsets() -> tuple[int, int, int] | None:
    """Offsets of a slice object's start, stop and step pointers, checked on a live slice."""
    header = object.__basicsize__
    size = ctypes.sizeof(ctypes.c_void_p)
    offsets = (header, header + size, header + 2 * size)
    probe = slice(1001, None, -7001)
    read = [ctypes.c_void_p.from_address(id(probe) + offset).value for offset in offsets]
    if read != [id(probe.start), id(probe.stop), id(probe.step)] or slice.__basicsize__ < (
        offsets[2] + size
    ):
        return None
    return offsets


def _parts(entry: Any, obj: ir.Value) -> list[ir.Value]:
    return [entry.load_field(obj, offset, _PTR, 8) for offset in _part_offsets()]


def _is_none(entry: Any, part: ir.Value) -> ir.Value:
    from ember.dispatcher.object_layout import _object_constant

    return entry.builder.icmp_unsigned("==", part, _object_constant(None))


def _is_int(entry: Any, part: ir.Value) -> ir.Value:
    from ember.dispatcher.object_layout import _object_constant

    return entry.builder.icmp_unsigned("==", entry.ob_type(part), _object_constant(int))


def emit_match(entry: Any, obj: ir.Value, kind: SliceKind, fail: ir.Block) -> None:
    """Exactly a slice whose parts are None or Python ints; its step picks the kind: None or 1
    for the two-part slice, any other int for the three-part one (zero: the Python path
    raises ValueError)."""
    from ember.dispatcher.object_layout import _object_constant

    b = entry.builder
    is_slice = b.icmp_unsigned("==", entry.ob_type(obj), _object_constant(slice))
    entry.continue_if(is_slice, fail, "slice.type_ok")
    start, stop, step = _parts(entry, obj)
    for name, part in (("start", start), ("stop", stop)):
        usable = b.or_(_is_none(entry, part), _is_int(entry, part))
        entry.continue_if(usable, fail, f"slice.{name}_ok")
    if kind.has_step:
        entry.continue_if(_is_int(entry, step), fail, "slice.step_int")
        value = entry.emit_unbox_int64(step, fail)
        neither_one_nor_zero = b.icmp_unsigned(">", value, _I64(1))  # negatives are huge
        entry.continue_if(neither_one_nor_zero, fail, "slice.step_ok")
        return
    step_none = entry.new_block("slice.step_none")
    step_given = entry.new_block("slice.step_given")
    matched = entry.new_block("slice.matched")
    b.cbranch(_is_none(entry, step), step_none, step_given)
    b.position_at_end(step_given)
    entry.continue_if(_is_int(entry, step), fail, "slice.step_int")
    value = entry.emit_unbox_int64(step, fail)
    b.cbranch(b.icmp_signed("==", value, _I64(1)), matched, fail)
    b.position_at_end(step_none)
    b.branch(matched)
    b.position_at_end(matched)


def emit_unbox(entry: Any, obj: ir.Value, kind: SliceKind, fail: ir.Block) -> list[ir.Value]:
    """(start, stop, step) of a matched slice; omitted bounds take the sentinels of their
    step's direction; an int beyond int64 goes to `fail` (the Python path's OverflowError)."""
    b = entry.builder
    start, stop, step_obj = _parts(entry, obj)
    step = entry.emit_unbox_int64(step_obj, fail) if kind.has_step else _I64(1)
    backwards = b.icmp_signed("<", step, _I64(0))
    first = b.select(backwards, _I64(_MAX), _I64(0))
    last = b.select(backwards, _I64(_MIN), _I64(_MAX))
    return [_int_or(entry, start, first, fail), _int_or(entry, stop, last, fail), step]


def _int_or(entry: Any, part: ir.Value, default: ir.Value, fail: ir.Block) -> ir.Value:
    """The int64 value of `part`, or `default` when it is None."""
    b = entry.builder
    given = entry.new_block("slice.part_given")
    join = entry.new_block("slice.part")
    omitted_from = b.block
    b.cbranch(_is_none(entry, part), join, given)
    b.position_at_end(given)
    value = entry.emit_unbox_int64(part, fail)
    given_end = b.block
    b.branch(join)
    b.position_at_end(join)
    phi = b.phi(_I64, name="slice.part")
    phi.add_incoming(default, omitted_from)
    phi.add_incoming(value, given_end)
    return phi
