"""Stage 5a: array-expression fusion (seed 002's case study).

Chains of array operators and ufunc calls inside one block become a single `arrayexpr`
whose lowering runs one broadcasting loop and allocates only the result.

Before:  $0.3 = a0 * a1 ; $0.5 = $0.3 + a2          (two loops, one temporary array)
After:   $0.5 = arrayexpr(ty=array(float64, 1d, C), expr=('+', [('*', [a0, a1]), a2]))

A ufunc call given an output array (`np.add(a * b, c, out=o)`) may be the root of a fused
expression, which then writes into `o` and returns it (`out=o` in the dump); it is never
folded into another expression, since that would lose its write to `o`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

from ember import types
from ember.ir import nodes as ir
from ember.rewrites.registry import Rewrite, register_rewrite

_ELEMENTWISE_OPERATORS = {
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
    operator.mod, operator.pow, operator.lshift, operator.rshift, operator.and_,
    operator.or_, operator.xor, operator.eq, operator.ne, operator.lt, operator.le,
    operator.gt, operator.ge, operator.neg, operator.pos, operator.invert,
}  # fmt: skip


@dataclass(eq=False)
class ArrayExpr(ir.Expr):
    """A fused element-wise expression: `tree` nests (op, [children]) over Var and Const leaves.

    `op` is the Python callable applied per element (an operator or a NumPy ufunc).
    """

    tree: Any
    result_type: types.Type
    loc: ir.Loc
    out: ir.Var | None = None  # the array written and returned, instead of a new one

    def leaves(self) -> list[ir.Var]:
        """The variables the tree reads, each once."""
        found: dict[str, ir.Var] = {}
        _collect_vars(self.tree, found)
        return list(found.values())

    def sources(self) -> list[ir.Var]:
        leaves = self.leaves()
        if self.out is not None and all(var.name != self.out.name for var in leaves):
            leaves.append(self.out)
        return leaves

    def __str__(self) -> str:
        out = "" if self.out is None else f", out={self.out!r}"
        return f"arrayexpr(ty={self.result_type}, expr={_format_tree(self.tree)}{out})"


def _collect_vars(tree: Any, found: dict) -> None:
    if isinstance(tree, ir.Var):
        found.setdefault(tree.name, tree)
    elif isinstance(tree, tuple):
        for child in tree[1]:
            _collect_vars(child, found)


def _format_tree(tree: Any) -> str:
    if isinstance(tree, ir.Var):
        return repr(tree)
    if isinstance(tree, ir.Const):
        return repr(tree.value)
    op, children = tree
    return f"({_op_name(op)!r}, [{', '.join(_format_tree(c) for c in children)}])"


def _op_name(op: Any) -> str:
    symbol = ir.BINOP_SYMBOLS.get(op) or ir.UNARY_SYMBOLS.get(op)
    return symbol or getattr(op, "__name__", repr(op))


def is_elementwise_ufunc(value: Any) -> bool:
    """NumPy ufuncs are element-wise by definition (checked without importing NumPy), and so
    are the objects that say so (ember's DUFunc), but not generalized ufuncs."""
    if getattr(type(value), "_ember_elementwise", False):
        return True
    is_ufunc = type(value).__name__ == "ufunc" and type(value).__module__ == "numpy"
    return is_ufunc and value.signature is None


@register_rewrite("after-inference")
class RewriteArrayExprs(Rewrite):
    """Fuse array operations whose intermediate results are used once, in the same block."""

    def match(self, func_ir, block, typemap, calltypes) -> bool:
        self.block = block
        self.typemap = typemap
        self.array_assigns: dict[str, ir.Assign] = {}
        for stmt in block.body:
            if isinstance(stmt, ir.Assign) and self._is_array_operation(stmt, typemap):
                self.array_assigns[stmt.target.name] = stmt
        self.matches = [name for name, stmt in self.array_assigns.items() if self._fusable(stmt)]
        return bool(self.matches)

    def _is_array_operation(self, stmt: ir.Assign, typemap: dict) -> bool:
        if not isinstance(typemap.get(stmt.target.name), types.Array):
            return False
        value = stmt.value
        if isinstance(value, (ir.BinOp, ir.UnaryOp)):
            return value.fn in _ELEMENTWISE_OPERATORS
        return isinstance(value, ir.Call) and _ufunc_call(value, typemap) is not None

    def _fusable(self, stmt: ir.Assign) -> bool:
        """A root worth rewriting: at least one operand is itself a fusable array operation."""
        return any(self._inlinable(var) for var in _operands(stmt.value, self.typemap))

    def _inlinable(self, var: ir.Var) -> bool:
        producer = self.array_assigns.get(var.name)
        return (
            producer is not None
            and _output_of(producer.value, self.typemap) is None
            and var.is_temp
            and self._uses_in_block(var.name) == 1
        )

    def _uses_in_block(self, name: str) -> int:
        return sum(
            1
            for stmt in self.block.body
            if not isinstance(stmt, ir.Del)
            for var in stmt.sources()
            if var.name == name
        )

    def apply(self) -> ir.Block:
        import ember.lowering.arrayexpr  # noqa: F401 - registers the lowering of arrayexpr

        replaced: dict[int, ir.Stmt | None] = {}
        dead: set[str] = set()
        for name in self.matches:
            root = self.array_assigns[name]
            if id(root) in replaced:
                continue  # already folded into a larger expression
            tree = self._build_tree(root.value, replaced, dead)
            out = _output_of(root.value, self.typemap)
            new_expr = ArrayExpr(tree, self.typemap[name], root.value.loc, out)
            replaced[id(root)] = ir.Assign(root.target, new_expr, root.loc)
        return self._rebuild_block(replaced, dead)

    def _build_tree(self, expr: ir.Expr, replaced: dict, dead: set) -> Any:
        children = []
        for var in _operands(expr, self.typemap):
            if self._inlinable(var):
                producer = self.array_assigns[var.name]
                children.append(self._build_tree(producer.value, replaced, dead))
                replaced[id(producer)] = None
                dead.add(var.name)
            else:
                children.append(var)  # arrays and scalars (constants too) stay variables
        return (_callable_of(expr, self.typemap), children)

    def _rebuild_block(self, replaced: dict, dead: set) -> ir.Block:
        """Copy the block, dropping fused statements and the `del`s of fused temporaries, and
        delaying `del`s of fused operands until after the expression that now reads them."""
        new_block = ir.Block(self.block.label, self.block.loc)
        pending_dels: dict[str, ir.Del] = {}
        late_readers = _last_reader_index(self.block, replaced)
        for index, stmt in enumerate(self.block.body):
            if id(stmt) in replaced:
                stmt = replaced[id(stmt)]
                if stmt is None:
                    continue
            if isinstance(stmt, ir.Del):
                if stmt.name in dead:
                    continue
                if late_readers.get(stmt.name, -1) > index:
                    pending_dels[stmt.name] = stmt
                    continue
            for var in stmt.targets():
                if var.name in pending_dels:  # that del ends the old value (`v /= s; v * 2`)
                    new_block.append(pending_dels.pop(var.name))
            new_block.append(stmt)
            for var in stmt.sources():
                if var.name in pending_dels and late_readers.get(var.name) == index:
                    new_block.append(pending_dels.pop(var.name))
        return new_block


def _last_reader_index(block: ir.Block, replaced: dict) -> dict[str, int]:
    """Index of the (rewritten) statement that last reads each variable."""
    last: dict[str, int] = {}
    for index, stmt in enumerate(block.body):
        stmt = replaced.get(id(stmt), stmt)
        if stmt is None or isinstance(stmt, ir.Del):
            continue
        for var in stmt.sources():
            last[var.name] = index
    return last


def _ufunc_call(call: ir.Call, typemap: dict) -> tuple[list[ir.Var], ir.Var | None] | None:
    """(inputs, output array or None) of a call of a NumPy ufunc with positional inputs and at
    most an output array (positional, or `out=`); None for any other call."""
    callee = typemap.get(call.func.name)
    if not (isinstance(callee, types.Function) and is_elementwise_ufunc(callee.typing_key)):
        return None
    nin = callee.typing_key.nin
    keywords = dict(call.kws)
    if set(keywords) - {"out"} or len(call.args) < nin:
        return None
    extra = [*call.args[nin:], *keywords.values()]
    if len(extra) > 1:
        return None
    out = extra[0] if extra else None
    if out is not None and not isinstance(typemap.get(out.name), types.Array):
        out = None  # out=None: a new array, as without it
    return list(call.args[:nin]), out


def _output_of(expr: ir.Expr, typemap: dict) -> ir.Var | None:
    """The output array a ufunc call writes into, if it is given one."""
    if not isinstance(expr, ir.Call):
        return None
    return _ufunc_call(expr, typemap)[1]


def _operands(expr: ir.Expr, typemap: dict) -> list[ir.Var]:
    if isinstance(expr, ir.BinOp):
        return [expr.lhs, expr.rhs]
    if isinstance(expr, ir.UnaryOp):
        return [expr.value]
    if isinstance(expr, ir.Call):
        return _ufunc_call(expr, typemap)[0]
    return []


def _callable_of(expr: ir.Expr, typemap: dict) -> Any:
    if isinstance(expr, (ir.BinOp, ir.UnaryOp)):
        return expr.fn
    return typemap[expr.func.name].typing_key
