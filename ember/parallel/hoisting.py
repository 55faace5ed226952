"""Allocation hoisting for an outlined parfor body: consumes the body's blocks (before they are
outlined) and moves each `np.empty/zeros/ones/full(shape...)` that every iteration runs first
(the straight-line blocks it starts with), whose shape does not change between iterations and
whose array stays inside one iteration, into the chunk's entry: allocated once per chunk,
refilled (zeros, ones, full's value) each iteration.

    entry:  $hoisted.t = np.zeros(m)            body: t = $hoisted.t; t.fill(0); ...
"""

from __future__ import annotations

import numpy as np

from ember import types
from ember.ir import nodes as ir

# allocation -> what each iteration refills the array with: a constant, the call's argument
# at this position (np.full's value), or None (np.empty: NumPy promises no contents)
_ALLOCATIONS = {np.empty: None, np.zeros: 0, np.ones: 1, np.full: ("arg", 1)}
# values an iteration may compute from the array without the array escaping the iteration
_PLAIN = (types.Number, types.Boolean, types.NoneType)


def hoist_allocations(
    blocks: dict, body_entry: int, typemap: dict, live_at_header: set[str]
) -> tuple[list[ir.Stmt], list[str]]:
    """Take the hoistable allocations out of the blocks every iteration starts with: returns
    the statements the chunk's entry runs instead, and the names of the arrays hoisted."""
    definitions = _single_definitions(blocks)
    prologue: list[ir.Stmt] = []
    hoisted = []
    earlier: list[ir.Stmt] = []  # what each iteration runs before the statement looked at
    for label in _straight_prefix(blocks, body_entry):
        block = blocks[label]
        for stmt in list(block.body):
            refill = _allocation(stmt, typemap)
            needed = None
            if refill is not _NOT_ALLOCATION:
                setup, call = _chunk_allocation(stmt, refill, typemap)
                needed = _hoistable(
                    stmt, call, definitions, blocks, typemap, live_at_header, earlier
                )
            if needed is None:
                earlier.append(stmt)
                continue
            buffer = ir.Var(f"$hoisted.{stmt.target.name}", stmt.loc)
            prologue += [*setup, *(_copy(s) for s in needed), ir.Assign(buffer, call, stmt.loc)]
            index = block.body.index(stmt)
            replacement = [
                ir.Assign(stmt.target, buffer, stmt.loc),
                *_refill(stmt.target, refill, stmt.loc),
            ]
            block.body[index : index + 1] = replacement
            earlier += replacement
            hoisted.append(_user_name(stmt, block.body))
    return prologue, hoisted


_NOT_ALLOCATION = object()


def _chunk_allocation(stmt: ir.Assign, refill, typemap: dict) -> tuple[list, ir.Call | None]:
    """(setup statements, call) allocating the chunk's array: the statement's own call, or
    for np.full (whose value may change each iteration: the refill writes it)
    `np.empty(shape, dtype)` in the result's dtype."""
    if not isinstance(refill, ir.Var):
        return [], stmt.value
    from ember.library.numpy.support import numpy_dtype

    loc, name = stmt.loc, stmt.target.name
    shape = stmt.value.args[0] if stmt.value.args else dict(stmt.value.kws).get("shape")
    empty, dtype = ir.Var(f"$hoisted.empty.{name}", loc), ir.Var(f"$hoisted.dtype.{name}", loc)
    scalar = numpy_dtype(typemap[name].dtype).type
    setup = [
        ir.Assign(empty, ir.Global("empty", np.empty, loc), loc),
        ir.Assign(dtype, ir.Global(scalar.__name__, scalar, loc), loc),
    ]
    return setup, None if shape is None else ir.Call(empty, [shape, dtype], [], loc)


