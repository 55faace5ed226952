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
contains `return`/`yield`, assigns a variable an inner function captures, or assigns an output
the code before it never defines (a loop that runs zero times would leave it unbound).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import FunctionType
from typing import Any

from ember.frontend.source_rewrite import (
    call_statement,
    helper_def,
    loaded_names,
    local_names,
    parse_function,
    rebuild_function,
    walk_scope,
)
from ember.ir.nodes import Loc

_LOOP_PREFIX = "__ember_lifted_loop_"


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
    helper_defs, spans = [], {}
    for body, index, loop in _outermost_loops(funcdef.body):
        boundary = _boundary(funcdef, loop, captured)
        if boundary is None:
            continue
        inputs, outputs = boundary
        name = f"{_LOOP_PREFIX}{len(helper_defs)}"
        helper_defs.append(helper_def(name, inputs, [loop], outputs, loop))
        body[index] = call_statement(name, inputs, outputs, loop)
        loc = Loc(py_func.__code__.co_filename, loop.lineno, loop.col_offset, None)
        spans[name] = LoopSpan(loc, loop.end_lineno or loop.lineno, inputs, outputs)
    if not helper_defs:
        return py_func, []
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


def _boundary(funcdef: ast.FunctionDef, loop: ast.stmt, captured: set[str]):
    """(inputs, outputs) of `loop`, or None when it must stay in object mode."""
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
    read_elsewhere = _names_read_outside(funcdef, loop)
    outputs = tuple(sorted(name for name in read_elsewhere if name in stored))
    if any(name not in defined_elsewhere for name in outputs):
        return None
    read_inside = [name for name in loaded_names(loop) if name in defined_elsewhere]
    inputs = tuple(dict.fromkeys([*read_inside, *outputs]))
    return inputs, outputs


_ESCAPES = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)


def _names_read_outside(funcdef: ast.FunctionDef, loop: ast.stmt) -> set[str]:
    """Names the function reads outside `loop`, inner functions and comprehensions included."""
    names: set[str] = set()
    for node in walk_scope(funcdef.body, {id(loop)}):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, _NESTED):
            names.update(
                inner.id
                for inner in ast.walk(node)
                if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load)
            )
    return names


_NESTED = (*_SCOPES, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
