"""Numba's `numba.core.ir` names over ember's IR (`ember.core.ir`), for rewrites written
against Numba: `ir.Assign(value, target, loc)`, `ir.Var(scope, name, loc)`, `ir.Expr.call(...)`,
`ir.Block(scope, loc)`, ... build ember's own nodes (ember/ir/nodes.py), and `isinstance` against
these names tests ember's classes, so ember code and Numba-style code see one IR.

    from ember.core import ir
    new = ir.Assign(ir.Const(2.0, loc), ir.Var(scope, "$two", loc), loc)   # an nodes.Assign
    isinstance(stmt.value, ir.Expr) and stmt.value.op == "binop"          # nodes.BinOp
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ember.errors import UnsupportedError
from ember.ir import nodes
from ember.ir.nodes import (  # the same constructors in both spellings
    Branch,
    Del,
    DelAttr,
    FreeVar,
    FunctionIR,
    Global,
    Jump,
    Loc,
    Raise,
    Return,
    SetAttr,
    SetItem,
    StaticRaise,
    Stmt,
)

Inst = Stmt  # Numba's other name for the statement base class


class _View(type):
    """Metaclass of a Numba name for an ember class: calling it builds the ember node from
    Numba's argument order; `isinstance`/`issubclass` test the ember class."""

    _ember: type | tuple

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls._ember) and not isinstance(obj, cls._excluded())

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls._ember) and not issubclass(sub, cls._excluded())

    def _excluded(cls) -> tuple:
        return getattr(cls, "_not_ember", ())

    def __call__(cls, *args: Any, **kws: Any) -> Any:
        return cls._make(*args, **kws)


# ------------------------------------------------------------------ variables and scopes


class Scope:
    """Numba's variable scope. ember's variables are named registers of one function, so one
    scope serves every function: it hands out names no other variable uses."""

    _serial = itertools.count(1)

    def define(self, name: str, loc: Loc) -> nodes.Var:
        return nodes.Var(name, loc)

    def get(self, name: str, loc: Loc | None = None) -> nodes.Var:
        return nodes.Var(name, loc)

    get_exact = get

    def redefine(self, name: str, loc: Loc, rename: bool = True) -> nodes.Var:
        """A new version of `name` (`x.3`), distinct from every other variable."""
        base = name.split(".")[0]
        return nodes.Var(f"{base}.{next(self._serial)}" if rename else name, loc)

    def make_temp(self, loc: Loc) -> nodes.Var:
        return nodes.Var(f"$rewrite.{next(self._serial)}", loc)


GLOBAL_SCOPE = Scope()


class Var(metaclass=_View):
    """`ir.Var(scope, name, loc)` (ember's own spelling `nodes.Var(name, loc)` also works)."""

    _ember = nodes.Var

    @staticmethod
    def _make(*args: Any, **kws: Any) -> nodes.Var:
        if len(args) + len(kws) == 2:
            return nodes.Var(*args, **kws)
        bound = _bind(("scope", "name", "loc"), args, kws)
        return nodes.Var(bound["name"], bound["loc"])


class Arg(metaclass=_View):
    """`ir.Arg(name, index, loc)`."""

    _ember = nodes.Arg

    @staticmethod
    def _make(name: str, index: int, loc: Loc) -> nodes.Arg:
        return nodes.Arg(index, name, loc)


class Const(metaclass=_View):
    """`ir.Const(value, loc, use_literal_type=True)` (literal typing is ember's own choice)."""

    _ember = nodes.Const

    @staticmethod
    def _make(value: Any, loc: Loc, use_literal_type: bool = True) -> nodes.Const:
        return nodes.Const(value, loc)


class Assign(metaclass=_View):
    """`ir.Assign(value, target, loc)`: Numba puts the value first."""

    _ember = nodes.Assign

    @staticmethod
    def _make(value: Any, target: nodes.Var, loc: Loc) -> nodes.Assign:
        return nodes.Assign(target, value, loc)


class Block(metaclass=_View):
    """`ir.Block(scope, loc)`: a block without a label yet (the rewrite registry gives a
    rewritten block the label of the block it replaces)."""

    _ember = nodes.Block

    @staticmethod
    def _make(scope: Any, loc: Loc, *rest: Any) -> nodes.Block:
        if isinstance(scope, int):  # ember's own Block(label, loc, body)
            return nodes.Block(scope, loc, *rest)
        return nodes.Block(-1, loc)


class Terminator(metaclass=_View):
    _ember = (nodes.Jump, nodes.Branch, nodes.Return, nodes.Raise, nodes.StaticRaise)

    @staticmethod
    def _make(*args: Any, **kws: Any) -> Any:
        raise TypeError("ir.Terminator is abstract: build ir.Jump, ir.Branch or ir.Return")


# ------------------------------------------------------------------ expressions


