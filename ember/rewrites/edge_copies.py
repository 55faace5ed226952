"""Typed rewrite: a branch's copies of reference-counted values into variables that only one
successor reads, a successor with no other predecessor, move to that successor's start, so each
edge copies only what it carries. Consumes typed IR; produces it with those copies moved and
`del`s re-placed.

The frontend assigns every successor's stack variables before a block's terminator. A loop
header with a reference-counted value on the stack (the list a comprehension builds) thus copies
it for the loop's exit on every iteration, and the body deletes that copy: an atomic increment
and decrement per item. On the edge, the copy and the source's `del` become a move.
"""

from __future__ import annotations

from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels, live_variables, strip_dels
from ember.lowering.arrays import needs_refcount


def copy_on_edges(func_ir: ir.FunctionIR, typemap: dict) -> bool:
    """Move the copies; whether any moved."""
    candidates = {
        label: copies
        for label, block in func_ir.blocks.items()
        if (copies := _refcounted_copies_before_branch(block, typemap))
    }
    if not candidates:  # (most functions: no liveness to compute)
        return False
    predecessors = func_ir.predecessors()
    live_in, _ = live_variables(func_ir)
    moved = False
    for label, copies in candidates.items():
        block = func_ir.blocks[label]
        branch = block.terminator
        for successor, other in ((branch.truebr, branch.falsebr), (branch.falsebr, branch.truebr)):
            if successor == label or predecessors[successor] != [label]:
                continue
            only_here = live_in[successor] - live_in[other]
            on_edge = [copy for copy in copies if copy.target.name in only_here]
            if on_edge:
                leaving = {id(copy) for copy in on_edge}
                block.body = [stmt for stmt in block.body if id(stmt) not in leaving]
                func_ir.blocks[successor].body[0:0] = on_edge
                moved = True
    if moved:
        strip_dels(func_ir)
        insert_dels(func_ir)
    return moved


def _refcounted_copies_before_branch(block: ir.Block, typemap: dict) -> list[ir.Assign]:
    """In a block ending in a two-way branch, the copies `x = v` of reference-counted values
    that nothing after them in the block reads or overwrites (x or v)."""
    branch = block.terminator
    if not isinstance(branch, ir.Branch) or branch.truebr == branch.falsebr:
        return []
    found = []
    for index, stmt in enumerate(block.body):
        if not (
            isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.Var)
            and stmt.target.name in typemap
            and needs_refcount(typemap[stmt.target.name])
        ):
            continue
        names = {stmt.target.name, stmt.value.name}
        later = block.body[index + 1 :]
        if not any(
            isinstance(other, ir.Assign)
            and other.target.name in names
            or stmt.target.name in {var.name for var in other.sources()}
            for other in later
        ):
            found.append(stmt)
    return found
