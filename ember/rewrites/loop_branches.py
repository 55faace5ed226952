"""Typed rewrite of loops' control flow for LLVM: a header reached by several back edges gets
one latch block that they all jump to, and a branch that updates a running extremum (`if v <
lo: lo = v`) is marked unlikely. Consumes typed IR; produces it with latches added and those
branches marked.

Each branch of an `if` in a loop's body jumps straight back to the header, as Python's bytecode
does. LLVM's loop canonicalization splits a header with several back edges into nested loops
when a value differs between them, which loses the trip count (nothing unrolls). With one latch,
LLVM's if-conversion would then turn `if v < lo: lo = v elif v > hi: hi = v` into selects: a
chain of minimum, comparison and blend through every iteration, where branches (taken a few
times in a run over unordered data) leave the iterations independent. The mark keeps them.
"""

from __future__ import annotations

import operator

from ember import types
from ember.frontend.cfg import ControlFlowGraph, graph_of_blocks
from ember.ir import nodes as ir

_ORDERINGS = (operator.lt, operator.gt, operator.le, operator.ge)


def reshape_loops(func_ir: ir.FunctionIR, typemap: dict | None = None) -> bool:
    """Add the latches and mark the extremum updates (`typemap`: the variables' types, which
    leave integer minima and maxima unmarked); whether anything changed."""
    graph = graph_of_blocks(func_ir)
    marked = _mark_extremum_updates(func_ir, graph, typemap or {})
    return _merge_back_edges(func_ir, graph) or marked


def _merge_back_edges(func_ir: ir.FunctionIR, graph: ControlFlowGraph) -> bool:
    sources_by_header: dict[int, list[int]] = {}
    for source, header in graph.back_edges():
        sources_by_header.setdefault(header, []).append(source)
    added = False
    for header, sources in sources_by_header.items():
        if len(sources) < 2 or not all(
            isinstance(func_ir.blocks[s].terminator, ir.Jump) for s in sources
        ):
            continue  # (a conditional back edge keeps its own: rare, and left as it is)
        latch_label = max(func_ir.blocks) + 1
        loc = func_ir.blocks[header].loc
        func_ir.blocks[latch_label] = ir.Block(latch_label, loc, [ir.Jump(header, loc)])
        for source in sources:
            block = func_ir.blocks[source]
            block.body[-1] = ir.Jump(latch_label, block.terminator.loc)
        added = True
    return added


def _mark_extremum_updates(func_ir: ir.FunctionIR, graph: ControlFlowGraph, typemap: dict) -> bool:
    """Mark unlikely, in a loop, `if x < best:` (any ordering) whose true branch, entered from
    there alone, assigns `best` (a user variable), where `x` is an element just read from a
    sequence (`for x in a`, `a[i]`): a scan for an extremum, whose updates over unordered data
    thin out as it goes. (Not a comparison with a constant or a computed value: a clamp, or the
    nearest of a few centroids, updates often enough that a select is better. Nor a scan whose
    `best` an enclosing loop resets: restarted for each row, it stays as short as a row, and
    its early updates are frequent -- a running maximum over rows of 32 ran 1.7x slower with
    the branch than with a select. Nor an integer `best` that is all the branch updates, in a
    `for` loop over a sequence or a range: LLVM turns it into `smax`/`smin`, a reduction it
    vectorizes -- the longest common substring's `if t[i, j] > best: best = t[i, j]` ran 1.8x
    slower than Numba's with the branch, and so did a scan of every `step`-th item. A `while`
    loop may not vectorize (no trip count), and there a chain of `cmov` ran 1.8x slower than
    the branch: it keeps the mark.)"""
    in_loops = graph.node_to_loops()
    loops = graph.loops()
    predecessors = func_ir.predecessors()
    definitions = assigned_values(func_ir)
    marked = False
    for label, block in func_ir.blocks.items():
        branch = block.terminator
        if not isinstance(branch, ir.Branch) or not in_loops.get(label):
            continue
        compared = _compared(block, branch.cond.name)
        if compared is None or predecessors[branch.truebr] != [label]:
            continue
        target = func_ir.blocks[branch.truebr]
        for best, element in (compared, compared[::-1]):
            if (
                not best.startswith("$")
                and _assigns(target, best)
                and _read_from_sequence(element, definitions)
                and not _restarted_by_outer_loop(func_ir, best, in_loops[label], loops)
                and not (
                    _integer_extremum_alone(target, best, typemap)
                    and _advances_iterator(func_ir.blocks[in_loops[label][0]], definitions)
                )
            ):
                branch.likely = False
                marked = True
    return marked


def _restarted_by_outer_loop(
    func_ir: ir.FunctionIR, name: str, headers: list[int], loops: dict
) -> bool:
    """Whether `name` is assigned in an enclosing loop outside the innermost one of `headers`
    (innermost first): the scan then starts afresh on each outer iteration."""
    if len(headers) < 2:
        return False
    scan = loops[headers[0]].body
    outer = loops[headers[1]].body - scan
    return any(_assigns(func_ir.blocks[label], name) for label in outer)


def _integer_extremum_alone(block: ir.Block, best: str, typemap: dict) -> bool:
    """Whether `block` assigns no user variable but `best`, an integer."""
    if not isinstance(typemap.get(best), types.Integer):
        return False
    assigned = {s.target.name for s in block.body if isinstance(s, ir.Assign)}
    return all(name == best or name.startswith("$") for name in assigned)


def _advances_iterator(header: ir.Block, definitions: dict[str, list]) -> bool:
    """Whether the loop of `header` is a `for` loop, over a sequence or a range (a counted
    loop: see ranges.loop_next), not a `while` loop."""
    advances = [s.value for s in header.body if isinstance(s, ir.Assign)]
    advances = [v for v in advances if isinstance(v, ir.IterNext)]
    if len(advances) != 1:
        return False
    sources = values_through_copies(advances[0].value.name, definitions)
    return bool(sources) and all(isinstance(v, ir.GetIter) for v in sources)


def values_through_copies(name: str, definitions: dict[str, list]) -> list:
    """Every value assigned to `name`, or to a variable copied into it, that is not a copy."""
    seen: set[str] = set()
    pending, found = [name], []
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        for value in definitions.get(current, ()):
            if isinstance(value, ir.Var):
                pending.append(value.name)
            else:
                found.append(value)
    return found


def _compared(block: ir.Block, cond_name: str) -> tuple[str, str] | None:
    """The names an ordering that defines `cond_name` in `block` compares, else None."""
    for stmt in block.body:
        if isinstance(stmt, ir.Assign) and stmt.target.name == cond_name:
            value = stmt.value
            if isinstance(value, ir.BinOp) and value.fn in _ORDERINGS:
                return value.lhs.name, value.rhs.name
            return None
    return None


def assigned_values(func_ir: ir.FunctionIR) -> dict[str, list]:
    """Each variable's assigned values, by name."""
    found: dict[str, list] = {}
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                found.setdefault(stmt.target.name, []).append(stmt.value)
    return found


def _read_from_sequence(name: str, definitions: dict[str, list]) -> bool:
    """Whether every value of `name` is an item read from a sequence, through copies."""
    values = values_through_copies(name, definitions)
    items = (ir.GetItem, ir.StaticGetItem, ir.PairFirst)
    return bool(values) and all(isinstance(value, items) for value in values)


def _assigns(block: ir.Block, name: str) -> bool:
    return any(isinstance(s, ir.Assign) and s.target.name == name for s in block.body)
