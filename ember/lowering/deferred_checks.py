"""Deferred Python-error checks: consumes a typed function's IR, produces the innermost loops
whose NaN/infinity/domain checks may wait for the loop's exit (so the loop vectorizes), and at
lowering time either records the first failure and raises it where the loop exits, or (a loop
that can run again from its entry state) only flags that something failed and, if so, runs the
loop again with its checks in place, which raises exactly as Python does; a loop storing into
arrays the caller sees does the latter block by block, checking each block before it stores.
"""

from __future__ import annotations

import math
import operator
import sys
from dataclasses import dataclass, field

from llvmlite import ir as llvm

from ember import types
from ember.frontend.cfg import graph_of_blocks
from ember.ir import nodes as ir
from ember.lowering.arrays import ArrayFields, needs_refcount, store_in_entry, unpack
from ember.lowering.arrays_kernels import may_overlap
from ember.lowering.callconv import alloca_in_entry
from ember.lowering.intrinsics import call_intrinsic
from ember.lowering.models import model_of

i64 = llvm.IntType(64)
f64 = llvm.DoubleType()
_NO_FAILURE = (1 << 63) - 1
_SITE_BITS, _KIND_BITS = 8, 8  # a failure's stamp: iteration << 16 | site << 8 | kind
_BEYOND_INT64_SQUARED = 2.0**126  # a sum of squares this large: some |x| may be >= 2**63
# A blockwise loop's iterations per block: its body rereads what its check pass read, from the
# L1 cache (256 measured faster than 512 and 1024 on conversions stored into uint8 and int32).
BLOCK = 256
SHORT = 20  # fewer iterations left: a checked copy runs them to the end (two passes cost more)
i1 = llvm.IntType(1)

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
_PURE_CALLS = {abs, min, max, int, round, float, bool, math.fabs, math.copysign, math.isnan,
               math.isinf, math.isfinite, math.hypot, math.atan2}  # fmt: skip
_ALLOCATOR_NAMES = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
                    "full_like")  # fmt: skip
