"""Sub-pass 8b, after fusion: inside each parfor body a read `x = a[i]` of what the same iteration
stored at `a[i]` becomes `x = <the stored value>`; then an array this function allocates with
`np.empty(n)` that nothing reads any more (only stored into, copied, asked its length) is dropped
with its stores (its `len` becomes `n`), so no memory is allocated, first touched or written.

    before:  out = np.empty(n); parfor(i: out[i] = 0; out[i] = a[i] + 1; s += out[i])
    after:   parfor(i: $v = a[i] + 1; s += $v)

Not done under EMBER_BOUNDSCHECK (a dropped store could have raised IndexError). Like an
unused temporary in Numba, a dropped `np.empty(n)` no longer checks that `n` is not negative.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ember import config, types
from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels
from ember.ir.parfor import Parfor
from ember.parallel.array_analysis import cyclic_blocks


def forward_and_drop_dead_arrays(func_ir: ir.FunctionIR, typemap: dict, parfors: list) -> list:
    """Forward stores to loads in each parfor, then drop the allocations left unread; returns
    the name of each dropped array (the source's, when it has one)."""
    for block in _all_blocks(func_ir):
        block.body = [s for s in block.body if not isinstance(s, ir.Del)]
    names = _Names(func_ir)
    fresh = {target for target, _ in _allocations(func_ir, typemap, names)}
    for parfor in parfors:
        _forward_stores(parfor, typemap, names, fresh)
    dropped = []
    if not config.BOUNDSCHECK:
        cyclic = cyclic_blocks(func_ir)
        for target, size in list(_allocations(func_ir, typemap, names, skip=cyclic)):
            aliases = _drop_if_unread(func_ir, typemap, names, target, size)
            if aliases:
                named = sorted(a for a in aliases if not a.startswith("$") and "." not in a)
                dropped.append(named[0] if named else target)
    insert_dels(func_ir)
    return dropped


class _Names:
    """Definitions of every variable (parfor bodies included) and the copy chains between them:
    `root(v)` is the variable `v` is a plain copy of, through variables assigned once."""

    def __init__(self, func_ir: ir.FunctionIR) -> None:
        self.count: dict[str, int] = {}
        self.copy_of: dict[str, str] = {}
        self.globals: dict[str, object] = {}
        for stmt in _all_statements(func_ir):
            defined = [v.name for v in stmt.targets()]
            if isinstance(stmt, Parfor):
                defined += [nest.index_variable.name for nest in stmt.loop_nests]
            for name in defined:
                self.count[name] = self.count.get(name, 0) + 1
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Var):
                self.copy_of[stmt.target.name] = stmt.value.name
            elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Global):
                self.globals[stmt.target.name] = stmt.value.value
            elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.GetAttr):
                module = self.globals.get(stmt.value.value.name)  # `np.empty`: np is seen first
                if isinstance(module, ModuleType):
                    self.globals[stmt.target.name] = getattr(module, stmt.value.attr, None)

    def once(self, name: str) -> bool:
        return self.count.get(name, 0) == 1

    def root(self, name: str) -> str:
        seen = set()
        while self.once(name) and name in self.copy_of and name not in seen:
            seen.add(name)
            name = self.copy_of[name]
        return name

    def global_value(self, var: ir.Var):
        return self.globals.get(var.name) if self.once(var.name) else None


def _all_blocks(func_ir: ir.FunctionIR):
    pending = list(func_ir.blocks.values())
    while pending:
        block = pending.pop()
        yield block
        for stmt in block.body:
            if isinstance(stmt, Parfor):
                pending += stmt.nested_blocks()


def _all_statements(func_ir: ir.FunctionIR):
    for block in _all_blocks(func_ir):
        yield from block.body


def _allocations(func_ir, typemap: dict, names: _Names, skip: set = frozenset()):
    """(array name, size variable) of each `a = np.empty(n)` of a 1-d array assigned once
    (outside the blocks in `skip`)."""
    for label, block in func_ir.blocks.items():
        if label in skip:
            continue
        for stmt in block.body:
            if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call)):
                continue
            call, target = stmt.value, stmt.target.name
            if names.global_value(call.func) is not np.empty or not call.args or call.kws:
                continue
            typ, size = typemap.get(target), call.args[0]
            if isinstance(typ, types.Array) and typ.ndim == 1 and names.once(target):
                if isinstance(typemap.get(size.name), types.Integer) and names.once(size.name):
                    yield target, size


# ---------------------------------------------------------------------------- forwarding