def _hoistable(stmt, call, definitions, blocks, typemap, live_at_header, earlier) -> list | None:
    """The statements computing the chunk's allocation `call` (to run before the loop), or
    None when the array cannot leave the loop."""
    name = stmt.target.name
    if name in live_at_header or any(_reads(s, {name}) for s in earlier):
        return None  # the previous iteration's array is read
    if call is None:
        return None
    needed = _invariant_definitions(call, definitions, blocks, typemap, live_at_header)
    if needed is None or not _stays_in_iteration(name, blocks, typemap, live_at_header):
        return None
    return needed


def _straight_prefix(blocks: dict, body_entry: int) -> list[int]:
    """The body's first block and those it runs into without a choice: each has the previous
    one as its only predecessor in the loop (so each runs once per iteration, in order)."""
    predecessors: dict[int, int] = {}
    for block in blocks.values():
        for successor in block.successors() if block.body else ():
            predecessors[successor] = predecessors.get(successor, 0) + 1
    chain = [body_entry]
    while True:
        terminator = blocks[chain[-1]].terminator
        following = getattr(terminator, "target", None) if isinstance(terminator, ir.Jump) else None
        if following not in blocks or following in chain or predecessors.get(following) != 1:
            return chain
        chain.append(following)


def _allocation(stmt: ir.Stmt, typemap: dict):
    """The refill of an allocation statement (see _ALLOCATIONS), else _NOT_ALLOCATION."""
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call)):
        return _NOT_ALLOCATION
    key = getattr(typemap.get(stmt.value.func.name), "typing_key", None)
    if key not in _ALLOCATIONS or not isinstance(typemap.get(stmt.target.name), types.Array):
        return _NOT_ALLOCATION
    refill = _ALLOCATIONS[key]
    if isinstance(refill, tuple):  # np.full: its value must be a number (fill() takes one)
        values = [*stmt.value.args, *(v for k, v in stmt.value.kws if k == "fill_value")]
        if len(values) <= refill[1] or not isinstance(typemap[values[refill[1]].name], _PLAIN):
            return _NOT_ALLOCATION
        if not isinstance(typemap[stmt.target.name].dtype, (types.Number, types.Boolean)):
            return _NOT_ALLOCATION
        return values[refill[1]]
    return refill


def _refill(target: ir.Var, refill, loc: ir.Loc) -> list[ir.Stmt]:
    """`target.fill(value)` for the iteration's fresh contents (nothing for np.empty)."""
    if refill is None:
        return []
    method = ir.Var(f"$hoisted.fill.{target.name}", loc)
    if isinstance(refill, ir.Var):
        value = refill
        setup = []
    else:
        value = ir.Var(f"$hoisted.value.{target.name}", loc)
        setup = [ir.Assign(value, ir.Const(refill, loc), loc)]
    done = ir.Var(f"$hoisted.filled.{target.name}", loc)
    return [
        *setup,
        ir.Assign(method, ir.GetAttr(target, "fill", loc), loc),
        ir.Assign(done, ir.Call(method, [value], [], loc), loc),
    ]


def _single_definitions(blocks: dict) -> dict[str, ir.Assign | None]:
    """Variable -> its one assignment in the body (None: assigned more than once)."""
    found: dict[str, ir.Assign | None] = {}
    for block in blocks.values():
        for stmt in block.body:
            if isinstance(stmt, ir.Assign):
                name = stmt.target.name
                found[name] = None if name in found else stmt
    return found


_INVARIANT_VALUES = (ir.Const, ir.Global, ir.FreeVar, ir.BuildTuple, ir.GetAttr, ir.StaticGetItem)


def _invariant_definitions(
    call: ir.Call, definitions: dict, blocks: dict, typemap: dict, live_at_header: set[str]
):
    """The body statements (in order) that compute the call's function and arguments, when
    each is the same in every iteration (a constant, a global, a tuple or attribute of such,
    or a value from before the loop); None when one is not."""
    needed: dict[int, ir.Assign] = {}
    pending = [call.func, *call.args, *(value for _, value in call.kws)]
    while pending:
        var = pending.pop()
        if var.name not in definitions:
            continue  # defined before the loop: a parameter of the body
        stmt = definitions[var.name]
        if var.name in live_at_header:
            return None  # also a value from before the loop: which one depends on the iteration
        if stmt is None or not isinstance(stmt.value, _INVARIANT_VALUES):
            return None
        if isinstance(typemap.get(var.name), types.Array):
            return None  # an attribute that is an array (a.T) could change with it
        needed[id(stmt)] = stmt
        pending += stmt.sources()
    order = [s for block in blocks.values() for s in block.body]
    return sorted(needed.values(), key=lambda s: next(k for k, x in enumerate(order) if x is s))