class Expr(metaclass=_View):
    """Numba's one expression class: `ir.Expr.call(func, args, kws, loc)`, `.binop(fn, lhs,
    rhs, loc)`, `.getattr(value, attr, loc)`, ... build ember's expression nodes, whose `op`
    says which kind they are. (Const, Global, FreeVar and Arg are not Exprs in Numba.)"""

    _ember = nodes.Expr
    _not_ember = (nodes.Const, nodes.Global, nodes.FreeVar, nodes.Arg)

    @staticmethod
    def _make(op: str, loc: Loc, **fields: Any) -> nodes.Expr:
        build = getattr(Expr, op, None)
        if build is None or op.startswith("_"):
            raise UnsupportedError(f"ir.Expr(op={op!r}) is not an expression kind ember has")
        return build(loc=loc, **fields)

    @staticmethod
    def call(func, args, kws, loc, vararg=None, varkwarg=None, target=None) -> nodes.Call:
        if vararg is not None or varkwarg is not None:
            raise UnsupportedError(
                "ir.Expr.call with vararg/varkwarg: pass the arguments in `args` and `kws`"
            )
        return nodes.Call(func, list(args), list(kws), loc)

    @staticmethod
    def binop(fn: Callable, lhs, rhs, loc) -> nodes.BinOp:
        return nodes.BinOp(fn, lhs, rhs, loc)

    @staticmethod
    def inplace_binop(fn: Callable, immutable_fn: Callable, lhs, rhs, loc) -> nodes.InplaceBinOp:
        return nodes.InplaceBinOp(fn, immutable_fn, lhs, rhs, loc)

    @staticmethod
    def unary(fn: Callable, value, loc) -> nodes.UnaryOp:
        return nodes.UnaryOp(fn, value, loc)

    @staticmethod
    def getattr(value, attr: str, loc) -> nodes.GetAttr:
        return nodes.GetAttr(value, attr, loc)

    @staticmethod
    def getitem(value, index, loc) -> nodes.GetItem:
        return nodes.GetItem(value, index, loc)

    @staticmethod
    def static_getitem(value, index, index_var, loc) -> nodes.StaticGetItem:
        return nodes.StaticGetItem(value, index, index_var, loc)

    @staticmethod
    def build_tuple(items, loc) -> nodes.BuildTuple:
        return nodes.BuildTuple(list(items), loc)

    @staticmethod
    def build_list(items, loc) -> nodes.BuildList:
        return nodes.BuildList(list(items), loc)

    @staticmethod
    def getiter(value, loc) -> nodes.GetIter:
        return nodes.GetIter(value, loc)

    @staticmethod
    def iternext(value, loc) -> nodes.IterNext:
        return nodes.IterNext(value, loc)

    @staticmethod
    def pair_first(value, loc) -> nodes.PairFirst:
        return nodes.PairFirst(value, loc)

    @staticmethod
    def pair_second(value, loc) -> nodes.PairSecond:
        return nodes.PairSecond(value, loc)

    @staticmethod
    def exhaust_iter(value, count: int, loc) -> nodes.ExhaustIter:
        return nodes.ExhaustIter(value, count, loc)

    @staticmethod
    def cast(value, loc) -> nodes.Cast:
        return nodes.Cast(value, loc)


# ------------------------------------------------------------------ the function's identity


@dataclass(frozen=True)
class FunctionIdentity:
    """Numba's `func_ir.func_id`: who the compiled function is."""

    func: Callable
    func_name: str
    func_qualname: str
    modname: str
    filename: str
    firstlineno: int
    arg_names: tuple
    code: Any

    @classmethod
    def of(cls, py_func: Callable, arg_names: tuple) -> FunctionIdentity:
        code = py_func.__code__
        return cls(
            func=py_func,
            func_name=py_func.__name__,
            func_qualname=py_func.__qualname__,
            modname=getattr(py_func, "__module__", None) or "<dynamic>",
            filename=code.co_filename,
            firstlineno=code.co_firstlineno,
            arg_names=tuple(arg_names),
            code=code,
        )

    @property
    def arg_count(self) -> int:
        return len(self.arg_names)

    @property
    def unique_name(self) -> str:
        return f"{self.modname}.{self.func_qualname}"

    @property
    def is_generator(self) -> bool:
        return inspect.isgeneratorfunction(self.func)


def _bind(names: tuple, args: tuple, kws: dict) -> dict:
    bound = dict(zip(names, args))
    bound.update(kws)
    return bound


__all__ = [
    "GLOBAL_SCOPE",
    "Arg",
    "Assign",
    "Block",
    "Branch",
    "Const",
    "Del",
    "DelAttr",
    "Expr",
    "FreeVar",
    "FunctionIR",
    "FunctionIdentity",
    "Global",
    "Inst",
    "Jump",
    "Loc",
    "Raise",
    "Return",
    "Scope",
    "SetAttr",
    "SetItem",
    "StaticRaise",
    "Stmt",
    "Terminator",
    "Var",
]
