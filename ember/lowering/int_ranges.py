"""Integer ranges of a typed function's variables (consumes its IR and types), producing the
int64 additions, subtractions and multiplications that cannot wrap (lowering flags those `nsw`)
and the array indices that are never negative: both let LLVM drop the negative-index fix-up.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cached_property

from ember import types
from ember.ir import nodes as ir

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
_WIDEN_AFTER = 3  # growths of one variable's interval before it takes its type's bounds
_COUNTER_STEP_MAX = 1 << 20  # steps a counter may take at once and still saturate
_COUNTER_START_MAX = 1 << 53  # (a count from an unknown argument or near 2**63 is no counter)
_MAX_ROUNDS = 12


@dataclass(frozen=True)
class Interval:
    lo: int
    hi: int

    def hull(self, other: Interval) -> Interval:
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi))

    def within(self, lo: int, hi: int) -> bool:
        return lo <= self.lo and self.hi <= hi


@dataclass(frozen=True)
class RangeFacts:
    """A `range(start, stop, step)` (or its iterator, or a next() pair of it) by its bounds."""

    start: Interval
    stop: Interval
    step: Interval

    def hull(self, other: RangeFacts) -> RangeFacts:
        return RangeFacts(
            self.start.hull(other.start), self.stop.hull(other.stop), self.step.hull(other.step)
        )

    def item(self) -> Interval:
        """The values the range yields: each lies between start and the last one before stop."""
        upward = Interval(self.start.lo, max(self.start.lo, self.stop.hi - 1))
        downward = Interval(min(self.start.hi, self.stop.lo + 1), self.start.hi)
        if self.step.lo > 0:
            return upward
        if self.step.hi < 0:
            return downward
        return upward.hull(downward)


@dataclass(frozen=True)
class Tagged:
    """A non-integer value the analysis follows: an array's shape tuple, or a next() pair."""

    kind: str
    facts: RangeFacts | None = None

    def hull(self, other: Tagged) -> Tagged | None:
        if self.kind != other.kind:
            return None
        if self.facts is None or other.facts is None:
            return self if self.facts is other.facts else None
        return Tagged(self.kind, self.facts.hull(other.facts))


NON_NEGATIVE = Interval(0, INT64_MAX)
_ARITHMETIC = {operator.add, operator.sub, operator.mul}


class VariableRanges:
    """The abstract values of a function's variables, solved once, on first need."""

    def __init__(self, func_ir: ir.FunctionIR, typemap: dict) -> None:
        self.func_ir = func_ir
        self.typemap = typemap

    @cached_property
    def values(self) -> dict[str, object]:
        return _Ranges(self.func_ir, self.typemap).solve()


def no_wrap_operations(ranges: VariableRanges, calltypes: dict, boundscheck: bool):
    """Ids of the BinOp / InplaceBinOp expressions on int64 whose result provably fits in int64,
    or, without boundscheck, whose result is only ever an array index (a sum past int64 is
    then out of range in Python, where ember's unchecked indexing is undefined already)."""
    func_ir, typemap = ranges.func_ir, ranges.typemap
    candidates = [
        (stmt.target.name, stmt.value)
        for _, stmt in func_ir.statements()
        if isinstance(stmt, ir.Assign)
        and isinstance(stmt.value, ir.BinOp | ir.InplaceBinOp)
        and _arithmetic_fn(stmt.value) in _ARITHMETIC
        and _is_int64_operation(stmt.value, calltypes)
        and typemap.get(stmt.target.name) == types.int64
    ]
    if not candidates:
        return frozenset()
    values = ranges.values
    index_only = set() if boundscheck else _index_only_variables(func_ir, typemap)
    found = set()
    for name, expr in candidates:
        exact = _exact(_arithmetic_fn(expr), values.get(expr.lhs.name), values.get(expr.rhs.name))
        if (exact is not None and exact.within(INT64_MIN, INT64_MAX)) or name in index_only:
            found.add(id(expr))
    return frozenset(found)


