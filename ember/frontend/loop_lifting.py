"""Loop lifting (seed 001, stage 6b): each outermost loop of an object-mode function becomes a
function of its own, called from the object-mode code, which ember then tries to compile in
nopython mode (ember/dispatcher/object_mode.py, `LiftedLoop`).

Before                                   After

    def f(n):                                def f(n):
        d = {"n": n}                             d = {"n": n}
        s = 0.0                                  s = 0.0
        for i in range(n):                       (s,) = <lifted loop 0>(n, s)
            s += i * 0.5                         return d, s
        return d, s
                                             <lifted loop 0>: def loop(n, s):
                                                                  for i in range(n):
                                                                      s += i * 0.5
                                                                  return (s,)

Inputs are the variables the loop reads that the rest of the function defines; outputs the
variables the loop assigns that the rest of the function reads. A loop is kept in place when it
contains `return`/`yield`, assigns a variable an inner function captures, or reads first a
variable the code before it may leave unbound. An output the code before the loop may leave
unbound is returned with a flag saying whether it is bound after the loop (`(res,) = ...`
becomes `res_value, res_bound = ...; if res_bound: res = res_value`), unless nothing before the
loop binds it and the next statement reads it first (then the lifted loop's own read raises
CPython's UnboundLocalError).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import FunctionType
from typing import Any

from ember.frontend.source_rewrite import (
    call_statement,
    definitely_assigned,
    helper_def,
    local_names,
    locate_all,
    parse_function,
    read_before_assigned,
    rebuild_function,
    walk_scope,
)
from ember.ir.nodes import Loc

_LOOP_PREFIX = "__ember_lifted_loop_"
_FLAG_PREFIX = "__ember_lifted_"


@dataclass(frozen=True)
class LoopSpan:
    """Where a lifted loop came from, and what crosses its boundary."""

    loc: Loc
    last_line: int
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def lift_loops(py_func: FunctionType, make_lifted) -> tuple[FunctionType, list[Any]]:
    """`py_func` rebuilt with its liftable outermost loops replaced by calls of
    `make_lifted(loop_function, span)`, and those lifted objects (none: `py_func` itself)."""
    funcdef = parse_function(py_func)
    if funcdef is None:
        return py_func, []
    captured = set(py_func.__code__.co_cellvars)
    helper_defs, spans, rebinds = [], {}, []
    loops = list(_outermost_loops(funcdef.body))
    for body, index, loop in loops:
        others = [other for _, _, other in loops if other is not loop]
        following = body[index + 1] if index + 1 < len(body) else None
        boundary = _boundary(funcdef, loop, others, captured, following)
        if boundary is None:
            continue
        inputs, outputs, flagged = boundary
        name = f"{_LOOP_PREFIX}{len(helper_defs)}"
        returned = [part for output in outputs for part in _returned(output, flagged)]
        epilogue = [locate_all(_bound_check(output), loop) for output in flagged]
        helper_defs.append(helper_def(name, inputs, [loop, *epilogue], returned, loop))
        body[index] = call_statement(name, inputs, returned, loop)
        rebinds += [(body, index + 1, locate_all(_rebind(output), loop)) for output in flagged]
        loc = Loc(py_func.__code__.co_filename, loop.lineno, loop.col_offset, None)
        spans[name] = LoopSpan(loc, loop.end_lineno or loop.lineno, inputs, outputs)
    if not helper_defs:
        return py_func, []
    for body, index, statement in reversed(rebinds):  # later positions first
        body.insert(index, statement)
    made: list[Any] = []

    def make(name: str, func: FunctionType) -> Any:
        span = spans[name]
        func.__qualname__ = f"{py_func.__qualname__}.<lifted loop, line {span.loc.line}>"
        made.append(make_lifted(func, span))
        return made[-1]

    return rebuild_function(py_func, funcdef, helper_defs, make), made


def _outermost_loops(body: list[ast.stmt]):
    """(containing list, index, loop) of each loop not inside another loop or a nested
    function, looking into if/try/with bodies."""
    for index, statement in enumerate(body):
        if isinstance(statement, (ast.For, ast.While)):
            yield body, index, statement
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, None)
            if isinstance(inner, list) and not isinstance(statement, _SCOPES):
                yield from _outermost_loops(inner)
        for handler in getattr(statement, "handlers", ()):
            yield from _outermost_loops(handler.body)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _returned(output: str, flagged: tuple[str, ...]) -> list[str]:
    """What the lifted loop returns for `output`: its value, or its value and bound flag."""
    if output not in flagged:
        return [output]
    return [f"{_FLAG_PREFIX}value_{output}", f"{_FLAG_PREFIX}bound_{output}"]


def _bound_check(output: str) -> ast.stmt:
    """After the loop: the output's value (None when unbound) and whether it is bound."""
    value, bound = _returned(output, (output,))
    return ast.parse(
        f"try:\n    {value} = {output}\n    {bound} = True\n"
        f"except UnboundLocalError:\n    {value} = None\n    {bound} = False\n"
    ).body[0]


