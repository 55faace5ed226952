"""Which IR variables the lowering of a long function keeps as SSA values, not stack slots.

Most variables of numeric code are temporaries: assigned once, read a few statements later in the
same block, holding a number. A stack slot for each costs a store and a load per use, and LLVM's
SROA pass must then undo them all (the largest pass on a long function); in functions of more
than `LONG_FUNCTION` statements such variables are handed from their definition to their uses
directly (800 `if` blocks: lowering 2x faster, half the LLVM instructions). Shorter functions
keep their slots: the optimized code is the same, but LLVM may order it differently, and
their code stays exactly what it was.
"""

from __future__ import annotations

from ember.ir import nodes as ir
from ember.lowering import arrays as refs

LONG_FUNCTION = 1000  # IR statements (dels included): about 20 `if/else` blocks of 5 lines


def is_long(func_ir: ir.FunctionIR) -> bool:
    return sum(len(block.body) for block in func_ir.blocks.values()) > LONG_FUNCTION


def block_local_values(func_ir: ir.FunctionIR, typemap: dict) -> frozenset[str]:
    """Names assigned exactly once, by an `Assign`, read only later in the block that assigns
    them, and owning no reference (a `del` then releases nothing, and no exception exit must
    find the value in a slot)."""
    defined_in: dict[str, int] = {}
    excluded: set[str] = set()
    for label, block in func_ir.blocks.items():
        for stmt in block.body:
            for var in stmt.sources():
                if defined_in.get(var.name) != label:
                    excluded.add(var.name)  # read before its definition, or in another block
            for var in stmt.targets():
                name = var.name
                if name in defined_in or not isinstance(stmt, ir.Assign):
                    excluded.add(name)
                defined_in[name] = label
    return frozenset(
        name
        for name in defined_in
        if name not in excluded and name in typemap and not refs.needs_refcount(typemap[name])
    )
