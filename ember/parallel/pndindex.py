"""`for idx in pndindex(*shape)` under parallel=True: consumes untyped IR and rewrites each
such loop into a prange loop over the flat index, the index tuple computed at the top of the
body (C order, as np.ndindex gives them); the prange pass then makes it a parfor.

    $c = call pndindex(n, m)             $size = call pndindex_size(n, m)
    $it = getiter($c) ...                $c = call prange($size); $it = getiter($c) ...
    body: $x = exhaust_iter($phi, 2)     body: $flat = $phi
                                               $idx = call pndindex_unravel($flat, n, m)
                                               $x = exhaust_iter($idx, 2)
"""

from __future__ import annotations

import dataclasses
import itertools
import types

from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels, strip_dels
from ember.parallel.api import pndindex, pndindex_size, pndindex_unravel, prange
from ember.parallel.loops import loop_from_preheader

_ids = itertools.count()


def rewrite_pndindex_loops(func_ir: ir.FunctionIR) -> bool:
    """Rewrite every pndindex loop whose index only the body's first block reads; True if
    one was."""
    constants = _global_values(func_ir)
    rewritten = False
    for label, block in list(func_ir.blocks.items()):
        for position, stmt in enumerate(block.body):
            if (
                isinstance(stmt, ir.Assign)
                and isinstance(stmt.value, ir.Call)
                and constants.get(stmt.value.func.name) is pndindex
                and not stmt.value.kws
                and stmt.value.vararg is None
            ):
                rewritten |= _rewrite_loop(func_ir, label, position)
    if rewritten:
        strip_dels(func_ir)
        insert_dels(func_ir)
    return rewritten


def _global_values(func_ir: ir.FunctionIR) -> dict:
    """Variable -> the global (or free variable, or a module's attribute) it holds."""
    values = {}
    for _, stmt in func_ir.statements():
        if not isinstance(stmt, ir.Assign):
            continue
        value = stmt.value
        if isinstance(value, (ir.Global, ir.FreeVar)):
            values[stmt.target.name] = value.value
        elif isinstance(value, ir.GetAttr) and isinstance(
            values.get(value.value.name), types.ModuleType
        ):
            values[stmt.target.name] = getattr(values[value.value.name], value.attr, None)
    return values


def _rewrite_loop(func_ir: ir.FunctionIR, label: int, position: int) -> bool:
    block = func_ir.blocks[label]
    call_stmt = block.body[position]
    loop = loop_from_preheader(func_ir, label, block, {call_stmt.target.name: call_stmt.value})
    if loop is None:
        return False
    header_label, entry_label, sources = loop.header, loop.body_entry, loop.index_sources
    entry = func_ir.blocks[entry_label]
    readers = [
        label
        for label, other in func_ir.blocks.items()
        for stmt in other.body
        if label != header_label and any(v.name in sources for v in stmt.sources())
    ]
    if set(readers) != {entry_label}:
        return False  # the index read elsewhere: leave the loop serial
    loc, shape = call_stmt.loc, call_stmt.value.args
    n = next(_ids)
    var = lambda name: ir.Var(f"$pnd.{name}.{n}", loc)  # noqa: E731
    size_fn, size, range_fn = var("size_fn"), var("size"), var("prange")
    index = var("index")
    body = [_replace_reads(s, sources, index) for s in entry.body]
    if any(v.name in sources for s in body for v in s.sources()):
        return False  # read in a way not rewritten
    first = next(k for k, s in enumerate(body) if index.name in {v.name for v in s.sources()})
    source = next(v for v in entry.body[first].sources() if v.name in sources)
    flat, unravel_fn = var("flat"), var("unravel_fn")
    entry.body = [
        *body[:first],
        ir.Assign(flat, source, loc),
        ir.Assign(unravel_fn, ir.Global("pndindex_unravel", pndindex_unravel, loc), loc),
        ir.Assign(index, ir.Call(unravel_fn, [flat, *shape], [], loc), loc),
        *body[first:],
    ]
    block.body[position : position + 1] = [
        ir.Assign(size_fn, ir.Global("pndindex_size", pndindex_size, loc), loc),
        ir.Assign(size, ir.Call(size_fn, list(shape), [], loc), loc),
        ir.Assign(range_fn, ir.Global("prange", prange, loc), loc),
        ir.Assign(call_stmt.target, ir.Call(range_fn, [size], [], loc), loc),
    ]
    return True


def _replace_reads(stmt: ir.Stmt, sources: set[str], index: ir.Var) -> ir.Stmt:
    """`stmt` reading `index` where it read the loop value (`i = $v`, `exhaust_iter($v)`)."""
    if not isinstance(stmt, ir.Assign):
        return stmt
    value = stmt.value
    if isinstance(value, ir.Var) and value.name in sources:
        return ir.Assign(stmt.target, index, stmt.loc)
    inner = getattr(value, "value", None)
    if isinstance(value, ir.Expr) and isinstance(inner, ir.Var) and inner.name in sources:
        return ir.Assign(stmt.target, dataclasses.replace(value, value=index), stmt.loc)
    return stmt
