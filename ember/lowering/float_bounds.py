"""Bounds of float values in a lowered (not yet optimized) LLVM function, followed through
variable slots, selects, phis, arithmetic, conversions and math calls; consumes the guard
comparisons lowering records (`fcmp value, constant`) and settles those the bounds decide: a
float -> integer range test of a clamped value becomes a NaN test, a check that cannot fire
(`1.0 + exp(x)` as a divisor, `sqrt` of a sum of squares) a constant false."""

from __future__ import annotations

import math
import struct
import weakref
from dataclasses import dataclass

from llvmlite import ir as llvm

_MAX_DEPTH = 12  # definitions followed from a guarded value (clamps are a few selects deep)
# recorded guard comparisons (`fcmp <op> value, constant`) by function
_GUARDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_FLOAT32_MAX = 3.4028234663852886e38


@dataclass(frozen=True)
class Bounds:
    """Every value that is not NaN lies in [lo, hi] (a zero of either sign counts as 0.0);
    `nan` says whether NaN is possible."""

    lo: float
    hi: float
    nan: bool

    def hull(self, other: Bounds) -> Bounds:
        return Bounds(min(self.lo, other.lo), max(self.hi, other.hi), self.nan or other.nan)


_ANY = Bounds(-math.inf, math.inf, True)
# Results of math functions over every operand (NaN only from a NaN operand, or, for sin and
# cos, an infinite one): name (LLVM intrinsic or libm, no type suffix) -> (lo, hi)
_CALL_RANGES = {
    "exp": (0.0, math.inf), "exp2": (0.0, math.inf), "expm1": (-1.0, math.inf),
    "cosh": (1.0, math.inf), "sin": (-1.0, 1.0), "cos": (-1.0, 1.0), "tanh": (-1.0, 1.0),
    "erf": (-1.0, 1.0), "erfc": (0.0, 2.0), "atan": (-1.6, 1.6),
}  # fmt: skip
_NAN_FROM_INFINITY = {"sin", "cos"}


def record_guard(builder: llvm.IRBuilder, condition: llvm.FCMPInstr) -> None:
    """Remember the guard `condition` (an ordered `fcmp value, constant`): once the function is
    lowered, `narrow_guards` settles it if the bounds of `value` decide it."""
    _GUARDS.setdefault(builder.function, []).append(condition)


def narrow_guards(function: llvm.Function) -> None:
    """Once `function` is fully lowered: a recorded comparison false for every value the
    bounds allow becomes `fcmp false`; one true for every value but NaN becomes a NaN test
    (`fcmp ord`). What the comparison gives for each possible value is unchanged."""
    guards = _GUARDS.pop(function, None)
    if not guards:
        return
    slots = _SlotStores(function)
    for condition in guards:
        value, constant = condition.operands
        settled = _settled(condition.op, _bounds(value, slots, 0), float(constant.constant))
        if settled is not None:
            condition.op = settled
            condition.operands = [value, value]


def _settled(op: str, bounds: Bounds, constant: float) -> str | None:
    """'false' or 'ord' where `fcmp op value, constant` is decided by the bounds, else None."""
    if op not in ("oeq", "olt", "ole", "ogt", "oge") or math.isnan(constant):
        return None
    lo, hi = bounds.lo, bounds.hi
    never = {
        "oeq": lo > constant or hi < constant, "olt": lo >= constant,
        "ole": lo > constant, "ogt": hi <= constant, "oge": hi < constant,
    }[op]  # fmt: skip
    always = {
        "oeq": lo == hi == constant, "olt": hi < constant, "ole": hi <= constant,
        "ogt": lo > constant, "oge": lo >= constant,
    }[op]  # fmt: skip
    if never:
        return "false"
    return "ord" if always else None


class _SlotStores:
    """The values stored into each stack slot of a function whose address is only loaded from
    and stored to (any other use of the address, and the slot's bounds are unknown)."""

    def __init__(self, function: llvm.Function) -> None:
        self.stored: dict[int, list] = {}
        self.escaped: set[int] = set()
        self.bounds: dict[int, Bounds] = {}  # by value, as found
        self.pending: set[int] = set()  # values whose bounds are being found
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

    def sources(self, slot) -> list | None:
        """The values stored into `slot`, through copies from other slots (a loop saving and
        restoring its entry state copies each variable's slot into another and back); None
        where a slot's address escapes."""
        found, seen, todo = [], {id(slot)}, [slot]
        while todo:
            stored = self.values_stored(todo.pop())
            if stored is None:
                return None
            for value in stored:
                copied = _slot_loaded(value)
                if copied is None:
                    found.append(value)
                elif id(copied) not in seen:
                    seen.add(id(copied))
                    todo.append(copied)
        return found


def _slot_loaded(value):
    """The stack slot `value` is loaded from, if it is such a load."""
    if isinstance(value, llvm.LoadInstr) and isinstance(value.operands[0], llvm.AllocaInstr):
        return value.operands[0]
    return None


