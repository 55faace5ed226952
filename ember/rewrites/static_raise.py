"""Stage 3: `raise E("constant")` becomes a StaticRaise holding the class and its arguments.

Before:  $12.3 = call $12.1($const12.2) ; raise $12.3
After:   the call stays (it is dead), and the terminator is `raise <class 'ValueError'>('msg')`.
"""

from __future__ import annotations

from types import ModuleType

from ember.ir import nodes as ir
from ember.rewrites.registry import Rewrite, register_rewrite

MISSING = object()  # what constant_value returns for a value known only at run time


@register_rewrite("before-inference")
class RewriteConstantRaises(Rewrite):
    """Replace raises of exception classes (or calls of them with constant arguments)."""

    def match(self, func_ir, block, typemap, calltypes) -> bool:
        terminator = block.terminator
        if not isinstance(terminator, ir.Raise):
            return False
        definitions = {**single_definitions(func_ir), **_definitions(block)}
        found = _static_exception(terminator.exception, definitions)
        if found is None:
            return False
        self.block = block
        self.exc_class, self.exc_args = found
        return True

    def apply(self) -> ir.Block:
        raise_stmt = self.block.terminator
        new_block = ir.Block(self.block.label, self.block.loc, list(self.block.body[:-1]))
        new_block.append(ir.StaticRaise(self.exc_class, self.exc_args, raise_stmt.loc))
        return new_block


def _definitions(block: ir.Block) -> dict[str, ir.Expr | ir.Var]:
    return {stmt.target.name: stmt.value for stmt in block.body if isinstance(stmt, ir.Assign)}


def single_definitions(func_ir: ir.FunctionIR) -> dict[str, ir.Expr | ir.Var]:
    """Function-wide definitions of variables assigned exactly once (`e = ValueError("m")`
    in one block, `raise e` in another)."""
    found: dict[str, ir.Expr | ir.Var] = {}
    repeated: set[str] = set()
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign):
            name = stmt.target.name
            if name in found:
                repeated.add(name)
            found[name] = stmt.value
    return {name: value for name, value in found.items() if name not in repeated}


def _follow_copies(var: ir.Var, definitions: dict) -> ir.Var:
    """The variable a chain of copies (`e = $0.3`) starts from."""
    seen = {var.name}
    while isinstance(definitions.get(var.name), ir.Var):
        var = definitions[var.name]
        if var.name in seen:
            break
        seen.add(var.name)
    return var


def constant_value(var: ir.Var, definitions: dict) -> object:
    value = definitions.get(_follow_copies(var, definitions).name)
    if isinstance(value, (ir.Const, ir.Global, ir.FreeVar)):
        return value.value
    if isinstance(value, ir.GetAttr):  # `np.linalg.LinAlgError`: a module's attribute
        owner = constant_value(value.value, definitions)
        if isinstance(owner, ModuleType):
            return getattr(owner, value.attr, MISSING)
    return MISSING


def _static_exception(var: ir.Var, definitions: dict) -> tuple[type, tuple] | None:
    var = _follow_copies(var, definitions)
    direct = constant_value(var, definitions)
    if _is_exception_class(direct):
        return direct, ()
    call = definitions.get(var.name)
    if not isinstance(call, ir.Call) or call.kws:
        return None
    exc_class = constant_value(call.func, definitions)
    if not _is_exception_class(exc_class):
        return None
    args = tuple(constant_value(arg, definitions) for arg in call.args)
    if any(arg is MISSING for arg in args):
        return None
    return exc_class, args


def _is_exception_class(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)