def _stays_in_iteration(name: str, blocks: dict, typemap: dict, live_at_header: set) -> bool:
    """Whether the array `name` (and every array computed from it: views, copies) is only
    indexed, read into numbers, or copied into other arrays: nothing keeps it past the
    iteration, so the next iteration may reuse its memory."""
    aliases = {name}
    changed = True
    while changed:  # the values made from it that are not plain numbers, to a fixed point
        changed = False
        for block in blocks.values():
            for stmt in block.body:
                if not isinstance(stmt, ir.Assign) or stmt.target.name in aliases:
                    continue
                if _reads(stmt, aliases) and not _plain(typemap.get(stmt.target.name)):
                    aliases.add(stmt.target.name)
                    changed = True
    if not all(isinstance(typemap.get(a), (types.Array, types.BoundFunction)) for a in aliases):
        return False  # a list, tuple or object made from it could keep it
    if aliases & live_at_header:
        return False  # a view of it is read in the next iteration
    return all(
        _harmless_use(stmt, aliases, typemap) for block in blocks.values() for stmt in block.body
    )


def _plain(typ: types.Type | None) -> bool:
    """A value that cannot refer to an array: a number, bool, None, or a tuple of those."""
    if isinstance(typ, types.BaseTuple):
        return all(_plain(member) for member in typ.types)
    return isinstance(typ, _PLAIN)


def _reads(stmt: ir.Stmt, names: set[str]) -> bool:
    return any(v.name in names for v in stmt.sources())


def _cannot_hold(typ: types.Type | None) -> bool:
    """An argument a call cannot store an array into (so a call given only these cannot keep
    one): arrays of numbers, numbers, constants, functions and dtypes."""
    if isinstance(typ, types.Array):
        return isinstance(typ.dtype, (types.Number, types.Boolean))
    return _plain(typ) or isinstance(
        typ, (types.Literal, types.Function, types.DType, types.BoundFunction)
    )


def _harmless_use(stmt: ir.Stmt, aliases: set[str], typemap: dict) -> bool:
    """A statement that reads an alias without letting it out of the iteration: indexing,
    arithmetic, calls whose other arguments cannot hold it, copies into arrays."""
    if not _reads(stmt, aliases) or isinstance(stmt, (ir.Del, ir.Jump, ir.Branch)):
        return True
    if isinstance(stmt, ir.SetItem):  # into an array: copied element by element
        return isinstance(typemap.get(stmt.target.name), types.Array)
    if not isinstance(stmt, ir.Assign):
        return False  # returned, raised, stored as an attribute...
    if isinstance(stmt.value, ir.Call):
        call = stmt.value
        arguments = [*call.args, *(v for _, v in call.kws)]
        arguments += [call.vararg] if call.vararg is not None else []
        return all(_cannot_hold(typemap.get(v.name)) for v in arguments)
    return not isinstance(stmt.value, ir.BuildList)


def _copy(stmt: ir.Assign) -> ir.Assign:
    return ir.Assign(stmt.target, stmt.value, stmt.loc)


def _user_name(stmt: ir.Assign, body: list) -> str:
    """The user's name for the hoisted array (`temp = $38.6` names `$38.6` temp)."""
    for other in body:
        if isinstance(other, ir.Assign) and isinstance(other.value, ir.Var):
            if other.value.name == stmt.target.name and not other.target.name.startswith("$"):
                return other.target.name
    return stmt.target.name
