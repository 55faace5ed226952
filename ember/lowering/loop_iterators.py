"""Which range iterators only their `for` loop sees, and which of them step by a constant 1
(consumes a typed function's IR, produces variable names): their `next` may step past the stop
once, as the loop ends, since no code reads them afterwards (see ranges.loop_next)."""

from __future__ import annotations

from ember import types
from ember.ir import nodes as ir
from ember.parallel.api import prange
from ember.rewrites.loop_branches import assigned_values, values_through_copies


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


def unit_step_iterators(func_ir: ir.FunctionIR, private: frozenset[str]) -> frozenset[str]:
    """Those of the loops' own range iterators `private` made only of `range(stop)`,
    `range(start, stop)` or `range(start, stop, 1)` (or `prange`'s): the step is 1 while
    compiling, so `next` keeps a `!=` exit test and needs no count."""
    definitions = assigned_values(func_ir)
    return frozenset(
        name
        for name in private
        if all(
            _made_by_unit_range(made, definitions)
            for iterator in values_through_copies(name, definitions)
            for made in values_through_copies(iterator.value.name, definitions)
        )
    )


def _made_by_unit_range(value, definitions: dict[str, list]) -> bool:
    if not isinstance(value, ir.Call) or value.kws or not 1 <= len(value.args) <= 3:
        return False
    called = values_through_copies(value.func.name, definitions)
    if not called or not all(isinstance(f, ir.Global) and _is_range(f.value) for f in called):
        return False
    if len(value.args) < 3:
        return True
    steps = values_through_copies(value.args[2].name, definitions)
    return bool(steps) and all(isinstance(v, ir.Const) and v.value == 1 for v in steps)


def _is_range(function) -> bool:
    return function is range or (isinstance(function, type) and issubclass(function, prange))
