"""Stage 3: `ember.typed.List()` with no arguments becomes the list display `[]`, so that, like
`[]`, it is typed by what is later put in it (a call's result type could not be refined).

Before:  $4.2 = call $4.1()        ($4.1 = global(List))
After:   $4.2 = build_list(items=[])
"""

from __future__ import annotations

import sys

from ember.ir import nodes as ir
from ember.rewrites.registry import Rewrite, register_rewrite


@register_rewrite("before-inference")
class RewriteEmptyTypedLists(Rewrite):
    """Replace calls of ember.typed.List without arguments by empty list displays."""

    def match(self, func_ir, block, typemap, calltypes) -> bool:
        typed = sys.modules.get("ember.typed")
        if typed is None:  # not imported: no function can name ember.typed.List
            return False
        List = typed.List  # noqa: N806 - the class itself
        globals_ = {
            stmt.target.name
            for stmt in block.body
            if isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, (ir.Global, ir.FreeVar))
            and stmt.value.value is List
        }
        self.block = block
        self.calls = [
            index
            for index, stmt in enumerate(block.body)
            if isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.Call)
            and stmt.value.func.name in globals_
            and not stmt.value.args
            and not stmt.value.kws
        ]
        return bool(self.calls)

    def apply(self) -> ir.Block:
        body = list(self.block.body)
        for index in self.calls:
            stmt = body[index]
            body[index] = ir.Assign(stmt.target, ir.BuildList([], stmt.value.loc), stmt.loc)
        return ir.Block(self.block.label, self.block.loc, body)