def _rebind(output: str) -> ast.stmt:
    """In the caller: the output takes the loop's value only if the loop bound it."""
    value, bound = _returned(output, (output,))
    return ast.parse(f"if {bound}:\n    {output} = {value}\n").body[0]


def _boundary(
    funcdef: ast.FunctionDef, loop: ast.stmt, others: list, captured: set[str], following
):
    """(inputs, outputs, flagged outputs) of `loop`, or None when it must stay in object
    mode; `others` are the function's other outermost loops, `following` the statement after
    the loop. Flagged: outputs that may be unbound before the loop and that it does not read
    before binding them (returned with a flag, not taken in)."""
    inside = list(walk_scope([loop], set()))
    if any(isinstance(node, _ESCAPES) for node in inside):
        return None
    stored = {
        node.id
        for node in inside
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))
    }
    if stored & captured or any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in inside):
        return None
    defined_elsewhere = local_names(funcdef, skip={id(loop)})
    read_after = _reads(funcdef.body, skip={id(loop), *map(id, others)})
    read_after.update(*(_first_reads(other) for other in others))
    outputs = tuple(sorted(read_after & stored))
    assigned = _assigned_before(funcdef, loop)
    fresh = _fresh_outputs(funcdef, loop, outputs, following)
    first_reads = _first_reads(loop)
    flagged = tuple(
        name
        for name in outputs
        if name not in fresh and name not in assigned and name not in first_reads
    )
    inputs = tuple(
        dict.fromkeys(
            [name for name in first_reads if name in defined_elsewhere]
            + [name for name in outputs if name not in fresh and name not in flagged]
        )
    )
    if any(name not in assigned for name in inputs):
        return None  # the loop's call would read a variable that may be unbound
    return inputs, outputs, flagged


def _fresh_outputs(funcdef: ast.FunctionDef, loop: ast.stmt, outputs, following) -> set[str]:
    """Outputs no code before the loop can assign and the next statement reads before it
    does anything else: the lifted loop returns them without taking them in, and when the
    loop leaves one unassigned, reading it raises UnboundLocalError, as that statement
    would (`for i in range(n): last = i` then `return last`)."""
    if following is None:
        return set()
    maybe_before = _maybe_assigned_before(funcdef, loop)
    read_first = _read_first(following)
    return {name for name in outputs if name not in maybe_before and name in read_first}


def _maybe_assigned_before(funcdef: ast.FunctionDef, loop: ast.stmt) -> set[str]:
    """Names some path may bind before `loop` (an outermost loop: what runs before it comes
    before it in the source)."""
    start = (loop.lineno, loop.col_offset)
    skip = {
        id(node)
        for node in walk_scope(funcdef.body, set())
        if isinstance(node, ast.stmt) and (node.lineno, node.col_offset) >= start
    }
    return local_names(funcdef, skip)


