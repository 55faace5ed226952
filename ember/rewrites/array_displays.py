"""Stage 3: `np.array([x, y, z])` of a list display builds no list: the display becomes a tuple
(nested displays too) and the call goes to `array_of_display`, which fills the array from the
tuple when its items are numbers and rebuilds the lists otherwise (arrays, ragged rows).

Before:  $0.7 = build_list(items=[$0.3, $0.5]) ; $0.8 = call $0.1($0.7)   ($0.1 = np.array)
After:   $0.7 = build_tuple(items=[$0.3, $0.5]) ; $0.8 = call $array_of_display($0.7)
"""

from __future__ import annotations

import sys

from ember.ir import nodes as ir
from ember.rewrites.registry import Rewrite, register_rewrite

_CONVERTERS = ("array", "asarray")


@register_rewrite("before-inference")
class RewriteArrayOfDisplay(Rewrite):
    """Replace `np.array(<list display>)` / `np.asarray(...)` (optionally with a dtype) by
    `array_of_display(<tuple display>)` when the list is a temporary read only by that call."""

    def match(self, func_ir, block, typemap, calltypes) -> bool:
        np = sys.modules.get("numpy")
        if np is None:  # not imported: no function can call np.array (and a scalar
            return False  # function's compilation must not import it)
        definitions = {
            stmt.target.name: (index, stmt.value)
            for index, stmt in enumerate(block.body)
            if isinstance(stmt, ir.Assign)
        }
        reads = None
        for index, stmt in enumerate(block.body):
            if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call)):
                continue
            call = stmt.value
            if not (call.args and _is_converter(np, call.func, definitions) and _plain(call)):
                continue
            reads = reads or _reads(func_ir)
            displays = _displays(call.args[0], definitions, reads)
            if displays:
                self.block, self.call_index, self.displays = block, index, displays
                return True
        return False

    def apply(self) -> ir.Block:
        from ember.library.numpy.from_lists import array_of_display

        body = list(self.block.body)
        for index in self.displays:
            stmt = body[index]
            body[index] = ir.Assign(stmt.target, ir.BuildTuple(stmt.value.items, stmt.value.loc),
                                    stmt.loc)  # fmt: skip
        stmt = body[self.call_index]
        call = stmt.value
        names = {s.target.name for _, s in self.func_ir.statements() if isinstance(s, ir.Assign)}
        helper = ir.Var(_fresh_name("$array_of_display", names), stmt.loc)
        body[self.call_index] = ir.Assign(
            stmt.target, ir.Call(helper, call.args, call.kws, call.loc), stmt.loc
        )
        body.insert(
            self.call_index,
            ir.Assign(helper, ir.Global("array_of_display", array_of_display, stmt.loc), stmt.loc),
        )
        return ir.Block(self.block.label, self.block.loc, body)


def _is_converter(np, func: ir.Var, definitions: dict) -> bool:
    """`func` is np.array or np.asarray: a global, or an attribute of the numpy module."""
    found = definitions.get(func.name)
    if found is None:
        return False
    value = found[1]
    if isinstance(value, (ir.Global, ir.FreeVar)):
        return any(value.value is getattr(np, name) for name in _CONVERTERS)
    if isinstance(value, ir.GetAttr) and value.attr in _CONVERTERS:
        module = definitions.get(value.value.name)
        return (
            module is not None
            and isinstance(module[1], (ir.Global, ir.FreeVar))
            and module[1].value is np
        )
    return False


def _plain(call: ir.Call) -> bool:
    """Only the object and a dtype (np.array's copy/order/ndmin keep the list path)."""
    return len(call.args) <= 2 and all(name == "dtype" for name, _ in call.kws)


def _reads(func_ir: ir.FunctionIR) -> dict[str, int]:
    """How many statements of the function read each variable."""
    counts: dict[str, int] = {}
    for _, stmt in func_ir.statements():
        for var in stmt.sources():
            counts[var.name] = counts.get(var.name, 0) + 1
    return counts


def _displays(var: ir.Var, definitions: dict, reads: dict[str, int]) -> list[int]:
    """Statement indices of the list display held by `var` and of the displays nested in it,
    when each is a non-empty temporary read once (by its call or its enclosing display)."""
    found = definitions.get(var.name)
    if not (var.is_temp and reads.get(var.name) == 1 and found is not None):
        return []
    index, value = found
    if not (isinstance(value, ir.BuildList) and value.items):
        return []
    nested = [_displays(item, definitions, reads) for item in value.items]
    return [index, *(i for inner in nested for i in inner)]


def _fresh_name(stem: str, taken: set[str]) -> str:
    number = 0
    while f"{stem}.{number}" in taken:
        number += 1
    return f"{stem}.{number}"