def _divisions(func_ir: ir.FunctionIR):
    """(block, expression) of each `//` and `%` (in place or not) of the function."""
    for block, stmt in func_ir.statements():
        if (
            isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.BinOp | ir.InplaceBinOp)
            and _arithmetic_fn(stmt.value) in (operator.mod, operator.floordiv)
        ):
            yield block, stmt.value


def unsigned_divisions(ranges: VariableRanges, calltypes: dict) -> frozenset:
    """Ids of the int64 `//` and `%` expressions whose operands are both provably
    non-negative: Python's floor semantics are then an unsigned division's."""
    candidates = [
        expr for _, expr in _divisions(ranges.func_ir) if _is_int64_operation(expr, calltypes)
    ]
    if not candidates:
        return frozenset()
    values = ranges.values
    return frozenset(
        id(expr)
        for expr in candidates
        if all(
            isinstance(values.get(var.name), Interval) and values[var.name].lo >= 0
            for var in (expr.lhs, expr.rhs)
        )
    )


def divisors_varying_in_loops(func_ir: ir.FunctionIR, calltypes: dict) -> frozenset:
    """Ids of the signed integer `//` and `%` expressions whose divisor is assigned in the
    innermost loop around them (Euclid's `x, y = y, x % y`): their one trapping case
    (minimum // -1) is better a predicted branch than a select of the divisor, which would
    lengthen the loop's dependency chain. A divisor fixed in the loop (`(i + 1) % n`) keeps
    the select, which LLVM hoists out of the loop."""
    candidates = [
        (block.label, expr)
        for block, expr in _divisions(func_ir)
        if _is_signed_integer_operation(expr, calltypes)
    ]
    if not candidates:
        return frozenset()
    from ember.frontend.cfg import graph_of_blocks

    graph = graph_of_blocks(func_ir)
    in_loops, loops = graph.node_to_loops(), graph.loops()
    assigned_in: dict[str, set[int]] = {}
    for label, block in func_ir.blocks.items():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                assigned_in.setdefault(stmt.target.name, set()).add(label)
    varying = set()
    for label, expr in candidates:
        headers = in_loops.get(label)
        if headers and assigned_in.get(expr.rhs.name, set()) & loops[headers[0]].body:
            varying.add(id(expr))
    return frozenset(varying)


def _is_signed_integer_operation(expr, calltypes: dict) -> bool:
    sig = calltypes.get(expr)
    return sig is not None and all(
        isinstance(t, types.Integer) and t.signed for t in (*sig.args, sig.return_type)
    )


def non_negative_differences(func_ir: ir.FunctionIR, typemap: dict, no_wrap: frozenset):
    """Ids of the non-wrapping int64 subtractions `c - x` where `c` is the value of a range
    that starts at `x` (a positive step) or stops at `x - 1` (a negative step), and `x` is the
    value the range was made with: the difference is never negative (knapsack's `best[c - w]`
    then needs no wrap-around of a negative index)."""
    facts = _RangeBounds(func_ir, typemap)
    return frozenset(
        id(stmt.value)
        for _, stmt in func_ir.statements()
        if isinstance(stmt, ir.Assign)
        and isinstance(stmt.value, ir.BinOp)
        and stmt.value.fn is operator.sub
        and id(stmt.value) in no_wrap
        and facts.lower_bound_of(stmt.value.lhs.name) == stmt.value.rhs.name
    )


def non_negative_indices(ranges: VariableRanges) -> frozenset[str]:
    """The signed integer variables used as array indices (`a[i]`, `a[i, j] = x`) that are
    never negative (`i` of `range(n)`): their definitions may tell LLVM so, which it cannot
    always prove itself (a loop with an `if`/`elif` splits into a nest that hides the range's
    start), and the index then needs no wrap-around from the end."""
    typemap = ranges.typemap

    def is_array(var: ir.Var) -> bool:
        return isinstance(typemap.get(var.name), types.Array)

    indices: set[str] = set()
    for _, stmt in ranges.func_ir.statements():
        for var, kind, _owner in _classified_reads(stmt, is_array):
            typ = typemap.get(var.name)
            if kind != "other" and isinstance(typ, types.Integer) and typ.signed:
                indices.add(var.name)
    if not indices:
        return frozenset()
    values = ranges.values
    return frozenset(
        name for name in indices if isinstance(values.get(name), Interval) and values[name].lo >= 0
    )


