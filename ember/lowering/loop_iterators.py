"""Which range iterators only their `for` loop sees (consumes a typed function's IR, produces
variable names): their `next` may step past the stop once, as the loop ends, since no code
reads them afterwards (see ranges.loop_next)."""

from __future__ import annotations

from ember import types
from ember.ir import nodes as ir


def loop_range_iterators(func_ir: ir.FunctionIR, typemap: dict) -> frozenset[str]:
    """The range-iterator variables holding only iterators that `getiter` made of a range
    (a `for` loop's own) and read only by `iternext` or by copies into such variables.

    An iterator made by `iter()` or passed on (to `next`, `zip`, a generator) is not one:
    code may read it after the loop has exhausted it."""
    private = {name for name, typ in typemap.items() if isinstance(typ, types.RangeIteratorType)}
    definitions: dict[str, list] = {name: [] for name in private}
    uses: dict[str, list] = {name: [] for name in private}  # (statement, its target or None)
    for block in func_ir.blocks.values():
        for stmt in block.body:
            target = stmt.target.name if isinstance(stmt, ir.Assign) else None
            if target in definitions:
                definitions[target].append(stmt.value)
            for var in stmt.sources():
                if var.name in uses:
                    uses[var.name].append((stmt, target))
    changed = True
    while changed:
        before = len(private)
        private = {
            name
            for name in private
            if all(_made_for_loop(value, private, typemap) for value in definitions[name])
            and all(_loop_use(stmt, target, private) for stmt, target in uses[name])
        }
        changed = len(private) != before
    return frozenset(private)


def _made_for_loop(value, private: set[str], typemap: dict) -> bool:
    if isinstance(value, ir.Var):
        return value.name in private
    return isinstance(value, ir.GetIter) and isinstance(typemap[value.value.name], types.RangeType)


def _loop_use(stmt, target: str | None, private: set[str]) -> bool:
    if not isinstance(stmt, ir.Assign):
        return False
    return isinstance(stmt.value, ir.IterNext) or (
        isinstance(stmt.value, ir.Var) and target in private
    )
