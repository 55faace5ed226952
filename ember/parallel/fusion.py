"""Sub-passes 6 and 8: CFG simplification (a block that is the only successor of its only
predecessor joins it), then fusion of parfors that follow each other in one block.

Two parfors fuse when their iteration spaces are equal (`array_analysis.py`) and every array
that either writes is reached by both only at the loop index, at the same position (so
iteration i of the second reads only what iteration i of the first wrote); the second may not
read the first's reduction results, nor share a reduction variable with it. Statements
between them move above the first or below the second when that cannot change what any of
them computes (no array data read that the other writes, no variable passed between them);
otherwise the pair stays apart, with the reason in the diagnostics.

    before:  parfor 1 (b[i] = a[i] * 2);  $n2 = len(b);  parfor 2 (s += b[i])
    after:   $n2 = len(b);  parfor 1 (b[i] = a[i] * 2; s += b[i])
"""

from __future__ import annotations

import operator

import numpy as np

from ember import types
from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels
from ember.ir.parfor import Parfor
from ember.parallel import templates as tpl
from ember.parallel.array_analysis import ArrayAnalysis, cyclic_blocks
from ember.parallel.array_hazards import NotParallel, parfor_array_accesses
from ember.parallel.overlap import arrays_may_overlap
from ember.rewrites.arrayexpr import is_elementwise_ufunc

_SHAPE_ATTRS = {"shape", "ndim", "size", "dtype", "itemsize", "strides", "T"}


def fuse_parfors(func_ir: ir.FunctionIR, typemap: dict, parfors: list, report) -> list:
    """Fuse what can be fused; returns the parfors left (fused ones absorbed)."""
    for block in func_ir.blocks.values():
        block.body = [s for s in block.body if not isinstance(s, ir.Del)]
    simplify_cfg(func_ir)
    cyclic = cyclic_blocks(func_ir)
    base = ArrayAnalysis(func_ir, typemap, skip=cyclic)
    # NumPy reductions cannot raise and write no array: a check may move past them
    quiet = {
        id(p)
        for p in parfors
        if report.origins.get(p.loop_nests[0].range_var.name, "prange") != "prange"
    }
    absorbed: set[int] = set()
    for label, block in func_ir.blocks.items():
        if sum(isinstance(s, Parfor) for s in block.body) < 2:
            continue
        # in a loop, only this block's own definitions (one run of it) and those outside loops
        analysis = (
            base if label not in cyclic else ArrayAnalysis(func_ir, typemap, cyclic - {label})
        )
        absorbed |= _fuse_in_block(block, analysis, typemap, report, quiet)
    insert_dels(func_ir)
    return [p for p in parfors if id(p) not in absorbed]


def simplify_cfg(func_ir: ir.FunctionIR) -> None:
    """Merge each block into its predecessor when that is its only one and jumps to it."""
    changed = True
    while changed:
        changed = False
        predecessors: dict[int, list[int]] = {}
        for label, block in func_ir.blocks.items():
            for successor in block.successors():
                predecessors.setdefault(successor, []).append(label)
        for label, block in list(func_ir.blocks.items()):
            terminator = block.terminator
            if not isinstance(terminator, ir.Jump):
                continue
            target = terminator.target
            if target == label or target == func_ir.entry or predecessors.get(target) != [label]:
                continue
            block.body = block.body[:-1] + func_ir.blocks.pop(target).body
            changed = True
            break


# ---------------------------------------------------------------------------- one block


class _Access:
    """What one parfor reads and writes, as fusion needs it."""

    def __init__(self, parfor: Parfor, typemap: dict, quiet: set[int]) -> None:
        self.parfor = parfor
        self.arrays = parfor_array_accesses(parfor, typemap)
        self.written = {name for name, (_, written) in self.arrays.items() if written}
        self.quiet = id(parfor) in quiet and not self.written
        self.sources = {v.name for v in parfor.sources()}
        self.targets = {v.name for v in parfor.targets()}
        self.reduction_vars = {r.var.name for r in parfor.reductions}


def _fuse_in_block(block: ir.Block, analysis, typemap: dict, report, quiet: set) -> set[int]:
    absorbed: set[int] = set()
    index = 0
    current: int | None = None
    while index < len(block.body):
        stmt = block.body[index]
        if not isinstance(stmt, Parfor):
            index += 1
            continue
        if current is None:
            current = index
            index += 1
            continue
        first = block.body[current]
        try:
            moved = _try_fuse(block.body, current, index, analysis, typemap, quiet)
        except NotParallel as reason:
            moved = str(reason)
        if isinstance(moved, str):
            report.no_fusion(first.id, stmt.id, moved)
            current, index = index, index + 1
            continue
        hoisted, sunk = moved
        between = block.body[current + 1 : index]
        _merge(first, stmt)
        absorbed.add(id(stmt))
        if id(stmt) not in quiet:
            quiet.discard(id(first))
        moved = [f"{s.target} (hoisted)" for s in hoisted if _user_assignment(s)]
        moved += [f"{s.target} (computed after the loop)" for s in sunk if _user_assignment(s)]
        report.fusion(first.id, stmt.id, stmt.loc, moved)
        rest = block.body[index + 1 :]
        block.body[current:] = [*hoisted, first, *sunk, *rest]
        current += len(hoisted)
        index = current + 1 + len(sunk)
        assert len(hoisted) + len(sunk) == len(between)
    return absorbed


