"""Sub-pass 3 (a simple array analysis): which sizes are equal and which arrays may share
memory, from the typed IR outside parfors. Fusion asks both.

Sizes are equivalence classes of atoms: an integer variable, or one dimension of an array
variable (`('dim', a, 0)`). Equal by construction: `n = len(a)` and dim 0 of `a`;
`b = np.empty(n)` (zeros, ones, full, `*_like`); element-wise results of one array, or of
arrays already equal; slices of equal arrays with the same bounds; copies. Only variables
assigned once are used (others may hold several sizes).

Memory: arrays are grouped with the arrays they may be views of (copies, slices, attributes,
calls that take arrays and return one, other than the allocating ones); function arguments
are assumed not to alias each other (as for a single prange loop).
"""

from __future__ import annotations

import numpy as np

from ember import types
from ember.ir import nodes as ir
from ember.ir.parfor import Parfor
from ember.rewrites.arrayexpr import is_elementwise_ufunc

_SHAPED = {np.empty: 0, np.zeros: 0, np.ones: 0, np.full: 0}
_LIKE = {np.empty_like, np.zeros_like, np.ones_like, np.full_like}
_FRESH = {*_SHAPED, *_LIKE, np.arange, np.copy, np.linspace}


def cyclic_blocks(func_ir: ir.FunctionIR) -> set[int]:
    """Labels of the blocks that can run more than once per call (they lie on a cycle)."""
    successors = {label: block.successors() for label, block in func_ir.blocks.items()}
    found = set()
    for start in func_ir.blocks:
        pending, seen = list(successors[start]), set()
        while pending:
            label = pending.pop()
            if label == start:
                found.add(start)
                break
            if label not in seen and label in successors:
                seen.add(label)
                pending += successors[label]
    return found


class UnionFind:
    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, key):
        root = key
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while key != root:  # path compression
            self.parent[key], key = root, self.parent.get(key, key)
        return root

    def union(self, a, b) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[ra] = rb
        return True


