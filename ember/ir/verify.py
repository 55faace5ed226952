"""An IR verifier run between passes under EMBER_VERIFY_IR=1 (the test suite turns it on):
every block ends in one terminator, jumps land on blocks, every read variable is written
somewhere, nothing is read after its `del` in a block, and typed IR types every variable."""

from __future__ import annotations

from ember.errors import CompilerError
from ember.ir import nodes as ir


def verify_function(func_ir: ir.FunctionIR, typemap: dict | None = None) -> None:
    """Raise CompilerError describing the first broken invariant, if any."""
    defined = {var.name for _, stmt in func_ir.statements() for var in stmt.targets()}
    for label, block in func_ir.blocks.items():
        _verify_block(func_ir.blocks, label, block, defined, typemap)
        for stmt in block.body:
            if hasattr(stmt, "nested_blocks"):
                _verify_region(stmt, defined, typemap)
    if func_ir.entry not in func_ir.blocks:
        raise CompilerError(f"entry block {func_ir.entry} does not exist", func_ir.loc)


def _verify_region(region, outer_defined: set, typemap) -> None:
    """A parfor's blocks: they may read what is defined outside or anywhere inside, and jump
    only among themselves or to the region's continue label."""
    blocks = region.nested_blocks()
    defined = outer_defined | {v.name for b in blocks for s in b.body for v in s.targets()}
    defined |= {nest.index_variable.name for nest in region.loop_nests}
    targets = dict(region.loop_body)
    targets[region.continue_label] = None
    for block in blocks[1:]:
        _verify_block(targets, block.label, block, defined, None)


def _verify_block(blocks: dict, label: int, block: ir.Block, defined: set, typemap) -> None:
    if not block.body or not block.terminator.is_terminator:
        raise CompilerError(f"block {label} does not end in a terminator", block.loc)
    deleted: set[str] = set()
    for stmt in block.body:
        if stmt.is_terminator and stmt is not block.terminator:
            raise CompilerError(f"terminator in the middle of block {label}: {stmt}", stmt.loc)
        for var in stmt.sources():
            if var.name in deleted:
                raise CompilerError(f"'{var.name}' read after its del: {stmt}", stmt.loc)
            if var.name not in defined:
                raise CompilerError(f"'{var.name}' is read but never written: {stmt}", stmt.loc)
            if typemap is not None and var.name not in typemap:
                raise CompilerError(f"'{var.name}' has no type: {stmt}", stmt.loc)
        if isinstance(stmt, ir.Del):
            deleted.add(stmt.name)
        for var in stmt.targets():
            deleted.discard(var.name)
    for succ in block.successors():
        if succ not in blocks:
            raise CompilerError(f"block {label} jumps to missing block {succ}", block.loc)
