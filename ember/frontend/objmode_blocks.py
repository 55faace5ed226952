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
"""

from __future__ import annotations

import ast
import builtins
import dis
import inspect
import textwrap
import weakref
from collections import ChainMap
from dataclasses import dataclass, field
from types import CellType, CodeType, FunctionType
from typing import Any

from ember import types
from ember.errors import UnsupportedError
from ember.ir.nodes import Loc
from ember.misc.objmode import _ObjModeContext

_OUTER = "__ember_objmode_outer"
_BLOCK_PREFIX = "__ember_objmode_block_"


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


def uses_with_blocks(code: CodeType) -> bool:
    return any(inst.opname == "BEFORE_WITH" for inst in dis.get_instructions(code))


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
        self.blocks: list[tuple[ast.With, list[ast.stmt], dict[str, types.Type], ast.Call]] = []
        closure = py_func.__closure__ or ()
        self.closure_cells = dict(zip(py_func.__code__.co_freevars, closure))
        closure_values = {}
        for name, cell in self.closure_cells.items():
            try:
                closure_values[name] = cell.cell_contents
            except ValueError:  # an empty cell (a variable not yet assigned)
                continue
        self.namespace = ChainMap(closure_values, py_func.__globals__, vars(builtins))

    # ------------------------------------------------------------------ entry

    def run(self) -> tuple[FunctionType, list[ObjModeBlock]]:
        funcdef = self._parse()
        if funcdef is None:
            return self.py_func, []
        _BlockReplacer(self).visit(funcdef)
        if not self.blocks:
            return self.py_func, []
        replacements = {id(call) for _, _, _, call in self.blocks}
        outer_locals = _local_names(funcdef, skip=replacements)
        block_defs, block_specs = [], []
        for index, (with_node, body, outputs, call) in enumerate(self.blocks):
            others = {
                name for _, _, outs, other in self.blocks if other is not call for name in outs
            }
            candidates = outer_locals | others
            inputs = tuple(name for name in _read_before_assigned(body) if name in candidates)
            call.args = [ast.Name(name, ast.Load()) for name in inputs]
            _locate_all(call, with_node)
            name = f"{_BLOCK_PREFIX}{index}"
            block_defs.append(_block_def(name, inputs, body, outputs, with_node))
            block_specs.append((name, inputs, outputs, self._loc(with_node)))
        return self._rebuild(funcdef, block_defs, block_specs)

    def _parse(self) -> ast.FunctionDef | None:
        try:
            lines, first_line = inspect.getsourcelines(self.py_func)
        except (OSError, TypeError):
            return None  # no source: the bytecode frontend reports the `with` block
        source = "".join(lines)
        indent = len(lines[0]) - len(lines[0].lstrip())
        tree = ast.parse(textwrap.dedent(source))
        ast.increment_lineno(tree, first_line - 1)
        for node in ast.walk(tree):
            if indent and hasattr(node, "col_offset"):
                node.col_offset += indent
                if getattr(node, "end_col_offset", None) is not None:
                    node.end_col_offset += indent
        funcdef = tree.body[0] if tree.body else None
        if not isinstance(funcdef, ast.FunctionDef) or funcdef.name != self.py_func.__name__:
            return None
        return funcdef

    # ------------------------------------------------------------------ one block

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
            raise UnsupportedError(
                f"objmode output '{name}': {ast.unparse(node)} is not a type; write a type "
                "string such as 'float64[:]' or a type such as ember.float64[:]",
                loc,
            )
        return value

    def _static_value(self, node: ast.expr) -> Any:
        """The value of a name, attribute chain, constant or subscript of types, or None."""
        try:
            code = compile(ast.Expression(body=node), self.filename, "eval")
            return eval(code, {"__builtins__": {}}, self.namespace)  # noqa: S307 - names only
        except Exception:
            return None

    def _loc(self, node: ast.AST) -> Loc:
        return Loc(self.filename, node.lineno, node.col_offset, None)

    # ------------------------------------------------------------------ rebuilding

    def _rebuild(self, funcdef, block_defs, block_specs):
        _strip_evaluated_parts(funcdef)
        original_free = list(self.py_func.__code__.co_freevars)
        block_names = [spec[0] for spec in block_specs]
        params = ast.arguments(
            posonlyargs=[],
            args=[ast.arg(name) for name in original_free + block_names],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        )
        outer = ast.FunctionDef(
            name=_OUTER, args=params, body=[funcdef, *block_defs], decorator_list=[]
        )
        ast.copy_location(outer, funcdef)
        module = ast.Module(body=[outer], type_ignores=[])
        ast.fix_missing_locations(module)
        outer_code = _code_named(compile(module, self.filename, "exec").co_consts, _OUTER)
        made: list[ObjModeBlock] = []
        cells = dict(self.closure_cells)
        for name, inputs, outputs, loc in block_specs:
            label = f"<objmode block of {self.py_func.__name__}>"  # what tracebacks show
            code = _code_named(outer_code.co_consts, name).replace(co_name=label)
            func = FunctionType(code, self.py_func.__globals__, name, None, self._cells(code))
            func.__qualname__ = f"{self.py_func.__qualname__}.<objmode block, line {loc.line}>"
            block = ObjModeBlock(func, inputs, outputs, loc)
            made.append(block)
            cells[name] = CellType(block)
        code = _code_named(outer_code.co_consts, funcdef.name)
        closure = tuple(cells[name] for name in code.co_freevars)
        rebuilt = FunctionType(
            code,
            self.py_func.__globals__,
            self.py_func.__name__,
            self.py_func.__defaults__,
            closure or None,
        )
        rebuilt.__kwdefaults__ = self.py_func.__kwdefaults__
        rebuilt.__qualname__ = self.py_func.__qualname__
        rebuilt.__module__ = self.py_func.__module__
        return rebuilt, made

    def _cells(self, code: CodeType) -> tuple | None:
        if not code.co_freevars:
            return None
        return tuple(self.closure_cells[name] for name in code.co_freevars)


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

    def visit_With(self, node: ast.With) -> ast.AST:
        outputs = self.extractor.objmode_outputs(node)
        if outputs is None:
            self.generic_visit(node)
            return node
        _reject_escaping_statements(node, self.extractor)
        index = len(self.extractor.blocks)
        call = ast.Call(func=ast.Name(f"{_BLOCK_PREFIX}{index}", ast.Load()), args=[], keywords=[])
        self.extractor.blocks.append((node, node.body, outputs, call))
        if outputs:
            targets = [ast.Name(name, ast.Store()) for name in outputs]
            statement = ast.Assign(targets=[ast.Tuple(targets, ast.Store())], value=call)
        else:
            statement = ast.Expr(call)
        return _locate_all(statement, node)


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


def _block_def(name, inputs, body, outputs, with_node) -> ast.FunctionDef:
    result = ast.Tuple([ast.Name(output, ast.Load()) for output in outputs], ast.Load())
    ret = _locate_all(ast.Return(result), body[-1])
    params = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(input_name) for input_name in inputs],
        kwonlyargs=[],
        kw_defaults=[],
        defaults=[],
    )
    funcdef = ast.FunctionDef(name=name, args=params, body=[*body, ret], decorator_list=[])
    return ast.copy_location(funcdef, with_node)


def _locate_all(node: ast.AST, origin: ast.AST) -> ast.AST:
    for child in ast.walk(node):
        if "lineno" in child._attributes and not hasattr(child, "lineno"):
            ast.copy_location(child, origin)
    return node


def _strip_evaluated_parts(funcdef: ast.FunctionDef) -> None:
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


def _local_names(funcdef: ast.FunctionDef, skip: set[int]) -> set[str]:
    """Parameters and variables the function assigns (outside nested scopes), leaving out the
    targets of the assignments whose value is a call in `skip` (ids of block calls)."""
    args = funcdef.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    declared_global: set[str] = set()
    for node in _walk_scope(funcdef.body, skip):
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


def _walk_scope(body: list[ast.stmt], skip: set[int]):
    """Every node of `body` outside nested function, class and comprehension scopes (their
    own names are not the function's) and outside the block-call assignments in `skip`."""
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Assign) and id(node.value) in skip:
            continue
        yield node
        if isinstance(node, _NESTED_SCOPES):
            continue
        pending.extend(ast.iter_child_nodes(node))


_NESTED_SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _read_before_assigned(body: list[ast.stmt]) -> list[str]:
    """Names the block may read before assigning them (in first-use order): a name that a
    straight-line statement of the block assigns first is the block's own."""
    assigned: set[str] = set()
    seen: dict[str, None] = {}
    for statement in body:
        for name in _loaded_names(statement):
            if name not in assigned:
                seen.setdefault(name, None)
        assigned.update(_definitely_assigned(statement))
    return list(seen)


def _definitely_assigned(statement: ast.stmt) -> set[str]:
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


def _loaded_names(statement: ast.stmt) -> list[str]:
    """Names a statement reads (augmented assignments read too), first use first."""
    seen: dict[str, None] = {}
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            seen.setdefault(node.id, None)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            seen.setdefault(node.target.id, None)
    return list(seen)


def _code_named(consts: tuple, name: str) -> CodeType:
    for const in consts:
        if isinstance(const, CodeType) and const.co_name == name:
            return const
    raise LookupError(name)


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
