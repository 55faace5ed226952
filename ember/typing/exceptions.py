"""The type of `e.args` for `except E as e:`, from the `raise` statements of the try body.

A caught exception is only known at run time, so `e.args` takes the one tuple type that every
`raise` of a matching class in the try body gives (`raise ValueError("bad", x)` with `x` an
int64: `Tuple(Literal[str](bad), int64)`); lowering reads those arguments back from the value.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from ember import types
from ember.errors import UnsupportedError
from ember.ir import nodes as ir
from ember.typing.signature import Signature

if TYPE_CHECKING:
    from ember.typing.infer import TypeInferer

_HINT = (
    "e.args is readable in compiled code when every 'raise' of a matching class in the try "
    "body gives arguments of the same types (constants, numbers, booleans)"
)


def caught_args_type(inferer: TypeInferer, expr: ir.GetAttr) -> types.Type:
    """The tuple type of `expr` (`e.args`), or UnsupportedError saying why it has none."""
    names, handlers = _copy_chain(inferer, expr)
    if len(handlers) != 1:
        raise UnsupportedError(
            f"cannot tell which 'except' caught this exception; {_HINT}", expr.loc
        )
    classes = _guarding_classes(inferer, names)
    handler = handlers.pop()
    sites = [site for site in _raise_sites(inferer, handler) if issubclass(site[0], classes)]
    runtime = [cls for cls, _ in _runtime_raise_sites(inferer, handler) if issubclass(cls, classes)]
    if not sites or runtime or any(_sets_own_args(cls) for cls, _ in sites):
        # raised by a callee or the runtime, or an __init__ decides the args: the Python
        # exception's
        return _read_through_python(inferer, expr)
    found = _unify_arguments(inferer, [arg_types for _, arg_types in sites])
    if found is None:
        described = "; ".join(f"{cls.__name__}{tuple(map(str, a))}" for cls, a in sites)
        raise UnsupportedError(
            f"the 'raise' statements of the try body give different arguments ({described}); "
            f"{_HINT}",
            expr.loc,
        )
    return found


def _sets_own_args(cls: type) -> bool:
    """Whether a class below the builtin exceptions defines __init__ or __new__ (its args
    need not be the arguments it was raised with)."""
    return any(
        klass.__module__ != "builtins" and ("__init__" in vars(klass) or "__new__" in vars(klass))
        for klass in cls.__mro__
    )


def _copy_chain(inferer: TypeInferer, expr: ir.GetAttr) -> tuple[list[str], set[int]]:
    """The variables `e` of `e.args` was copied from (nearest first) and the handlers that
    caught it. `e` itself is followed from the definitions that reach `expr` (one name serves
    every `except ... as e` clause); the temporaries it came from are assigned once each."""
    names: list[str] = [expr.value.name]
    handlers: set[int] = set()
    frontier: list[str] = []

    def follow(values) -> None:
        for value in values:
            if isinstance(value, ir.Var):
                frontier.append(value.name)
            elif isinstance(value, ir.CaughtException):
                handlers.add(value.handler)
            else:
                handlers.add(-1)  # made by a call, not caught

    follow(_reaching_definitions(inferer.func_ir, expr))
    while frontier:
        name = frontier.pop(0)
        if name not in names:
            names.append(name)
            follow(inferer.definitions.get(name, ()))
    return names, handlers


def _reaching_definitions(func_ir: ir.FunctionIR, expr: ir.GetAttr) -> list:
    """The values assigned to `expr.value` by the assignments that reach `expr`."""
    name = expr.value.name
    predecessors = func_ir.predecessors()
    for label, block in func_ir.blocks.items():
        for index, stmt in enumerate(block.body):
            if isinstance(stmt, ir.Assign) and stmt.value is expr:
                return _last_assignments(func_ir, predecessors, name, label, index)
    return []


def _last_assignments(func_ir, predecessors, name: str, label: int, end: int) -> list:
    found = []
    pending = [(label, end)]
    seen: set[int] = set()
    while pending:
        label, end = pending.pop()
        body = func_ir.blocks[label].body
        for stmt in reversed(body[:end]):
            if isinstance(stmt, ir.Assign) and stmt.target.name == name:
                found.append(stmt.value)
                break
        else:
            for pred in predecessors[label]:
                if pred not in seen:
                    seen.add(pred)
                    pending.append((pred, len(func_ir.blocks[pred].body)))
    return found


def _guarding_classes(inferer: TypeInferer, names: list[str]) -> tuple[type, ...]:
    """The classes of the `except` test on the variable nearest to `e` (BaseException when
    none: `except:` cannot bind a name, so this only happens for unusual bytecode)."""
    matches = {
        stmt.value.exception.name: stmt.value
        for _, stmt in inferer.func_ir.statements()
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.ExceptionMatch)
    }
    for name in names:
        match = matches.get(name)
        if match is not None:
            classes = inferer._typeof_var(match.classes)
            members = classes.types if isinstance(classes, types.BaseTuple) else (classes,)
            return tuple(member.exc_class for member in members)
    return (BaseException,)


def _protected_blocks(inferer: TypeInferer, handler: int) -> list[int]:
    """The blocks whose exceptions reach `handler`, directly or through the handlers of try
    statements nested in its try body."""
    handlers = inferer.func_ir.exception_handlers
    reaching = {handler}
    grown = True
    while grown:
        nested = {label for label, target in handlers.items() if target in reaching}
        grown = not nested <= reaching
        reaching |= nested
    return [label for label, target in handlers.items() if target in reaching]


def _raise_sites(inferer: TypeInferer, handler: int) -> list[tuple[type, tuple]]:
    """(class, argument types) of each raise ending a block whose exceptions reach `handler`."""
    sites = []
    for label in _protected_blocks(inferer, handler):
        terminator = inferer.func_ir.blocks[label].terminator
        if isinstance(terminator, ir.StaticRaise):
            arg_types = tuple(inferer.context.resolve_value_type(a) for a in terminator.exc_args)
            sites.append((terminator.exc_class, arg_types))
        elif isinstance(terminator, ir.Raise):
            call = _constructor_call(inferer, terminator.exception)
            if call is not None:
                sig = inferer.calltypes.get(call)
                if sig is None:
                    inferer._typeof_var(call.func)  # not typed yet: retried on the next sweep
                    continue
                fnty = inferer._typeof_var(call.func)
                for exc_class in types.exception_class_members(fnty):  # one, or a choice
                    sites.append((exc_class, tuple(sig.args)))
    return sites


def _constructor_call(inferer: TypeInferer, var: ir.Var) -> ir.Call | None:
    """The `E(...)` call `var` holds, if it holds exactly one."""
    seen = set()
    while var.name not in seen:
        seen.add(var.name)
        values = inferer.definitions.get(var.name, ())
        if len(values) != 1:
            return None
        value = values[0]
        if isinstance(value, ir.Call):
            fnty = inferer.typemap.get(value.func.name)
            return value if types.exception_class_members(fnty) is not None else None
        if not isinstance(value, ir.Var):
            return None
        var = value
    return None


def _unify_arguments(inferer: TypeInferer, all_args: list[tuple]) -> types.Type | None:
    first = all_args[0]
    if any(len(args) != len(first) or None in args for args in all_args):
        return None
    members = []
    for position in range(len(first)):
        column = [args[position] for args in all_args]
        if all(isinstance(arg, types.StringLiteral) for arg in column):
            # constant messages: one literal, or a string read back from the table entry
            same = all(arg is column[0] for arg in column)
            members.append(column[0] if same else types.unicode_type)
            continue
        member = column[0]
        for other in column[1:]:
            if isinstance(member, types.StringLiteral) or isinstance(other, types.StringLiteral):
                member = member if member is other else None
            else:
                member = inferer.context.unify_pair(member, other)
            if member is None:
                return None
        if not isinstance(member, (types.StringLiteral, types.Number, types.NoneType)):
            return None
        members.append(member)
    return types.Tuple(tuple(members))


# ---------------------------------------------------------------------------- other attributes

_MISSING = object()


def _read_through_python(inferer: TypeInferer, expr: ir.GetAttr) -> types.Type:
    """`e.args` read from the Python exception, as `e.code` is: its signature in calltypes
    tells the lowering so (other `e.args` are rebuilt from the exception table entry)."""
    found = caught_attribute_type(inferer, expr)
    inferer.calltypes[expr] = Signature(found, (inferer._typeof_var(expr.value),))
    return found


def caught_attribute_type(inferer: TypeInferer, expr: ir.GetAttr) -> types.Type:
    """The type of `e.code` (any attribute but .args) of a caught exception: the type of that
    attribute on instances made, at compile time, like the exceptions that can reach the
    handler (the try body's `raise` statements, and those compiled so far in callees: the
    exception table), their run-time arguments stood for by samples of their types. Run time
    reads the attribute of the real Python exception (ember/library/builtins/
    caught_exceptions.py), checked against this type."""
    from ember.dispatcher.typeof import typeof_or_none
    from ember.lowering.callconv import PythonExceptionRaised, static_exceptions

    names, handlers = _copy_chain(inferer, expr)
    classes = _guarding_classes(inferer, names)
    made: list[tuple[type, tuple]] = []
    callee_ids = None  # None: every exception compiled so far may reach the handler
    if len(handlers) == 1 and -1 not in handlers:
        handler = next(iter(handlers))
        for cls, arg_types in _raise_sites(inferer, handler):
            made.append((cls, tuple(_sample_of_type(t) for t in arg_types)))
        made += _runtime_raise_sites(inferer, handler)
        callee_ids = _callee_exception_ids(inferer, handler)
    for exc_id, cls, args, _ in static_exceptions.entries():
        if callee_ids is not None and exc_id not in callee_ids:
            continue
        if isinstance(cls, type) and cls is not PythonExceptionRaised:
            made.append((cls, tuple(_sample_of_entry_arg(a) for a in args)))
    found: types.Type | None = None
    for cls, args in made:
        if not issubclass(cls, classes) or _MISSING in args:
            continue
        try:
            value = getattr(cls(*args), expr.attr, _MISSING)
        except Exception:  # noqa: BLE001 - an __init__ refusing samples: no evidence here
            continue
        typ = None if value is _MISSING else typeof_or_none(value)
        if typ is None or not _readable_attribute(typ):
            continue
        typ = types.unliteral(typ)
        found = typ if found is None else inferer.context.unify_pair(found, typ)
        if found is None:
            break
    if found is None and expr.attr == "args" and all(c.__module__ == "builtins" for c in classes):
        # no evidence (a library call raised it: int(s), float(s)): ember's library raises
        # builtin exceptions with one message string; run time checks that it is so
        found = types.UniTuple(types.unicode_type, 1)
    if found is None:
        names_of = ", ".join(cls.__name__ for cls in classes)
        raise UnsupportedError(
            f"cannot tell the type of '.{expr.attr}' of the caught exception ({names_of}): no "
            "exception this handler catches has that attribute as a number, boolean, string "
            "or None, or they disagree (one that comes from a callee or the runtime is known "
            "once compiled); read it outside the jitted function, or return what you need "
            "from the handler",
            expr.loc,
        )
    return found


_DIVISIONS = (
    operator.floordiv,
    operator.mod,
    operator.truediv,
    operator.ifloordiv,
    operator.imod,
    operator.itruediv,
)


def _runtime_raise_sites(inferer: TypeInferer, handler: int) -> list[tuple[type, tuple]]:
    """(class, sample arguments) of the exceptions the runtime raises in the try body of
    `handler`, as ember raises them: a division by zero or an index out of range carries one
    message string, a missing dict key the key (so `e.args` of `1 // x` and of `d[k]` type
    before their code is compiled). Operations typed later are missed (no evidence)."""
    made: list[tuple[type, tuple]] = []
    typemap = inferer.typemap
    for label in _protected_blocks(inferer, handler):
        for stmt in inferer.func_ir.blocks[label].body:
            value = getattr(stmt, "value", None)
            if isinstance(value, (ir.BinOp, ir.InplaceBinOp)) and value.fn in _DIVISIONS:
                divisor = typemap.get(value.rhs.name)
                if isinstance(divisor, types.Number) and not isinstance(divisor, types.Literal):
                    made.append((ZeroDivisionError, ("?",)))
            elif isinstance(value, ir.GetItem):
                container = typemap.get(value.value.name)
                key = _sample_of_type(typemap.get(value.index.name, types.none))
                if isinstance(container, types.DictType):
                    made.append((KeyError, (key,)))
                elif isinstance(container, (types.List, types.UnicodeType)):
                    made.append((IndexError, ("?",)))
    return made


def _callee_exception_ids(inferer: TypeInferer, handler: int) -> set[int] | None:
    """The ids of the exceptions the jitted functions called in the try body of `handler`
    may raise (None when one of them is not compiled yet)."""
    found: set[int] = set()
    for label in _protected_blocks(inferer, handler):
        for stmt in inferer.func_ir.blocks[label].body:
            call = getattr(stmt, "value", None)
            if not isinstance(call, ir.Call):
                continue
            fnty = inferer.typemap.get(call.func.name)
            sig = inferer.calltypes.get(call)
            if not isinstance(fnty, types.DispatcherType) or sig is None:
                continue
            result = fnty.dispatcher.overloads.get(tuple(sig.args))
            if result is None or result.library is None:
                return None
            library = result.library
            linked = getattr(library, "linked_libraries", None)
            for part in linked() if linked is not None else [library]:
                found |= getattr(part, "exception_ids", set())
    return found


def _readable_attribute(typ: types.Type) -> bool:
    if isinstance(typ, types.BaseTuple):
        return all(_readable_attribute(member) for member in typ.types)
    return isinstance(typ, (types.Number, types.Boolean, types.UnicodeType, types.NoneType))


def _sample_of_type(typ: types.Type) -> object:
    """A value of `typ` standing for a run-time argument (1 for numbers: a divisor)."""
    if isinstance(typ, types.Literal):
        return typ.literal_value
    if isinstance(typ, types.Boolean):
        return True
    if isinstance(typ, types.Integer):
        return 1
    if isinstance(typ, types.Float):
        return 1.0
    if isinstance(typ, types.Complex):
        return 1.0 + 0j
    if isinstance(typ, types.UnicodeType):
        return "?"
    if isinstance(typ, types.NoneType):
        return None
    return _MISSING


def _sample_of_entry_arg(arg: object) -> object:
    """An exception table argument: a constant, or a run-time slot stood for by a sample."""
    from ember.lowering.callconv import PayloadSlot

    if isinstance(arg, PayloadSlot):
        samples = {"bool": True, "int": 1, "uint": 1, "float": 1.0, "str": "?", "bytes": b"?"}
        return samples.get(arg.kind, _MISSING)
    return arg
