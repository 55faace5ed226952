"""Copying an inlined callee's body into its caller (inline_closures.py, numpy_to_parfor.py):
consumes the callee's statements, produces copies with per-call names and relabelled blocks."""

from __future__ import annotations

import dataclasses
from typing import Any

from ember.ir import nodes as ir


class Renamer:
    """Copies a callee's statements into the caller: variables get a per-call prefix (free
    variables keep the enclosing cell's name), labels move by `base`, parameters read the
    bound arguments, and returns assign the call's target and jump to the continuation."""

    def __init__(self, tag: str, kept: dict[str, str], base: int, labels: set[int]) -> None:
        self.tag = tag
        self.kept = kept
        self.base = base
        self.labels = labels

    def name(self, name: str) -> str:
        if name in self.kept:
            return self.kept[name]
        if name.startswith("$"):
            return f"${self.tag}.{name[1:]}"
        return f"{self.tag}.{name}"

    def statement(self, stmt: ir.Stmt, bound: dict, result: ir.Var, continuation: int) -> list:
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Arg):
            value = bound[stmt.value.name]
            value = value if isinstance(value, ir.Var) else self._copy(value, rename=False)
            return [ir.Assign(self.var(stmt.target), value, stmt.loc)]
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Cast):
            return [ir.Assign(self.var(stmt.target), self.var(stmt.value.value), stmt.loc)]
        if isinstance(stmt, ir.Return):
            return [
                ir.Assign(result, self.var(stmt.value), stmt.loc),
                ir.Jump(continuation, stmt.loc),
            ]
        copied = self._copy(stmt)
        for field in dataclasses.fields(copied):  # block labels: Jump, Branch and the like
            value = getattr(copied, field.name)
            if type(value) is int and value in self.labels:
                setattr(copied, field.name, value + self.base)
        return [copied]

    def var(self, var: ir.Var) -> ir.Var:
        return ir.Var(self.name(var.name), var.loc)

    def _copy(self, node: Any, rename: bool = True) -> Any:
        changes = {
            field.name: self._value(getattr(node, field.name), rename)
            for field in dataclasses.fields(node)
        }
        return dataclasses.replace(node, **changes)

    def _value(self, value: Any, rename: bool) -> Any:
        if isinstance(value, ir.Var):
            return self.var(value) if rename else value
        if isinstance(value, list):
            return [self._value(item, rename) for item in value]
        if isinstance(value, tuple):
            return tuple(self._value(item, rename) for item in value)
        if isinstance(value, ir.Expr) and dataclasses.is_dataclass(value):
            return self._copy(value, rename)
        return value
