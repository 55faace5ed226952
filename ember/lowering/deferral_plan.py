"""Deferred Python-error checks, the plan: consumes a typed function's IR, produces the
innermost loops whose NaN/infinity/domain checks may wait for the loop's exit (so the loop
vectorizes), which of them can run again from their entry state, and which run block by block
(ember/lowering/deferred_checks.py lowers them)."""

from __future__ import annotations

import math
import operator
import sys
from dataclasses import dataclass, field

from ember import types
from ember.frontend.cfg import graph_of_blocks
from ember.ir import nodes as ir
from ember.lowering.arrays import itemsize_of, needs_refcount

# A blockwise loop's iterations per block (at most): its body copies the items its check pass
# buffered, from the L1 cache.
BLOCK = 256
# ... and the bytes a block's buffer of one store holds (at most): with 2 KB of float64 items per
# block, sqrt_into ran 1.09-1.13x Numba's time, with 1 KB 1.02-1.08x; with 4 KB 1.1-1.5x.
BLOCK_BYTES = 1024
SHORT = 20  # fewer iterations left: a checked copy runs them to the end (two passes cost more)

_CHECKED_MATH = {
    getattr(math, name)
    for name in (
        "sqrt",
        "exp",
        "expm1",
        "exp2",
        "log",
        "log2",
        "log10",
        "log1p",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "erf",
        "erfc",
        "gamma",
        "lgamma",
        "floor",
        "ceil",
        "trunc",
    )  # fmt: skip
    if hasattr(math, name)
}
_DEFERRABLE = _CHECKED_MATH | {int, round}  # with one float operand
_PURE_CALLS = {abs, min, max, int, round, float, bool, complex, math.fabs, math.copysign,
               math.isnan, math.isinf, math.isfinite, math.hypot, math.atan2, math.radians,
               math.degrees}  # fmt: skip
_ALLOCATOR_NAMES = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
                    "full_like")  # fmt: skip
_ARRAY_FACTS = {"shape", "size", "ndim", "itemsize", "nbytes", "dtype"}
_NUMBER_PARTS = {"real", "imag"}  # of a scalar: a field read


@dataclass(frozen=True)
class Replay:
    """What a loop must get back to run again from its entry: the variables it assigns (none
    reference-counted) and the range iterators it advances (their state)."""

    assigned: frozenset[str]
    range_iterators: frozenset[str]


@dataclass(frozen=True)
class Blockwise:
    """A loop that runs again block by block (it stores into arrays the caller sees): its one
    range iterator, the arrays it stores into and those it reads (by variable; no name in
    both), which must not overlap in memory for its check pass to read what its body does, and
    the ids of its stores of a number into an array of numbers, whose items the check pass
    computes into a buffer that the unchecked body copies from."""

    iterator: str
    stored: frozenset[str]
    read: frozenset[str]
    buffered: dict[int, tuple[str, int]]  # by store id: (array variable, bytes per item)

    @property
    def block(self) -> int:
        """Iterations per block: BLOCK, fewer when a buffer of BLOCK items passes BLOCK_BYTES."""
        return items_per_block(max((size for _, size in self.buffered.values()), default=1))