def _user_assignment(stmt) -> bool:
    """An assignment to one of the user's variables (worth naming in the diagnostics)."""
    name = stmt.target.name if isinstance(stmt, ir.Assign) else "$"
    return not name.startswith("$") and "." not in name


def _try_fuse(body: list, first_at: int, second_at: int, analysis, typemap, quiet: set):
    """(hoisted, sunk) statements if the parfors at the two positions can fuse, else why not."""
    first, second = body[first_at], body[second_at]
    problem = _iteration_problem(first, second, analysis)
    if problem:
        return problem
    one, two = _Access(first, typemap, quiet), _Access(second, typemap, quiet)
    problem = _dependence_problem(one, two, analysis)
    if problem:
        return problem
    hoisted, sunk = [], []
    sunk_defs: set[str] = set()
    sunk_uses: set[str] = set()
    for stmt in body[first_at + 1 : second_at]:
        if _can_hoist(stmt, one, analysis, typemap, sunk_defs, sunk_uses):
            hoisted.append(stmt)
        elif _can_sink(stmt, two, analysis, typemap):
            sunk.append(stmt)
            sunk_defs |= {v.name for v in stmt.targets()}
            sunk_uses |= _reads(stmt)
        else:
            return f"'{stmt}' between them cannot move"
    return hoisted, sunk


def _iteration_problem(first: Parfor, second: Parfor, analysis) -> str:
    if len(first.loop_nests) != 1 or len(second.loop_nests) != 1:
        return "multi-dimensional loop nests are not fused"
    a, b = first.loop_nests[0], second.loop_nests[0]
    for part in ("start", "stop", "step"):
        if not analysis.same_size(getattr(a, part), getattr(b, part)):
            return f"iteration spaces not known to be equal ({_space(a)} vs {_space(b)})"
    return ""


def _space(nest) -> str:
    parts = [nest.start, nest.stop] + ([nest.step] if nest.step != 1 else [])
    return f"range({', '.join(getattr(p, 'name', str(p)) for p in parts)})"


def _dependence_problem(one: _Access, two: _Access, analysis) -> str:
    if one.targets & two.sources:
        return "the second loop reads a reduction result of the first"
    shared = (one.reduction_vars & (two.sources | two.reduction_vars)) | (
        two.reduction_vars & one.sources
    )
    if shared:
        return f"both loops use the reduction variable '{sorted(shared)[0]}'"
    for x, (x_positions, x_written) in one.arrays.items():
        for y, (y_positions, y_written) in two.arrays.items():
            if not analysis.may_alias(x, y) or not (x_written or y_written):
                continue
            if not analysis.same_array(x, y):
                return f"'{x}' and '{y}' may share memory and one of the loops writes it"
            positions = x_positions | y_positions
            if None in positions or len(positions) != 1:
                return (
                    f"'{x}' is written by one loop and reached at other elements by the other "
                    "(fusing would read values before they are written)"
                )
    return ""


# ---------------------------------------------------------------------------- moving statements


def _can_hoist(stmt, one: _Access, analysis, typemap, sunk_defs, sunk_uses) -> bool:
    """`stmt` may run before the first parfor (and the statements already sunk) instead of
    after them."""
    reads = _array_reads(stmt, typemap)
    raises = reads is not None and _may_raise(stmt, typemap, reads)
    if reads is None or (
        raises and not one.quiet and not _raises_only_if_empty(stmt, one, analysis)
    ):
        return False
    names = _reads(stmt)
    defs = {v.name for v in stmt.targets()}
    if names & (one.targets | one.reduction_vars | sunk_defs):
        return False
    if defs & (one.sources | one.targets | sunk_defs | sunk_uses):
        return False
    return not _touches(reads, one.written, analysis)


def _can_sink(stmt, two: _Access, analysis, typemap) -> bool:
    """`stmt` may run after the second parfor instead of before it."""
    reads = _array_reads(stmt, typemap)
    if reads is None or (_may_raise(stmt, typemap, reads) and not two.quiet):
        return False
    names = _reads(stmt)
    defs = {v.name for v in stmt.targets()}
    if defs & (two.sources | two.targets) or names & (two.targets | two.reduction_vars):
        return False
    return not _touches(reads, two.written, analysis)


def _reads(stmt) -> set[str]:
    return {v.name for v in stmt.sources()}


def _raises_only_if_empty(stmt, one: _Access, analysis) -> bool:
    """`np.empty(n)` (zeros, ones, full) where the first loop runs n times: it raises only for
    a negative n, when that loop does nothing, so it may run before the loop."""
    value = stmt.value
    if not isinstance(value, ir.Call) or not value.args:
        return False
    nest = one.parfor.loop_nests[0]
    size = value.args[0]
    key = getattr(analysis.typemap.get(value.func.name), "typing_key", None)
    return (
        key in (np.empty, np.zeros, np.ones, np.full)
        and isinstance(analysis.typemap.get(size.name), types.Integer)
        and nest.start == 0
        and nest.step == 1
        and analysis.same_size(size, nest.stop)
    )