class _RangeBounds:
    """For a variable holding the values of one range, the variable its values are at least."""

    def __init__(self, func_ir: ir.FunctionIR, typemap: dict) -> None:
        self.typemap = typemap
        self.definitions: dict[str, list] = {}
        self.block_of: dict[int, int] = {}  # id(statement) -> its block's label
        self.position: dict[int, int] = {}  # id(statement) -> its place in the block
        for label, block in func_ir.blocks.items():
            for place, stmt in enumerate(block.body):
                self.block_of[id(stmt)], self.position[id(stmt)] = label, place
                if isinstance(stmt, ir.Assign):
                    self.definitions.setdefault(stmt.target.name, []).append(stmt)

    def _only(self, name: str):
        found = self.definitions.get(name, [])
        return found[0] if len(found) == 1 else None

    def lower_bound_of(self, name: str) -> str | None:
        """`x` when every value of `name` is at least the value `x` had when the range was
        made, and `x` still has it (defined once: an argument, or just before the range)."""
        item = self._only(name)
        while item is not None and isinstance(item.value, ir.Var):
            item = self._only(item.value.name)
        if item is None or not isinstance(item.value, ir.PairFirst):
            return None
        pair = self._only(item.value.value.name)
        if pair is None or not isinstance(pair.value, ir.IterNext):
            return None
        made = self._range_made_by(pair.value.value.name)
        if made is None:
            return None
        call = made.value
        anchor = made  # where the bound's value is read
        if len(call.args) == 2:
            bound = call.args[0].name  # step 1: the values are at least the start
        else:
            step = self._only(call.args[2].name)
            if step is None or not isinstance(step.value, ir.Const):
                return None
            if step.value.value > 0:
                bound = call.args[0].name
            else:  # the values are above the stop, here `x - 1` (if that wraps: no values)
                stop = self._only(call.args[1].name)
                if not (
                    stop is not None
                    and isinstance(stop.value, ir.BinOp)
                    and stop.value.fn is operator.sub
                    and _is_constant(self._only(stop.value.rhs.name), 1)
                ):
                    return None
                bound, anchor = stop.value.lhs.name, stop
                if not self._before_in_block(stop, made):
                    return None
        return bound if self._unchanged_since(bound, anchor) else None

    def _range_made_by(self, iterator: str):
        """The `range(...)` call statement of the one iterator `iterator` copies."""
        sources, pending, seen = set(), [iterator], set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            for stmt in self.definitions.get(name, []):
                if isinstance(stmt.value, ir.Var):
                    pending.append(stmt.value.name)
                elif isinstance(stmt.value, ir.GetIter):
                    sources.add(stmt.value.value.name)
                else:
                    return None
        if len(sources) != 1:
            return None
        made = self._only(sources.pop())
        if made is None or not isinstance(made.value, ir.Call) or made.value.kws:
            return None
        callee = self._only(made.value.func.name)
        if (
            callee is None
            or not isinstance(callee.value, ir.Global)
            or callee.value.value is not range
        ):
            return None
        return made if len(made.value.args) in (2, 3) else None

    def _unchanged_since(self, name: str, made) -> bool:
        """Whether `name` holds at every use the value it had at statement `made`: an argument
        never reassigned, or assigned once, earlier in `made`'s block (which runs again only
        with `made`, as the range's statements do: they come after `made` in its block)."""
        definition = self._only(name)
        if definition is None or types.unliteral(self.typemap.get(name)) != types.int64:
            return False
        return isinstance(definition.value, ir.Arg) or self._before_in_block(definition, made)

    def _before_in_block(self, first, then) -> bool:
        """Whether statement `first` comes before `then` in the same block."""
        return (
            self.block_of[id(first)] == self.block_of[id(then)]
            and self.position[id(first)] < self.position[id(then)]
        )