def items_per_block(itemsize: int) -> int:
    """A blockwise loop's iterations per block when its widest buffered item has `itemsize`."""
    return max(1, min(BLOCK, BLOCK_BYTES // itemsize))


@dataclass
class DeferralPlan:
    """Which loops defer their checks: by header label, the loop's blocks and the blocks
    outside them that it exits to; the ids of the statements whose checks are deferred; the
    loops that, on a failure, run again with their checks in place; and those of them that do
    so block by block."""

    loops: dict[int, frozenset[int]] = field(default_factory=dict)
    exits: dict[int, frozenset[int]] = field(default_factory=dict)
    deferred: set[int] = field(default_factory=set)
    replays: dict[int, Replay] = field(default_factory=dict)
    blockwise: dict[int, Blockwise] = field(default_factory=dict)

    def loop_of(self, label: int) -> int | None:
        """The header of the deferring loop that block `label` belongs to, if any."""
        return next((header for header, body in self.loops.items() if label in body), None)

    def exited_to(self, label: int) -> list[int]:
        """The headers of the deferring loops that exit to block `label`."""
        return [header for header, exits in self.exits.items() if label in exits]


def plan_deferral(func_ir: ir.FunctionIR, typemap: dict) -> DeferralPlan | None:
    """The loops of `func_ir` that may defer their checks (None: no such loop).

    A loop may when every statement in it acts only on the function's own values (scalars,
    arrays it allocated itself and never lets out before returning): then the checks of
    `int(x)`, `round(x)`, `math.floor(x)`, `math.sqrt(x)`, `math.exp(x)`, a float `x ** y`, ...
    only record a failure (iteration, site, kind), and the first is raised where the loop exits
    or before any other error raised in it, so Python sees the same exception and nothing
    outside sees the iterations run after it. A value a failing check computed (a saturated
    int, a NaN) may feed arithmetic and stores into the function's arrays, never an index or a
    branch, so those iterations cannot misbehave."""
    if func_ir.exception_handlers or not func_ir.blocks:
        return None
    facts = _FunctionFacts(func_ir, typemap)
    if not facts.deferrable:
        return None
    plan = DeferralPlan()
    for loop in _innermost_loops(func_ir):
        statements = [stmt for label in loop.body for stmt in func_ir.blocks[label].body]
        header = func_ir.blocks[loop.header].body
        entered_from_a_block = loop.header != func_ir.entry  # (to run again, it must be)
        blockwise = None
        if all(facts.allowed_in_loop(stmt) for stmt in statements):
            replay = facts.replay_of(statements, header) if entered_from_a_block else None
        elif (
            entered_from_a_block
            and _exits_only_from_header(func_ir, loop)
            and all(facts.allowed_in_blockwise_loop(stmt) for stmt in statements)
        ):
            replay = facts.entry_state(statements, header)
            blockwise = facts.blockwise_of(statements, replay)
            if blockwise is None:
                continue
        else:
            continue
        deferred = {
            id(stmt)
            for stmt in statements
            if id(stmt) in facts.deferrable
            and (replay is not None or id(stmt) not in facts.runtime_powers)
        }
        if not deferred:
            continue
        plan.loops[loop.header] = frozenset(loop.body)
        plan.exits[loop.header] = frozenset(loop.exits)
        plan.deferred |= deferred
        if replay is not None:
            plan.replays[loop.header] = replay
        if blockwise is not None:
            plan.blockwise[loop.header] = blockwise
    return plan if plan.loops else None


def _exits_only_from_header(func_ir: ir.FunctionIR, loop) -> bool:
    """Whether the loop leaves only where its header finds its iterator exhausted."""
    return all(
        successor in loop.body
        for label in loop.body
        if label != loop.header
        for successor in func_ir.successors(label)
    )


def _innermost_loops(func_ir: ir.FunctionIR) -> list:
    """Natural loops containing no other loop, whose header is their first block (so label
    order is execution order within one iteration)."""
    cfg = graph_of_blocks(func_ir)
    loops = list(cfg.loops().values())
    return [
        loop
        for loop in loops
        if loop.header == min(loop.body)
        and not any(other.header != loop.header and other.header in loop.body for other in loops)
    ]


class _FunctionFacts:
    """What the statements of one function do, for deciding whether a loop may defer."""

    def __init__(self, func_ir: ir.FunctionIR, typemap: dict) -> None:
        self.typemap = typemap
        self.globals: dict[str, object] = {}
        self.definitions: dict[str, list] = {}
        for _, stmt in func_ir.statements():
            if isinstance(stmt, ir.Assign):
                self.definitions.setdefault(stmt.target.name, []).append(stmt.value)
                if isinstance(stmt.value, ir.Global | ir.FreeVar):
                    self.globals[stmt.target.name] = stmt.value.value
        for _, stmt in func_ir.statements():  # `np.empty`, `math.sqrt`: module attributes
            value = stmt.value if isinstance(stmt, ir.Assign) else None
            if isinstance(value, ir.GetAttr) and self._is_module(value.value):
                module = self.globals.get(value.value.name)
                self.globals[stmt.target.name] = getattr(module, value.attr, None)
        self.deferrable = {
            id(stmt)
            for _, stmt in func_ir.statements()
            if isinstance(stmt, ir.Assign) and self._is_deferrable(stmt.value)
        }
        self.runtime_powers = {  # deferred only where the loop runs again (see below)
            id(stmt)
            for _, stmt in func_ir.statements()
            if id(stmt) in self.deferrable and not self._constant_exponent(stmt.value)
        }
        self.tainted = self._tainted(func_ir)
        self.own_arrays = self._own_arrays(func_ir)

    def _is_module(self, var: ir.Var) -> bool:
        return isinstance(self.typemap.get(var.name), types.Module)

    def _callee(self, call: ir.Call):
        return self.globals.get(call.func.name)

    def _is_float(self, var: ir.Var) -> bool:
        return isinstance(types.unliteral(self.typemap.get(var.name)), types.Float)

    def _is_scalar(self, var: ir.Var) -> bool:
        return isinstance(types.unliteral(self.typemap.get(var.name)), types.Number | types.Boolean)

    def _is_deferrable(self, value) -> bool:
        if isinstance(value, ir.BinOp | ir.InplaceBinOp):
            return self._is_float_power(value)
        if not isinstance(value, ir.Call) or value.kws or len(value.args) != 1:
            return False
        operand = types.unliteral(self.typemap.get(value.args[0].name))
        try:
            return self._callee(value) in _DEFERRABLE and isinstance(operand, types.Float)
        except TypeError:  # an unhashable global
            return False

    def _is_float_power(self, value: ir.BinOp | ir.InplaceBinOp) -> bool:
        """`x ** 3`, `x ** 0.5`, `x ** n`: a float to a constant or a run-time integer
        exponent, whose ZeroDivisionError, ValueError and OverflowError checks may wait
        (ember/lowering/powers.py). A run-time integer exponent waits only in a loop that runs
        again with its checks in place, where its power is branch-free; elsewhere it takes a
        switch, and a run-time float exponent the C pow, so the loop would not vectorize
        anyway: a branch to raise costs less there than recording."""
        fn = value.fn if isinstance(value, ir.BinOp) else value.immutable_fn
        base = types.unliteral(self.typemap.get(value.lhs.name))
        exponent = types.unliteral(self.typemap.get(value.rhs.name))
        supported = self._constant_exponent(value) or isinstance(exponent, types.Integer)
        return fn is operator.pow and isinstance(base, types.Float) and supported

    def _constant_exponent(self, value) -> bool:
        return isinstance(value, ir.BinOp | ir.InplaceBinOp) and all(
            isinstance(v, ir.Const) for v in self.definitions.get(value.rhs.name, [None])
        )

    def _tainted(self, func_ir: ir.FunctionIR) -> set[str]:
        """Variables that may hold what a failing deferred check computed, and all derived."""
        tainted = {
            stmt.target.name for _, stmt in func_ir.statements() if id(stmt) in self.deferrable
        }
        assigns = [stmt for _, stmt in func_ir.statements() if isinstance(stmt, ir.Assign)]
        grew = True
        while grew:
            grew = False
            for stmt in assigns:
                name = stmt.target.name
                if name not in tainted and any(v.name in tainted for v in stmt.sources()):
                    tainted.add(name)
                    grew = True
        return tainted

    def _own_arrays(self, func_ir: ir.FunctionIR) -> set[str]:
        """Array variables only ever holding arrays this function allocated, and used only to
        read or write scalar items, read their shape, be copied to another such variable or
        returned: stores into them are invisible outside until the function returns."""
        candidates = {
            name
            for name, values in self.definitions.items()
            if isinstance(self.typemap.get(name), types.Array)
        }
        changed = True
        while changed:
            changed = False
            for name in list(candidates):
                if not all(self._fresh(value, candidates) for value in self.definitions[name]):
                    candidates.discard(name)
                    changed = True
            for _, stmt in func_ir.statements():
                for var in stmt.sources():
                    if var.name in candidates and not self._harmless_use(stmt, var, candidates):
                        candidates.discard(var.name)
                        changed = True
        return candidates

    def _fresh(self, value, candidates: set[str]) -> bool:
        if isinstance(value, ir.Var | ir.Cast):
            return (value if isinstance(value, ir.Var) else value.value).name in candidates
        if isinstance(value, ir.Call):
            try:
                return _is_allocator(self._callee(value))
            except TypeError:
                return False
        return False

    def _harmless_use(self, stmt: ir.Stmt, var: ir.Var, candidates: set[str]) -> bool:
        if isinstance(stmt, ir.Return):
            return True
        if isinstance(stmt, ir.SetItem):
            return stmt.target is var and stmt.index is not var and stmt.value is not var
        if not isinstance(stmt, ir.Assign):
            return False
        value = stmt.value
        if isinstance(value, ir.Var | ir.Cast):  # a copy (to return it: a cast)
            return stmt.target.name in candidates
        if isinstance(value, ir.GetItem | ir.StaticGetItem) and value.value is var:
            return self._is_scalar(stmt.target)
        if isinstance(value, ir.GetAttr):
            return value.attr in _ARRAY_FACTS
        return False

    def replay_of(self, statements: list[ir.Stmt], header: list[ir.Stmt]) -> Replay | None:
        """How the loop of `statements` runs again from its entry state (`entry_state`), or
        None if it cannot, also when it reads one of the function's arrays while storing into
        one (the first run's stores would change what the second reads)."""
        replay = self.entry_state(statements, header)
        values = [stmt.value for stmt in statements if isinstance(stmt, ir.Assign)]
        stores = any(isinstance(stmt, ir.SetItem) for stmt in statements)
        reads_own = any(
            isinstance(value, ir.GetItem | ir.StaticGetItem) and value.value.name in self.own_arrays
            for value in values
        )
        return None if stores and reads_own else replay

    def blockwise_of(self, statements: list[ir.Stmt], replay: Replay | None) -> Blockwise | None:
        """How the loop of `statements` (storing into arrays the caller sees) runs block by
        block, or None if it cannot: when it cannot run again from its entry state
        (`replay`), advances more than one range, or reads an array variable it stores into
        (its check pass, which does not store, would read what the body has not stored)."""
        if replay is None or len(replay.range_iterators) != 1:
            return None
        stored = {stmt.target.name for stmt in statements if isinstance(stmt, ir.SetItem)}
        read = {
            stmt.value.value.name
            for stmt in statements
            if isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.GetItem | ir.StaticGetItem)
            and isinstance(self.typemap.get(stmt.value.value.name), types.Array)
        }
        (iterator,) = replay.range_iterators
        if stored & read or self.typemap[iterator].dtype.bitwidth < BLOCK.bit_length() + 1:
            return None  # (a count of BLOCK must fit its range's integers)
        buffered = {
            id(stmt): (stmt.target.name, itemsize_of(self.typemap[stmt.target.name].dtype))
            for stmt in statements
            if isinstance(stmt, ir.SetItem)
            and isinstance(self.typemap[stmt.target.name].dtype, types.Number | types.Boolean)
        }
        return Blockwise(iterator, frozenset(stored), frozenset(read), buffered)

    def entry_state(self, statements: list[ir.Stmt], header: list[ir.Stmt]) -> Replay | None:
        """What the loop of `statements` must get back to run again from its entry, or None
        if it cannot: when it assigns or releases a reference-counted variable or advances
        an iterator other than a range made before it in its `header` block."""
        assigned = {target.name for stmt in statements for target in stmt.targets()}
        released = {stmt.name for stmt in statements if isinstance(stmt, ir.Del)}
        if any(
            name in self.typemap and needs_refcount(self.typemap[name])
            for name in assigned | released
        ):
            return None
        values = [stmt.value for stmt in statements if isinstance(stmt, ir.Assign)]
        iterators = {value.value.name for value in values if isinstance(value, ir.IterNext)}
        in_header = {
            stmt.value.value.name
            for stmt in header
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.IterNext)
        }
        if (
            iterators != in_header  # (what the header advances is defined on entry)
            or any(isinstance(value, ir.GetIter) for value in values)
            or any(not isinstance(self.typemap[n], types.RangeIteratorType) for n in iterators)
        ):
            return None
        return Replay(frozenset(assigned), frozenset(iterators))

    # ------------------------------------------------------------------ loop statements

    def allowed_in_loop(self, stmt: ir.Stmt) -> bool:
        """Whether `stmt` may run in a loop that defers its checks."""
        if isinstance(stmt, ir.Del | ir.Jump):
            return True
        if isinstance(stmt, ir.Branch):
            return stmt.cond.name not in self.tainted
        if isinstance(stmt, ir.SetItem):
            return (
                stmt.target.name in self.own_arrays
                and stmt.index.name not in self.tainted
                and self._is_scalar(stmt.value)
            )
        if isinstance(stmt, ir.Assign):
            return id(stmt) in self.deferrable or self._allowed_value(stmt.value)
        return False

    def allowed_in_blockwise_loop(self, stmt: ir.Stmt) -> bool:
        """Whether `stmt` may run in a loop that runs block by block: what `allowed_in_loop`
        allows, and stores of scalars into any array (at indices no check computed)."""
        if isinstance(stmt, ir.SetItem):
            return (
                isinstance(self.typemap.get(stmt.target.name), types.Array)
                and stmt.index.name not in self.tainted
                and self._is_scalar(stmt.value)
            )
        return self.allowed_in_loop(stmt)

    def _allowed_value(self, value) -> bool:
        if isinstance(value, ir.Var | ir.Const | ir.Global | ir.FreeVar | ir.Cast):
            return True
        if isinstance(value, ir.BinOp | ir.InplaceBinOp | ir.UnaryOp):
            return all(self._is_scalar(var) for var in value.sources())
        if isinstance(value, ir.Call):
            try:
                callee = self._callee(value)
                pure = callee in _PURE_CALLS
            except TypeError:
                return False
            if callee in (int, round) and len(value.args) != 1:  # round(x, n): a compiled call
                return False
            if _is_numpy_float_math(callee):
                return not value.kws and all(self._is_float(v) for v in value.args)
            return pure and not value.kws and all(self._is_scalar(v) for v in value.args)
        if isinstance(value, ir.GetItem):
            array = isinstance(self.typemap.get(value.value.name), types.Array)
            return array and value.index.name not in self.tainted and self._is_scalar_item(value)
        if isinstance(value, ir.StaticGetItem):
            container = self.typemap.get(value.value.name)
            return isinstance(container, types.Array | types.BaseTuple)
        if isinstance(value, ir.GetAttr):
            if self._is_module(value.value):
                return True
            if self._is_scalar(value.value):
                return value.attr in _NUMBER_PARTS
            return isinstance(self.typemap.get(value.value.name), types.Array) and (
                value.attr in _ARRAY_FACTS
            )
        if isinstance(value, ir.BuildTuple):
            return all(self._is_scalar(var) for var in value.items)
        if isinstance(value, ir.GetIter | ir.IterNext | ir.PairFirst | ir.PairSecond):
            iterated = self.typemap.get(value.value.name)
            return isinstance(
                iterated, types.RangeType | types.RangeIteratorType | types.Tuple
            ) or (isinstance(value, ir.PairFirst | ir.PairSecond))
        return False

    def _is_scalar_item(self, value: ir.GetItem) -> bool:
        index = types.unliteral(self.typemap.get(value.index.name))
        if isinstance(index, types.Integer):
            return True
        return isinstance(index, types.BaseTuple) and all(
            isinstance(types.unliteral(t), types.Integer) for t in index.types
        )


def _is_numpy_float_math(callee) -> bool:
    """np.float32(x), np.float64(x) and ufuncs: on floats they give NaN or inf, never raise.
    (NumPy is looked up, not imported: a scalar function's compilation does not load it.)"""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return False
    return callee in (numpy.float32, numpy.float64) or isinstance(callee, numpy.ufunc)


def _is_allocator(callee: object) -> bool:
    """A NumPy function making a new array (NumPy is imported only if the code uses it)."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and any(callee is getattr(numpy, n) for n in _ALLOCATOR_NAMES)
