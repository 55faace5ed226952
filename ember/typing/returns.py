"""What a typed function returns: consumes the inferer's typemap after inference; settles the
return type and refuses returned values that cannot be converted or exist only while compiling."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ember import types
from ember.errors import CompileTimeValueReturned, TypingError
from ember.ir import nodes as ir
from ember.lowering.boxing import compile_time_only

if TYPE_CHECKING:
    from ember.typing.infer import TypeInferer


def finish_returns(inferer: TypeInferer, statements: list[ir.Stmt]) -> None:
    """The function's return type settled (declared, or None when every path raises), and each
    returned value checked: convertible to it, and with runtime data."""
    if inferer.declared_return is not None:
        inferer.return_type = inferer.declared_return
    if inferer.return_type is None:
        inferer.return_type = types.none  # every path raises
    for stmt in statements:
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Cast):
            _check_returnable(inferer, stmt)
            inferer.typemap[stmt.target.name] = inferer.return_type


def _check_returnable(inferer: TypeInferer, cast: ir.Assign) -> None:
    """Values with no runtime data (modules, functions, exception classes) exist only
    while compiling; returning one would silently give None."""
    returned = inferer.typemap.get(cast.value.value.name, inferer.return_type)
    declared = inferer.declared_return
    if isinstance(returned, types.BaseTuple) and isinstance(declared, types.BaseTuple):
        if len(returned) != len(declared):  # as Numba words it
            raise TypingError(f"No conversion from {returned} to {declared}", cast.loc)
    if _unconvertible(types.unliteral(returned), declared):
        raise TypingError(f"No conversion from {returned} to {declared}", cast.loc)
    for candidate in (returned_type(returned), inferer.return_type):
        if inferer.returns_to_python and compile_time_only(candidate):
            raise CompileTimeValueReturned(
                f"Cannot return a value of type {candidate} (cannot convert native "
                f"{candidate} to Python object): it exists only while compiling",
                cast.loc,
            )


_SCALARS_AND_ARRAYS = (types.Number, types.Boolean, types.Array)


def _unconvertible(returned: types.Type, declared: types.Type | None) -> bool:
    """A number or array returned where the declared return type (a number or array) cannot
    hold it (an array declared as float32): a typing error, as Numba reports it."""
    if not (
        isinstance(returned, _SCALARS_AND_ARRAYS) and isinstance(declared, _SCALARS_AND_ARRAYS)
    ):
        return False
    from ember.typing.conversions import can_convert

    return can_convert(returned, declared) is None


def returned_type(typ: types.Type) -> types.Type:
    """The type a returned value takes: literals widened, inside tuples too (the string constant
    of `(x, "a")` is returned as a string)."""
    if isinstance(typ, types.BaseTuple) and not types.is_named_tuple(typ):
        members = [returned_type(member) for member in typ.types]
        if members != list(typ.types):
            return types.make_tuple(members)
    return types.unliteral(typ)
