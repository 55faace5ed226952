"""Typing of generator functions: the type every `yield` hands out (unified over all yields)
and the `Generator` type that calling the function returns."""

from __future__ import annotations

from ember import types
from ember.errors import TypingError
from ember.ir import nodes as ir
from ember.typing.infer import TypeInferer, TypingResult, register_expression_typer


def _type_yield(inferer: TypeInferer, expr: ir.Yield) -> types.Type:
    value_type = types.unliteral(inferer._typeof_var(expr.value))
    current = getattr(inferer, "yield_type", None)
    if current is None:
        inferer.yield_type = value_type
        inferer.changed = True
    elif current is not value_type:
        unified = inferer.context.unify_pair(current, value_type)
        if unified is None:
            raise TypingError(
                f"Cannot unify the yielded types {current} and {value_type}: every yield of "
                "a generator must give compatible types",
                expr.loc,
            )
        if unified is not current:
            inferer.yield_type = unified
            inferer.changed = True
    return types.none  # what `yield` evaluates to: nothing can be sent in


register_expression_typer(ir.Yield, _type_yield)


def generator_result(py_func, arg_types: tuple, inferer: TypeInferer, typing: TypingResult):
    """Make `typing` describe a generator function: its call returns a `Generator`, whose
    return type unifies the values of its `return` statements (StopIteration.value)."""
    returned = types.unliteral(typing.return_type or types.none)  # (unified by the inferer)
    yield_type = getattr(inferer, "yield_type", None)
    if yield_type is None:  # no yield reached (an empty tuple yielded is falsy, not None)
        yield_type = types.none
    for kind, typ in (("yield", yield_type), ("return", returned)):
        if isinstance(typ, types.Dummy) or (
            isinstance(typ, types.BaseTuple) and any(isinstance(t, types.Dummy) for t in typ.types)
        ):
            raise TypingError(
                f"Cannot {kind} a value of type {typ} from a generator: it exists only while "
                "compiling",
                inferer.func_ir.loc,
            )
    typing.return_type = types.Generator(py_func, arg_types, yield_type, return_type=returned)
    return typing
