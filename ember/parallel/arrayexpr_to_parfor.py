"""Sub-pass 5, array expressions: a tree of element-wise operations on arrays (`a * 2.0 +
np.sqrt(b)`, its temporaries used once in one block) becomes one loop that computes each item
with the operators' ufuncs on scalars (`np.add(np.multiply(a[i], s0), np.sqrt(b[i]))`: the
array operation's own semantics, inf for x / 0.0 included), so that it can fuse with the
parfors around it (2-d and 3-d C arrays loop over their raveled items). Only expressions whose
arrays array analysis proves of one shape are converted (one array, or arrays derived from
one): others would need a run-time shape check
and a fallback for broadcasting, a branch that keeps them from fusing; they stay with the
array loop (`arrayexpr.py`, itself parallel).

    before:  $1 = x * 2.0;  y = $1 + 1.0
    after:   y = <inlined kernel: out = np.empty(len(x)); for i in numpy_prange(len(x)):
                  out[i] = np.add(np.multiply(x[i], 2.0), 1.0)>
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from ember import types
from ember.ir import nodes as ir
from ember.parallel.api import numpy_prange
from ember.parallel.array_analysis import ArrayAnalysis, cyclic_blocks
from ember.rewrites.arrayexpr import is_elementwise_ufunc

_BINARY = {
    operator.add: "add", operator.sub: "subtract", operator.mul: "multiply",
    operator.truediv: "true_divide", operator.floordiv: "floor_divide",
    operator.mod: "remainder", operator.pow: "power", operator.lt: "less",
    operator.le: "less_equal", operator.gt: "greater", operator.ge: "greater_equal",
    operator.eq: "equal", operator.ne: "not_equal", operator.and_: "bitwise_and",
    operator.or_: "bitwise_or", operator.xor: "bitwise_xor",
}  # fmt: skip
_UNARY = {operator.neg: "negative", operator.pos: "positive", operator.invert: "invert"}


class ArrayExpressions:
    """Finds the array expressions of one function that can become parfors."""

    def __init__(self, func_ir: ir.FunctionIR, typemap: dict) -> None:
        self.typemap = typemap
        self.uses: dict[str, int] = {}
        assigned: dict[str, list] = {}
        for _, stmt in func_ir.statements():
            for var in stmt.sources():
                self.uses[var.name] = self.uses.get(var.name, 0) + 1
            if isinstance(stmt, ir.Assign):
                assigned.setdefault(stmt.target.name, []).append(stmt.value)
        # numbers written into the kernel as literals: LLVM folds them as in the array loop
        # (x ** 2 becomes x * x there; a runtime exponent would call pow)
        self.literals = {
            name: repr(values[0].value)
            for name, values in assigned.items()
            if len(values) == 1 and _literal_number(values[0])
        }
        self.analysis = ArrayAnalysis(func_ir, typemap, skip=cyclic_blocks(func_ir))

    def sites(self, block: ir.Block) -> list:
        from ember.parallel.numpy_to_parfor import Site, _scalar_class

        nodes = {
            stmt.target.name: stmt
            for stmt in block.body
            if isinstance(stmt, ir.Assign) and self._operation(stmt) is not None
        }
        inner = {name for name in nodes if self._is_inner(name, nodes)}
        found = []
        for name, stmt in nodes.items():
            if name in inner:
                continue
            tree = _Tree(self, nodes, inner)
            text = tree.operation(stmt)
            if tree.failed or not tree.arrays or not self._uniform(tree):
                continue
            if not _nothing_between(block, tree.parts, stmt, self.typemap):
                continue
            if not self._known_equal(tree.arrays):
                continue  # a shape check would split the block: left to the array loop
            ndim = self.typemap[stmt.target.name].ndim
            template = _kernel(text, len(tree.arrays), len(tree.scalars), ndim)
            prefix = "a" if ndim == 1 else "shaped"
            arguments = {f"{prefix}{k}": v for k, v in enumerate(tree.arrays)}
            arguments.update({f"s{k}": v for k, v in enumerate(tree.scalars)})
            arguments["T"] = _scalar_class(self.typemap[stmt.target.name].dtype, stmt.loc)
            found.append(
                Site(
                    stmt,
                    template,
                    arguments,
                    stmt.target,
                    "array expression",
                    per_item=True,
                    removed=tree.parts,
                )  # fmt: skip
            )
        return found

    def _operation(self, stmt: ir.Assign):
        """The ufunc name of an element-wise operation producing a 1-d, 2-d or 3-d C array from
        arrays of its dimensions (C arrays beyond 1-d: their items go in order), else None."""
        result = self.typemap.get(stmt.target.name)
        if not (isinstance(result, types.Array) and result.ndim <= 3 and result.layout == "C"):
            return None
        value = stmt.value
        if isinstance(value, ir.BinOp):
            name = _BINARY.get(value.fn)
        elif isinstance(value, ir.UnaryOp):
            name = _UNARY.get(value.fn)
        elif isinstance(value, ir.Call) and not value.kws:
            key = getattr(self.typemap.get(value.func.name), "typing_key", None)
            name = key.__name__ if is_elementwise_ufunc(key) and key.nout == 1 else None
            if name is not None and key.nin != len(value.args):
                return None
        else:
            return None
        operands = [self.typemap.get(v.name) for v in _operands(value)]
        if not all(isinstance(t, (types.Array, types.Number)) for t in operands):
            return None
        for t in operands:
            if isinstance(t, types.Array) and t.ndim != result.ndim:
                return None
            if isinstance(t, types.Array) and t.ndim > 1 and t.layout != "C":
                return None
        return name

    def _is_inner(self, name: str, nodes: dict) -> bool:
        """A temporary used once, by another operation of the block: part of its tree."""
        if not name.startswith("$") or self.uses.get(name) != 1:
            return False
        return any(name in {v.name for v in _operands(stmt.value)} for stmt in nodes.values())

    def _uniform(self, tree: _Tree) -> bool:
        """Every array of one dtype and each scalar promoting to it as the array loop would
        (so computing on items types each step as the array operation does)."""
        dtypes = {self.typemap[v.name].dtype for v in tree.arrays}
        if len(dtypes) != 1:
            return False
        dtype = dtypes.pop()
        for var in tree.scalars + tree.constants:
            scalar = types.unliteral(self.typemap[var.name])
            if scalar == dtype:
                continue
            wide_float = dtype == types.float64 and isinstance(scalar, (types.Integer, types.Float))
            if not wide_float or isinstance(scalar, types.Boolean):
                return False
        return True

    def _known_equal(self, arrays: list) -> bool:
        """Whether every array is known to have the first one's shape."""
        find = self.analysis.sizes.find
        ndim = self.typemap[arrays[0].name].ndim
        return all(
            find(("dim", arrays[0].name, k)) == find(("dim", v.name, k))
            for v in arrays[1:]
            for k in range(ndim)
        )


