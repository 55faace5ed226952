"""Stage 5a: `iter()` of a generator is the generator itself, so the copy can take over the
reference of the variable it came from instead of counting a new one.

Before:  $4.2 = getiter(value=$4.1) ; del $4.1        ($4.1 a generator)
After:   $4.2 = $4.1 ; del $4.1                        (a move: no reference count changes)

Without the count changes between making a generator and the loop over it, LLVM sees the
state the generator starts from and optimizes the inlined loop as a plain loop.
"""

from __future__ import annotations

from ember import types
from ember.ir import nodes as ir
from ember.rewrites.registry import Rewrite, register_rewrite


@register_rewrite("after-inference")
class IterOfGeneratorIsItself(Rewrite):
    def match(self, func_ir, block, typemap, calltypes) -> bool:
        self.block = block
        self.found = [
            index
            for index, stmt in enumerate(block.body)
            if isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.GetIter)
            and isinstance(typemap.get(stmt.value.value.name), types.Generator)
        ]
        return bool(self.found)

    def apply(self) -> ir.Block:
        body = list(self.block.body)
        for index in self.found:
            stmt = body[index]
            body[index] = ir.Assign(stmt.target, stmt.value.value, stmt.loc)
        return ir.Block(self.block.label, self.block.loc, body)