def _touches(reads: list[str], written: set[str], analysis) -> bool:
    return any(analysis.may_alias(r, w) for r in reads for w in written)


def _array_reads(stmt, typemap: dict) -> list[str] | None:
    """The arrays whose elements a movable statement reads ([] for none); None when the
    statement cannot move (it writes memory, calls unknown code or controls flow)."""
    if not isinstance(stmt, ir.Assign):
        return None
    value = stmt.value
    if isinstance(value, (ir.Const, ir.Global, ir.FreeVar, ir.Var, ir.BuildTuple)):
        return []
    arrays = [v.name for v in value.sources() if isinstance(typemap.get(v.name), types.Array)]
    if isinstance(value, (ir.BinOp, ir.UnaryOp)):
        return arrays
    if isinstance(value, ir.GetAttr):
        is_array = isinstance(typemap.get(value.value.name), types.Array)
        bound = isinstance(typemap.get(stmt.target.name), types.BoundFunction)  # a.sum: no read
        return [] if not is_array or value.attr in _SHAPE_ATTRS or bound else None
    if isinstance(value, (ir.GetItem, ir.StaticGetItem)):
        # a view (a[lo:hi]) or an item of a tuple reads no array element; a[i] does, and so
        # does a[idx] with an array of indices or a mask (it copies, reading both arrays)
        view = isinstance(typemap.get(stmt.target.name), types.Array) and not _fancy_index(
            value, typemap
        )
        return [] if not arrays or view else arrays
    if isinstance(value, ir.Call) and not value.kws:
        return _call_reads(value, typemap, arrays)
    return None


def _fancy_index(getitem, typemap: dict) -> bool:
    """Whether a getitem indexes with an array (or a tuple holding one): a copy, not a view."""
    if isinstance(getitem, ir.StaticGetItem):
        return False
    index_type = typemap.get(getitem.index.name)
    if isinstance(index_type, types.BaseTuple):
        return any(isinstance(t, types.Array) for t in index_type.types)
    return isinstance(index_type, types.Array)


_RAISING_OPERATORS = {operator.truediv, operator.floordiv, operator.mod, operator.pow}


def _may_raise(stmt, typemap: dict, reads: list[str]) -> bool:
    """Whether a movable statement may raise (a template's check, a division, an element read,
    arithmetic on arrays that may not broadcast, an allocation): such a statement moves only
    past loops that neither raise nor write memory, so an exception finds memory as serial
    code would leave it."""
    value = stmt.value
    if reads:
        return True
    if isinstance(value, ir.BinOp):
        return value.fn in _RAISING_OPERATORS
    if isinstance(value, ir.Call):
        fnty = typemap.get(value.func.name)
        if isinstance(fnty, types.DispatcherType):
            return fnty.dispatcher in tpl.CHECKS
        key = getattr(fnty, "typing_key", None)
        return key in (np.empty, np.zeros, np.ones, np.full, range)
    return False


def _call_reads(call: ir.Call, typemap: dict, arrays: list[str]) -> list[str] | None:
    from ember.parallel.api import prange

    fnty = typemap.get(call.func.name)
    key = getattr(fnty, "typing_key", None)
    if isinstance(fnty, types.DispatcherType) and not arrays:
        helpers = (*tpl.PURE_HELPERS, *tpl.CHECKS)
        return [] if fnty.dispatcher in helpers else None
    if not isinstance(fnty, types.Function):
        return None
    if key in (len, range, slice, arrays_may_overlap) or (
        isinstance(key, type) and issubclass(key, prange)
    ):
        return []
    if key in (np.empty, np.zeros, np.ones, np.full) and not arrays:
        return []
    if isinstance(key, type) and issubclass(key, np.generic) and not arrays:
        return []  # np.float64(0)
    if is_elementwise_ufunc(key):
        return arrays
    return None


# ---------------------------------------------------------------------------- merging


def _merge(first: Parfor, second: Parfor) -> None:
    """`second`'s body runs after `first`'s in each iteration, with `first`'s index."""
    for block in first.loop_body.values():
        terminator = block.terminator
        if isinstance(terminator, ir.Jump) and terminator.target == first.continue_label:
            terminator.target = second.body_entry
        elif isinstance(terminator, ir.Branch):
            if terminator.truebr == first.continue_label:
                terminator.truebr = second.body_entry
            if terminator.falsebr == first.continue_label:
                terminator.falsebr = second.body_entry
    entry = second.loop_body[second.body_entry]
    entry.body.insert(0, ir.Assign(second.index_var, first.index_var, second.loc))
    first.loop_body.update(second.loop_body)
    first.continue_label = second.continue_label
    known = {p.name for p in first.params}
    first.params += [p for p in second.params if p.name not in known]
    first.reductions += second.reductions
    ranges = [*first.lowering.get("ranges", ()), *second.lowering.get("ranges", ())]
    first.lowering["ranges"] = ranges