def _read_first(statement: ast.stmt) -> set[str]:
    """Names `statement` reads before it runs any operation (a call, an operator, an
    attribute of a value): a return, assignment or expression of names, constants, tuples
    and lists of them, one operator on them or one call of a (module's) function on them."""
    if isinstance(statement, (ast.Return, ast.Expr, ast.Assign)):
        value = statement.value
    elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        value = ast.Tuple([ast.Name(statement.target.id, ast.Load()), statement.value])
    else:
        return set()
    if isinstance(value, ast.Call) and not value.keywords and _is_function_name(value.func):
        return _plain_names([*value.args])
    if isinstance(value, ast.BinOp):
        return _plain_names([value.left, value.right])
    if isinstance(value, ast.UnaryOp):
        return _plain_names([value.operand])
    if isinstance(value, ast.Compare) and len(value.comparators) == 1:
        return _plain_names([value.left, *value.comparators])
    return _plain_names([value])


def _plain_names(nodes: list) -> set[str]:
    """The names of `nodes` when each is a name, a constant or a tuple or list of those
    (else none: something runs before the names are read)."""
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, (ast.Tuple, ast.List)) and _is_plain(node):
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif not isinstance(node, ast.Constant):
            return set()
    return names


def _is_plain(node: ast.expr) -> bool:
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_is_plain(item) for item in node.elts)
    return isinstance(node, (ast.Name, ast.Constant))


def _is_function_name(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _first_reads(loop: ast.stmt) -> list[str]:
    """Names a loop may read before assigning them in the same iteration (in order)."""
    if isinstance(loop, ast.For):
        head = sorted(_reads([ast.Expr(loop.iter)]))
        targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    else:
        head, targets = sorted(_reads([ast.Expr(loop.test)])), set()
    # a name each iteration assigns before reading it is the loop's own
    body = [name for name in read_before_assigned(loop.body) if name not in targets]
    return list(dict.fromkeys([*head, *body, *sorted(_reads(loop.orelse))]))


def _reads(body: list[ast.stmt], skip: set[int] | None = None) -> set[str]:
    """Names read by `body` (outside the nodes whose ids are in `skip`), counting only the
    free names of the lambdas, comprehensions and inner functions in it."""
    names: set[str] = set()
    for node in walk_scope(body, skip or set()):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, _NESTED):
            names |= _free_names(node)
    return names


def _free_names(scope: ast.AST) -> set[str]:
    loaded, bound = set(), set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return loaded - bound


def _assigned_before(funcdef: ast.FunctionDef, loop: ast.stmt) -> set[str]:
    """The variables bound on every path from the function's entry to `loop`."""
    args = funcdef.args
    params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    found: list[set[str]] = []
    _flow(funcdef.body, {a.arg for a in params if a is not None}, loop, found)
    return found[0] if found else set()


def _flow(body: list[ast.stmt], assigned: set[str], target: ast.stmt, found: list) -> set[str]:
    """The names bound after `body` runs from `assigned` (records the set at `target`)."""
    for statement in body:
        if statement is target:
            found.append(set(assigned))
            return assigned
        if isinstance(statement, ast.If):
            then = _flow(statement.body, set(assigned), target, found)
            assigned = then & _flow(statement.orelse, set(assigned), target, found)
        elif isinstance(statement, (ast.For, ast.While)):
            continue  # may run zero times
        elif isinstance(statement, ast.With):
            bound = {n.id for item in statement.items for n in _names(item.optional_vars)}
            assigned = _flow(statement.body, assigned | bound, target, found)
        elif isinstance(statement, ast.Try):
            assigned = _flow_try(statement, assigned, target, found)
        else:
            assigned = assigned | definitely_assigned(statement)
    return assigned


def _flow_try(statement: ast.Try, assigned: set[str], target, found) -> set[str]:
    after = _flow(statement.body, set(assigned), target, found)
    after = _flow(statement.orelse, after, target, found)
    for handler in statement.handlers:
        bound = {handler.name} if handler.name else set()
        after &= _flow(handler.body, assigned | bound, target, found)
    return _flow(statement.finalbody, after, target, found)


def _names(node: ast.AST | None) -> list[ast.Name]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name)] if node is not None else []


_ESCAPES = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)


_NESTED = (*_SCOPES, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
