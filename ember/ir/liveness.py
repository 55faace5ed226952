"""Liveness of IR variables per block, and the `del` statements stage 2 places from it.

A `del v` follows the last statement that reads or writes `v` on each path, so compiled code can
release what `v` owns exactly once.
"""

from __future__ import annotations

from ember.ir import nodes as ir


def block_uses_defs(block: ir.Block) -> tuple[set[str], set[str]]:
    """(names read before any write in the block, names written in the block)."""
    uses: set[str] = set()
    defs: set[str] = set()
    for stmt in block.body:
        for var in stmt.sources():
            if var.name not in defs:
                uses.add(var.name)
        defs.update(var.name for var in stmt.targets())
    return uses, defs


def live_variables(func_ir: ir.FunctionIR) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
    """(live-in, live-out) per block label, by backward dataflow to a fixed point."""
    use_def = {label: block_uses_defs(block) for label, block in func_ir.blocks.items()}
    live_in: dict[int, set[str]] = {label: set() for label in func_ir.blocks}
    live_out: dict[int, set[str]] = {label: set() for label in func_ir.blocks}
    order = sorted(func_ir.blocks, reverse=True)
    changed = True
    while changed:
        changed = False
        for label in order:
            out: set[str] = set()
            for succ in func_ir.successors(label):
                out |= live_in[succ]
            uses, defs = use_def[label]
            new_in = uses | (out - defs)
            if out != live_out[label] or new_in != live_in[label]:
                live_out[label], live_in[label] = out, new_in
                changed = True
    return live_in, live_out


def remove_unread_assignments(blocks: dict, removable) -> None:
    """Drop the assignments `removable(stmt)` picks whose target nothing reads, until none
    is left (dropping one may leave what it read unread)."""
    while True:
        read = {
            var.name for block in blocks.values() for stmt in block.body for var in stmt.sources()
        }
        removed = False
        for block in blocks.values():
            kept = [
                stmt
                for stmt in block.body
                if not (
                    isinstance(stmt, ir.Assign) and stmt.target.name not in read and removable(stmt)
                )
            ]
            removed |= len(kept) != len(block.body)
            block.body = kept
        if not removed:
            return


def strip_dels(func_ir: ir.FunctionIR) -> None:
    """Remove every `del` (before `insert_dels` places them again after a rewrite)."""
    for block in func_ir.blocks.values():
        block.body = [stmt for stmt in block.body if not isinstance(stmt, ir.Del)]


def insert_dels(func_ir: ir.FunctionIR) -> None:
    """Place `del` statements where each variable dies (after its last use on each path).

    A variable live out of a predecessor (or read by its terminator) but dead on entry to a
    block is deleted at the top of that block.
    """
    live_in, live_out = live_variables(func_ir)
    predecessors = func_ir.predecessors()
    for label, block in func_ir.blocks.items():
        incoming: set[str] = set()
        for pred in predecessors[label]:
            incoming |= live_out[pred] | _terminator_reads(func_ir.blocks[pred])
        dead_on_entry = sorted(incoming - live_in[label])
        body = _dels_after_last_uses(block, live_out[label])
        block.body = [ir.Del(name, block.loc) for name in dead_on_entry] + body


def _terminator_reads(block: ir.Block) -> set[str]:
    """Names the terminator reads (a branch condition): they die on entry to each successor,
    so their `del` opens the successor blocks, as in the seed's `del $0.3`."""
    return {var.name for var in block.terminator.sources()}


def _dels_after_last_uses(block: ir.Block, live_after_block: set[str]) -> list[ir.Stmt]:
    live = set(live_after_block)
    reversed_body: list[ir.Stmt] = []
    for stmt in reversed(block.body):
        read = {var.name for var in stmt.sources()}
        written = {var.name for var in stmt.targets()}
        if not stmt.is_terminator:
            dead = (read | written) - live
            for name in sorted(dead):
                reversed_body.append(ir.Del(name, stmt.loc))
        reversed_body.append(stmt)
        live -= written
        live |= read
    return list(reversed(reversed_body))