def _forward_stores(parfor: Parfor, typemap: dict, names: _Names, fresh: set) -> None:
    """Along the straight-line part of the body, from its entry: `x = a[i]` after `a[i] = v`
    (same array and index through copies, nothing between that may write the array) reads v."""
    stored: dict[tuple[str, str], ir.Var] = {}
    entered = _entries_per_block(parfor)
    label, visited = parfor.body_entry, set()
    # a block entered from two places (an inner loop's header) may see other stores
    while label in parfor.loop_body and label not in visited and entered[label] == 1:
        visited.add(label)
        block = parfor.loop_body[label]
        for position, stmt in enumerate(block.body):
            if isinstance(stmt, ir.SetItem):
                _note_store(stmt, typemap, names, fresh, stored)
            elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.GetItem):
                key = (names.root(stmt.value.value.name), names.root(stmt.value.index.name))
                value = stored.get(key)
                if value is not None and _same_value_type(
                    typemap.get(stmt.target.name), typemap[value.name]
                ):
                    block.body[position] = ir.Assign(stmt.target, value, stmt.loc)
            elif _may_write_arrays(stmt, typemap):
                stored.clear()
        terminator = block.terminator
        if not isinstance(terminator, ir.Jump):
            break
        label = terminator.target


def _entries_per_block(parfor: Parfor) -> dict[int, int]:
    """How many edges enter each body block (the body's entry counts its own entry once)."""
    entered = {label: 0 for label in parfor.loop_body}
    entered[parfor.body_entry] = 1
    for block in parfor.loop_body.values():
        for successor in block.successors():
            if successor in entered:
                entered[successor] += 1
    return entered


def _note_store(stmt: ir.SetItem, typemap, names: _Names, fresh: set, stored: dict) -> None:
    array = names.root(stmt.target.name)
    key = (array, names.root(stmt.index.name))
    for other in list(stored):
        # another index of this array, or an array that may share its memory, may be overwritten
        if other != key and (other[0] == array or not {other[0], array} <= fresh):
            del stored[other]
    array_type, value_type = typemap.get(stmt.target.name), typemap.get(stmt.value.name)
    exact = isinstance(array_type, types.Array) and _same_value_type(value_type, array_type.dtype)
    if exact and names.once(stmt.value.name):
        stored[key] = stmt.value
    else:
        stored.pop(key, None)


def _may_write_arrays(stmt: ir.Stmt, typemap: dict) -> bool:
    """Whether `stmt` may write an array's data (a call given anything but scalars, an
    in-place operator on an array, any statement other than an assignment)."""
    if not isinstance(stmt, ir.Assign):
        return not isinstance(stmt, ir.Jump)
    value = stmt.value
    if isinstance(value, ir.Call):
        operands = [*value.args, *(var for _, var in value.kws)]
        return not all(_scalar(typemap.get(var.name)) for var in operands)
    if isinstance(value, ir.InplaceBinOp):
        return not _scalar(typemap.get(value.lhs.name))
    return False


def _scalar(typ) -> bool:
    return isinstance(typ, (types.Number, types.Boolean))


# ---------------------------------------------------------------------------- dead arrays


def _drop_if_unread(func_ir, typemap: dict, names: _Names, array: str, size: ir.Var) -> set:
    """Drop `array` when every use of it (or of its copies) is a store into it, a copy, a
    parfor parameter, `len` or `.size` of it: stores and copies go, the length becomes `size`.
    Returns the names dropped (empty when the array stays)."""
    aliases = {name for name in names.count if names.root(name) == array}
    sizes = []
    for stmt in _all_statements(func_ir):
        used = {v.name for v in stmt.sources()} & aliases
        if not used or isinstance(stmt, Parfor):
            continue  # a parfor's own statements are among these; its parameters go below
        if isinstance(stmt, ir.SetItem) and stmt.target.name in aliases:
            if not used - {stmt.target.name}:
                continue
        elif isinstance(stmt, ir.Assign) and stmt.target.name in aliases:
            continue  # a copy (or the allocation)
        elif _is_len_of(stmt, names) and typemap.get(stmt.target.name) == typemap[size.name]:
            sizes.append(stmt)
            continue
        return set()
    for block in _all_blocks(func_ir):
        block.body = [s for s in block.body if not _stores_or_copies(s, aliases)]
        for stmt in block.body:
            if isinstance(stmt, Parfor):
                stmt.params = [p for p in stmt.params if p.name not in aliases]
    for stmt in sizes:
        stmt.value = size
    return aliases


def _is_len_of(stmt: ir.Stmt, names: _Names) -> bool:
    """`len(a)` or `a.size` (the array is 1-d)."""
    if not isinstance(stmt, ir.Assign):
        return False
    value = stmt.value
    if isinstance(value, ir.GetAttr):
        return value.attr == "size"
    if not isinstance(value, ir.Call):
        return False
    return names.global_value(value.func) is len and len(value.args) == 1 and not value.kws


def _stores_or_copies(stmt: ir.Stmt, aliases: set) -> bool:
    if isinstance(stmt, ir.SetItem):
        return stmt.target.name in aliases
    return isinstance(stmt, ir.Assign) and stmt.target.name in aliases


def _same_value_type(first, second) -> bool:
    """One type but for a NumPy scalar's mark (an item read back is np.float64, the float64
    stored: the same value)."""
    return types.plain_number(first) == types.plain_number(second)
