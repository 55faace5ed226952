"""Stage 4: type inference by propagation to a fixed point over the untyped IR.

Consumes the IR and argument types; produces a typemap (variable name -> type), calltypes
(expression -> chosen signature) and the return type. Assignments to one variable merge by
unification (int64 then float64 gives float64).
"""

from __future__ import annotations

import operator
import threading
from dataclasses import dataclass, field

from ember import types
from ember.errors import (
    ForceLiteralArg,
    TypingError,
    UnsupportedError,
)
from ember.ir import nodes as ir
from ember.types.functions import function_members
from ember.typing.arith import as_number
from ember.typing.container_refinement import (
    ContainerRefinement,
    ListWidened,
    Pending,
    awaiting_values,
    require_precise,
)
from ember.typing.context import TypingContext
from ember.typing.exceptions import caught_args_type, caught_attribute_type
from ember.typing.failure_report import (
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
from ember.typing.literal_operands import LiteralOperands
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


class TypeInferer(ContainerRefinement, LiteralOperands):
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
            except ListWidened:  # what was typed from the narrower list is typed again
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
                except (Pending, TypingError) as exc:
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

    def _type_raise(self, stmt: ir.Raise) -> None:
        exc_type = self._typeof_var(stmt.exception)
        if isinstance(exc_type, (types.ExceptionInstance, types.ExceptionClassChoice)):
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
        classes_types = (types.ExceptionClass, types.ExceptionClassChoice)
        if not members or not all(isinstance(m, classes_types) for m in members):
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
        self._refine_stored_containers(stmt, args)
        require_precise(args)
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
            raise Pending
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
        require_precise(args)
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
        provisional = self._refine_by_call(expr, fnty, args)
        if provisional is not None:
            return provisional
        require_precise((*args, *kws.values()))
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
            raise Pending  # a recursive call whose return type is not known yet
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
        if awaiting_values(args[0]):  # typed again once a store into the value decides it
            return args[0].value_type
        return self._type_subscript(expr, expr.index, args)

    def _type_subscript(self, expr: ir.GetItem | ir.StaticGetItem, index: ir.Var, args: tuple):
        """`value[index]`; a constant index is offered as a literal too (`@overload` of
        `operator.getitem` on a heterogeneous container)."""
        require_precise(args)
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
        require_precise(args)
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


def _array_type_spelled(value_type: types.TypeRef, index) -> types.TypeRef | None:
    """`types.float64[index]` for a constant index of slices: the array type it spells."""
    if not isinstance(value_type.instance_type, types.Number | types.Boolean):
        return None
    dtype = value_type.instance_type
    try:
        return types.TypeRef(dtype[index])
    except (KeyError, TypeError):
        return None


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
