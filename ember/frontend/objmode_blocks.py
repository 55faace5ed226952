"""`with objmode(y='float64[:]'):` blocks: each block's body becomes a Python function, and the
jitted function is rebuilt from its source with the block replaced by a call of that function.

Before (source of a jitted function)        After (what the bytecode frontend reads)

    def f(x):                                   def f(x):
        a = x + 1                                   a = x + 1
        with objmode(y='float64'):                  (y,) = <block 0>(a)
            y = float(some_library(a))              return y
        return y
                                                <block 0>: def block(a):
                                                               y = float(some_library(a))
                                                               return (y,)

The inputs of a block are the function's variables that its body reads; its outputs are the
declared names. `<block 0>` is an `ObjModeBlock` reached through a closure cell (a compile-time
constant for the frontend); ember/lowering/objmode.py types and lowers its calls. Source lines
and columns are kept, so errors and tracebacks point at the original file.

`with parallel_chunksize(n):` blocks are rewritten here too, into `previous =
set_parallel_chunksize(n)` and a `try` whose `finally` restores `previous`.
"""

from __future__ import annotations

import ast
import builtins
import weakref
from collections import ChainMap
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any

from ember import types
from ember.errors import CompilerError, UnsupportedError
from ember.frontend.objmode_outputs import check_block_outputs
from ember.frontend.source_rewrite import (
    call_statement,
    helper_def,
    local_names,
    locate_all,
    parse_function,
    read_before_assigned,
    rebuild_function,
)
from ember.ir.nodes import Loc
from ember.misc.objmode import _ObjModeContext, _TransparentContext
from ember.parallel.api import parallel_chunksize, set_parallel_chunksize

_BLOCK_PREFIX = "__ember_objmode_block_"
_CHUNKSIZE_SETTER = "__ember_set_parallel_chunksize"


class ObjModeOutputError(UnsupportedError, CompilerError):
    """An objmode output annotated with something that is not a type."""


@dataclass(eq=False)
class ObjModeBlock:
    """One `with objmode(...)` block: its Python function, the variables passed in and the
    declared outputs (name -> ember type, in declaration order)."""

    py_func: FunctionType
    inputs: tuple[str, ...]
    outputs: dict[str, types.Type]
    loc: Loc
    lowering: Any = field(default=None, repr=False)  # set by ember/lowering/objmode.py

    def __repr__(self) -> str:
        return f"objmode block at {self.loc}"


_rewritten: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def extract_objmode_blocks(py_func: FunctionType) -> tuple[FunctionType, list[ObjModeBlock]]:
    """`py_func` rebuilt with its objmode blocks replaced by calls, and those blocks; the same
    function and no blocks when it has none. Cached per function object."""
    found = _rewritten.get(py_func)
    if found is None:
        found = _Extractor(py_func).run()
        _rewritten[py_func] = found
    return found


