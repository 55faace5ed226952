"""Stage 4: type inference by propagation to a fixed point over the untyped IR.

Consumes the IR and argument types; produces a typemap (variable name -> type), calltypes
(expression -> chosen signature) and the return type. Assignments to one variable merge by
unification (int64 then float64 gives float64).
"""

from __future__ import annotations

import heapq
import operator
import threading
from dataclasses import dataclass, field

from ember import types
from ember.errors import (
    EmberError,
    ForceLiteralArg,
    TypingError,
    UnsupportedError,
)
from ember.ir import displays
from ember.ir import nodes as ir
from ember.types.functions import function_members
from ember.typing.arith import as_number
from ember.typing.context import TypingContext
from ember.typing.exceptions import caught_args_type, caught_attribute_type
from ember.typing.failure_report import (
    PRECISE_LIST_NOTE,
    RECURSION_HINT,
    callee_key,
    declined_attribute_overloads,
    describe_callee,
    no_implementation,
    numba_report,
    restricted_function_report,
    unsupported_library_function,
    untyped_global_message,
)
from ember.typing.functions import RecursionPending
from ember.typing.returns import finish_returns, returned_type
from ember.typing.signature import Signature
from ember.typing.star_calls import StarCallSized, expand_star_call, spread_length
from ember.typing.templates import widen_number_literals

_MAX_SWEEPS = 64

#: The inferers running on this thread, innermost last (a call may compile its callee).
_running = threading.local()


def running_inferer() -> TypeInferer | None:
    """The innermost type inference running on this thread, or None."""
    stack = getattr(_running, "stack", None)
    return stack[-1] if stack else None


@dataclass
class TypingResult:
    typemap: dict[str, types.Type]
    calltypes: dict[ir.Expr, Signature]
    return_type: types.Type
    rhs_types: dict[ir.Assign, types.Type] = field(default_factory=dict)
    assigned_at: dict[str, list[tuple[types.Type, ir.Loc]]] = field(default_factory=dict)


class RaisedNonException(TypingError, UnsupportedError):
    """`raise` of something that is no exception class or instance (`raise "text"`)."""


class _Pending(Exception):
    """An operand is not typed yet: try this statement again on the next sweep."""


class _ListWidened(Exception):
    """A list display must hold a wider number type: type the function again."""