def _is_constant(stmt, value: int) -> bool:
    return stmt is not None and isinstance(stmt.value, ir.Const) and stmt.value.value == value


def _arithmetic_fn(expr):
    return expr.immutable_fn if isinstance(expr, ir.InplaceBinOp) else expr.fn


def _is_int64_operation(expr, calltypes: dict) -> bool:
    sig = calltypes.get(expr)
    return sig is not None and sig.return_type == types.int64 and sig.args == (types.int64,) * 2


def _exact(fn, left, right) -> Interval | None:
    """The exact (unbounded) interval of `left fn right`, for add, sub and mul."""
    if not isinstance(left, Interval) or not isinstance(right, Interval):
        return None
    if fn is operator.add:
        return Interval(left.lo + right.lo, left.hi + right.hi)
    if fn is operator.sub:
        return Interval(left.lo - right.hi, left.hi - right.lo)
    if fn is operator.mul:
        corners = [a * b for a in (left.lo, left.hi) for b in (right.lo, right.hi)]
        return Interval(min(corners), max(corners))
    return None


def _type_bounds(typ) -> Interval | None:
    typ = types.unliteral(typ)
    if isinstance(typ, types.Boolean):
        return Interval(0, 1)
    if isinstance(typ, types.Integer):
        return Interval(typ.minval, typ.maxval)
    return None


