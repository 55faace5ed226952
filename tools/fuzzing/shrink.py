"""Shrinks a failing program: keeps the failing input, then deletes statements and replaces
expressions by their parts or by small constants while the program still fails the same way.

`shrink(job, result, run)` takes `run(job) -> result` (a pool worker) and returns the smaller
job and its result. Candidates that would loop forever are never tried: a `while` loop's
test and its counter increment stay, and the reference rejects unbounded recursion.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Iterator

REPLACEMENTS = ("0", "1", "0.0", "1.0")


def _statement_lists(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _is_loop_guard(stmt: ast.stmt) -> bool:
    """`cN += 1`, the counter that bounds a generated `while` loop."""
    return (
        isinstance(stmt, ast.AugAssign)
        and isinstance(stmt.target, ast.Name)
        and stmt.target.id.startswith("c")
        and isinstance(stmt.value, ast.Constant)
    )


def _without_statements(source: str) -> Iterator[str]:
    """Each variant of `source` with one statement (or one `if`'s else part) removed."""
    count = sum(len(b) for b in _statement_lists(ast.parse(source)))
    for position in range(count):  # outer blocks first: whole loops and branches go at once
        tree = ast.parse(source)
        seen = 0
        for block in _statement_lists(tree):
            if position < seen + len(block):
                stmt = block[position - seen]
                if isinstance(stmt, ast.Import) or _is_loop_guard(stmt):
                    break
                del block[position - seen]
                if not block:
                    block.append(ast.Pass())
                yield ast.unparse(tree) + "\n"
                break
            seen += len(block)


def _expressions(tree: ast.AST) -> list[ast.expr]:
    protected = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.While):
            protected.update(id(n) for n in ast.walk(node.test))
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.For)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                protected.update(id(n) for n in ast.walk(target))
        if isinstance(node, ast.Call):
            protected.add(id(node.func))
            protected.update(id(n) for n in ast.walk(node.func))
        if isinstance(node, ast.Attribute):
            protected.add(id(node.value))
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.expr)
        and id(n) not in protected
        and not isinstance(n, (ast.Name, ast.Constant, ast.Slice))
    ]


def _simpler_expressions(source: str) -> Iterator[str]:
    """Each variant with one compound expression replaced by a sub-expression or a constant."""
    count = len(_expressions(ast.parse(source)))
    for position in range(count):
        original = _expressions(ast.parse(source))[position]
        parts = [c for c in ast.iter_child_nodes(original) if isinstance(c, ast.expr)]
        for choice in [*range(len(parts)), *REPLACEMENTS]:
            tree = ast.parse(source)
            target = _expressions(tree)[position]
            if isinstance(choice, int):
                replacement = [c for c in ast.iter_child_nodes(target) if isinstance(c, ast.expr)]
                new = replacement[choice]
            else:
                new = ast.parse(choice, mode="eval").body
            if not _replace(tree, target, new):
                continue
            yield ast.unparse(tree) + "\n"


def _replace(tree: ast.AST, old: ast.expr, new: ast.expr) -> bool:
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return True
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is old:
                        value[k] = new
                        return True
    return False


def shrink(
    job: dict, result: dict, run: Callable[[dict], dict], budget_seconds: float = 300.0
) -> tuple[dict, dict]:
    """The smallest variant of `job` found that still fails with `result["status"]`."""
    deadline = time.monotonic() + budget_seconds
    status = result["status"]

    def attempt(candidate: dict) -> dict | None:
        outcome = run(candidate)
        return outcome if outcome["status"] == status else None

    if result.get("input", -1) >= 0 and len(job["inputs"]) > 1:
        single = dict(job, inputs=[job["inputs"][result["input"]]])
        outcome = attempt(single)
        if outcome is not None:
            job, result = single, outcome
    tried: set[str] = set()
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for variants in (_without_statements, _simpler_expressions):
            for source in variants(job["source"]):
                if time.monotonic() > deadline:
                    break
                if source in tried:
                    continue
                tried.add(source)
                candidate = dict(job, source=source)
                outcome = attempt(candidate)
                if outcome is not None:
                    job, result, progress = candidate, outcome, True
                    break
            if progress:
                break
    return job, result
