"""Bounds of float values in a lowered (not yet optimized) LLVM function, followed through
variable slots, selects and conversions; consumes the guards float -> integer casts record and
narrows those whose operand is proven in range to a NaN test (a clamp like
`min(max(v, 0.0), 255.0)` stored into a uint8 array then converts as cheaply as Numba's)."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass

from llvmlite import ir as llvm

_MAX_DEPTH = 12  # definitions followed from a guarded value (clamps are a few selects deep)
# guards by function: (the value converted, the range test `fabs(value) < limit`, limit)
_GUARDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Bounds:
    """Every value that is not NaN lies in [lo, hi]; `nan` says whether NaN is possible."""

    lo: float
    hi: float
    nan: bool

    def hull(self, other: Bounds) -> Bounds:
        return Bounds(min(self.lo, other.lo), max(self.hi, other.hi), self.nan or other.nan)


_ANY = Bounds(-math.inf, math.inf, True)


def record_range_guard(builder: llvm.IRBuilder, value, in_range, limit: float) -> None:
    """Remember that `in_range` (`fcmp olt fabs(value), limit`) guards a conversion of `value`;
    `narrow_range_guards` may later replace it by `fcmp ord value, value`."""
    _GUARDS.setdefault(builder.function, []).append((value, in_range, limit))


def narrow_range_guards(function: llvm.Function) -> None:
    """Once `function` is fully lowered: every recorded range test whose value is proven within
    (-limit, limit) unless NaN becomes a NaN test (the result for NaN is unchanged, and the
    out-of-range result it selected can no longer occur)."""
    guards = _GUARDS.pop(function, None)
    if not guards:
        return
    slots = _SlotStores(function)
    for value, in_range, limit in guards:
        bounds = _bounds(value, slots, 0)
        if -limit < bounds.lo and bounds.hi < limit:
            in_range.op = "ord"
            in_range.operands = [value, value]


class _SlotStores:
    """The values stored into each stack slot of a function whose address is only loaded from
    and stored to (any other use of the address, and the slot's bounds are unknown)."""

    def __init__(self, function: llvm.Function) -> None:
        self.stored: dict[int, list] = {}
        self.escaped: set[int] = set()
        for block in function.blocks:
            for instr in block.instructions:
                self._note(instr)

    def _note(self, instr) -> None:
        if isinstance(instr, llvm.StoreInstr):
            value, pointer = instr.operands
            self.stored.setdefault(id(pointer), []).append(value)
            self.escaped.add(id(value))  # (a slot's address stored somewhere)
            return
        if isinstance(instr, llvm.LoadInstr):
            return
        for operand in getattr(instr, "operands", ()):
            self.escaped.add(id(operand))

    def values_stored(self, slot) -> list | None:
        if id(slot) in self.escaped:
            return None
        return self.stored.get(id(slot))


def _bounds(value, slots: _SlotStores, depth: int) -> Bounds:
    if isinstance(value, llvm.Constant) and isinstance(value.constant, (int, float)):
        number = float(value.constant)
        return _ANY if math.isnan(number) else Bounds(number, number, False)
    if depth >= _MAX_DEPTH:
        return _ANY
    depth += 1
    if isinstance(value, llvm.LoadInstr) and isinstance(value.operands[0], llvm.AllocaInstr):
        stored = slots.values_stored(value.operands[0])
        if not stored:
            return _ANY
        result = _bounds(stored[0], slots, depth)
        for other in stored[1:]:
            result = result.hull(_bounds(other, slots, depth))
        return result
    if isinstance(value, llvm.SelectInstr):
        return _select_bounds(value, slots, depth)
    if isinstance(value, llvm.CastInstr):
        return _cast_bounds(value, slots, depth)
    return _ANY


def _cast_bounds(value, slots: _SlotStores, depth: int) -> Bounds:
    (source,) = value.operands
    if value.opname in ("fpext", "fptrunc"):  # (fptrunc rounds toward the bounds' ends)
        return _bounds(source, slots, depth)
    if value.opname in ("sitofp", "uitofp") and isinstance(source.type, llvm.IntType):
        width = source.type.width
        if value.opname == "uitofp":
            return Bounds(0.0, float(2**width), False)
        return Bounds(-float(2 ** (width - 1)), float(2 ** (width - 1)), False)
    return _ANY


def _select_bounds(value, slots: _SlotStores, depth: int) -> Bounds:
    """A select picks one of its arms, so its bounds are their hull; a min/max select
    (`select(x > y, x, y)` and its variants) of arms that are not NaN is tighter."""
    condition, chosen, other = value.operands
    first = _bounds(chosen, slots, depth)
    second = _bounds(other, slots, depth)
    hull = first.hull(second)
    picks_larger = _picks_larger(condition, chosen, other)
    if picks_larger is None:
        return hull
    pick = max if picks_larger else min
    tight = Bounds(pick(first.lo, second.lo), pick(first.hi, second.hi), hull.nan)
    # A NaN arm makes the compare false: the select may return the other arm, whatever it is
    if first.nan:
        tight = tight.hull(second)
    if second.nan:
        tight = tight.hull(first)
    return tight


def _picks_larger(condition, chosen, other) -> bool | None:
    """True for `select(chosen > other, chosen, other)` (a max when neither is NaN), False for
    a min, None if `condition` is not such a compare of the two arms."""
    if not isinstance(condition, llvm.FCMPInstr):
        return None
    left, right = condition.operands
    op = condition.op.lstrip("ou")
    if left is other and right is chosen:
        op = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge"}.get(op, op)
    elif not (left is chosen and right is other):
        return None
    if op in ("gt", "ge"):
        return True
    if op in ("lt", "le"):
        return False
    return None
