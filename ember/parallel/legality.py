"""Decides whether a prange loop's iterations are independent, and what crosses the boundary.

Consumes a `PrangeLoop` with the function's typemap and liveness; produces its parameters
(values read from outside), its reductions, or a `NotParallel` reason. The rules:

- a variable assigned in the body whose value reaches the next iteration or the code after
  the loop must be a recognised reduction (`reductions.py`), unless, whichever way the body's
  branches on loop-invariant values go, each iteration assigns it before reading it or never
  assigns it (`if unequal: m = make(i, j)`): each worker then starts from the value before
  the loop;
- an array from outside the loop that the body writes (item assignment, in-place operators,
  ufuncs with `out=`, mutating methods, jitted callees that write; `array_hazards.py`) is
  safe when reached only at indices holding the loop index at one fixed position (`a[i]`,
  `a[i, j]`, `a[j, i]`, views `a[i]`): each iteration owns its slab. A write that provably
  races keeps the loop serial: at elements every iteration writes (`a[0] = ...`,
  `a[:] += ...`, `a[j]` with `j` from an inner loop), or at `a[i + c]` with another access at
  `a[i + d]` (a recurrence).
  Any other write (`counts[x[i]] += 1`, `out[k]` with `k` computed, callees given the whole
  array) runs in parallel as Numba runs it: prange promises independent iterations, and a
  note in the diagnostics names the write;
- lists from outside may only be read.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field

from ember import types
from ember.ir import nodes as ir
from ember.parallel import reductions as red
from ember.parallel.array_hazards import (
    ArrayHazards,
    NotParallel,
    own_slab,
    same_index,
    shared_memory,
    single_definitions,
)
from ember.parallel.loops import PrangeLoop


@dataclass
class LoopAnalysis:
    params: list[str]
    reductions: list[tuple[str, str, bool]]  # (name, kind, inplace)
    index_aliases: set[str]
    dropped: set[int] = field(default_factory=set)  # ids of iterator copies in the body
    trusted: list[str] = field(default_factory=list)  # writes run in parallel on the user's word
    last_values: list[LastValues] = field(default_factory=list)


@dataclass
class LastValues:
    """Variables whose value after the loop is the one the last iteration assigning them left
    (OpenMP's lastprivate): each chunk notes whether it assigned them right after each
    assignment of `members[0]`. With `compare` = (leader, operator) they are a conditional
    extreme `if x < m: m = x; k = i` (leader m first, assigned only where the comparison
    holds): a later chunk's values win when its m compares so with the m so far."""

    members: list[str]
    compare: tuple[str, str] | None = None
    extreme: str = ""  # the leader's kind ('min' or 'max'): its identity in each chunk
    block: int | None = None  # the leader's assignment's block


def analyze(func_ir, typemap: dict, loop: PrangeLoop, live_in: dict) -> LoopAnalysis:
    if loop.leaves_loop:
        raise NotParallel("the body can leave the loop early (break or return)")
    if loop.odd_header:
        raise NotParallel(f"the loop header computes more than the next index ({loop.odd_header})")
    blocks = [func_ir.blocks[label] for label in loop.body]
    handlers = func_ir.exception_handlers  # a try inside the body protects not the header
    if any(handlers.get(label) not in (None, handlers.get(loop.header)) for label in loop.body):
        raise NotParallel("the body has a try statement (such loops run serially for now)")
    statements = [s for b in blocks for s in b.body if not isinstance(s, ir.Del)]
    dropped, carriers = _iterator_copies(statements, loop)
    statements = [s for s in statements if id(s) not in dropped]
    index_aliases = _index_aliases(statements, loop)
    _check_header_reads(statements, loop, index_aliases)
    defs = {v.name for s in statements for v in s.targets()}
    reads = [v.name for s in statements for v in s.sources()]
    carried = (live_in[loop.header] & defs) - carriers
    after = (live_in[loop.exit] & defs) - loop.header_defs
    private = {n for n in carried - after if _fresh_each_iteration(n, func_ir, loop, defs)}
    carried -= private
    body = {label: func_ir.blocks[label] for label in loop.body}
    exposed = _read_before_assigned(body, dropped, loop.body_entry)
    combined = sorted(carried | after)
    reductions, last_values = [], []
    for name in combined:
        if name not in exposed:
            continue  # assigned before any read in an iteration: its last value (below)
        try:
            reductions.append(_reduction(name, statements, typemap, set(combined)))
        except NotParallel:
            kind = _chosen_extreme(name, body, statements, typemap)
            kind = kind or _short_circuit(name, body, statements, typemap)
            if kind is not None:
                reductions.append((name, kind, False))
                continue
            extreme = _conditional_extreme(name, body, statements, typemap)
            if extreme is None:
                raise
            last_values.append(extreme)
    last_values += _last_values(
        [n for n in combined if n not in exposed], last_values, statements, body, typemap
    )
    for group in last_values:
        if group.compare is not None:
            _check_extreme_block(group, body, statements, typemap, set(combined))
    reduction_names = {name for name, _, _ in reductions}
    reduction_names |= {name for group in last_values for name in group.members}
    params = sorted(
        ({n for n in reads if n not in defs} | private) - loop.header_defs - reduction_names
    )
    hazards = ArrayHazards(statements, typemap, params, index_aliases, body)
    trusted = hazards.check()
    accumulated = {name for name, _ in hazards.accumulated}
    _check_shared_memory(func_ir, typemap, hazards, hazards.written | accumulated, params)
    reductions += [(name, kind, True) for name, kind in hazards.accumulated]
    params = [name for name in params if name not in accumulated]
    return LoopAnalysis(params, reductions, index_aliases, dropped, trusted, last_values)


def _check_shared_memory(func_ir, typemap, hazards: ArrayHazards, written, params) -> None:
    """Arrays the body writes that share memory with other arrays it reaches: only plain
    copies or whole views (`b = a`, `b = a[:]`) both reached at the iteration's own slab
    alone keep the iterations apart."""
    arrays = [name for name in params if isinstance(typemap.get(name), types.Array)]
    if not written:
        return
    for name, other, root, alike in shared_memory(func_ir, typemap, written, arrays):
        places = {place for n in (name, other) for place, _, _ in hazards.accesses.get(n, ())}
        if alike and len(places) == 1 and own_slab(next(iter(places))) is not None:
            continue
        raise NotParallel(
            f"the body writes '{name}' and reads '{other}', which may share memory (both "
            f"views of '{root}'): an element one iteration writes may be one another "
            "iteration reaches through the other name"
        )


def _fresh_each_iteration(name: str, func_ir, loop: PrangeLoop, defs: set[str]) -> bool:
    """Whether no iteration can see `name` as another iteration left it, so each worker may
    start from the value before the loop: for every outcome of the body's branches on values
    the loop does not change (`if unequal_length: m = make(...)`), either the body never
    assigns `name` or it assigns it before every read."""
    blocks = {label: func_ir.blocks[label] for label in loop.body}
    changing = defs | loop.header_defs  # the index and the iterator change too
    invariant = _invariant_names(blocks, changing)
    branches = sorted(
        label
        for label, block in blocks.items()
        if isinstance(block.terminator, ir.Branch)
        and (block.terminator.cond.name not in changing or block.terminator.cond.name in invariant)
    )
    if len(branches) > 4:
        return False  # too many outcomes to try; stay serial
    for outcome in itertools.product((True, False), repeat=len(branches)):
        taken = dict(zip(branches, outcome))
        if not _assigned_before_read(name, blocks, loop.body_entry, taken):
            return False
    return True


def _invariant_names(blocks: dict[int, ir.Block], defs: set[str]) -> set[str]:
    """Body variables holding the same value in every iteration: computed only from values
    defined before the loop, constants and globals, by operators, copies and `bool(...)`."""
    single: dict[str, ir.Assign] = {}
    counts: dict[str, int] = {}
    for block in blocks.values():
        for s in block.body:
            for v in s.targets():
                counts[v.name] = counts.get(v.name, 0) + 1
                if isinstance(s, ir.Assign):
                    single[v.name] = s
    single = {name: s for name, s in single.items() if counts[name] == 1}
    invariant: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, s in single.items():
            if name not in invariant and _invariant_value(s.value, invariant, defs, single):
                invariant.add(name)
                changed = True
    return invariant


def _invariant_value(value, invariant: set[str], defs: set[str], single: dict) -> bool:
    def steady(v: ir.Var) -> bool:
        return v.name not in defs or v.name in invariant

    if isinstance(value, (ir.Const, ir.Global, ir.FreeVar)):
        return True
    if isinstance(value, ir.Var):
        return steady(value)
    if isinstance(value, (ir.BinOp, ir.UnaryOp)):
        return all(steady(v) for v in value.sources())
    if isinstance(value, ir.Call) and not value.kws and len(value.args) == 1:
        func = single.get(value.func.name)  # only `bool(x)`: other calls may differ per call
        is_bool = func is not None and isinstance(func.value, ir.Global)
        return is_bool and func.value.value is bool and steady(value.args[0])
    return False


def _assigned_before_read(name: str, blocks, entry: int, taken: dict[int, bool]) -> bool:
    """With the branches in `taken` going the given ways: no assignment of `name` is reached,
    or every read of it in the body comes after an assignment in the same iteration."""

    def successors(label: int) -> list[int]:
        term = blocks[label].terminator
        if isinstance(term, ir.Branch):
            if label in taken:
                return [term.truebr if taken[label] else term.falsebr]
            return [term.truebr, term.falsebr]
        return [term.target] if isinstance(term, ir.Jump) else []

    def assigns(label: int) -> bool:
        return any(name in {v.name for v in s.targets()} for s in blocks[label].body)

    reached, work = {entry}, [entry]
    while work:
        for target in successors(work.pop()):
            if target in blocks and target not in reached:
                reached.add(target)
                work.append(target)
    if not any(assigns(label) for label in reached):
        return True  # every iteration reads the value from before the loop
    stale_at = {entry}  # blocks entered while `name` may hold another iteration's value
    work = [entry]
    while work:
        label = work.pop()
        stale = True
        for s in blocks[label].body:
            if isinstance(s, ir.Del):
                continue
            if stale and name in {v.name for v in s.sources()}:
                return False
            if name in {v.name for v in s.targets()}:
                stale = False
        for target in successors(label) if stale else ():
            if target in blocks and target not in stale_at:
                stale_at.add(target)
                work.append(target)
    return True


def _iterator_copies(statements: list[ir.Stmt], loop: PrangeLoop) -> tuple[set[int], set[str]]:
    """The copies that hand the iterator (and the iterators of enclosing loops) from block to
    block and back to the header (`$phi38.0 = $phi40.0`): the parfor has no iterator, so they
    go. Returns their ids and every variable they carry."""
    carriers = loop.iterator_vars | {copy.target.name for copy in loop.header_copies}
    found: set[int] = set()
    changed = True
    while changed:
        changed = False
        for s in statements:
            if (
                id(s) not in found
                and isinstance(s, ir.Assign)
                and isinstance(s.value, ir.Var)
                and s.value.name in carriers
            ):
                found.add(id(s))
                carriers.add(s.target.name)
                changed = True
    return found, carriers


def _index_aliases(statements: list[ir.Stmt], loop: PrangeLoop) -> set[str]:
    """Variables holding the loop index unchanged (`i = $phi40.1`, `j = i`)."""
    aliases = set(loop.index_sources)
    changed = True
    counts: dict[str, int] = {}
    for s in statements:
        for v in s.targets():
            counts[v.name] = counts.get(v.name, 0) + 1
    while changed:
        changed = False
        for s in statements:
            if (
                isinstance(s, ir.Assign)
                and isinstance(s.value, ir.Var)
                and s.value.name in aliases
                and s.target.name not in aliases
                and counts[s.target.name] == 1
            ):
                aliases.add(s.target.name)
                changed = True
    return aliases - loop.index_sources


def _check_header_reads(statements, loop: PrangeLoop, index_aliases: set[str]) -> None:
    allowed = loop.index_sources
    for s in statements:
        for v in s.sources():
            if v.name in loop.header_defs and v.name not in allowed:
                raise NotParallel(f"the body reads the loop's iterator state ({s})")
            if v.name in allowed and not (isinstance(s, ir.Assign) and s.value is v):
                raise NotParallel(f"unexpected use of the loop index: {s}")


def _read_before_assigned(body: dict[int, ir.Block], dropped: set[int], entry: int) -> set[str]:
    """The variables some iteration may read before assigning them (live on entry to the
    body, the path back through the loop header not counted)."""
    uses, kills = {}, {}
    for label, block in body.items():
        used, assigned = set(), set()
        for stmt in block.body:
            if isinstance(stmt, ir.Del) or id(stmt) in dropped:
                continue
            used |= {v.name for v in stmt.sources()} - assigned
            assigned |= {v.name for v in stmt.targets()}
        uses[label], kills[label] = used, assigned
    live = {label: set() for label in body}
    changed = True
    while changed:
        changed = False
        for label, block in body.items():
            out = set().union(*(live[t] for t in block.successors() if t in body))
            found = uses[label] | (out - kills[label])
            if found != live[label]:
                live[label], changed = found, True
    return live[entry]


_LAST_VALUE_TYPES = (types.Number, types.Boolean, types.Array, types.NPDatetime, types.NPTimedelta)
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_COMPARISONS = {operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">="}


def _keeps_last_value(typ) -> bool:
    if isinstance(typ, types.BaseTuple):
        return all(map(_keeps_last_value, typ.types))
    return isinstance(typ, _LAST_VALUE_TYPES)


def _assignments(name: str, statements: list[ir.Stmt]) -> list[ir.Stmt]:
    return [s for s in statements if name in {v.name for v in s.targets()}]


def _last_values(names, groups, statements, body, typemap) -> list[LastValues]:
    """Variables assigned before any read in every iteration and live after the loop: the
    followers of a conditional extreme (assigned only where its leader is), else each its
    own last value."""
    found = []
    for name in names:
        if not _keeps_last_value(typemap[name]):
            raise NotParallel(
                f"Variable {name} is assigned in the parallel loop and used after it, but its "
                f"type ({typemap[name]}) cannot carry the last iteration's value out"
            )
        sites = {id(s) for s in _assignments(name, statements)}
        for group in groups:
            if group.compare and sites <= {id(s) for s in body[group.block].body}:
                group.members.append(name)
                break
        else:
            found.append(LastValues([name]))
    return found


def _conditional_extreme(name, body, statements, typemap) -> LastValues | None:
    """`if x < m: m = x` (or <=, >, >=, either side) with m read nowhere else and assigned
    nowhere else: m is the running minimum (maximum) of the values x; the variables assigned
    beside it become its followers (an argmin's index)."""
    if not isinstance(typemap[name], (types.Integer, types.Float)):
        return None
    stores = _assignments(name, statements)
    reads = [s for s in statements if name in {v.name for v in s.sources()}]
    if len(stores) != 1 or len(reads) != 1 or not isinstance(stores[0], ir.Assign):
        return None
    store, test = stores[0], reads[0]
    if not (isinstance(test, ir.Assign) and isinstance(test.value, ir.BinOp)):
        return None
    symbol = _COMPARISONS.get(test.value.fn)
    lhs, rhs = test.value.lhs.name, test.value.rhs.name
    if symbol is None or (lhs == name) == (rhs == name) or not isinstance(store.value, ir.Var):
        return None
    value = test.value.rhs if lhs == name else test.value.lhs
    symbol = _FLIPPED[symbol] if lhs == name else symbol  # as `x OP m`
    block = next(label for label, b in body.items() if any(s is store for s in b.body))
    branches = [b.terminator for b in body.values() if block in b.successors()]
    if not (len(branches) == 1 and isinstance(branches[0], ir.Branch)):
        return None
    branch = branches[0]
    if branch.cond.name != test.target.name or branch.truebr != block or branch.falsebr == block:
        return None
    if not _same_value(value, store.value, statements, typemap):
        return None
    return LastValues([name], (name, symbol), "min" if symbol in ("<", "<=") else "max", block)


def _same_value(first: ir.Var, second: ir.Var, statements, typemap) -> bool:
    """Whether two variables hold the same value in an iteration (`a[i]` read twice from an
    array the body does not store into)."""
    written = {s.target.name for s in statements if isinstance(s, ir.SetItem)}
    stable = {n for n, t in typemap.items() if isinstance(t, types.Array)} - written
    return same_index(first, second, single_definitions(statements), stable)


def _chosen_extreme(name, body, statements, typemap) -> str | None:
    """'max' or 'min' when the body keeps `name` as `m = x if x > m else m` (or <, >=, <=;
    m on either side of the test): the frontend's `m = $p` with `$p = x` on the true way
    and `$p = m` on the false one. Python's max(m, x) is exactly `x if x > m else m`."""
    if not isinstance(typemap[name], (types.Integer, types.Float)):
        return None
    stores = _assignments(name, statements)
    if len(stores) != 1 or not isinstance(getattr(stores[0], "value", None), ir.Var):
        return None
    chosen = stores[0].value.name
    picks = _assignments(chosen, statements)
    pick_ids = {id(p) for p in picks}
    places = {label: b for label, b in body.items() if any(id(s) in pick_ids for s in b.body)}
    branches = [
        b.terminator
        for b in body.values()
        if isinstance(b.terminator, ir.Branch)
        and {b.terminator.truebr, b.terminator.falsebr} == set(places)
    ]
    if len(picks) != 2 or len(places) != 2 or len(branches) != 1:
        return None
    branch = branches[0]
    (taken,) = [p for p in picks if any(p is s for s in body[branch.truebr].body)]
    (kept,) = [p for p in picks if p is not taken]
    test = single_definitions(statements).get(branch.cond.name)
    symbol = test and isinstance(test.value, ir.BinOp) and _COMPARISONS.get(test.value.fn)
    if not (symbol and isinstance(taken.value, ir.Var) and isinstance(kept.value, ir.Var)):
        return None
    if kept.value.name != name:
        return None
    operands = (test.value.lhs.name, test.value.rhs.name)
    other = test.value.rhs if operands[0] == name else test.value.lhs
    if operands.count(name) != 1 or not _same_value(other, taken.value, statements, typemap):
        return None
    symbol = _FLIPPED[symbol] if operands[0] == name else symbol  # as `x OP m`
    reads = [s for s in statements if name in {v.name for v in s.sources()}]
    uses = [s for s in statements if chosen in {v.name for v in s.sources()}]
    cond_uses = [s for s in statements if branch.cond.name in {v.name for v in s.sources()}]
    if len(reads) != 2 or len(uses) != 1 or uses[0] is not stores[0] or len(cond_uses) != 1:
        return None
    inside = {id(s) for label in places for s in body[label].body}
    read_outside = {v.name for s in statements if id(s) not in inside for v in s.sources()}
    for label in places:  # the test decides nothing else (temporaries for the pick aside)
        for stmt in body[label].body:
            if isinstance(stmt, (ir.Del, ir.Jump)) or id(stmt) in pick_ids:
                continue
            if not isinstance(stmt, ir.Assign) or _calls_jitted(stmt.value, typemap):
                return None
            temporary = stmt.target.name.startswith("$") and stmt.target.name not in read_outside
            if not (_passes_stack_value(stmt, set()) or temporary):
                return None
    return "max" if symbol in (">", ">=") else "min"


# operators that cannot raise: a chunk evaluates a skipped `or` test the serial loop did not
_QUIET_OPERATORS = {
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
    operator.add, operator.sub, operator.mul, operator.and_, operator.or_, operator.xor,
    operator.not_, operator.neg, operator.pos,
}  # fmt: skip


def _short_circuit(name, body, statements, typemap) -> str | None:
    """'|' when the body keeps the boolean `name` as `f = f or c`, '&' for `f = f and c` (c a
    boolean test, itself possibly `a and b`, `a or b`, `x if p else y` over several blocks):
    the frontend's `f = $p` with `$p = f` before the branch on f and `$p = <test value>` where
    each way through the test ends. Each chunk's f starts False (True), so a chunk evaluates
    c where the serial loop skips it: c may only compute values (array reads, quiet
    operators)."""
    if not isinstance(typemap[name], types.Boolean):
        return None
    stores = _assignments(name, statements)
    if len(stores) != 1 or not isinstance(getattr(stores[0], "value", None), ir.Var):
        return None
    chosen = stores[0].value.name
    picks = _assignments(chosen, statements)
    if len(picks) < 2 or not all(isinstance(getattr(p, "value", None), ir.Var) for p in picks):
        return None
    kept = [p for p in picks if p.value.name == name]
    tested = [p for p in picks if p.value.name != name]
    if len(kept) != 1 or not all(
        isinstance(typemap.get(p.value.name), types.Boolean) for p in tested
    ):
        return None
    label_of = {id(st): label for label, b in body.items() for st in b.body}
    branch = body[label_of[id(kept[0])]].terminator
    join = label_of[id(stores[0])]
    if not isinstance(branch, ir.Branch) or branch.cond.name != name:
        return None
    kind = {branch.truebr: "|", branch.falsebr: "&"}.get(join)
    start = branch.falsebr if kind == "|" else branch.truebr
    region = _test_region(body, start, join)
    if kind is None or start == join or region is None:
        return None
    if any(label_of[id(p)] not in region for p in tested):
        return None
    for label in region:
        for stmt in body[label].body:
            if not (isinstance(stmt, (ir.Del, ir.Jump, ir.Branch)) or _quiet(stmt, typemap)):
                return None
            # a named variable assigned by the test (`(x := a[i]) > 0`) would be assigned
            # where the serial loop skips the test: its value after the loop would differ
            if any(not target.name.startswith("$") for target in stmt.targets()):
                return None
    reads = {id(st) for st in statements if name in {v.name for v in st.sources()}}
    uses = [st for st in statements if chosen in {v.name for v in st.sources()}]
    if reads != {id(kept[0]), id(branch)} or uses != [stores[0]]:
        return None
    return kind


def _test_region(body, start: int, join: int) -> set[int] | None:
    """The blocks of a condition's test from `start` on: every way through them leads
    forward to `join` (no loop, nothing leaving the region elsewhere); None otherwise."""
    region: set[int] = set()
    on_path: set[int] = set()

    def visit(label: int) -> bool:
        if label == join:
            return True
        if label in on_path or label not in body:
            return False  # a loop, or leaving the body
        if label in region:
            return True
        on_path.add(label)
        region.add(label)
        terminator = body[label].terminator
        ok = isinstance(terminator, (ir.Jump, ir.Branch)) and all(
            visit(successor) for successor in body[label].successors()
        )
        on_path.discard(label)
        return ok

    return region if visit(start) else None


def _quiet(stmt, typemap: dict) -> bool:
    """An assignment that computes a value without side effects or exceptions."""
    if not isinstance(stmt, ir.Assign):
        return False
    value = stmt.value
    if isinstance(value, (ir.Var, ir.Const, ir.Global, ir.FreeVar)):
        return True
    if isinstance(value, (ir.GetItem, ir.StaticGetItem)):
        return isinstance(typemap.get(value.value.name), types.Array)
    if isinstance(value, (ir.BinOp, ir.UnaryOp)):  # of numbers (arrays may not broadcast)
        scalar = isinstance(typemap.get(stmt.target.name), (types.Number, types.Boolean))
        return scalar and value.fn in _QUIET_OPERATORS
    return False


def _check_extreme_block(group: LastValues, body, statements, typemap, combined) -> None:
    """Each chunk compares with its own running extreme, not the serial loop's: the
    comparison may decide nothing but the group's assignments (and temporaries for them)."""
    block = body[group.block]
    (branch,) = [b.terminator for b in body.values() if group.block in b.successors()]
    inside = {id(s) for s in block.body}
    assigned = {v.name for s in block.body for v in s.targets()}
    read_outside = {v.name for s in statements if id(s) not in inside for v in s.sources()}
    reason = ""
    if not (isinstance(block.terminator, ir.Jump) and block.terminator.target == branch.falsebr):
        reason = "it guards more than one block"
    elif sum(branch.cond.name in {v.name for v in s.sources()} for s in statements) > 1:
        reason = f"its result '{branch.cond.name}' is used elsewhere"
    for stmt in block.body:
        if reason or isinstance(stmt, (ir.Del, ir.Jump)):
            continue
        if not isinstance(stmt, ir.Assign) or _calls_jitted(stmt.value, typemap):
            reason = f"it also runs {stmt}"
        elif stmt.target.name in group.members or _passes_stack_value(stmt, assigned):
            continue
        elif stmt.target.name in read_outside or stmt.target.name in combined:
            reason = f"it also assigns '{stmt.target.name}', used elsewhere"
    if reason:
        leader = group.compare[0]
        raise NotParallel(
            f"'{leader}' is a running {group.extreme}imum kept by a comparison, but {reason}: "
            "each chunk compares with its own running value, so that work would differ "
            "from the serial loop's"
        )


def _passes_stack_value(stmt: ir.Assign, assigned: set[str]) -> bool:
    """`$phi.. = $phi..`: the frontend handing a value on the stack (an enclosing loop's
    iterator) to the join block; both ways of the branch hand the same value."""
    return (
        stmt.target.name.startswith("$phi")
        and isinstance(stmt.value, ir.Var)
        and stmt.value.name not in assigned
    )


def _calls_jitted(value, typemap: dict) -> bool:
    """A call of a jitted function (which may write arrays or print)."""
    return isinstance(value, ir.Call) and isinstance(
        typemap.get(value.func.name), types.DispatcherType
    )


def _reduction(
    name: str, statements: list[ir.Stmt], typemap: dict, live: set[str]
) -> tuple[str, str, bool]:
    """(name, kind, inplace) when every assignment of `name` in the body is a recognised
    update of it and nothing else reads it; `live`: the body's variables read after the
    loop or by the next iteration."""
    user = name if not name.startswith("$") else "a temporary"
    definitions = {
        s.target.name: s for s in statements if isinstance(s, ir.Assign) and s.target.name != name
    }
    single = {k: v for k, v in single_definitions(statements).items() if k != name}
    aliases = red.stack_aliases(name, statements)
    updates, readers = [], {}
    for s in statements:
        if name in {v.name for v in s.targets()}:
            found = red.match_update(s, name, definitions, typemap, aliases)
            if found is None and isinstance(typemap[name], types.BaseTuple):
                items = red.match_tuple_update(s, name, single, typemap)
                if items is not None:
                    found = (items.kind, False, items.producers)
                    for temporary, allowed in items.readers.items():
                        readers.setdefault(temporary, set()).update(allowed)
            if found is None:
                raise NotParallel(  # Numba's warning text first: its users match it
                    f"Variable {user} used in parallel loop may be written to simultaneously "
                    "by multiple workers and may result in non-deterministic or unintended "
                    f"results. '{user}' is assigned in the loop and its value carries over to "
                    f"other iterations or past the loop, but '{s}' is not a reduction "
                    "(+=, -=, *=, |=, &=, ^=, r = max(r, v), r = min(r, v), "
                    "r = (r[0] + v, r[1] * w))"
                )
            updates.append(found)
    kinds = {kind for kind, _, _ in updates}
    if len(kinds) != 1:
        raise NotParallel(f"'{user}' is updated with different operators ({', '.join(kinds)})")
    kind = kinds.pop()
    producers = set()
    for _, _, made in updates:
        producers |= {id(p) for p in (made if isinstance(made, list) else [made])}
    copies = {id(s) for s in statements if any(v.name in aliases for v in s.targets())}
    producers |= copies
    for alias in aliases:  # read only on the way to an update
        readers.setdefault(alias, set()).update(producers)
    for s in statements:
        if id(s) in producers or name in {v.name for v in s.targets()}:
            continue
        if name in {v.name for v in s.sources()}:
            raise NotParallel(
                f"'{user}' is a reduction variable but the loop also reads it ({s}): "
                "iterations would see each other's partial results"
            )
    _check_item_reads(user, statements, readers, live)
    typ = typemap[name]
    if not red.supported_type(typ, kind):
        raise NotParallel(f"reduction '{kind}' of '{user}' ({typ}) is not supported in parallel")
    inplace = all(inplace for _, inplace, _ in updates)
    return name, kind, inplace


def _check_item_reads(user: str, statements: list[ir.Stmt], readers: dict, live: set) -> None:
    """The temporaries holding a tuple reduction's items on their way to its next value
    (`s, c = r; r = (s + x, c + 1)`) are read nowhere else, nor live on: each holds a
    partial result."""
    for name in sorted(readers.keys() & live):
        raise NotParallel(
            f"'{user}' is a reduction variable but '{name}', which holds a partial result of "
            "it, is read after the loop"
        )
    for s in statements:
        for v in s.sources():
            if v.name in readers and id(s) not in readers[v.name]:
                raise NotParallel(
                    f"'{user}' is a reduction variable but the loop also reads its items "
                    f"({s}): iterations would see each other's partial results"
                )