class _Extractor:
    def __init__(self, py_func: FunctionType) -> None:
        self.py_func = py_func
        self.filename = py_func.__code__.co_filename
        # (with statement, its body, declared outputs, the statement replacing it)
        self.blocks: list[tuple[ast.With, list[ast.stmt], dict[str, types.Type], ast.stmt]] = []
        self.chunksize_blocks: list[ast.With] = []
        self.transparent_blocks = 0
        cells = zip(py_func.__code__.co_freevars, py_func.__closure__ or ())
        closure_values = {}
        for name, cell in cells:
            try:
                closure_values[name] = cell.cell_contents
            except ValueError:  # an empty cell (a variable not yet assigned)
                continue
        self.namespace = ChainMap(closure_values, py_func.__globals__, vars(builtins))

    # ------------------------------------------------------------------ entry

    def run(self) -> tuple[FunctionType, list[ObjModeBlock]]:
        funcdef = parse_function(self.py_func)
        if funcdef is None:
            return self.py_func, []  # no source: the bytecode frontend reports the `with`
        _BlockReplacer(self).visit(funcdef)
        if not (self.blocks or self.chunksize_blocks or self.transparent_blocks):
            return self.py_func, []
        replacements = {id(statement.value) for _, _, _, statement in self.blocks}
        outer_locals = local_names(funcdef, skip=replacements)
        block_defs, specs = [], {}
        for index, (with_node, body, outputs, statement) in enumerate(self.blocks):
            others = {
                name for _, _, outs, other in self.blocks if other is not statement for name in outs
            }
            candidates = outer_locals | others
            inputs = tuple(name for name in read_before_assigned(body) if name in candidates)
            statement.value.args = [ast.Name(name, ast.Load()) for name in inputs]
            locate_all(statement.value, with_node)
            name = f"{_BLOCK_PREFIX}{index}"
            block_defs.append(helper_def(name, inputs, body, outputs, with_node))
            specs[name] = (inputs, outputs, self._loc(with_node))
        for with_node, body, outputs, statement in self.blocks:  # once every call has inputs
            check_block_outputs(funcdef, statement, body, outputs, self._loc(with_node))
        if self.chunksize_blocks:
            block_defs.append(helper_def(_CHUNKSIZE_SETTER, (), [ast.Pass()], (), funcdef))
        made: list[ObjModeBlock] = []

        def make_block(name: str, func: FunctionType) -> Any:
            if name == _CHUNKSIZE_SETTER:
                return set_parallel_chunksize
            inputs, outputs, loc = specs[name]
            label = f"<objmode block of {self.py_func.__name__}>"  # what tracebacks show
            func.__code__ = func.__code__.replace(co_name=label)
            func.__qualname__ = f"{self.py_func.__qualname__}.<objmode block, line {loc.line}>"
            made.append(ObjModeBlock(func, inputs, outputs, loc))
            return made[-1]

        return rebuild_function(self.py_func, funcdef, block_defs, make_block), made

    def chunksize_argument(self, with_node: ast.With) -> ast.expr | None:
        """The size of `with parallel_chunksize(size):`, or None for another kind of `with`."""
        item = with_node.items[0]
        expr = item.context_expr
        if len(with_node.items) != 1 or not isinstance(expr, ast.Call):
            return None
        if self._static_value(expr.func) is not parallel_chunksize:
            return None
        if item.optional_vars is not None or len(expr.args) != 1 or expr.keywords:
            raise UnsupportedError(
                "write 'with parallel_chunksize(n):' (one argument, no 'as')", self._loc(with_node)
            )
        return expr.args[0]

    def chunksize_statements(self, with_node: ast.With, size: ast.expr) -> list[ast.stmt]:
        """`previous = set(size); try: body; finally: set(previous)`, as Numba's block does
        (the setter reaches the rebuilt function as a helper named `_CHUNKSIZE_SETTER`)."""
        previous = f"__ember_chunksize_{len(self.chunksize_blocks)}"
        self.chunksize_blocks.append(with_node)
        setter = ast.Name(_CHUNKSIZE_SETTER, ast.Load())
        save = ast.Assign(
            targets=[ast.Name(previous, ast.Store())],
            value=ast.Call(func=setter, args=[size], keywords=[]),
        )
        restore = ast.Expr(
            ast.Call(func=setter, args=[ast.Name(previous, ast.Load())], keywords=[])
        )
        guarded = ast.Try(body=with_node.body, handlers=[], orelse=[], finalbody=[restore])
        return [locate_all(save, with_node), locate_all(guarded, with_node)]

    def is_transparent(self, with_node: ast.With) -> bool:
        """`with bypass_context:` / `with call_context:` (no `as`): the body stands alone."""
        if len(with_node.items) != 1 or with_node.items[0].optional_vars is not None:
            return False
        return isinstance(self._static_value(with_node.items[0].context_expr), _TransparentContext)

    def objmode_outputs(self, with_node: ast.With) -> dict[str, types.Type] | None:
        """The declared outputs of `with objmode(...)`, or None for another kind of `with`."""
        if len(with_node.items) != 1:
            return None
        item = with_node.items[0]
        expr = item.context_expr
        callee = expr.func if isinstance(expr, ast.Call) else expr
        if not isinstance(self._static_value(callee), _ObjModeContext):
            return None
        loc = self._loc(with_node)
        if item.optional_vars is not None:
            raise UnsupportedError("'with objmode(...) as name:' binds nothing; drop 'as'", loc)
        if not isinstance(expr, ast.Call):
            return {}
        if expr.args or any(keyword.arg is None for keyword in expr.keywords):
            raise UnsupportedError(
                "objmode() takes keyword arguments naming the outputs and their types, "
                "e.g. objmode(y='float64[:]', n='int64')",
                loc,
            )
        return {kw.arg: self._output_type(kw.arg, kw.value, loc) for kw in expr.keywords}

    def _output_type(self, name: str, node: ast.expr, loc: Loc) -> types.Type:
        value = self._static_value(node)
        if isinstance(value, str):
            value = _parse_type_string(value, self.namespace, name, loc)
        if not isinstance(value, types.Type):
            raise ObjModeOutputError(
                f"Error handling objmode argument '{name}'. {self._why_not_a_type(node)} "
                f"(objmode output '{name}': {ast.unparse(node)} is not a type; write a type "
                "string such as 'float64[:]' or a type such as ember.float64[:])",
                loc,
            )
        return value

    def _why_not_a_type(self, node: ast.expr) -> str:
        """Numba's wording of why an output's annotation gives no type."""
        if isinstance(node, ast.Name) and node.id not in self.namespace:
            kind = "Freevar" if node.id in self.py_func.__code__.co_freevars else "Global"
            return f"{kind} '{node.id}' is not defined."
        if isinstance(node, ast.Attribute) and self._static_value(node) is None:
            return "Getattr cannot be resolved at compile-time."
        return (
            "The value must be a compile-time constant either as a non-local variable or a "
            "getattr expression that refers to a Numba type."
        )

    def _static_value(self, node: ast.expr) -> Any:
        """The value of a name, attribute chain, constant or subscript of types, or None."""
        try:
            code = compile(ast.Expression(body=node), self.filename, "eval")
            return eval(code, {"__builtins__": {}}, self.namespace)  # noqa: S307 - names only
        except Exception:
            return None

    def _loc(self, node: ast.AST) -> Loc:
        return Loc(self.filename, node.lineno, node.col_offset, None)