class ArrayAnalysis:
    """Size equivalence and may-alias groups of one function's variables."""

    def __init__(self, func_ir: ir.FunctionIR, typemap: dict, skip: set[int] = frozenset()):
        """`skip`: blocks whose definitions say nothing about sizes (blocks of loops other
        than the one being looked at: their values may come from another iteration)."""
        self.typemap = typemap
        self.sizes = UnionFind()
        self.memory = UnionFind()
        self.copies = UnionFind()  # names of the very same array (copies of one value)
        self.tuples: dict[str, list] = {}
        assigns = [s for _, s in func_ir.statements() if isinstance(s, ir.Assign)]
        counts: dict[str, int] = {}
        for stmt in assigns:
            counts[stmt.target.name] = counts.get(stmt.target.name, 0) + 1
        parfors = [s for _, s in func_ir.statements() if isinstance(s, Parfor)]
        for parfor in parfors:
            for reduction in parfor.reductions:
                counts[reduction.result.name] = counts.get(reduction.result.name, 0) + 1
                self.memory.union(reduction.result.name, reduction.var.name)
        self.definitions = {s.target.name: s.value for s in assigns}
        for stmt in assigns:
            self._memory(stmt)
        skipped = {id(s) for label in skip for s in func_ir.blocks[label].body}
        single = [s for s in assigns if counts[s.target.name] == 1 and id(s) not in skipped]
        for stmt in single:
            value = stmt.value
            if isinstance(value, ir.Var) and counts.get(value.name, 0) <= 1:
                self.copies.union(stmt.target.name, value.name)  # arguments count 1 or 0
            elif self._whole_view(stmt.target.name, value):  # a[:] is a, element for element
                self.copies.union(stmt.target.name, value.value.name)
        for _ in range(3):  # definitions may come after their uses in label order
            changed = False
            for stmt in single:
                changed |= bool(self._sizes(stmt))
            if not changed:
                break

    # ------------------------------------------------------------------ queries

    def same_size(self, a, b) -> bool:
        """Two loop bounds (ints or Vars) known to be equal."""
        if isinstance(a, ir.Var) and isinstance(b, ir.Var):
            return self.sizes.find(("var", a.name)) == self.sizes.find(("var", b.name))
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        return False

    def same_array(self, a: str, b: str) -> bool:
        return self.copies.find(a) == self.copies.find(b)

    def may_alias(self, a: str, b: str) -> bool:
        return self.memory.find(a) == self.memory.find(b)

    # ------------------------------------------------------------------ memory

    def _memory(self, stmt: ir.Assign) -> None:
        target, value = stmt.target.name, stmt.value
        if not isinstance(self.typemap.get(target), types.Array):
            return
        if isinstance(value, (ir.BinOp, ir.UnaryOp)):
            return  # a new array
        if isinstance(value, ir.Call):
            key = getattr(self.typemap.get(value.func.name), "typing_key", None)
            if (key in _FRESH or is_elementwise_ufunc(key)) and not value.kws:
                return
        if isinstance(value, (ir.GetItem, ir.StaticGetItem)):
            value = value.value  # a view of the base only (an index array is not viewed)
        for var in [value] if isinstance(value, ir.Var) else value.sources():
            if isinstance(self.typemap.get(var.name), types.Array):
                self.memory.union(target, var.name)

    # ------------------------------------------------------------------ sizes

    def _dims(self, name: str) -> list:
        typ = self.typemap.get(name)
        return [("dim", name, k) for k in range(typ.ndim)] if isinstance(typ, types.Array) else []

    def _same_dims(self, a: str, b: str) -> bool:
        da, db = self._dims(a), self._dims(b)
        if len(da) != len(db):
            return False
        return self._union_all(zip(da, db))

    def _union_all(self, pairs) -> bool:
        changed = False
        for a, b in pairs:
            changed |= self.sizes.union(a, b)
        return changed

    def _sizes(self, stmt: ir.Assign) -> bool:
        target, value = stmt.target.name, stmt.value
        typemap = self.typemap
        if isinstance(value, ir.Var):
            if isinstance(typemap.get(target), types.Array):
                return self._same_dims(target, value.name)
            if value.name in self.tuples:
                self.tuples[target] = self.tuples[value.name]
                return False
            return self.sizes.union(("var", target), ("var", value.name))
        if isinstance(value, ir.Const) and type(value.value) is int:
            return self.sizes.union(("var", target), ("const", value.value))
        if isinstance(value, ir.BuildTuple):
            self.tuples[target] = [("var", item.name) for item in value.items]
            return False
        if isinstance(value, ir.GetAttr) and isinstance(typemap.get(value.value.name), types.Array):
            dims = self._dims(value.value.name)
            if value.attr == "shape":
                self.tuples[target] = dims
            elif value.attr == "size" and len(dims) == 1:
                return self.sizes.union(("var", target), dims[0])
            return False
        if isinstance(value, ir.StaticGetItem):
            return self._static_item(target, value)
        if isinstance(value, ir.GetItem) and isinstance(typemap.get(target), types.Array):
            return self._slice(target, value.value.name, self._slice_key(value.index.name))
        if isinstance(value, ir.Call):
            return self._call(target, value)
        if isinstance(value, ir.BinOp) and isinstance(typemap.get(target), types.Integer):
            operands = (
                self.sizes.find(("var", value.lhs.name)),
                self.sizes.find(("var", value.rhs.name)),
            )
            return self.sizes.union(("var", target), ("binop", value.fn, *operands))
        if isinstance(value, (ir.BinOp, ir.UnaryOp)):
            return self._elementwise(target, value.sources())
        return False

    def _static_item(self, target: str, value: ir.StaticGetItem) -> bool:
        base = value.value.name
        if base in self.tuples and isinstance(value.index, int):
            items = self.tuples[base]
            if -len(items) <= value.index < len(items):
                return self.sizes.union(("var", target), items[value.index])
            return False
        if isinstance(value.index, slice) and isinstance(self.typemap.get(target), types.Array):
            bounds = (value.index.start, value.index.stop, value.index.step)
            return self._slice(target, base, ("const", bounds))
        return False

    def _whole_view(self, target: str, value) -> bool:
        """Whether `target = value` makes a view of every element of an array, in its order."""
        if not isinstance(value, (ir.GetItem, ir.StaticGetItem)):
            return False
        mine, base = self.typemap.get(target), self.typemap.get(value.value.name)
        if not (isinstance(mine, types.Array) and isinstance(base, types.Array)):
            return False
        if mine.ndim != base.ndim:
            return False
        if isinstance(value, ir.GetItem):
            return _whole(self._slice_key(value.index.name))
        index = value.index
        return isinstance(index, slice) and _whole(("const", (index.start, index.stop, index.step)))

    def _slice_key(self, index: str):
        """Equal keys for slices with equal bounds (`slice(lo, hi)` values)."""
        value = self.definitions.get(index)
        seen = {index}
        while isinstance(value, ir.Var) and value.name not in seen:  # copies (inlined templates)
            seen.add(value.name)
            value = self.definitions.get(value.name)
        is_slice = isinstance(self.typemap.get(index), types.SliceType)
        if not isinstance(value, ir.Call) or not is_slice:
            return ("slice-var", index)
        parts = []
        for arg in value.args:
            const = self.definitions.get(arg.name)
            if isinstance(const, ir.Const):
                parts.append(("const", const.value))
            else:
                parts.append(self.sizes.find(("var", arg.name)))
        return ("call", tuple(parts))

    def _slice(self, target: str, base: str, key) -> bool:
        dims, base_dims = self._dims(target), self._dims(base)
        if not dims or len(dims) != len(base_dims):
            return False  # an index that drops dimensions: unknown
        changed = False
        for mine, theirs in zip(dims[1:], base_dims[1:]):
            changed |= self.sizes.union(mine, theirs)
        if _whole(key):  # a[:] has a's length
            return self.sizes.union(dims[0], base_dims[0]) or changed
        atom = ("slice", self.sizes.find(base_dims[0]), key)
        return self.sizes.union(dims[0], atom) or changed

    def _call(self, target: str, call: ir.Call) -> bool:
        key = getattr(self.typemap.get(call.func.name), "typing_key", None)
        if key is len and len(call.args) == 1:
            dims = self._dims(call.args[0].name)
            return bool(dims) and self.sizes.union(("var", target), dims[0])
        if key in _SHAPED and call.args:
            shape = call.args[0].name
            dims = self._dims(target)
            if isinstance(self.typemap.get(shape), types.Integer) and len(dims) == 1:
                return self.sizes.union(dims[0], ("var", shape))
            items = self.tuples.get(shape)
            if items is not None and len(items) == len(dims):
                return self._union_all(zip(dims, items))
            return False
        if key in _LIKE and call.args:
            return self._same_dims(target, call.args[0].name)
        if is_elementwise_ufunc(key) and not call.kws:
            return self._elementwise(target, call.args)
        return False

    def _elementwise(self, target: str, operands: list) -> bool:
        """An element-wise result has the shape of its array operands when they all have its
        number of dimensions and are already known equal (or there is one of them)."""
        dims = self._dims(target)
        arrays = [v.name for v in operands if isinstance(self.typemap.get(v.name), types.Array)]
        if not dims or not arrays:
            return False
        if any(len(self._dims(a)) != len(dims) for a in arrays):
            return False
        first = self._dims(arrays[0])
        for other in arrays[1:]:
            if any(
                self.sizes.find(x) != self.sizes.find(y) for x, y in zip(first, self._dims(other))
            ):
                return False
        return self._union_all(zip(dims, first))


def _whole(key) -> bool:
    """Whether a slice key (see `_slice_key`) is `[:]`: start None or 0, stop None, step None
    or 1."""
    kind, parts = key
    if kind == "const":
        bounds = parts
    elif kind == "call" and all(isinstance(p, tuple) and p[:1] == ("const",) for p in parts):
        bounds = tuple(p[1] for p in parts)
        bounds = (None, *bounds) if len(bounds) == 1 else bounds  # slice(stop)
    else:
        return False
    start, stop, step = (*bounds, None, None)[:3]
    return start in (None, 0) and stop is None and step in (None, 1)
