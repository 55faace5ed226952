"""Rewriting a function through its source: parse it (keeping lines and columns), replace
statements by calls of helper functions made from them, and rebuild the function (same globals,
closure, defaults) with the helpers reached through closure cells.

Used by `with objmode(...)` blocks (objmode_blocks.py) and loop lifting (loop_lifting.py).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from types import CellType, CodeType, FunctionType
from typing import Any

_OUTER = "__ember_rewrite_outer"


def parse_function(py_func: FunctionType) -> ast.FunctionDef | None:
    """The `def` of `py_func` with its file's lines and columns, or None without source."""
    try:
        lines, first_line = inspect.getsourcelines(py_func)
    except (OSError, TypeError):
        return None
    source = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None
    ast.increment_lineno(tree, first_line - 1)
    for node in ast.walk(tree):
        if indent and hasattr(node, "col_offset"):
            node.col_offset += indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    funcdef = tree.body[0] if tree.body else None
    if not isinstance(funcdef, ast.FunctionDef) or funcdef.name != py_func.__name__:
        return None
    return funcdef


def rebuild_function(
    py_func: FunctionType,
    funcdef: ast.FunctionDef,
    helper_defs: list[ast.FunctionDef],
    make_helper: Callable[[str, FunctionType], Any],
) -> FunctionType:
    """`py_func` compiled again from the (rewritten) `funcdef`; each helper `def` becomes a
    function of the same globals and closure, and `make_helper(name, function)` the value its
    name has inside the rebuilt function."""
    strip_evaluated_parts(funcdef)
    original_free = list(py_func.__code__.co_freevars)
    params = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(name) for name in original_free + [d.name for d in helper_defs]],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )
    outer = ast.FunctionDef(
        name=_OUTER, args=params, body=[funcdef, *helper_defs], decorator_list=[]
    )
    ast.copy_location(outer, funcdef)
    module = ast.Module(body=[outer], type_ignores=[])
    ast.fix_missing_locations(module)
    filename = py_func.__code__.co_filename
    outer_code = code_named(compile(module, filename, "exec").co_consts, _OUTER)
    cells = dict(zip(py_func.__code__.co_freevars, py_func.__closure__ or ()))
    made = {}
    for helper in helper_defs:
        code = code_named(outer_code.co_consts, helper.name)
        closure = tuple(cells[name] for name in code.co_freevars) or None
        func = FunctionType(code, py_func.__globals__, helper.name, None, closure)
        made[helper.name] = CellType(make_helper(helper.name, func))
    cells.update(made)
    code = code_named(outer_code.co_consts, funcdef.name)
    closure = tuple(cells[name] for name in code.co_freevars)
    rebuilt = FunctionType(
        code, py_func.__globals__, py_func.__name__, py_func.__defaults__, closure or None
    )
    rebuilt.__kwdefaults__ = py_func.__kwdefaults__
    rebuilt.__qualname__ = py_func.__qualname__
    rebuilt.__module__ = py_func.__module__
    return rebuilt


def helper_def(name, inputs, body, outputs, origin: ast.AST) -> ast.FunctionDef:
    """`def name(inputs): body; return (outputs,)` located at `origin`."""
    result = ast.Tuple([ast.Name(output, ast.Load()) for output in outputs], ast.Load())
    ret = locate_all(ast.Return(result), body[-1])
    params = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(input_name) for input_name in inputs],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )
    funcdef = ast.FunctionDef(name=name, args=params, body=[*body, ret], decorator_list=[])
    return ast.copy_location(funcdef, origin)


def call_statement(name: str, inputs, outputs, origin: ast.AST) -> ast.stmt:
    """`(outputs,) = name(inputs)` (or the bare call without outputs) located at `origin`."""
    call = ast.Call(
        func=ast.Name(name, ast.Load()),
        args=[ast.Name(input_name, ast.Load()) for input_name in inputs],
        keywords=[],
    )
    if outputs:
        targets = [ast.Name(output, ast.Store()) for output in outputs]
        statement = ast.Assign(targets=[ast.Tuple(targets, ast.Store())], value=call)
    else:
        statement = ast.Expr(call)
    return locate_all(statement, origin)


def locate_all(node: ast.AST, origin: ast.AST) -> ast.AST:
    for child in ast.walk(node):
        if "lineno" in child._attributes and not hasattr(child, "lineno"):
            ast.copy_location(child, origin)
    return node


def strip_evaluated_parts(funcdef: ast.FunctionDef) -> None:
    """Decorators, defaults and annotations were evaluated once already: the rebuilt function
    takes the original's defaults instead of evaluating them again."""
    funcdef.decorator_list = []
    funcdef.returns = None
    args = funcdef.args
    args.defaults = []
    args.kw_defaults = [None] * len(args.kwonlyargs)
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None


def local_names(funcdef: ast.FunctionDef, skip: set[int]) -> set[str]:
    """Parameters and variables the function assigns (outside nested scopes), leaving out the
    targets of the assignments whose value is a call in `skip` (ids of block calls)."""
    args = funcdef.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    declared_global: set[str] = set()
    for node in walk_scope(funcdef.body, skip):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared_global.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names - declared_global


def walk_scope(body: list[ast.stmt], skip: set[int]):
    """Every node of `body` outside nested function, class and comprehension scopes (their
    own names are not the function's), leaving out the nodes whose id is in `skip` and the
    assignments whose value's id is."""
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if id(node) in skip or (isinstance(node, ast.Assign) and id(node.value) in skip):
            continue
        yield node
        if isinstance(node, NESTED_SCOPES):
            continue
        pending.extend(ast.iter_child_nodes(node))


NESTED_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def read_before_assigned(body: list[ast.stmt]) -> list[str]:
    """Names the block may read before assigning them (in first-use order): a name that a
    straight-line statement of the block assigns first is the block's own."""
    assigned: set[str] = set()
    seen: dict[str, None] = {}
    for statement in body:
        for name in loaded_names(statement):
            if name not in assigned:
                seen.setdefault(name, None)
        assigned.update(definitely_assigned(statement))
    return list(seen)


def definitely_assigned(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return {
            node.id
            for target in targets
            for node in ast.walk(target)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
        }
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
        return {statement.name}
    return set()


def loaded_names(statement: ast.stmt) -> list[str]:
    """Names a statement reads (augmented assignments read too), first use first."""
    seen: dict[str, None] = {}
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            seen.setdefault(node.id, None)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            seen.setdefault(node.target.id, None)
    return list(seen)


def code_named(consts: tuple, name: str) -> CodeType:
    for const in consts:
        if isinstance(const, CodeType) and const.co_name == name:
            return const
    raise LookupError(name)