class _BlockReplacer(ast.NodeTransformer):
    """Replaces each top-level objmode `with` statement by an assignment from a call."""

    def __init__(self, extractor: _Extractor) -> None:
        self.extractor = extractor
        self.depth = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.depth += 1
        if self.depth == 1:
            self.generic_visit(node)  # nested functions keep their own `with` statements
        self.depth -= 1
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return node

    def visit_With(self, node: ast.With) -> Any:
        size = self.extractor.chunksize_argument(node)
        if size is not None:
            self.generic_visit(node)
            return self.extractor.chunksize_statements(node, size)
        if self.extractor.is_transparent(node):
            self.extractor.transparent_blocks += 1
            self.generic_visit(node)
            return node.body
        outputs = self.extractor.objmode_outputs(node)
        if outputs is None:
            self.generic_visit(node)
            return node
        _reject_escaping_statements(node, self.extractor)
        name = f"{_BLOCK_PREFIX}{len(self.extractor.blocks)}"
        statement = call_statement(name, (), outputs, node)  # inputs are known later
        self.extractor.blocks.append((node, node.body, outputs, statement))
        return statement


def _reject_escaping_statements(with_node: ast.With, extractor: _Extractor) -> None:
    """`return`, `yield` and a `break`/`continue` leaving the block cannot cross the Python
    call the block becomes."""

    def visit(node: ast.AST, in_loop: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        what = None
        if isinstance(node, ast.Return):
            what = "'return'"
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            what = "'yield'"
        elif isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            what = f"'{type(node).__name__.lower()}' out of the block"
        if what is not None:
            raise UnsupportedError(
                f"{what} inside a 'with objmode' block is not supported; assign a declared "
                "output and act on it after the block",
                extractor._loc(node),
            )
        for child in ast.iter_child_nodes(node):
            child_in_loop = in_loop or (
                isinstance(node, (ast.For, ast.While)) and child not in node.orelse
            )
            visit(child, child_in_loop)

    for statement in with_node.body:
        visit(statement, False)


def _parse_type_string(text: str, namespace, name: str, loc: Loc) -> types.Type:
    type_names = {n: getattr(types, n) for n in dir(types) if not n.startswith("_")}
    try:
        return eval(text, {"__builtins__": {}}, ChainMap(type_names, namespace))  # noqa: S307
    except Exception as exc:
        raise UnsupportedError(
            f"objmode output '{name}': cannot read the type {text!r} ({exc}); write a type "
            "such as 'float64', 'int64[:]' or 'UniTuple(float64, 2)'",
            loc,
        ) from None