class _Ranges:
    """The fixed point of the variables' abstract values (Interval, RangeFacts, Tagged).

    Flow-insensitive: a variable's interval is the hull over all its definitions, to a fixed
    point (one still growing after a few rounds takes its type's bounds). Facts come from
    constants, integer types, array shapes and `len`, and the values `range(...)` yields
    (`i` in `range(n)` is in [0, n.max - 1], so `i + 1` fits)."""

    def __init__(self, func_ir: ir.FunctionIR, typemap: dict) -> None:
        self.typemap = typemap
        self.definitions: list[tuple[str, object]] = []
        self.globals: dict[str, object] = {}
        for _, stmt in func_ir.statements():
            if isinstance(stmt, ir.Assign):
                self.definitions.append((stmt.target.name, stmt.value))
                if isinstance(stmt.value, ir.Global | ir.FreeVar):
                    self.globals[stmt.target.name] = stmt.value.value
        self.values: dict[str, object] = {}
        self.unknown: set[str] = set()  # variables some definition says nothing about
        self.counters: set[str] = set()  # widened upward: steps up saturate (_widened_counter)
        defined = {name for name, _ in self.definitions}
        for _, stmt in func_ir.statements():
            written_elsewhere = [] if isinstance(stmt, ir.Assign) else stmt.targets()  # parfors
            never_written = [var for var in stmt.sources() if var.name not in defined]
            self.unknown.update(var.name for var in (*written_elsewhere, *never_written))

    def solve(self) -> dict[str, object]:
        growths: dict[str, int] = {}
        for _ in range(_MAX_ROUNDS):
            changed = False
            for name, value in self.definitions:
                if name in self.unknown:
                    continue
                new = self._join(name, self._evaluate(name, value))
                old = self.values.get(name, _BOTTOM)
                if new == old:
                    continue
                changed = True
                growths[name] = growths.get(name, 0) + (old is not _BOTTOM)
                if growths[name] > _WIDEN_AFTER:
                    new = self._widened_counter(name, old, new)
                if new is None:
                    self.unknown.add(name)
                    self.values.pop(name, None)
                else:
                    self.values[name] = new
            if not changed:
                return self._with_type_bounds()
        return {}  # no fixed point in time: claim nothing

    def _widened_counter(self, name: str, old, new) -> Interval | None:
        """A variable still growing upward only, from a fixed least value in [0, 2**53] (a
        `while` loop's `i += 1` from 0), widens to [that value, its type's maximum]: a count,
        in steps of a small constant, that would pass 2**63 needs more steps than any run
        makes (Python's int then keeps counting, out of range of every array). Otherwise
        nothing is known."""
        bounds = _type_bounds(self.typemap.get(name))
        if not (isinstance(old, Interval) and isinstance(new, Interval)) or bounds is None:
            return None
        if new.lo != old.lo or not 0 <= new.lo <= _COUNTER_START_MAX or name in self.counters:
            return None
        self.counters.add(name)
        return Interval(new.lo, bounds.hi)

    def _with_type_bounds(self) -> dict[str, object]:
        result = dict(self.values)
        for name in self.unknown:
            bounds = _type_bounds(self.typemap.get(name))
            if bounds is not None:
                result[name] = bounds
        return result

    def _join(self, name: str, new):
        if new is _BOTTOM:
            return self.values.get(name, _BOTTOM)
        old = self.values.get(name, _BOTTOM)
        if old is _BOTTOM or new is None:
            return new
        if type(old) is not type(new):
            return None
        return old.hull(new)

    def _operand(self, var: ir.Var):
        """A variable's value for an expression reading it: _BOTTOM while not yet known."""
        if var.name in self.unknown:
            return _type_bounds(self.typemap.get(var.name))
        return self.values.get(var.name, _BOTTOM)

    def _evaluate(self, name: str, value):
        """The abstract value `value` gives the variable `name` (_BOTTOM: not yet known)."""
        result = self._evaluate_expression(value)
        bounds = _type_bounds(self.typemap.get(name))
        if isinstance(result, Interval):
            if bounds is not None and self._counter_step(value):
                return Interval(max(result.lo, bounds.lo), min(result.hi, bounds.hi))
            if bounds is None or not result.within(bounds.lo, bounds.hi):
                return bounds  # wrapped (or no longer an integer): only the type is known
            return result
        if result is None:
            return bounds
        return result

    def _evaluate_expression(self, value):
        if isinstance(value, ir.Var):
            return self._operand(value)
        if isinstance(value, ir.Const):
            constant = value.value
            return Interval(int(constant), int(constant)) if isinstance(constant, int) else None
        if isinstance(value, ir.Cast):
            return self._operand(value.value)
        if isinstance(value, ir.BinOp | ir.InplaceBinOp):
            return self._binary(_arithmetic_fn(value), value.lhs, value.rhs)
        if isinstance(value, ir.UnaryOp) and value.fn is operator.neg:
            operand = self._operand(value.value)
            if isinstance(operand, Interval):
                return Interval(-operand.hi, -operand.lo)
            return operand if operand is _BOTTOM else None
        if isinstance(value, ir.Call):
            return self._call(value)
        if isinstance(value, ir.GetAttr):
            return self._attribute(value)
        if isinstance(value, ir.GetItem | ir.StaticGetItem):
            container = self._operand(value.value)
            if isinstance(container, Tagged) and container.kind == "shape":
                return NON_NEGATIVE
            return None
        if isinstance(value, ir.GetIter):
            facts = self._operand(value.value)
            return facts if isinstance(facts, RangeFacts) or facts is _BOTTOM else None
        if isinstance(value, ir.IterNext):
            facts = self._operand(value.value)
            if isinstance(facts, RangeFacts):
                return Tagged("pair", facts)
            return facts if facts is _BOTTOM else None
        if isinstance(value, ir.PairFirst):
            pair = self._operand(value.value)
            if isinstance(pair, Tagged) and pair.kind == "pair":
                return pair.facts.item()
            return pair if pair is _BOTTOM else None
        return None

    def _counter_step(self, value) -> bool:
        """Whether `value` is a widened counter plus a non-negative constant (`i + 1`)."""
        if not isinstance(value, ir.BinOp | ir.InplaceBinOp):
            return False
        if _arithmetic_fn(value) is not operator.add:
            return False
        for counter, step in ((value.lhs, value.rhs), (value.rhs, value.lhs)):
            amount = self._operand(step)
            if (
                counter.name in self.counters
                and isinstance(amount, Interval)
                and 0 <= amount.lo <= amount.hi <= _COUNTER_STEP_MAX
            ):
                return True
        return False

    def _binary(self, fn, lhs: ir.Var, rhs: ir.Var):
        left, right = self._operand(lhs), self._operand(rhs)
        if left is _BOTTOM or right is _BOTTOM:
            return _BOTTOM
        if not isinstance(left, Interval) or not isinstance(right, Interval):
            return None
        if fn in _ARITHMETIC:
            return _exact(fn, left, right)
        # (a division by zero raises: the divisor of a result is never 0)
        if fn is operator.mod and right.lo >= 0 and right.hi > 0:  # the divisor's sign
            upper = right.hi - 1
            return Interval(0, min(upper, left.hi) if left.lo >= 0 else upper)
        if fn is operator.floordiv and right.lo >= 0 and right.hi > 0 and left.lo >= 0:
            return Interval(left.lo // right.hi, left.hi // max(right.lo, 1))
        if fn is operator.and_ and (left.lo >= 0 or right.lo >= 0):
            return Interval(0, min(b.hi for b in (left, right) if b.lo >= 0))
        return None

    def _call(self, call: ir.Call):
        if call.kws:
            return None
        callee = self.globals.get(call.func.name)
        operands = [self._operand(arg) for arg in call.args]
        if any(operand is _BOTTOM for operand in operands):
            return _BOTTOM
        if callee is len and len(operands) == 1:
            return NON_NEGATIVE
        if not all(isinstance(operand, Interval) for operand in operands):
            return None
        if callee is range and 1 <= len(operands) <= 3:
            if len(operands) == 1:
                operands = [Interval(0, 0), operands[0]]
            if len(operands) == 2:
                operands.append(Interval(1, 1))
            return RangeFacts(*operands)
        if callee in (min, max) and len(operands) >= 2:
            pick = min if callee is min else max
            return Interval(pick(o.lo for o in operands), pick(o.hi for o in operands))
        return None

    def _attribute(self, value: ir.GetAttr):
        if not isinstance(self.typemap.get(value.value.name), types.Array):
            return None
        if value.attr == "shape":
            return Tagged("shape")
        if value.attr in ("size", "ndim", "itemsize", "nbytes"):
            return NON_NEGATIVE
        return None


class _Bottom:
    """No definition evaluated yet (distinct from None: nothing known)."""

    def __repr__(self) -> str:
        return "BOTTOM"


_BOTTOM = _Bottom()


def _index_only_variables(func_ir: ir.FunctionIR, typemap: dict) -> set[str]:
    """Variables every use of which is an integer index of an array (`a[v]`, `a[v] = x`), or
    an item of an index tuple (`a[v, w]`) that is itself used only that way."""
    uses: dict[str, list[tuple[str, str | None]]] = {}  # name -> [(kind, tuple var)]

    def is_array(var: ir.Var) -> bool:
        return isinstance(typemap.get(var.name), types.Array)

    for _, stmt in func_ir.statements():
        for var, kind, owner in _classified_reads(stmt, is_array):
            uses.setdefault(var.name, []).append((kind, owner))

    def index_only(name: str, tuple_level: bool) -> bool:
        for kind, owner in uses.get(name, [("other", None)]):
            if kind == "other" or (kind == "item" and (tuple_level or not index_only(owner, True))):
                return False
        return True

    return {name for name in uses if index_only(name, False)}


def _classified_reads(stmt: ir.Stmt, is_array) -> list[tuple[ir.Var, str, str | None]]:
    """Each variable `stmt` reads, as (var, 'index' | 'item' | 'other', the tuple built)."""
    if isinstance(stmt, ir.SetItem) and is_array(stmt.target):
        return [(stmt.target, "other", None), (stmt.index, "index", None),
                (stmt.value, "other", None)]  # fmt: skip
    if isinstance(stmt, ir.Assign):
        value = stmt.value
        if isinstance(value, ir.GetItem) and is_array(value.value):
            return [(value.value, "other", None), (value.index, "index", None)]
        if isinstance(value, ir.BuildTuple):
            return [(item, "item", stmt.target.name) for item in value.items]
    return [(var, "other", None) for var in stmt.sources()]