def _bounds(value, slots: _SlotStores, depth: int) -> Bounds:
    """The bounds of `value`, remembered (bounds found with less depth left are looser, never
    wrong, so any remembered ones do)."""
    known = slots.bounds.get(id(value))
    if known is None:
        if id(value) in slots.pending:  # (a value defined through itself: a loop's sum)
            return _ANY
        slots.pending.add(id(value))
        known = slots.bounds[id(value)] = _new_bounds(value, slots, depth)
        slots.pending.discard(id(value))
    return known


def _new_bounds(value, slots: _SlotStores, depth: int) -> Bounds:
    if isinstance(value, llvm.Constant) and isinstance(value.constant, (int, float)):
        number = float(value.constant)
        return _ANY if math.isnan(number) else Bounds(number, number, False)
    if depth >= _MAX_DEPTH:
        return _ANY
    depth += 1
    if isinstance(value, llvm.LoadInstr) and isinstance(value.operands[0], llvm.AllocaInstr):
        sources = slots.sources(value.operands[0])
        return _ANY if sources is None else _hull([_bounds(v, slots, depth) for v in sources])
    if isinstance(value, llvm.PhiInstr):
        return _hull([_bounds(v, slots, depth) for v, _ in value.incomings])
    if isinstance(value, llvm.SelectInstr):
        return _select_bounds(value, slots, depth)
    if isinstance(value, llvm.CastInstr):
        return _cast_bounds(value, slots, depth)
    if isinstance(value, llvm.CallInstr):
        return _call_bounds(value, slots, depth)
    if type(value) is llvm.Instruction and value.opname in _ARITHMETIC and not value.flags:
        # (no fast-math flags: a contracted or reassociated result rounds otherwise)
        operands = value.operands
        if value.opname == "fmul" and _same_value(*operands, slots):
            return _rounded(_square(_bounds(operands[0], slots, depth)), value.type)
        arithmetic = _ARITHMETIC[value.opname]
        return _rounded(arithmetic(*[_bounds(op, slots, depth) for op in operands]), value.type)
    return _ANY


def _same_value(first, second, slots: _SlotStores) -> bool:
    """Whether two operands are one value: the same; equal constants; the same pure operation
    of the same values; loads in one block of one slot with no store to it between (`x * x`
    loads `x` twice), of two slots each stored once in that block from one value, or of one
    array item (its address computed alike) with no other store nor call between (`a[i] *
    a[i]` loads the item twice, each into a temporary slot)."""
    if first is second:
        return True
    if type(first) is not type(second) or first.type != second.type:
        return False
    if isinstance(first, llvm.Constant):
        return str(first) == str(second)
    if isinstance(first, llvm.LoadInstr):
        return first.parent is second.parent and _same_load(first, second, slots)
    pure = isinstance(first, _PURE) or (
        type(first) is llvm.Instruction and first.opname in _PURE_OPERATIONS
    )
    if not pure or first.opname != second.opname or _flags(first) != _flags(second):
        return False
    if getattr(first, "op", None) != getattr(second, "op", None):  # (icmp's predicate)
        return False
    if isinstance(first, llvm.ExtractValue) and first.indices != second.indices:
        return False
    return len(first.operands) == len(second.operands) and all(
        _same_value(a, b, slots) for a, b in zip(first.operands, second.operands)
    )


_PURE = (llvm.ICMPInstr, llvm.SelectInstr, llvm.ExtractValue, llvm.GEPInstr, llvm.CastInstr)
_PURE_OPERATIONS = {"add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "fadd",
                    "fsub", "fmul", "fneg"}  # fmt: skip


def _flags(instr) -> tuple:
    return tuple(getattr(instr, "flags", ())), getattr(instr, "inbounds", None)


def _same_load(first, second, slots: _SlotStores) -> bool:
    """`_same_value` of two loads in one block."""
    instructions = first.parent.instructions
    start, stop = sorted((instructions.index(first), instructions.index(second)))
    between = instructions[start:stop]
    slot, other = _slot_loaded(first), _slot_loaded(second)
    if slot is not None and slot is other:
        return not any(
            isinstance(instr, llvm.StoreInstr) and instr.operands[1] is slot for instr in between
        )
    if slot is not None and other is not None:
        stored = slots.values_stored(slot), slots.values_stored(other)
        if not all(values and len(values) == 1 for values in stored):
            return False
        if not (_stored_before(first, slot) and _stored_before(second, other)):
            return False
        return _same_value(stored[0][0], stored[1][0], slots)
    if slot is not None or other is not None:
        return False
    writes = (
        isinstance(instr, llvm.CallInstr)
        or (isinstance(instr, llvm.StoreInstr) and slots.values_stored(instr.operands[1]) is None)
        for instr in between
    )
    return not any(writes) and _same_value(first.operands[0], second.operands[0], slots)


def _stored_before(load, slot) -> bool:
    """Whether `slot` (stored once in the function) is stored earlier in `load`'s block."""
    instructions = load.parent.instructions
    return any(
        isinstance(instr, llvm.StoreInstr) and instr.operands[1] is slot
        for instr in instructions[: instructions.index(load)]
    )


