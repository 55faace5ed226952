"""Checks an objmode block's declared outputs against its body and the code after it: a name
the block assigns and later code reads must be declared (else the value would be lost), and a
declared name must be assigned in the block. Consumes the function's AST; raises TypingError."""

from __future__ import annotations

import ast

from ember.errors import TypingError
from ember.frontend.source_rewrite import NESTED_SCOPES, walk_scope
from ember.ir.nodes import Loc

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def check_block_outputs(
    funcdef: ast.FunctionDef, statement: ast.stmt, body: list[ast.stmt], outputs, loc: Loc
) -> None:
    """`statement` stands for the block (with `body`) inside `funcdef`."""
    assigned = stored_names(body)
    unassigned = [name for name in outputs if name not in assigned]
    if unassigned:
        raise TypingError(
            f"Invalid type annotation on non-outgoing variables: {unassigned}: the objmode "
            "block never assigns them; declare only the names the block assigns",
            loc,
        )
    candidates = assigned - set(outputs)
    if not candidates:
        return
    read_later = _ReadsFirst(candidates).run(continuation(funcdef, statement))
    missing = sorted(read_later)
    if missing:
        raise TypingError(
            f"Missing type annotation on outgoing variable(s): {missing}: the objmode block "
            "assigns them and later code reads them, so declare their types.\n\nExample code: "
            f"with objmode({missing[0]}='<add_type_as_string_here>')",
            loc,
        )


def stored_names(body: list[ast.stmt]) -> set[str]:
    """The names the statements assign in their own scope."""
    names: set[str] = set()
    for node in walk_scope(body, set()):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def continuation(funcdef: ast.FunctionDef, statement: ast.stmt) -> list[ast.stmt]:
    """The statements that may run after `statement`: those after it in its list, the whole
    body of each enclosing loop (its next iteration), then those after each enclosing
    statement, innermost first."""
    path = _path_to(funcdef.body, statement)
    following: list[ast.stmt] = []
    for statements, index in reversed(path):
        following += statements[index + 1 :]
        if isinstance(statements[index], _LOOPS) and statements[index] is not statement:
            following += statements[index].body
    return following


def _path_to(statements: list[ast.stmt], target: ast.stmt) -> list[tuple[list, int]]:
    """(statement list, index) from the function body down to `target`."""
    for index, node in enumerate(statements):
        if node is target:
            return [(statements, index)]
        if isinstance(node, NESTED_SCOPES):
            continue
        for child_list in _statement_lists(node):
            inner = _path_to(child_list, target)
            if inner:
                return [(statements, index), *inner]
    return []


def _statement_lists(node: ast.stmt) -> list[list[ast.stmt]]:
    lists = [getattr(node, field, None) for field in ("body", "orelse", "finalbody")]
    lists += [handler.body for handler in getattr(node, "handlers", ())]
    lists += [case.body for case in getattr(node, "cases", ())]
    return [found for found in lists if isinstance(found, list)]


class _ReadsFirst:
    """Which of `candidates` some path through the statements reads before assigning."""

    def __init__(self, candidates: set[str]) -> None:
        self.candidates = candidates
        self.found: set[str] = set()

    def run(self, statements: list[ast.stmt]) -> set[str]:
        self.block(statements, set())
        return self.found

    def block(self, statements: list[ast.stmt], assigned: set[str]) -> set[str]:
        """Visits the statements in order; returns what they definitely assign."""
        for node in statements:
            assigned = self.statement(node, assigned)
        return assigned

    def statement(self, node: ast.stmt, assigned: set[str]) -> set[str]:
        if isinstance(node, ast.If):
            self.reads(node.test, assigned)
            taken = self.block(node.body, set(assigned))
            return taken & self.block(node.orelse, set(assigned))
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.reads(node.iter, assigned)
            self.block(node.body, assigned | _stores(node.target))
            self.block(node.orelse, set(assigned))
            return assigned
        if isinstance(node, ast.While):
            self.reads(node.test, assigned)
            self.block(node.body, set(assigned))
            self.block(node.orelse, set(assigned))
            return assigned
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.reads(item.context_expr, assigned)
                if item.optional_vars is not None:
                    assigned = assigned | _stores(item.optional_vars)
            return self.block(node.body, assigned)
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            after = self.block(node.body, set(assigned))
            for handler in node.handlers:
                self.block(handler.body, set(assigned))
            self.block(node.orelse, after)
            self.block(node.finalbody, set(assigned))
            return assigned
        if isinstance(node, NESTED_SCOPES[:3]):  # a nested function or class reads its free names
            self.reads(node, assigned)
            return assigned | {node.name}
        self.reads(node, assigned)
        return assigned | _stores(node)

    def reads(self, node: ast.AST, assigned: set[str], local: frozenset = frozenset()) -> None:
        """Records the candidates `node` reads; `local` holds the names a nested scope (a
        comprehension, function or lambda inside `node`) binds itself."""
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            local = local | {name for gen in node.generators for name in _stores(gen.target)}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            params += [arg for arg in (arguments.vararg, arguments.kwarg) if arg is not None]
            body = node.body if isinstance(node.body, list) else [ast.Expr(node.body)]
            local = local | {arg.arg for arg in params} | stored_names(body)
        name = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            name = node.id
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
        if name in self.candidates and name not in assigned and name not in local:
            self.found.add(name)
        for child in ast.iter_child_nodes(node):
            self.reads(child, assigned, local)


def _stores(node: ast.AST) -> set[str]:
    """Names a simple statement or target assigns (not inside nested scopes)."""
    return {
        child.id
        for child in walk_scope([node], set())
        if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store)
    }