class _Tree:
    """One expression rendered as item arithmetic over leaves a0.. (arrays) and s0.. (scalars)."""

    def __init__(self, owner: ArrayExpressions, nodes: dict, inner: set) -> None:
        self.owner, self.nodes, self.inner = owner, nodes, inner
        self.arrays: list[ir.Var] = []
        self.scalars: list[ir.Var] = []
        self.constants: list[ir.Var] = []  # scalars written as literals
        self.parts: list[ir.Stmt] = []
        self.failed = False

    def operation(self, stmt: ir.Assign) -> str:
        name = self.owner._operation(stmt)
        if name is None:
            self.failed = True
            return ""
        args = ", ".join(self._operand(v) for v in _operands(stmt.value))
        return f"np.{name}({args})"

    def _operand(self, var: ir.Var) -> str:
        if var.name in self.inner:
            stmt = self.nodes[var.name]
            self.parts.append(stmt)
            return self.operation(stmt)
        if isinstance(self.owner.typemap.get(var.name), types.Array):
            return self._leaf(self.arrays, var, "a", "[i]")
        if var.name in self.owner.literals:
            self.constants.append(var)
            return f"({self.owner.literals[var.name]})"
        return self._leaf(self.scalars, var, "s", "")

    @staticmethod
    def _leaf(leaves: list, var: ir.Var, prefix: str, suffix: str) -> str:
        for k, known in enumerate(leaves):
            if known.name == var.name:
                return f"{prefix}{k}{suffix}"
        leaves.append(var)
        return f"{prefix}{len(leaves) - 1}{suffix}"


_INERT = (ir.Const, ir.Global, ir.FreeVar, ir.Var)


def _literal_number(value) -> bool:
    if not isinstance(value, ir.Const) or type(value.value) not in (int, float):
        return False
    return bool(np.isfinite(value.value)) and abs(value.value) < 2**63


def _nothing_between(block: ir.Block, parts: list, root: ir.Stmt, typemap: dict) -> bool:
    """Whether the expression may be computed at its root: the statements between its first
    part and the root are its parts or cannot change what they read (constants, globals,
    copies, a module's attribute such as `np.sqrt`)."""
    ids = {id(p) for p in parts}
    positions = [k for k, s in enumerate(block.body) if id(s) in ids or s is root]
    for stmt in block.body[min(positions) : max(positions)]:
        if id(stmt) in ids or isinstance(stmt, ir.Del):
            continue
        if not (isinstance(stmt, ir.Assign) and _inert(stmt.value, typemap)):
            return False
    return True


def _inert(value, typemap: dict) -> bool:
    if isinstance(value, _INERT):
        return True
    return isinstance(value, ir.GetAttr) and isinstance(typemap.get(value.value.name), types.Module)


def _operands(value) -> list[ir.Var]:
    if isinstance(value, ir.BinOp):
        return [value.lhs, value.rhs]
    if isinstance(value, ir.UnaryOp):
        return [value.value]
    return list(value.args)


@functools.cache
def _kernel(item: str, arrays: int, scalars: int, ndim: int):
    """The template of one expression over arrays of one shape: a loop over the items (of
    the raveled C arrays beyond 1-d, views of them, so the result is written in place)."""
    if ndim == 1:
        params = [f"a{k}" for k in range(arrays)]
        prelude, items = ["    out = np.empty(len(a0), T)"], "out"
    else:
        params = [f"shaped{k}" for k in range(arrays)]
        prelude = ["    out = np.empty(shaped0.shape, T)", "    flat = out.ravel()"]
        prelude += [f"    a{k} = shaped{k}.ravel()" for k in range(arrays)]
        items = "flat"
    params += [f"s{k}" for k in range(scalars)] + ["T"]
    source = "\n".join(
        [
            f"def array_expression({', '.join(params)}):",
            *prelude,
            f"    for i in numpy_prange(len({items})):",
            f"        {items}[i] = {item}",
            "    return out",
        ]
    )
    namespace = {"np": np, "numpy_prange": numpy_prange}
    exec(source, namespace)  # noqa: S102 - a template over generated names only
    return namespace["array_expression"]