class TypeInferer:
    """Sweeps the IR, typing each statement from its operands, until nothing changes."""

    def __init__(
        self,
        context: TypingContext,
        func_ir: ir.FunctionIR,
        arg_types: tuple,
        return_type: types.Type | None = None,
        declared_locals: tuple = (),
        returns_to_python: bool = True,
    ) -> None:
        """`returns_to_python`: False for a function compiled for a compiled caller (an
        overload's implementation, a callee), which may return compile-time-only values."""
        self.context = context
        self.returns_to_python = returns_to_python
        self.declared_locals = dict(declared_locals)
        self.func_ir = func_ir
        self.arg_types = arg_types
        self.declared_return = return_type
        self.typemap: dict[str, types.Type] = {}
        self.calltypes: dict[ir.Expr, Signature] = {}
        self.assigned_at: dict[str, list[tuple[types.Type, ir.Loc]]] = {}
        self._assignments_seen: dict[str, set[tuple[int, ir.Loc]]] = {}
        self.rhs_types: dict[ir.Assign, types.Type] = {}
        self.return_type: types.Type | None = None
        self.changed = False
        self.definitions: dict[str, list[ir.Expr | ir.Var]] = {}
        self.widened_displays: dict[int, types.List] = {}  # id(BuildList) -> its wider type

    # ------------------------------------------------------------------ driver

    def infer(self) -> TypingResult:
        stack = _running.__dict__.setdefault("stack", [])
        stack.append(self)
        try:
            return self._infer_until_done()
        finally:
            stack.pop()

    def _infer_until_done(self) -> TypingResult:
        while True:
            try:
                return self._infer_statements()
            except StarCallSized as sized:  # `f(*t)` with t typed: plain arguments, retype
                expand_star_call(self.func_ir, sized.call, sized.length)
                self._forget_types()
            except _ListWidened:  # what was typed from the narrower list is typed again
                self._forget_types()

    def _forget_types(self) -> None:
        """Start typing afresh (the list displays found to need wider items stay so)."""
        self.typemap, self.calltypes, self.rhs_types = {}, {}, {}
        self.assigned_at, self._assignments_seen, self.definitions = {}, {}, {}
        self.return_type = None

    def _infer_statements(self) -> TypingResult:
        statements = [stmt for _, stmt in self.func_ir.statements()]
        for stmt in statements:
            if isinstance(stmt, ir.Assign):
                self.definitions.setdefault(stmt.target.name, []).append(stmt.value)
        failures: dict[int, Exception] = {}
        for _ in range(_MAX_SWEEPS):
            self.changed = False
            failures = {}
            for index, stmt in enumerate(statements):
                try:
                    self._type_statement(stmt)
                except (_Pending, TypingError) as exc:
                    if isinstance(exc, TypingError) and exc.loc is None:
                        exc = type(exc)(exc.msg, stmt.loc)  # e.g. from an @overload
                    failures[index] = exc
            if not self.changed:
                break
        else:
            self._check_recursion_converged(statements)
        self._raise_first_error(failures)  # before the empty displays a failure left empty
        self._check_empty_lists(statements)
        self._report(statements, failures)
        finish_returns(self, statements)
        return TypingResult(
            self.typemap, self.calltypes, self.return_type, self.rhs_types, self.assigned_at
        )

    def _check_recursion_converged(self, statements: list[ir.Stmt]) -> None:
        """Types still changing after every sweep: a recursive call whose result feeds the
        return type grows it each time (`return (n, f(n - 1))`)."""
        recursive = [stmt for stmt in statements if _is_recursive_call(self, stmt)]
        if recursive:
            raise TypingError(
                "Return type of recursive function does not converge: each recursive call "
                "makes it larger; return one type on every path",
                recursive[0].loc,
            )

    @staticmethod
    def _raise_first_error(failures: dict[int, Exception]) -> None:
        for index in sorted(failures):
            if isinstance(failures[index], TypingError):
                raise failures[index]

    def _report(self, statements: list[ir.Stmt], failures: dict[int, Exception]) -> None:
        waiting = [statements[i] for i in sorted(failures) if _calls_compiling(self, statements[i])]
        if waiting:  # mutual recursion: the caller retries once it knows its return type
            raise RecursionPending(RECURSION_HINT, waiting[0].loc)
        if failures:
            stmt = statements[min(failures)]
            raise TypingError(self._untypable_message(stmt), stmt.loc)

    def _check_empty_lists(self, statements: list[ir.Stmt]) -> None:
        """An empty list (dict, set) display that nothing stores into has no item type to
        compile for."""
        untyped = [
            stmt
            for stmt in statements
            if isinstance(stmt, ir.Assign)
            and _is_refinable(self.typemap.get(stmt.target.name))
            and not self.typemap[stmt.target.name].is_precise
        ]
        if untyped:
            named = [
                self.func_ir.user_name(s.target.name)
                for s in untyped
                if not s.target.name.startswith("$")
            ]
            name = f"'{named[0]}'" if named else "here"
            kind = self.typemap[untyped[0].target.name]
            if _awaiting_values(kind):
                what = "item type of the empty containers stored as values in the dict"
                hint = "d = {0: [0.0]}) or append"
            elif isinstance(kind, types.DictType):
                what, hint = "key and value types of the empty dict", "d = {0: 0.0}) or store"
            elif isinstance(kind, types.Set):
                what, hint = "item type of the empty set", "s = {0.0}) or add"
            else:
                what, hint = "item type of the empty list", "xs = [0.0]) or append"
            variable = named[0] if named else untyped[0].target.name
            numba_words = (
                f"Cannot infer the type of variable '{variable}', have imprecise type: {kind}."
            )
            if not named:  # a temporary: Numba's words for it too
                numba_words = f"Undecided type {variable} := {kind}. {numba_words}"
            if not isinstance(kind, (types.DictType, types.Set)):
                numba_words += " " + PRECISE_LIST_NOTE
            raise TypingError(
                f"{numba_words}\nCannot infer the {what} {name}: nothing is stored into it in "
                f"this function (an imprecise type). Give it an item ({hint} to it",
                untyped[0].loc,
            )

    def _refine_list(self, holder: ir.Var, refined: types.Type | None, loc: ir.Loc) -> None:
        """Give an empty list of undefined items the type a store into it decides: the
        variable `holder` and, backwards through copies, every variable it came from (later
        sweeps carry the type forward). Then retry the statement."""
        if refined is not None and (refined.is_precise or _awaiting_values(refined)):
            self._refine_backwards(holder.name, refined, loc)
        raise _Pending

    def _refine_backwards(self, name: str, refined: types.Type, loc: ir.Loc) -> None:
        """`refined` for `name` and the variables it was copied from; a container read out of
        a dict that waits for its values (`d[k]`, `d.setdefault(k, [])`) decides that dict's
        value type too: `d.setdefault(k, []).append(v)` with `d = {}`."""
        pending, seen = [name], set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            self._refine(ir.Var(name, loc), refined, loc)
            for value in self.definitions.get(name, ()):
                if isinstance(value, ir.Var):
                    pending.append(value.name)
                    continue
                source = self._waiting_dict_read(value)
                if source is not None:
                    key_type = self.typemap[source.name].key_type
                    self._refine_backwards(source.name, types.DictType(key_type, refined), loc)

    def _waiting_dict_read(self, value: ir.Expr) -> ir.Var | None:
        """The dict variable of `d[k]`, `d.setdefault(k, v)`, `d.get(k, v)` or `d.pop(k, v)`
        when that dict still waits for its value type, else None."""
        if isinstance(value, (ir.GetItem, ir.StaticGetItem)):
            source = value.value
        elif isinstance(value, ir.Call) and len(value.args) == 2:
            method = next(iter(self.definitions.get(value.func.name, ())), None)
            if not isinstance(method, ir.GetAttr) or method.attr not in _DEFAULTED_READS:
                return None
            source = method.value
        else:
            return None
        return source if _awaiting_values(self.typemap.get(source.name)) else None

    def _widen_list(self, expr: ir.Call, method: types.BoundFunction, args: tuple) -> None:
        """`xs = [1]` then `xs.append(2.5)`: as in Numba, the list made here holds the wider
        number type from the start (its displays are typed again so, their items converted).
        A list that comes from elsewhere (an argument, a call) keeps its type."""
        if method.attr in ("append", "insert") and args:
            item = args[-1]
        elif method.attr == "extend" and len(args) == 1:  # `xs.extend([2.5])`
            item = types.items_of(args[0])
        else:
            return
        self._widen_list_for(self._receiver(expr.func), method.this, item)

    def _widen_list_for(self, receiver: ir.Var, this: types.Type, item: types.Type | None):
        """`receiver` (a list display's variable, of type `this`) takes `item`s: as Numba,
        the display holds the wider number type (`xs = [1]; xs += [2.5]`)."""
        if not this.is_precise or not isinstance(this, types.List) or item is None:
            return
        item = types.unliteral(item)
        if not isinstance(this.dtype, types.Number) or not isinstance(item, types.Number):
            return
        wider = self.context.unify_pair(this.dtype, item)
        if wider is None or wider is this.dtype:
            return
        displays = self._list_displays(receiver.name)
        if not displays:
            return
        for display in displays:
            self.widened_displays[id(display)] = types.List(wider)
        raise _ListWidened

    def _list_displays(self, name: str) -> list[ir.BuildList]:
        """The list displays that reach the variable `name` (through copies); none when any
        definition on the way is something else."""
        seen, displays, pending = set(), [], [name]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            for value in self.definitions.get(current, ()):
                if isinstance(value, ir.Var):
                    pending.append(value.name)
                elif isinstance(value, ir.BuildList):
                    displays.append(value)
                else:
                    return []
        return displays

    def _receiver(self, bound: ir.Var) -> ir.Var:
        """The variable a method was looked up on (`xs` of `xs.append`), through the copies
        that carry a bound method across blocks (`xs.append(a if c else b)`)."""
        for value in ir.copied_values(bound, self.definitions):
            if isinstance(value, ir.GetAttr):
                return value.value
        return bound

    def _untypable_message(self, stmt: ir.Stmt) -> str:
        missing = [v.name for v in stmt.sources() if v.name not in self.typemap]
        if _is_recursive_call(self, stmt):
            return RECURSION_HINT
        names = ", ".join(f"'{self._user_name(name)}'" for name in missing)
        return f"Cannot determine the type of {names}"

    # ------------------------------------------------------------------ statements

    def _type_statement(self, stmt: ir.Stmt) -> None:
        if isinstance(stmt, ir.Assign):
            value_type = self._type_of_rhs(stmt.value)
            self.rhs_types[stmt] = value_type
            self._refine(stmt.target, value_type, stmt.loc)
            if isinstance(stmt.value, ir.Var):
                self._refine_empty_copy(stmt.value, self.typemap.get(stmt.target.name), stmt.loc)
        elif isinstance(stmt, ir.Branch):
            self._typeof_var(stmt.cond)
        elif isinstance(stmt, ir.Return):
            self._typeof_var(stmt.value)
        elif isinstance(stmt, ir.Raise):
            self._type_raise(stmt)
        elif isinstance(stmt, ir.SetItem):
            self._type_setitem(stmt)
        elif isinstance(stmt, (ir.SetAttr, ir.DelAttr)):
            self._type_attribute_statement(stmt)

    def _refine_empty_copy(self, source: ir.Var, target_type, loc: ir.Loc) -> None:
        """`xs = a.split() if c else []`, `r = []` on one path of an `if`, `return []`: the
        empty list copied into a variable (returned) that another path made a precise list of
        the same kind takes that type, which nothing stored into it would decide."""
        source_type = self.typemap.get(source.name)
        if (
            _is_refinable(source_type)
            and not source_type.is_precise
            and not _awaiting_values(source_type)
            and target_type is not None
            and target_type.is_precise
            and type(target_type) is type(source_type)
        ):
            self._refine_backwards(source.name, target_type, loc)

    def _type_raise(self, stmt: ir.Raise) -> None:
        exc_type = self._typeof_var(stmt.exception)
        if isinstance(exc_type, types.ExceptionInstance):
            return
        numba_words = (  # what code written for Numba looks for
            "Directly raising a string constant as an exception is not supported"
            if isinstance(types.unliteral(exc_type), types.UnicodeType)
            else "Encountered unsupported constant type used for exception"
        )
        raise RaisedNonException(
            f"cannot raise a value of type {exc_type}: raise an exception class or instance, "
            f"e.g. raise ValueError('message', value) ({numba_words})",
            stmt.loc,
        )

    def _type_caught_exception(self, expr: ir.CaughtException) -> types.Type:
        return types.ExceptionInstance(BaseException)

    def _type_exception_match(self, expr: ir.ExceptionMatch) -> types.Type:
        classes = self._typeof_var(expr.classes)
        members = classes.types if isinstance(classes, types.BaseTuple) else (classes,)
        if not members or not all(isinstance(m, types.ExceptionClass) for m in members):
            raise TypingError(
                f"an 'except' clause must name exception classes (or a tuple of them), "
                f"not a value of type {classes}",
                expr.loc,
            )
        return types.boolean

    def _type_setitem(self, stmt: ir.SetItem) -> None:
        args = tuple(self._typeof_var(v) for v in (stmt.target, stmt.index, stmt.value))
        if stmt.fills_display and isinstance(args[0], types.LiteralStrKeyDict):
            return  # the display itself holds its members
        if not args[0].is_precise and _is_refinable(args[0]):
            self._refine_list(stmt.target, args[0].refined_by("__setitem__", args[1:]), stmt.loc)
        if _empty_into_slice(*args):  # `xs[i:j] = []`: the items of xs
            self._refine_list(stmt.value, args[2].of(args[0].dtype), stmt.loc)
        if isinstance(args[0], types.DictType) and _empty_of_values(args[0], args[2]):
            self._refine_list(stmt.value, args[0].value_type, stmt.loc)  # `d[k] = []`
        _require_precise(args)
        sig = self.context.resolve_operator(operator.setitem, args)
        if sig is None:  # a constant index offered as a literal (a record's field position)
            literal_index = self._constant_literal(stmt.index, args[1])
            if literal_index is not args[1]:
                literal_args = (args[0], literal_index, args[2])
                sig = self.context.resolve_operator(operator.setitem, args, literal_args)
        if sig is None:
            report = numba_report(self.context, operator.setitem, args, stmt.loc)
            message = no_implementation("setitem", stmt.sources(), args, self.func_ir, report)
            raise TypingError(message, stmt.loc)
        self.calltypes[stmt] = sig

    def _type_attribute_statement(self, stmt: ir.SetAttr | ir.DelAttr) -> None:
        target = self._typeof_var(stmt.target)
        if isinstance(stmt, ir.SetAttr):
            value = self._typeof_var(stmt.value)
            sig = self.context.resolve_setattr(target, stmt.attr, value)
            what = f"Cannot set attribute '{stmt.attr}' of {target} to a value of type {value}"
        else:
            sig = self.context.resolve_delattr(target, stmt.attr)
            what = f"Cannot delete attribute '{stmt.attr}' of {target}"
        if sig is None:
            raise TypingError(what, stmt.loc)
        self.calltypes[stmt] = sig

    def _refine(self, target: ir.Var, new_type: types.Type, loc: ir.Loc) -> None:
        name = target.name
        history = self.assigned_at.setdefault(name, [])
        seen = self._assignments_seen.setdefault(name, set())
        if (id(new_type), loc) not in seen:  # types are interned: identity is equality
            seen.add((id(new_type), loc))
            history.append((new_type, loc))
        declared = self.declared_locals.get(self.func_ir.user_name(name))
        if declared is not None:  # `@jit(locals=...)`: each value is converted on assignment
            if self.context.unify_pair(declared, types.unliteral(new_type)) is None:
                raise TypingError(
                    f"Cannot assign a value of type {new_type} to '{self._user_name(name)}', "
                    f"declared {declared} by locals=",
                    loc,
                )
            new_type = declared
        current = self.typemap.get(name)
        if current is None:
            self.typemap[name] = new_type
            self.changed = True
            return
        if current is new_type:
            return
        unified = self.context.unify_pair(current, new_type)
        if unified is None:
            raise TypingError(self._clash_message(name, current, new_type, history), loc)
        if unified is not current:
            self.typemap[name] = unified
            self.changed = True

    def _user_name(self, name: str) -> str:
        """The source's name of a variable (its web's: rewrites/variable_webs.py), for messages."""
        return self.func_ir.user_name(name) if not name.startswith("$") else "<expression>"

    def _clash_message(self, name: str, first: types.Type, second: types.Type, history) -> str:
        where = [f"  '{self._user_name(name)}' is {t} at line {loc.line}" for t, loc in history]
        cause = f"Cannot unify {first} and {second} for variable '{self._user_name(name)}'"
        if (
            isinstance(first, types.BaseTuple)
            and isinstance(second, types.BaseTuple)
            and len(first) != len(second)
        ):
            cause += (
                " (a tuple's length is part of its type, so a variable cannot hold tuples of "
                "different lengths, such as one that grows in a loop: use a list)"
            )
        return "\n".join([*where, cause])

    # ------------------------------------------------------------------ expressions

    def _typeof_var(self, var: ir.Var) -> types.Type:
        found = self.typemap.get(var.name)
        if found is None:
            raise _Pending
        return found

    def _type_of_rhs(self, value: ir.Expr | ir.Var) -> types.Type:
        if isinstance(value, ir.Var):
            return self._typeof_var(value)
        handler = _EXPR_TYPERS[type(value)]
        return handler(self, value)

    def _type_arg(self, expr: ir.Arg) -> types.Type:
        return self.arg_types[expr.index]

    def _type_constant(self, expr: ir.Const | ir.Global | ir.FreeVar) -> types.Type:
        found = self.context.resolve_value_type(expr.value)
        if found is None:
            what = getattr(expr, "name", None) or repr(expr.value)
            raise TypingError(untyped_global_message(what, expr.value), expr.loc)
        if isinstance(found, types.List | types.Set | types.DictType) and not isinstance(
            expr, ir.Const
        ):
            raise TypingError(  # Numba's words first, then what to do
                f"The use of a {found} type, assigned to variable '{expr.name}' in globals, is "
                "not supported as globals are considered compile-time constants and there is "
                f"no known way to compile a {found} type as a constant. Pass it as an argument "
                "(or hold constant values in a tuple)",
                expr.loc,
            )
        return found

    def _type_binop(self, expr: ir.BinOp | ir.InplaceBinOp) -> types.Type:
        args = (self._typeof_var(expr.lhs), self._typeof_var(expr.rhs))
        _require_precise(args)
        args = self._constant_counts(expr, args)
        sig = None
        if isinstance(expr, ir.InplaceBinOp):
            if expr.immutable_fn is operator.add and isinstance(args[1], types.List):
                self._widen_list_for(expr.lhs, args[0], args[1].dtype)  # `xs += [2.5]`
            if all(isinstance(as_number(types.unliteral(a)), types.Number) for a in args):
                # numbers are immutable: `x += y` is `x + y` (first, as Numba's templates are)
                sig = self.context.resolve_operator(expr.immutable_fn, args)
            if sig is None:
                sig = self.context.resolve_operator(expr.fn, args)
            if sig is None:
                sig = self.context.resolve_operator(expr.immutable_fn, args)
            symbol = ir.BINOP_SYMBOLS[expr.immutable_fn] + "="
        else:
            sig = self.context.resolve_operator(expr.fn, args)
            symbol = ir.BINOP_SYMBOLS[expr.fn]
        operands = [expr.lhs, expr.rhs]
        return self._record_call(expr, sig, f"operator {symbol}", operands, args, expr.fn)

    def _constant_counts(self, expr: ir.BinOp | ir.InplaceBinOp, args: tuple) -> tuple:
        """A constant integer beside a tuple (`t * 2`) reaches the typer as a literal: the
        length of the result depends on it."""
        if not any(isinstance(a, types.BaseTuple) for a in args):
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

    def _type_unary(self, expr: ir.UnaryOp) -> types.Type:
        args = (self._typeof_var(expr.value),)
        sig = self.context.resolve_operator(expr.fn, args)
        symbol = ir.UNARY_SYMBOLS[expr.fn]
        return self._record_call(expr, sig, f"unary operator {symbol}", [expr.value], args, expr.fn)

    def _type_call(self, expr: ir.Call) -> types.Type:
        if expr.vararg is not None:
            raise StarCallSized(expr, spread_length(self._typeof_var(expr.vararg), expr.loc))
        fnty = self._typeof_var(expr.func)
        args = tuple(self._typeof_var(v) for v in expr.args)
        kws = {name: self._typeof_var(v) for name, v in expr.kws}
        if isinstance(fnty, types.BoundFunction) and _is_refinable(fnty.this):
            if not fnty.this.is_precise:
                found = fnty.this.provisional_result(fnty.attr, args)
                waiting = _awaiting_values(fnty.this) or _is_refinable(found)
                if found is not None and (found.is_precise or waiting):
                    return found  # typed again, for real, once a store decides the dict
                refined = fnty.this.refined_by(fnty.attr, args)
                self._refine_list(self._receiver(expr.func), refined, expr.loc)
            self._widen_list(expr, fnty, args)
        if _pushes_into_empty_list(fnty, args):  # `heap = []; heapq.heappush(heap, item)`
            self._refine_list(expr.args[0], args[0].refined_by("append", args[1:]), expr.loc)
        if isinstance(fnty, types.BoundFunction) and _empty_default(fnty, args):
            # `d.setdefault(k, []).append(v)`: the empty display holds the dict's values
            self._refine_list(expr.args[1], fnty.this.value_type, expr.loc)
        _require_precise((*args, *kws.values()))
        literal_args = tuple(self._constant_literal(v, t) for v, t in zip(expr.args, args))
        literal_kws = {name: self._constant_literal(v, kws[name]) for name, v in expr.kws}
        plain_args, plain_kws = widen_number_literals(args, kws)
        try:
            sig = self.context.resolve_function_type(
                fnty, plain_args, plain_kws, literals=(literal_args, literal_kws)
            )
        except ForceLiteralArg as request:
            raise self._forward_literal_request(fnty, expr, request) from None
        if sig is not None and sig.return_type is None:
            raise _Pending  # a recursive call whose return type is not known yet
        described = describe_callee(fnty)
        operands = [*expr.args, *(v for _, v in expr.kws)]
        all_types = args + tuple(kws.values())
        key = callee_key(fnty)
        fixed = restricted_function_report(fnty, all_types) if sig is None else ()
        return self._record_call(expr, sig, described, operands, all_types, key, fixed)

    def _record_call(self, expr, sig, what, operands, arg_types, key=None, report=()):
        if sig is None:
            if key is not None:
                report = numba_report(self.context, key, arg_types, expr.loc)
            message = no_implementation(what, operands, arg_types, self.func_ir, report)
            raise TypingError(message, expr.loc)
        self.calltypes[expr] = sig
        return sig.return_type

    def _type_getattr(self, expr: ir.GetAttr) -> types.Type:
        value_type = self._typeof_var(expr.value)
        if isinstance(value_type, types.ExceptionInstance):
            if expr.attr == "args":
                return caught_args_type(self, expr)
            return caught_attribute_type(self, expr)
        found = self.context.resolve_getattr(value_type, expr.attr)
        if found is None:
            message = f"Unknown attribute '{expr.attr}' of type {value_type}"
            message += declined_attribute_overloads(self.context, value_type, expr.attr)
            raise TypingError(
                unsupported_library_function(value_type, expr.attr, message), expr.loc
            )
        return found

    def _type_getitem(self, expr: ir.GetItem) -> types.Type:
        args = (self._typeof_var(expr.value), self._typeof_var(expr.index))
        if _awaiting_values(args[0]):  # typed again once a store into the value decides it
            return args[0].value_type
        return self._type_subscript(expr, expr.index, args)

    def _type_subscript(self, expr: ir.GetItem | ir.StaticGetItem, index: ir.Var, args: tuple):
        """`value[index]`; a constant index is offered as a literal too (`@overload` of
        `operator.getitem` on a heterogeneous container)."""
        _require_precise(args)
        origin = self._origin(index) if isinstance(args[0], types.TypeRef) else None
        if isinstance(origin, ir.Const | ir.Global | ir.FreeVar):
            spelled = _array_type_spelled(args[0], origin.value)
            if spelled is not None:  # types.float64[idx], idx a constant: its steps are known
                return self._record_call(expr, Signature(spelled, args), "getitem", [], args)
        literal_args = (args[0], self._constant_literal(index, args[1]))
        plain_args = widen_number_literals(args, {})[0]
        sig = self.context.resolve_operator(operator.getitem, plain_args, literal_args)
        operands = [expr.value, index]
        return self._record_call(expr, sig, "getitem", operands, args, operator.getitem)

    def _type_static_getitem(self, expr: ir.StaticGetItem) -> types.Type:
        value_type = self._typeof_var(expr.value)
        if isinstance(value_type, types.LiteralList) and isinstance(expr.index, slice):
            raise TypingError(types.LiteralList.getitem_error, expr.loc)
        # a literal dict is indexed by key (ember/library/containers/literal_containers.py)
        by_position = isinstance(value_type, types.BaseTuple) and not isinstance(
            value_type, types.LiteralStrKeyDict
        )
        if by_position and isinstance(expr.index, slice):
            return types.make_tuple(value_type.types[expr.index])
        if by_position and isinstance(expr.index, int):
            if not -len(value_type) <= expr.index < len(value_type):
                raise TypingError(
                    f"tuple index {expr.index} out of range for {value_type}", expr.loc
                )
            return value_type.types[expr.index]
        if expr.index_var is None:
            raise TypingError(f"cannot index a value of type {value_type}", expr.loc)
        args = (value_type, self._typeof_var(expr.index_var))
        return self._type_subscript(expr, expr.index_var, args)

    def _type_build_tuple(self, expr: ir.BuildTuple) -> types.Type:
        return types.make_tuple(types.unliteral(self._typeof_var(v)) for v in expr.items)

    def _type_build_list(self, expr: ir.BuildList) -> types.Type:
        item_types = [types.widened(self._typeof_var(v)) for v in expr.items]
        if not item_types:
            return self.widened_displays.get(id(expr), types.List(types.undefined))
        dtype = item_types[0]
        for item_type in item_types[1:]:
            dtype = self.context.unify_pair(dtype, item_type)
            if dtype is None:  # items of no common type: an immutable, tuple-like list
                return types.LiteralList(
                    self._constant_literal(v, self._typeof_var(v)) for v in expr.items
                )
        problem = types.unsupported_item(dtype)
        if problem is not None:
            raise TypingError(problem, expr.loc)
        return self.widened_displays.get(id(expr), types.List(dtype))

    def _type_getiter(self, expr: ir.GetIter) -> types.Type:
        args = (self._typeof_var(expr.value),)
        _require_precise(args)
        sig = self.context.resolve_operator(iter, args)
        return self._record_call(expr, sig, "iteration (for ... in)", [expr.value], args)

    def _type_iternext(self, expr: ir.IterNext) -> types.Type:
        iterator = self._typeof_var(expr.value)
        return types.Pair(iterator.yield_type, types.boolean)

    def _type_pair_first(self, expr: ir.PairFirst) -> types.Type:
        return self._typeof_var(expr.value).first_type

    def _type_pair_second(self, expr: ir.PairSecond) -> types.Type:
        return self._typeof_var(expr.value).second_type

    def _type_exhaust_iter(self, expr: ir.ExhaustIter) -> types.Type:
        value_type = self._typeof_var(expr.value)
        if isinstance(value_type, types.BaseTuple):
            if len(value_type) != expr.count:
                raise TypingError(
                    f"cannot unpack {value_type} of length {len(value_type)} "
                    f"into {expr.count} values",
                    expr.loc,
                )
            return value_type
        args = (value_type, types.literal(expr.count))
        sig = self.context.resolve_operator(ir.ExhaustIter, args)
        if sig is not None:
            self.calltypes[expr] = sig
            return sig.return_type
        raise TypingError(
            f"failed to unpack {value_type}: cannot unpack a non-iterable {value_type}", expr.loc
        )

    def _type_cast(self, expr: ir.Cast) -> types.Type:
        value_type = returned_type(self._typeof_var(expr.value))
        if self.return_type is None:
            self.return_type = value_type
        else:
            unified = self.context.unify_pair(self.return_type, value_type)
            if unified is None:
                raise TypingError(
                    f"Can't unify return type from the following types: {self.return_type}, "
                    f"{value_type}\nCannot unify the return types {self.return_type} and "
                    f"{value_type}: every return statement must give compatible types",
                    expr.loc,
                )
            if unified is not self.return_type:
                self.return_type = unified
                self.changed = True
        self._refine_empty_copy(expr.value, self.return_type, expr.loc)  # `return []` too
        return value_type


