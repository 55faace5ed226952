"""Stage 3: calls of the `operator` module's in-place and identity functions become the
operations they name, so they type and lower as the statements do (`operator.iadd(a, b)` is
`a += b`'s expression: in place for lists, a new value for numbers).

Before:  $6 = call $4(a, b)        ($4 = getattr(global(operator), iadd))
After:   $6 = a += b
"""

from __future__ import annotations

import operator

from ember.ir import nodes as ir
from ember.rewrites.registry import Rewrite, register_rewrite

_IMMUTABLE_OF = {inplace: plain for plain, inplace in ir.INPLACE_OF.items()}
_IDENTITY = (operator.is_, operator.is_not)
# By identity: a global may be any object, an unhashable array among them.
_REWRITTEN = {id(function) for function in (*_IMMUTABLE_OF, *_IDENTITY)}


def _operator_function(value, names: dict) -> object | None:
    """The operator function an expression denotes (a global, or an attribute of the
    `operator` module's global in this block), or None."""
    if isinstance(value, (ir.Global, ir.FreeVar)):
        found = value.value
    elif isinstance(value, ir.GetAttr) and names.get(value.value.name) is operator:
        found = getattr(operator, value.attr, None)
    else:
        return None
    return found if id(found) in _REWRITTEN else None


@register_rewrite("before-inference")
class RewriteOperatorCalls(Rewrite):
    """Replace two-argument calls of operator.iadd... and operator.is_/is_not."""

    def match(self, func_ir, block, typemap, calltypes) -> bool:
        globals_: dict[str, object] = {}
        functions: dict[str, object] = {}
        self.block = block
        self.calls: list[tuple[int, object]] = []
        for index, stmt in enumerate(block.body):
            if not isinstance(stmt, ir.Assign):
                continue
            if isinstance(stmt.value, (ir.Global, ir.FreeVar)):
                globals_[stmt.target.name] = stmt.value.value
            function = _operator_function(stmt.value, globals_)
            if function is not None:
                functions[stmt.target.name] = function
            call = stmt.value
            if (
                isinstance(call, ir.Call)
                and call.func.name in functions
                and len(call.args) == 2
                and not call.kws
                and call.vararg is None
            ):
                self.calls.append((index, functions[call.func.name]))
        return bool(self.calls)

    def apply(self) -> ir.Block:
        body = list(self.block.body)
        for index, function in self.calls:
            stmt = body[index]
            lhs, rhs = stmt.value.args
            loc = stmt.value.loc
            if function in _IDENTITY:
                value = ir.BinOp(function, lhs, rhs, loc)
            else:
                value = ir.InplaceBinOp(function, _IMMUTABLE_OF[function], lhs, rhs, loc)
            body[index] = ir.Assign(stmt.target, value, stmt.loc)
        return ir.Block(self.block.label, self.block.loc, body)
