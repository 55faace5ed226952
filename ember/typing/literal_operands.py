"""Operands known while compiling, offered to typers as literals, during type inference.

Consumes the inferer's definitions; gives the literal type of a constant operand (an int, a
bool, a display of constants with its `initial_value`), and turns a callee's `literally()`
request into a request to compile the caller for its own arguments' values.
"""

from __future__ import annotations

from ember import types
from ember.errors import EmberError, ForceLiteralArg, TypingError
from ember.ir import displays
from ember.ir import nodes as ir
from ember.typing.failure_report import describe_callee


class LiteralOperands:
    """The part of `TypeInferer` (typing/infer.py) that finds operands' literal values."""

    def _constant_counts(self, expr: ir.BinOp | ir.InplaceBinOp, args: tuple) -> tuple:
        """A constant integer beside a tuple (`t * 2`) reaches the typer as a literal: the
        length of the result depends on it; so does one beside a uint64 (`u + 1` stays
        uint64 when the constant is not negative, typing/arith.py)."""
        if not any(
            isinstance(a, types.BaseTuple) or types.unliteral(a) is types.uint64 for a in args
        ):
            return args
        operands = (expr.lhs, expr.rhs)
        return tuple(self._constant_int(var, typ) for var, typ in zip(operands, args))

    def _constant_int(self, var: ir.Var, typ: types.Type) -> types.Type:
        found = self._constant_literal(var, typ)
        return found if isinstance(found, types.IntegerLiteral) else typ

    def _constant_literal(self, var: ir.Var, typ: types.Type) -> types.Type:
        """The literal type of a variable known while compiling (a constant int or bool in the
        code or a global, or a literal already), else its type `typ`."""
        if isinstance(typ, types.Literal):
            return typ
        origin = self._origin(var)
        if isinstance(origin, (ir.Const, ir.Global, ir.FreeVar)) and type(origin.value) in (
            int,
            bool,
        ):
            return types.literal(origin.value)
        return self._initial_value_literal(origin, typ)

    def _initial_value_literal(self, origin: ir.Expr | None, typ: types.Type) -> types.Type:
        """A list or dict display of constants as a literal: its type with `initial_value`
        (as Numba gives an overload that asks with `literally`), else `typ`."""
        if isinstance(origin, ir.BuildList) and type(typ) is types.List:
            values = self._display_values(origin, typ)
            if values is not None:
                return types.InitialValueList(typ.dtype, values)
        if isinstance(origin, ir.BuildTuple) and isinstance(typ, types.BaseTuple):
            # `axes=([1, 0], [0, 1])`: the lists inside keep their values too
            items = [self._initial_value_literal(self._origin(v), t)
                     for v, t in zip(origin.items, typ.types)]  # fmt: skip
            if any(isinstance(t, types.InitialValueList) for t in items):
                return types.Tuple(items)
        if isinstance(origin, ir.Call) and type(typ) is types.DictType:
            func = self._origin(origin.func)
            values = self._constants(origin.args)
            if isinstance(func, ir.Global) and func.value is displays.dict_display and values:
                initial = dict(zip(values[::2], values[1::2]))
                return types.InitialValueDict(typ.key_type, typ.value_type, initial)
        return typ

    def _display_values(self, origin: ir.BuildList, typ: types.List) -> list | None:
        """The values of a list display of constants, or of such displays (`[[1], [0]]`)."""
        if type(typ.dtype) is not types.List:
            return self._constants(origin.items)
        values = []
        for item in origin.items:
            inner = self._origin(item)
            found = None
            if isinstance(inner, ir.BuildList):
                found = self._display_values(inner, typ.dtype)
            if found is None:
                return None
            values.append(found)
        return values

    def _constants(self, variables: list) -> list | None:
        """The values of variables that all hold constants, else None."""
        origins = [self._origin(v) for v in variables]
        if not all(isinstance(o, ir.Const) for o in origins):
            return None
        return [o.value for o in origins]

    def _origin(self, var: ir.Var) -> ir.Expr | None:
        """The one expression a variable holds (through copies), or None when it is assigned
        in more than one place."""
        return ir.origin_of(var, self.definitions)

    def _forward_literal_request(
        self, fnty: types.Type, expr: ir.Call, request: ForceLiteralArg
    ) -> EmberError:
        """A callee needs some arguments of this call as literals (`literally`): those that are
        arguments of this function become a request to compile it for their values."""
        params = set()
        for position, var in self._requested_operands(fnty, expr, request.indices):
            origin = None if var is None else self._origin(var)
            if isinstance(origin, ir.Arg):
                params.add(origin.index)
                continue
            what = f"'{self._user_name(var.name)}'" if var is not None else f"argument {position}"
            return TypingError(
                f"Cannot request literal type. Invalid use of non-Literal type: "
                f"{describe_callee(fnty)} needs {what} as a "
                "literal (literally()): it must be "
                f"a constant int, bool or str, or an argument of {self.func_ir.qualname} "
                "passed one",
                expr.loc,
            )
        names = ", ".join(repr(self.func_ir.arg_names[i]) for i in sorted(params))
        return ForceLiteralArg(
            params,
            f"{self.func_ir.qualname} must be compiled for the values of its arguments {names} "
            "(literally() asks for them as literals)",
            expr.loc,
        )

    def _requested_operands(self, fnty: types.Type, expr: ir.Call, indices: frozenset) -> list:
        """(position, variable or None) of the callee parameters at `indices`."""
        if isinstance(fnty, types.DispatcherType):
            operands = fnty.dispatcher.fold_call_arguments(
                expr.args, dict(expr.kws), lambda var: var
            )
        elif isinstance(fnty, types.BoundFunction):  # the receiver is parameter 0
            operands = [self._receiver(expr.func), *expr.args]
        else:
            operands = list(expr.args)
        return [
            (i, operands[i] if i < len(operands) and isinstance(operands[i], ir.Var) else None)
            for i in sorted(indices)
        ]