_ARRAY_FACTS = {"shape", "size", "ndim", "itemsize", "nbytes", "dtype"}


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
    both), which must not overlap in memory for its check pass to read what its body does."""

    iterator: str
    stored: frozenset[str]
    read: frozenset[str]


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
        return Blockwise(iterator, frozenset(stored), frozenset(read))

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


@dataclass
class _PendingSite:
    """A check site whose min-reduction is not emitted yet: more checks of its kind in its
    block may still or their conditions into it."""

    kind: tuple
    slot: llvm.Value
    tag: int
    condition: llvm.Value
    block: llvm.Block


class DeferredChecks:
    """The lowering side. A loop that can run again (`plan.replays`) folds its checks into
    flags of its own (an or of conditions, a sum of squares for conversions to int64:
    reductions LLVM vectorizes as cheaply as the loop's own arithmetic); where it exits or
    raises, a set flag restores its entry state (saved on every entry) and runs its second
    copy, lowered with the checks in place (`lower.py`). Any other loop records per check
    site its first failure's stamp (a separate min-reduction each), raised where it exits:
    the tests are filled in by `finish`, once every site is known.

    A loop storing into arrays the caller sees (`plan.blockwise`) cannot take back the stores
    of the iterations after a failure, so it runs BLOCK iterations at a time, in three copies
    (`lower.py`): a check pass, its stores left out, only flags; if nothing failed, the body
    with no checks (both vectorize); else, from the block's entry state, the body with its
    checks in place, which raises where CPython does with the same stores done before."""

    def __init__(self, plan: DeferralPlan, builder: llvm.IRBuilder, variable_slot, enclosing=None):
        self.plan = plan
        self.variable_slot = variable_slot  # name -> (stack slot, its type), or None: no slot
        self.enclosing = enclosing  # the DeferredChecks of a function this one interrupted
        self.function = builder.function
        self.iteration = alloca_in_entry(builder, i64, name="deferred.iteration")
        store_in_entry(builder, llvm.Constant(i64, 0), self.iteration)
        self.raise_block = builder.function.append_basic_block("deferred.raise")
        self.tests: list[tuple[llvm.Block, llvm.Block]] = []  # (test block, where it goes on)
        self.sites: list[llvm.Value] = []  # each site's first failure stamp (a slot)
        self.kinds: list[tuple[type, tuple]] = []
        self.flags: dict[int, tuple] = {}  # per loop that runs again: (any failed, squares)
        self.run_again: dict[int, llvm.Block] = {}  # ... and the block restoring its state
        for header in plan.replays:
            failed = alloca_in_entry(builder, i1, name=f"deferred.failed{header}")
            squares = alloca_in_entry(builder, f64, name=f"deferred.squares{header}")
            self.flags[header] = (failed, squares)
            self._clear_flags(builder, header, in_entry=True)
            self.run_again[header] = self.function.append_basic_block(f"deferred.again{header}")
        self.saved: dict[int, tuple[list, list]] = {}  # per loop: (variables, range states)
        self.recording = False  # lowering a statement whose checks are deferred
        self.loop: int | None = None  # the header of the deferring loop being lowered
        self.copy: str | None = None  # the blockwise loop's copy: "check", "unchecked"
        self.remaining = {  # per blockwise loop: its iterator's count before the block
            header: alloca_in_entry(
                builder,
                self._iterator_state_type(blockwise).elements[1],
                name=f"blockwise.remaining{header}",
            )
            for header, blockwise in plan.blockwise.items()
        }
        self.pending: _PendingSite | None = None  # the last site, its reduction not emitted

    def deferring(self, builder: llvm.IRBuilder) -> bool:
        """Whether checks emitted now are deferred (not in a function compiled meanwhile)."""
        return self.recording and builder.function is self.function

    def flags_failures(self, builder: llvm.IRBuilder) -> bool:
        """Whether checks emitted now only flag a failure (the loop runs again if one did)."""
        return self.deferring(builder) and self.loop in self.plan.replays

    def raises_first(self, builder: llvm.IRBuilder) -> bool:
        """Whether a raise emitted now must first raise a deferred failure."""
        return self.loop is not None and builder.function is self.function

    def lowered_in_blocks(self, label: int) -> bool:
        """Whether block `label` belongs to a blockwise loop (lowered by `lower.py` in copies
        only, the first pass leaving its header's block for `run_in_blocks`)."""
        return self.plan.loop_of(label) in self.plan.blockwise

    def enter_copy(self, header: int, copy: str) -> None:
        """Before lowering a copy of the loop of `header`: "checked" (checks in place),
        "check" (a blockwise loop's check pass: checks flag, stores are left out) or
        "unchecked" (its body where the check pass flagged nothing: no deferred check)."""
        self.checks_in_place()
        if copy != "checked":
            self.loop, self.copy = header, copy

    def lowers(self, stmt: ir.Stmt) -> bool:
        """Whether a copy lowers `stmt` (the check pass stores nothing), and with its checks
        deferred or not."""
        self.recording = self.loop is not None and id(stmt) in self.plan.deferred
        return not (self.copy == "check" and isinstance(stmt, ir.SetItem))

    def enter_block(self, builder: llvm.IRBuilder, label: int) -> None:
        """At the top of each block: raise at loop exits, count iterations in headers."""
        self.flush()
        self.loop = self.plan.loop_of(label)
        exited = self.plan.exited_to(label)
        if exited:
            self.raise_pending(builder, exited)
        if label in self.plan.loops and label not in self.plan.replays:
            count = builder.load(self.iteration, typ=i64)
            builder.store(builder.add(count, llvm.Constant(i64, 1), flags=("nsw",)), self.iteration)

    def checks_in_place(self) -> None:
        """From now on checks raise where they are (the second copies of loops)."""
        self.flush()
        self.loop = self.copy = None
        self.recording = False

    # ------------------------------------------------------------------ loops that run again

    def before_jump(self, builder: llvm.IRBuilder, label: int, targets: list[int]) -> None:
        """Before block `label` jumps into a loop that runs again: save its entry state."""
        for header in targets:
            if header in self.plan.blockwise:  # (saved before each block: `run_in_blocks`)
                continue
            if header in self.plan.replays and label not in self.plan.loops[header]:
                self._save_state(builder, header)

    def _save_state(self, builder: llvm.IRBuilder, header: int) -> None:
        variables, states = self._saved_state(builder, header)
        for slot, saved, typ in variables:
            builder.store(builder.load(slot, typ=typ), saved)
        for slot, saved, typ in states:
            state = builder.load(slot, typ=llvm.PointerType())
            builder.store(builder.load(state, typ=typ), saved)

    def _restore_state(self, builder: llvm.IRBuilder, header: int) -> None:
        variables, states = self._saved_state(builder, header)
        for slot, saved, typ in variables:
            builder.store(builder.load(saved, typ=typ), slot)
        for slot, saved, typ in states:
            state = builder.load(slot, typ=llvm.PointerType())
            builder.store(builder.load(saved, typ=typ), state)

    def _saved_state(self, builder: llvm.IRBuilder, header: int) -> tuple[list, list]:
        """(slot, saved copy, type) of the loop's variables and of its range iterators' state."""
        if header not in self.saved:
            replay = self.plan.replays[header]
            variables, states = [], []
            for name in sorted(replay.assigned):
                found = self.variable_slot(name)
                if found is not None:
                    slot, value_type = found
                    typ = model_of(value_type).value_type
                    variables.append((slot, alloca_in_entry(builder, typ, name=f"{name}.0"), typ))
            for name in sorted(replay.range_iterators):
                slot, iterator_type = self.variable_slot(name)
                typ = model_of(iterator_type).state_type
                states.append((slot, alloca_in_entry(builder, typ, name=f"{name}.0"), typ))
            self.saved[header] = variables, states
        return self.saved[header]

    def flag_beyond_int64(self, builder: llvm.IRBuilder, value: llvm.Value) -> None:
        """Flag a failure in the loop being lowered when the float `value` is NaN, infinite or
        at least 2**63 in magnitude, in one instruction (a fused multiply-add): the flag is
        the sum of the squares seen, which such a value makes NaN or at least 2**126 (every
        term is >= 0, so in any order the sum is >= its largest term). Values all below 2**63
        whose squares still add up that far (~1e16 and more each) only cost a second run."""
        if self.copy == "unchecked":
            return
        if value.type != f64:
            value = builder.fpext(value, f64)
        slot = self.flags[self.loop][1]
        so_far = builder.load(slot, typ=f64)
        squares = call_intrinsic(builder, "llvm.fmuladd", [value, value, so_far])
        squares.fastmath.add("reassoc")  # a reduction LLVM vectorizes (any order will do)
        builder.store(squares, slot)

    def run_checked_copy_if(self, builder: llvm.IRBuilder, condition: llvm.Value) -> None:
        """Leave the loop being lowered for its checked copy where `condition` holds (one that
        does not change in the loop: LLVM then tests it once, before the loop, which keeps the
        loop free of the branch)."""
        following = builder.append_basic_block(f"{builder.block.name}.stays")
        branch = builder.cbranch(condition, self.run_again[self.loop], following)
        branch.set_weights([1, 2000])
        builder.position_at_end(following)

    def _leave_for_checked_copy(self, builder: llvm.IRBuilder) -> None:
        """Go to the checked copy of the loop being lowered (what follows is unreachable)."""
        builder.branch(self.run_again[self.loop])
        builder.position_at_end(builder.append_basic_block(f"{builder.block.name}.left"))

    def _clear_flags(self, builder: llvm.IRBuilder, header: int, in_entry: bool = False) -> None:
        failed, squares = self.flags[header]
        for value, slot in ((llvm.Constant(i1, 0), failed), (llvm.Constant(f64, 0.0), squares)):
            if in_entry:
                store_in_entry(builder, value, slot)
            else:
                builder.store(value, slot)

    def _flagged(self, builder: llvm.IRBuilder, header: int) -> llvm.Value:
        """Whether the loop's checks failed, or a conversion met a value beyond int64."""
        failed, squares = self.flags[header]
        sum_of_squares = builder.load(squares, typ=f64)
        limit = llvm.Constant(f64, _BEYOND_INT64_SQUARED)
        beyond = builder.fcmp_unordered(">=", sum_of_squares, limit)  # (or NaN)
        return builder.or_(builder.load(failed, typ=i1), beyond)

    def block_ends(self, header: int) -> tuple[llvm.Block, llvm.Block]:
        """The blocks a blockwise loop's check pass, and then its bodies, exit to."""
        append = self.function.append_basic_block
        return append(f"blockwise.decide{header}"), append(f"blockwise.done{header}")

    def run_in_blocks(
        self,
        header: int,
        start: llvm.Block,
        ends: tuple[llvm.Block, llvm.Block],
        copies: dict[str, llvm.Block],
        exit_to: llvm.Block,
    ) -> None:
        """Fill the blocks that run the blockwise loop of `header` BLOCK iterations at a time:
        `start`, where it is entered, cuts its range iterator's count to the block's, saves
        its state and runs the check pass (or the checked copy, when an array it stores into
        may overlap one it reads; with fewer than SHORT iterations left, the "short" copy,
        checked, runs them to `exit_to`); where the
        check pass ends, a flag runs the checked copy, else the unchecked one, from the saved
        state; after either, the next block starts, or the loop goes on to `exit_to` (its
        iterator left as a whole run would). `ends`: from `block_ends`; `copies`: each
        copy's entry."""
        decide, done = ends
        blockwise = self.plan.blockwise[header]
        checked = self.run_again[header]
        self.restore_and_run_again(header, copies["checked"])
        state_type = self._iterator_state_type(blockwise)
        count_type = state_type.elements[1]
        block_count = llvm.Constant(count_type, BLOCK)

        builder = llvm.IRBuilder(start)
        count_slot = self._iterator_field(builder, blockwise, 1)
        count = builder.load(count_slot, typ=count_type)
        long = builder.append_basic_block(f"blockwise.long{header}")
        short = builder.icmp_unsigned("<", count, llvm.Constant(count_type, SHORT))
        builder.cbranch(short, copies["short"], long)
        builder.position_at_end(long)
        builder.store(count, self.remaining[header])
        within = builder.icmp_unsigned("<", count, block_count)
        builder.store(builder.select(within, count, block_count), count_slot)
        self._save_state(builder, header)
        self._clear_flags(builder, header)
        overlap = self._may_overlap(builder, blockwise)
        builder.cbranch(overlap, checked, copies["check"]).set_weights([1, 2000])

        builder = llvm.IRBuilder(decide)
        unchecked = builder.append_basic_block(f"blockwise.unchecked{header}")
        builder.cbranch(self._flagged(builder, header), checked, unchecked).set_weights([1, 2000])
        builder.position_at_end(unchecked)
        self._restore_state(builder, header)
        builder.branch(copies["unchecked"])

        builder = llvm.IRBuilder(done)
        remaining = builder.load(self.remaining[header], typ=count_type)
        following = builder.append_basic_block(f"blockwise.next{header}")
        builder.cbranch(builder.icmp_unsigned("<=", remaining, block_count), exit_to, following)
        builder.position_at_end(following)
        ((_, saved, _),) = self._saved_state(builder, header)[1]  # (its one range's state)
        first, step = (
            builder.load(builder.gep(saved, [_i32(0), _i32(k)]), typ=count_type) for k in (0, 2)
        )
        following_first = builder.add(first, builder.mul(step, block_count))
        following_count = builder.sub(remaining, block_count)
        builder.store(following_first, self._iterator_field(builder, blockwise, 0))
        builder.store(following_count, self._iterator_field(builder, blockwise, 1))
        builder.branch(start)

    def _iterator_state_type(self, blockwise: Blockwise) -> llvm.Type:
        return model_of(self.variable_slot(blockwise.iterator)[1]).state_type

    def _iterator_field(self, builder: llvm.IRBuilder, blockwise: Blockwise, index: int):
        """A pointer to the range iterator's next value (0), remaining count (1) or step (2)."""
        slot, _ = self.variable_slot(blockwise.iterator)
        state = builder.load(slot, typ=llvm.PointerType())
        state_type = self._iterator_state_type(blockwise)
        return builder.gep(state, [_i32(0), _i32(index)], source_etype=state_type)

    def _may_overlap(self, builder: llvm.IRBuilder, blockwise: Blockwise) -> llvm.Value:
        """Whether an array the loop stores into may share memory with one it reads."""
        overlap = llvm.Constant(i1, 0)
        for stored in sorted(blockwise.stored):
            for read in sorted(blockwise.read):
                fields = self._array_fields(builder, stored), self._array_fields(builder, read)
                if None in fields:
                    return llvm.Constant(i1, 1)
                overlap = builder.or_(overlap, may_overlap(builder, *fields))
        return overlap

    def _array_fields(self, builder: llvm.IRBuilder, name: str) -> ArrayFields | None:
        found = self.variable_slot(name)
        if found is None:
            return None
        slot, array_type = found
        return unpack(builder, array_type, builder.load(slot, typ=model_of(array_type).value_type))

    def restore_and_run_again(self, header: int, second_copy: llvm.Block) -> None:
        """Fill the block a set flag goes to: clear the flag, put back the loop's entry state
        and run its second copy."""
        builder = llvm.IRBuilder(self.run_again[header])
        self._clear_flags(builder, header)
        self._restore_state(builder, header)
        builder.branch(second_copy)

    # ------------------------------------------------------------------ both kinds

    def record(self, builder: llvm.IRBuilder, condition, exc_class: type, exc_args: tuple) -> bool:
        """Note that `condition` failed: in the loop's flag, or folded into a site's first
        failure, a min-reduction of its own (one per site: separate reductions vectorize, a
        chain into one does not); False if it cannot be deferred (too many sites or kinds:
        the caller branches as usual). Checks of one kind in a row in one block share a site:
        their conditions are or-ed (which of them failed first within an iteration does not
        matter), and the reduction is emitted once, at `flush`."""
        if self.flags_failures(builder):
            if self.copy == "unchecked":  # (the check pass found that it holds nowhere)
                return True
            slot = self.flags[self.loop][0]
            builder.store(builder.or_(builder.load(slot, typ=i1), condition), slot)
            return True
        kind = (exc_class, exc_args)
        if kind not in self.kinds:
            if len(self.kinds) >= 1 << _KIND_BITS:
                return False
            self.kinds.append(kind)
        pending = self.pending
        if pending is not None and pending.kind == kind and pending.block is builder.block:
            pending.condition = builder.or_(pending.condition, condition)
            return True
        if len(self.sites) >= 1 << _SITE_BITS:
            return False
        self.flush()
        slot = alloca_in_entry(builder, i64, name="deferred.site")
        store_in_entry(builder, _constant(_NO_FAILURE), slot)
        tag = len(self.sites) << _KIND_BITS | self.kinds.index(kind)
        self.sites.append(slot)
        self.pending = _PendingSite(kind, slot, tag, condition, builder.block)
        return True

    def flush(self) -> None:
        """Emit the pending site's min-reduction at the end of its block."""
        pending, self.pending = self.pending, None
        if pending is None:
            return
        builder = llvm.IRBuilder(pending.block)
        if pending.block.is_terminated:
            builder.position_before(pending.block.terminator)
        iteration = builder.load(self.iteration, typ=i64)
        shifted = builder.shl(iteration, _constant(_SITE_BITS + _KIND_BITS))
        stamp = builder.or_(shifted, _constant(pending.tag))
        candidate = builder.select(pending.condition, stamp, _constant(_NO_FAILURE))
        first = builder.load(pending.slot, typ=i64)
        builder.store(call_intrinsic(builder, "llvm.smin", [first, candidate]), pending.slot)

    def raise_pending(self, builder: llvm.IRBuilder, headers: list[int] | None = None) -> None:
        """Where the loops `headers` (by default the one being lowered) exit, or before a raise
        in one: run a loop whose flag is set again, raise a recorded failure."""
        self.flush()
        if headers is None and self.loop in self.plan.blockwise:
            if self.copy == "check":  # (its checked copy raises this, after the stores before)
                self._leave_for_checked_copy(builder)
            return
        headers = [self.loop] if headers is None else headers
        for header in headers:
            if header in self.plan.blockwise:  # (it exits only once every block ran)
                continue
            if header in self.plan.replays:
                failed = self._flagged(builder, header)
                following = builder.append_basic_block(f"{builder.block.name}.unflagged")
                branch = builder.cbranch(failed, self.run_again[header], following)
                branch.set_weights([1, 2000])
                builder.position_at_end(following)
        if all(header in self.plan.replays for header in headers):
            return
        test = builder.append_basic_block(f"{builder.block.name}.deferred")
        following = builder.append_basic_block(f"{builder.block.name}.no_deferred")
        builder.branch(test)
        self.tests.append((test, following))
        builder.position_at_end(following)

    def finish(self, raise_error) -> None:
        """Fill the tests and the raising block: the exception of the first failure's kind
        (`raise_error(builder, exc, *args)`)."""
        self.checks_in_place()
        for test, following in self.tests:
            builder = llvm.IRBuilder(test)
            failed = builder.icmp_signed("!=", self._first(builder), _constant(_NO_FAILURE))
            builder.cbranch(failed, self.raise_block, following).set_weights([1, 2000])
        builder = llvm.IRBuilder(self.raise_block)
        kind = builder.and_(self._first(builder), _constant((1 << _KIND_BITS) - 1))
        for index, (exc_class, exc_args) in enumerate(self.kinds[:-1]):
            with builder.if_then(builder.icmp_signed("==", kind, _constant(index))):
                raise_error(builder, exc_class, *exc_args)
        if self.kinds:
            exc_class, exc_args = self.kinds[-1]
            raise_error(builder, exc_class, *exc_args)
        else:
            builder.unreachable()

    def _first(self, builder: llvm.IRBuilder) -> llvm.Value:
        """The earliest stamp of all sites (no site: no failure)."""
        first = _constant(_NO_FAILURE)
        for slot in self.sites:
            first = call_intrinsic(builder, "llvm.smin", [first, builder.load(slot, typ=i64)])
        return first


def _constant(value: int) -> llvm.Constant:
    return llvm.Constant(i64, value)


def _i32(value: int) -> llvm.Constant:
    return llvm.Constant(llvm.IntType(32), value)


def _is_allocator(callee: object) -> bool:
    """A NumPy function making a new array (NumPy is imported only if the code uses it)."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and any(callee is getattr(numpy, n) for n in _ALLOCATOR_NAMES)