_EXPR_TYPERS = {
    ir.Arg: TypeInferer._type_arg,
    ir.Const: TypeInferer._type_constant,
    ir.Global: TypeInferer._type_constant,
    ir.FreeVar: TypeInferer._type_constant,
    ir.BinOp: TypeInferer._type_binop,
    ir.InplaceBinOp: TypeInferer._type_binop,
    ir.UnaryOp: TypeInferer._type_unary,
    ir.Call: TypeInferer._type_call,
    ir.GetAttr: TypeInferer._type_getattr,
    ir.GetItem: TypeInferer._type_getitem,
    ir.StaticGetItem: TypeInferer._type_static_getitem,
    ir.BuildTuple: TypeInferer._type_build_tuple,
    ir.BuildList: TypeInferer._type_build_list,
    ir.GetIter: TypeInferer._type_getiter,
    ir.IterNext: TypeInferer._type_iternext,
    ir.PairFirst: TypeInferer._type_pair_first,
    ir.PairSecond: TypeInferer._type_pair_second,
    ir.ExhaustIter: TypeInferer._type_exhaust_iter,
    ir.Cast: TypeInferer._type_cast,
    ir.CaughtException: TypeInferer._type_caught_exception,
    ir.ExceptionMatch: TypeInferer._type_exception_match,
}


