"""Numba's rule for functions compiled with `_nrt=False` (no runtime to own new memory):
consumes a typed function, raises a TypingError when it returns an array it did not receive
as an argument."""

from __future__ import annotations

from typing import Any

from ember import types
from ember.errors import TypingError
from ember.ir import nodes as ir


def check_returned_arrays(func_ir: ir.FunctionIR, inferer: Any) -> None:
    """Every returned value holding an array must be one of the function's arguments."""
    if not _holds_array(inferer.return_type):
        return
    for block in func_ir.blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Return) and not _is_argument(stmt.value, inferer):
                raise TypingError(
                    "Only accept returning of array passed into the function as argument: "
                    "compiled with _nrt=False, the function has no runtime to own a new "
                    "array (drop _nrt=False, or return an argument)",
                    stmt.loc,
                )


def _is_argument(var: ir.Var, inferer: Any) -> bool:
    origin = inferer._origin(var)
    if isinstance(origin, ir.Cast):  # the conversion to the return type before `return`
        origin = inferer._origin(origin.value)
    return isinstance(origin, ir.Arg)


def _holds_array(typ: types.Type) -> bool:
    if isinstance(typ, types.BaseTuple):
        return any(_holds_array(member) for member in typ.types)
    if isinstance(typ, types.Optional):
        return _holds_array(typ.type)
    return isinstance(typ, types.Array)
