"""`f(a, *t)`: once type inference knows the tuple `t`'s type, the call's `vararg` becomes
`len(t)` static items appended to its arguments (new `t[i]` statements just before the call),
so that every later pass sees a plain call."""

from __future__ import annotations

from ember import types
from ember.errors import TypingError
from ember.ir import nodes as ir


class StarCallSized(Exception):
    """The tuple of a `*` call is typed: rewrite the call, then type the function again."""

    def __init__(self, call: ir.Call, length: int) -> None:
        super().__init__(call)
        self.call = call
        self.length = length


def spread_length(spread_type: types.Type, loc: ir.Loc) -> int:
    if not isinstance(spread_type, types.BaseTuple):
        raise TypingError(
            f"f(*args) unpacks only a tuple in nopython mode, not {spread_type}; "
            "convert it first, e.g. f(*tuple_of_values)",
            loc,
        )
    return len(spread_type)


def expand_star_call(func_ir: ir.FunctionIR, call: ir.Call, length: int) -> None:
    """Insert `t0 = t[0] ... tn = t[n-1]` before the statement of `call` and pass them after
    its arguments."""
    for block in func_ir.blocks.values():
        for index, stmt in enumerate(block.body):
            if isinstance(stmt, ir.Assign) and stmt.value is call:
                items, loads = [], []
                for position in range(length):
                    item = ir.Var(f"$star{block.label}.{index}.{position}", stmt.loc)
                    getitem = ir.StaticGetItem(call.vararg, position, None, stmt.loc)
                    loads.append(ir.Assign(item, getitem, stmt.loc))
                    items.append(item)
                block.body[index:index] = loads
                call.args = [*call.args, *items]
                call.vararg = None
                return
    raise AssertionError("the call being expanded is not in the function")