def register_expression_typer(expr_class: type, typer) -> None:
    """Let a later stage (array expressions, parfors) type its own expression kind."""
    _EXPR_TYPERS[expr_class] = typer


def _is_refinable(typ: types.Type | None) -> bool:
    """Containers whose empty display takes its member types from a later store."""
    return isinstance(typ, (types.List, types.HashTable))


def _empty_into_slice(target: types.Type, index: types.Type, value: types.Type) -> bool:
    """`xs[i:j] = []`: an empty list of undefined items stored into a known list's slice."""
    known_list = isinstance(target, types.List) and target.is_precise
    empty = isinstance(value, types.List) and not value.is_precise
    return known_list and empty and isinstance(index, types.SliceType)


def _empty_default(method: types.BoundFunction, args: tuple) -> bool:
    """`d.setdefault(k, [])` (or get/pop) of a known dict: the default is an empty display of
    undefined items of the same kind of container as the dict's values."""
    this = method.this
    if len(args) != 2 or method.attr not in _DEFAULTED_READS:
        return False
    return isinstance(this, types.DictType) and _empty_of_values(this, args[1])


def _empty_of_values(table: types.DictType, value: types.Type) -> bool:
    """Whether `value` is an empty display of undefined items of the same kind of container
    as the values of the known dict `table`."""
    if not table.is_precise or value.is_precise:
        return False
    kinds = (types.List, types.Set, types.DictType)
    return any(isinstance(value, k) and isinstance(table.value_type, k) for k in kinds)