def _hull(bounds: list[Bounds]) -> Bounds:
    if not bounds:
        return _ANY
    result = bounds[0]
    for other in bounds[1:]:
        result = result.hull(other)
    return result


def _cast_bounds(value, slots: _SlotStores, depth: int) -> Bounds:
    (source,) = value.operands
    if value.opname == "fpext":
        return _bounds(source, slots, depth)
    if value.opname == "fptrunc":
        return _rounded(_bounds(source, slots, depth), value.type)
    if value.opname in ("sitofp", "uitofp") and isinstance(source.type, llvm.IntType):
        width = source.type.width
        if value.opname == "uitofp":
            return Bounds(0.0, float(2**width), False)
        return Bounds(-float(2 ** (width - 1)), float(2 ** (width - 1)), False)
    return _ANY


def _call_bounds(value, slots: _SlotStores, depth: int) -> Bounds:
    """Bounds of a math function's result (an intrinsic's or libm's) from its operand's."""
    name = getattr(value.callee, "name", "")
    if name.startswith("llvm."):
        name = name.split(".")[1]
    elif value.type == llvm.FloatType() and name.endswith("f"):
        name = name[:-1]  # (libm's float32 version)
    if len(value.args) != 1 or value.fastmath:
        return _ANY
    operand = _bounds(value.args[0], slots, depth)
    if name == "fabs":
        return _magnitude(operand)
    if name == "sqrt":
        lo = math.sqrt(operand.lo) if operand.lo > 0 else 0.0
        hi = math.sqrt(operand.hi) if operand.hi >= 0 else 0.0
        return _rounded(Bounds(lo, hi, operand.nan or operand.lo < 0), value.type)
    if name not in _CALL_RANGES:
        return _ANY
    lo, hi = _CALL_RANGES[name]
    infinite = math.isinf(operand.lo) or math.isinf(operand.hi)
    return Bounds(lo, hi, operand.nan or (name in _NAN_FROM_INFINITY and infinite))


def _magnitude(bounds: Bounds) -> Bounds:
    ends = (abs(bounds.lo), abs(bounds.hi))
    lo = 0.0 if bounds.lo <= 0.0 <= bounds.hi else min(ends)
    return Bounds(lo, max(ends), bounds.nan)


def _square(bounds: Bounds) -> Bounds:
    magnitude = _magnitude(bounds)
    return Bounds(magnitude.lo * magnitude.lo, magnitude.hi * magnitude.hi, bounds.nan)


def _add(a: Bounds, b: Bounds) -> Bounds:
    opposite = (a.hi == math.inf and b.lo == -math.inf) or (a.lo == -math.inf and b.hi == math.inf)
    return _from_ends([a.lo + b.lo], [a.hi + b.hi], a.nan or b.nan or opposite)


def _subtract(a: Bounds, b: Bounds) -> Bounds:
    return _add(a, _negate(b))


def _negate(a: Bounds) -> Bounds:
    return Bounds(-a.hi, -a.lo, a.nan)


def _multiply(a: Bounds, b: Bounds) -> Bounds:
    """Products of the ends (IEEE multiplication is monotone in each operand on each sign);
    zero times an infinity is NaN."""
    products = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    nan = a.nan or b.nan or any(math.isnan(p) for p in products)
    return _from_ends(products, products, nan)


def _from_ends(lows: list[float], highs: list[float], nan: bool) -> Bounds:
    """Bounds from candidate ends; an end that is NaN (inf - inf) leaves them unbounded."""
    if any(math.isnan(x) for x in lows + highs):
        return Bounds(-math.inf, math.inf, True)
    return Bounds(min(lows), max(highs), nan)


_ARITHMETIC = {"fadd": _add, "fsub": _subtract, "fmul": _multiply, "fneg": _negate}


def _rounded(bounds: Bounds, float_type) -> Bounds:
    """`bounds` (computed in double, each end rounded as the double operation rounds, which is
    monotone) for a result of `float_type`: a float32 result rounds once more, so each end
    moves one float32 step outward (zeros and infinities are exact)."""
    if float_type != llvm.FloatType():
        return bounds
    return Bounds(_float32_step(bounds.lo, -1), _float32_step(bounds.hi, 1), bounds.nan)


def _float32_step(x: float, direction: int) -> float:
    """A float32 one step from the float32 nearest `x` in `direction` (-1 down, 1 up); zeros
    and infinities are kept."""
    if x == 0.0 or math.isinf(x):
        return x
    if abs(x) > _FLOAT32_MAX:
        return math.copysign(_FLOAT32_MAX, x) if (x > 0) != (direction > 0) else x * math.inf
    bits = struct.unpack("<i", struct.pack("<f", x))[0]
    away = (x > 0) == (direction > 0)  # (a float32's bits order by magnitude)
    stepped = struct.unpack("<f", struct.pack("<i", bits + (1 if away else -1)))[0]
    return stepped if not math.isnan(stepped) else x * math.inf


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
