"""Finds `for i in prange(...)` loops in typed IR and describes their shape: the range value,
the preheader, header, body blocks, exit and the header's variables.

    label 0:  $r = call $prange(n); $it = getiter($r); $phi = $it; jump 38        (preheader)
    label 38: $p = iternext($phi); $v = pair_first($p); $ok = pair_second($p); ...
              branch $ok, 40, 66                                               (header)
    label 40: i = $v ... jump 38                                               (body)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ember import types
from ember.ir import nodes as ir
from ember.parallel.api import prange


@dataclass
class PrangeLoop:
    """One prange loop as the frontend built it."""

    range_var: ir.Var
    range_call: ir.Call
    preheader: int
    header: int
    body_entry: int
    exit: int
    iterator_vars: set[str]  # the iterator and its header copies
    index_sources: set[str]  # pair_first and its header copies (the index value)
    header_defs: set[str]
    header_copies: list[ir.Assign] = field(default_factory=list)  # stack values passing through
    odd_header: str = ""  # a header statement the parfor cannot reproduce
    body: list[int] = field(default_factory=list)  # every block of the body (no header)
    leaves_loop: bool = False  # a break or return inside

    @property
    def loc(self) -> ir.Loc:
        return self.range_call.loc


def find_prange_loops(func_ir: ir.FunctionIR, typemap: dict, markers=(prange,)) -> list:
    """Every loop over one of `markers` (prange), outermost first."""
    calls = _prange_calls(func_ir, typemap, markers)
    found = []
    for label, block in func_ir.blocks.items():
        loop = loop_from_preheader(func_ir, label, block, calls)
        if loop is not None:
            _collect_body(func_ir, loop)
            found.append(loop)
    nesting = {id(loop): sum(loop.header in other.body for other in found) for loop in found}
    return sorted(found, key=lambda loop: (nesting[id(loop)], loop.header))


def _prange_calls(func_ir: ir.FunctionIR, typemap: dict, markers) -> dict[str, ir.Call]:
    """Result variable name -> the `prange(...)` call assigned to it."""
    calls = {}
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call):
            fnty = typemap.get(stmt.value.func.name)
            if isinstance(fnty, types.Function) and fnty.typing_key in markers:
                calls[stmt.target.name] = stmt.value
    return calls


def loop_from_preheader(func_ir, label, block, calls) -> PrangeLoop | None:
    """The for loop starting in block `label` over one of `calls` (result variable -> the
    call making the iterated value), or None."""
    if not isinstance(block.terminator, ir.Jump):
        return None
    getiters = [
        s
        for s in block.body
        if isinstance(s, ir.Assign)
        and isinstance(s.value, ir.GetIter)
        and s.value.value.name in calls
    ]
    if len(getiters) != 1:
        return None
    iterator = getiters[0].target.name
    iterator_vars = {iterator} | _copies_of(block.body, {iterator})
    header_label = block.terminator.target
    header = func_ir.blocks[header_label]
    nexts = [
        s for s in header.body if isinstance(s, ir.Assign) and isinstance(s.value, ir.IterNext)
    ]
    if len(nexts) != 1 or nexts[0].value.value.name not in iterator_vars:
        return None
    if not isinstance(header.terminator, ir.Branch):
        return None
    pair = nexts[0].target.name
    firsts = {
        s.target.name
        for s in header.body
        if isinstance(s, ir.Assign)
        and isinstance(s.value, ir.PairFirst)
        and s.value.value.name == pair
    }
    range_var = getiters[0].value.value
    iterator_vars |= _copies_of(header.body, iterator_vars)
    index_sources = firsts | _copies_of(header.body, firsts)
    iteration = iterator_vars | index_sources | {pair}
    copies, odd = _classify_header(header, iteration)
    return PrangeLoop(
        range_var=range_var,
        range_call=calls[range_var.name],
        preheader=label,
        header=header_label,
        body_entry=header.terminator.truebr,
        exit=header.terminator.falsebr,
        iterator_vars=iterator_vars,
        index_sources=index_sources,
        header_defs={v.name for s in header.body for v in s.targets()},
        header_copies=copies,
        odd_header=odd,
    )


def _classify_header(header: ir.Block, iteration: set[str]) -> tuple[list[ir.Assign], str]:
    """The header's copies of values that only pass through the loop (the iterators of
    enclosing loops: they must be copied again after the parfor), and the first statement
    that is neither iteration nor such a copy."""
    copies, odd = [], ""
    for stmt in header.body:
        if isinstance(stmt, (ir.Del, ir.Branch)):
            continue
        if not isinstance(stmt, ir.Assign):
            odd = odd or str(stmt)
            continue
        value = stmt.value
        if isinstance(value, (ir.IterNext, ir.PairFirst, ir.PairSecond)):
            continue
        if isinstance(value, ir.Var) and (value.name in iteration or stmt.target.name in iteration):
            continue
        if isinstance(value, ir.Var):
            copies.append(stmt)
        else:
            odd = odd or str(stmt)
    return copies, odd


def _copies_of(body: list[ir.Stmt], names: set[str]) -> set[str]:
    """Variables assigned (directly or through other copies) from one of `names`."""
    found = set(names)
    for stmt in body:
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Var):
            if stmt.value.name in found:
                found.add(stmt.target.name)
    return found - set(names)


def _collect_body(func_ir: ir.FunctionIR, loop: PrangeLoop) -> None:
    """The blocks reachable from the body entry without passing the header. Reaching the exit
    or a return that way means a break or return inside (code after the loop always ends in
    a return, so a break is found even when it jumps past the exit block)."""
    seen: set[int] = set()
    pending = [loop.body_entry]
    while pending:
        label = pending.pop()
        if label in seen or label == loop.header:
            continue
        seen.add(label)
        block = func_ir.blocks[label]
        if isinstance(block.terminator, ir.Return) or label == loop.exit:
            loop.leaves_loop = True
            continue
        pending += block.successors()
    loop.body = sorted(seen)