_DEFAULTED_READS = ("setdefault", "get", "pop")

# Functions that store their second argument into the list given first.
_PUSHING_FUNCTIONS = (heapq.heappush, heapq.heappushpop)


def _pushes_into_empty_list(fnty: types.Type, args: tuple) -> bool:
    if not isinstance(fnty, types.Function) or fnty.typing_key not in _PUSHING_FUNCTIONS:
        return False
    return len(args) == 2 and isinstance(args[0], types.List) and not args[0].is_precise


def _awaiting_values(typ: types.Type | None) -> bool:
    """A dict display whose key type is known and whose values are empty containers still
    waiting for their items (`d = {}; d[k] = []` before the `d[k].append(v)`)."""
    return (
        isinstance(typ, types.DictType)
        and typ.key_type.is_precise
        and not typ.value_type.is_precise
        and _is_refinable(typ.value_type)
    )


def _array_type_spelled(value_type: types.TypeRef, index) -> types.TypeRef | None:
    """`types.float64[index]` for a constant index of slices: the array type it spells."""
    if not isinstance(value_type.instance_type, types.Number | types.Boolean):
        return None
    dtype = value_type.instance_type
    try:
        return types.TypeRef(dtype[index])
    except (KeyError, TypeError):
        return None


def _require_precise(arg_types: tuple) -> None:
    """Operations wait until the item type of an empty list is known."""
    if not all(t.is_precise for t in arg_types):
        raise _Pending


def _calls_compiling(inferer: TypeInferer, stmt: ir.Stmt) -> bool:
    """A call of another jitted function that is itself being typed (mutual recursion)."""
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call)):
        return False
    fnty = inferer.typemap.get(stmt.value.func.name)
    members = function_members(fnty) if fnty is not None else None
    return any(d.py_func is not inferer.func_ir.py_func and d.is_compiling for d in members or ())


def _is_recursive_call(inferer: TypeInferer, stmt: ir.Stmt) -> bool:
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call)):
        return False
    fnty = inferer.typemap.get(stmt.value.func.name)
    return (
        isinstance(fnty, types.DispatcherType)
        and fnty.dispatcher.py_func is inferer.func_ir.py_func
    )
