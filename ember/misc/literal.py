"""Literal helpers of Numba's API. `literal_unroll(t)`: in a jitted `for x in literal_unroll(t)`
loop over a tuple, the body is compiled once per member. `literally(x)`: `x` is typed as a
literal, compiling the function once per value of the argument it comes from (its typing:
ember/library/objects/literals.py)."""

from __future__ import annotations

from typing import Any

from ember import types
from ember.errors import ForceLiteralArg


def literal_unroll(container: Any) -> Any:
    """Mark a loop over `container` for unrolling (ember/rewrites/literal_unroll.py)."""
    return container


def literally(obj: Any) -> Any:
    """Type `obj` as a literal in compiled code: a constant, or an argument of the jitted
    function (which then compiles a specialization per value, as Numba does). Python gets
    `obj` itself. In an overload function, `literally(argtype)` on a non-literal argument type
    asks for the call to be typed again with that argument as a literal."""
    if isinstance(obj, types.Type) and not isinstance(obj, types.Literal):
        raise ForceLiteralArg((), f"literally() needs a literal, not {obj}", requested_type=obj)
    return obj
