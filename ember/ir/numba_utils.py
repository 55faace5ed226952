"""Numba's `ir_utils` helpers over ember's IR (`ember.core.ir_utils`): `guard`/`require`,
`get_definition`, `find_const`, `find_callname`, `build_definitions`, `mk_unique_var`,
`is_getitem`/`is_setitem`/`index_var_of_get_setitem`, `compute_cfg_from_blocks`/`flatten_labels`."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from ember.ir import nodes


class GuardException(Exception):
    """Raised by `require` (and the helpers below) when a pattern does not match."""


def guard(func: Callable, *args: Any, **kwargs: Any) -> Any:
    """`func(*args, **kwargs)`, or None when it raised GuardException (a failed match)."""
    try:
        return func(*args, **kwargs)
    except GuardException:
        return None


def require(condition: Any) -> None:
    if not condition:
        raise GuardException


def definition_of(func_ir: nodes.FunctionIR, value: Any, lhs_only: bool = False) -> Any:
    """See FunctionIR.get_definition."""
    definitions = func_ir._definitions
    lhs = value
    while isinstance(value, (nodes.Var, str)):
        lhs = value
        name = value.name if isinstance(value, nodes.Var) else value
        found = definitions.get(name, [])
        if len(found) != 1:
            many = "more than one definition" if found else "no definition"
            raise KeyError(f"{many} for {name!r}")
        value = found[0]
    return lhs if lhs_only else value


def get_definition(func_ir: nodes.FunctionIR, name: Any, **kwargs: Any) -> Any:
    """`func_ir.get_definition(name)`, raising GuardException (for `guard`) instead of KeyError."""
    try:
        return func_ir.get_definition(name, **kwargs)
    except KeyError as error:
        raise GuardException from error


def build_definitions(blocks: dict, definitions: dict | None = None) -> dict:
    """Variable name -> list of the values assigned to it in `blocks`."""
    definitions = {} if definitions is None else definitions
    for label in sorted(blocks):
        for stmt in blocks[label].body:
            if isinstance(stmt, nodes.Assign):
                definitions.setdefault(stmt.target.name, []).append(stmt.value)
    return definitions


def find_const(func_ir: nodes.FunctionIR, var: nodes.Var) -> Any:
    """The constant a variable holds (GuardException if it holds no constant)."""
    definition = get_definition(func_ir, var)
    require(isinstance(definition, (nodes.Const, nodes.Global, nodes.FreeVar)))
    return definition.value


def find_callname(func_ir: nodes.FunctionIR, expr: nodes.Call, typemap: Any = None) -> tuple:
    """(function name, module or owner) of a call: `np.sqrt(x)` -> ('sqrt', 'numpy'),
    `math.pi`-style attribute chains resolved through module globals."""
    require(isinstance(expr, nodes.Call))
    callee = get_definition(func_ir, expr.func)
    if isinstance(callee, (nodes.Global, nodes.FreeVar)):
        value = callee.value
        name = getattr(value, "__name__", None)
        require(name is not None)
        return name, _module_name(value)
    require(isinstance(callee, nodes.GetAttr))
    owner = get_definition(func_ir, callee.value)
    if isinstance(owner, (nodes.Global, nodes.FreeVar)) and hasattr(owner.value, "__name__"):
        return callee.attr, owner.value.__name__
    return callee.attr, callee.value


def _module_name(value: Any) -> str:
    module = getattr(value, "__module__", None)
    if module is None and type(value).__name__ == "ufunc":  # NumPy ufuncs have no __module__
        return "numpy"
    return "numpy" if module and module.split(".")[0] == "numpy" else (module or "builtins")


def is_getitem(stmt: Any) -> bool:
    """`x = a[i]` (an index held in a variable or a constant one)."""
    return isinstance(stmt, nodes.Assign) and isinstance(
        stmt.value, (nodes.GetItem, nodes.StaticGetItem)
    )


def is_setitem(stmt: Any) -> bool:
    """`a[i] = x`."""
    return isinstance(stmt, nodes.SetItem)


def index_var_of_get_setitem(stmt: Any) -> nodes.Var | None:
    """The variable holding the index of a getitem assignment or a setitem (None otherwise, or
    for a constant index that no variable holds)."""
    if is_getitem(stmt):
        value = stmt.value
        return value.index if isinstance(value, nodes.GetItem) else value.index_var
    if is_setitem(stmt):
        return stmt.index
    return None


_unique = itertools.count()


def mk_unique_var(prefix: str) -> str:
    """A variable name used nowhere else (`prefix.N`)."""
    return f"{prefix}.{next(_unique)}"


def compute_cfg_from_blocks(blocks: dict) -> Any:
    """The processed control-flow graph of `blocks` (label -> Block), entered at the smallest
    label (Numba's CFGraph methods: successors, dominators, loops, ...)."""
    from ember.frontend.cfg import ControlFlowGraph

    graph = ControlFlowGraph()
    for label in blocks:
        graph.add_node(label)
    for label, block in blocks.items():
        for successor in block.successors():
            graph.add_edge(label, successor)
    graph.set_entry_point(min(blocks))
    graph.process()
    return graph


def flatten_labels(blocks: dict) -> dict:
    """`blocks` relabelled 0, 1, 2... in label order, jumps and branches retargeted (the
    blocks are changed in place and returned in a new dict)."""
    new_label = {label: index for index, label in enumerate(sorted(blocks))}
    flat = {}
    for label in sorted(blocks):
        block = blocks[label]
        block.label = new_label[label]
        term = block.terminator
        if isinstance(term, nodes.Jump):
            term.target = new_label[term.target]
        elif isinstance(term, nodes.Branch):
            term.truebr, term.falsebr = new_label[term.truebr], new_label[term.falsebr]
        flat[block.label] = block
    return flat
