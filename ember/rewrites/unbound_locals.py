"""Reading a local variable that is not assigned raises UnboundLocalError, as in CPython.

Consumes the untyped IR after inner functions are inlined; produces IR where each variable that
some path may read before assigning it (`for i in range(n): ...` then `return i` with n == 0)
has a boolean companion `$unbound.<name>`: True on entry, False after each assignment, True
again after `del`. Each read that may see the variable unassigned first tests it:

    before:                          after:
      return i                         branch $unbound.i, <raise>, <rest>   (rarely taken)
                                     <raise>: raise UnboundLocalError("cannot access local ...")
                                     <rest>:  return i

Reads that every path reaches assigned (nearly all of them) are left alone, so a function
without such reads is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator

from ember.ir import nodes as ir
from ember.rewrites.variable_webs import prange_loop_blocks

_FLAG = "$unbound."


def raise_unbound_reads(func_ir: ir.FunctionIR) -> None:
    """Guard every read of `func_ir` that may find its variable unassigned (in place). The
    source's `del x` statements (a read too, then "unassigned") stay for the variable webs
    (rewrites/variable_webs.py), which strip them: liveness places the `del`s that release
    values."""
    names = _local_names(func_ir)
    in_prange = prange_loop_blocks(func_ir)
    # a flag set inside a `prange` body would be a value its threads share: variables that
    # body assigns or deletes are left unguarded, and so are its own reads
    names -= _assigned_or_deleted(func_ir, in_prange)
    if names:
        _guard_unsafe_reads(func_ir, names, in_prange)


def _guard_unsafe_reads(func_ir: ir.FunctionIR, names: set[str], unguarded: set[int]) -> None:
    checks = [check for check in _unsafe_reads(func_ir, names) if check[0] not in unguarded]
    if not checks:
        return
    flagged = {name for _, _, name in checks}
    _maintain_flags(func_ir, flagged)
    by_block: dict[int, list[tuple[int, str]]] = {}
    for label, stmt_id, name in checks:
        by_block.setdefault(label, []).append((stmt_id, name))
    for label, reads in by_block.items():
        _guard_reads(func_ir, label, reads)


def _assigned_or_deleted(func_ir: ir.FunctionIR, labels: set[int]) -> set[str]:
    found: set[str] = set()
    for label in labels:
        for stmt in func_ir.blocks[label].body:
            found.update(name for name in _effects(stmt) if name is not None)
    return found


def _local_names(func_ir: ir.FunctionIR) -> set[str]:
    """The source's variables (temporaries, named `$...`, are assigned where they are made)."""
    return {
        stmt.target.name
        for _, stmt in func_ir.statements()
        if isinstance(stmt, ir.Assign) and not stmt.target.name.startswith("$")
    }


def _effects(stmt: ir.Stmt) -> tuple[str | None, str | None]:
    """(the variable the statement assigns, the variable it deletes)."""
    if isinstance(stmt, ir.Assign):
        return stmt.target.name, None
    if isinstance(stmt, ir.Del):
        return None, stmt.name
    return None, None


def _assigned_on_entry(func_ir: ir.FunctionIR, names: set[str]) -> dict[int, set[str]]:
    """Per block, the variables every path to its start has assigned (and not deleted). An
    exception may leave a protected block anywhere, so its handler gets what the block had on
    entry, less what the block deletes."""
    predecessors: dict[int, list[tuple[int, bool]]] = {label: [] for label in func_ir.blocks}
    for label, block in func_ir.blocks.items():
        for succ in block.successors():
            predecessors[succ].append((label, False))
        handler = func_ir.exception_handlers.get(label)
        if handler is not None:
            predecessors[handler].append((label, True))
    entry_state: dict[int, set[str]] = {label: set(names) for label in func_ir.blocks}
    entry_state[func_ir.entry] = set()
    exit_state = {
        label: _run_block(func_ir.blocks[label], entry_state[label]) for label in entry_state
    }
    changed = True
    while changed:
        changed = False
        for label in sorted(func_ir.blocks):
            if label == func_ir.entry:
                continue
            sources = [
                entry_state[pred] - _deleted_in(func_ir.blocks[pred])
                if by_exception
                else exit_state[pred]
                for pred, by_exception in predecessors[label]
            ]
            state = set.intersection(*sources) if sources else set(names)
            if state != entry_state[label]:
                entry_state[label] = state
                exit_state[label] = _run_block(func_ir.blocks[label], state)
                changed = True
    return entry_state


def _deleted_in(block: ir.Block) -> set[str]:
    """The variables a block's `del` statements unbind (an exception may leave it after)."""
    return {stmt.name for stmt in block.body if isinstance(stmt, ir.Del)}


def _run_block(block: ir.Block, state: set[str]) -> set[str]:
    state = set(state)
    for stmt in block.body:
        _apply_effects(stmt, state)
    return state


def _apply_effects(stmt: ir.Stmt, state: set[str]) -> None:
    """Update the set of assigned names by what `stmt` assigns and deletes."""
    assigned, deleted = _effects(stmt)
    if assigned is not None:
        state.add(assigned)
    if deleted is not None:
        state.discard(deleted)


def _unsafe_reads(func_ir: ir.FunctionIR, names: set[str]) -> list[tuple[int, int, str]]:
    """(block label, id of the statement, variable) for each read that may find it unassigned."""
    entry_state = _assigned_on_entry(func_ir, names)
    blocks_called = _objmode_block_names(func_ir)
    found = []
    for label, block in func_ir.blocks.items():
        state = set(entry_state[label])
        for stmt in block.body:
            for var in _checked_sources(stmt, blocks_called):
                if var.name in names and var.name not in state:
                    found.append((label, id(stmt), var.name))
                    state.add(var.name)  # tested once: later reads in the block are safe
            _apply_effects(stmt, state)
    return found


def _objmode_block_names(func_ir: ir.FunctionIR) -> set[str]:
    """The variables holding an objmode block (a `with objmode()` body, now a call)."""
    from ember.frontend.objmode_blocks import ObjModeBlock

    return {
        stmt.target.name
        for _, stmt in func_ir.statements()
        if isinstance(stmt, ir.Assign)
        and isinstance(stmt.value, (ir.Global, ir.FreeVar))
        and isinstance(stmt.value.value, ObjModeBlock)
    }


def _checked_sources(stmt: ir.Stmt, blocks_called: set[str]) -> list[ir.Var]:
    """The reads of `stmt` to check: not the inputs of an objmode block, which passes every
    variable its body may read, whether or not the body reads it this time."""
    if (
        isinstance(stmt, ir.Assign)
        and isinstance(stmt.value, ir.Call)
        and stmt.value.func.name in blocks_called
    ):
        return []
    if isinstance(stmt, ir.Del):  # `del x` of an unassigned x raises, as a read does
        return [ir.Var(stmt.name, stmt.loc)]
    return stmt.sources()


def _flag(name: str, loc: ir.Loc) -> ir.Var:
    return ir.Var(f"{_FLAG}{name}", loc)


def _set_flag(name: str, value: bool, loc: ir.Loc) -> ir.Assign:
    return ir.Assign(_flag(name, loc), ir.Const(value, loc), loc)


def _maintain_flags(func_ir: ir.FunctionIR, flagged: set[str]) -> None:
    """Each flag is True on entry, False after its variable is assigned, True after `del`."""
    for block in func_ir.blocks.values():
        body = []
        for stmt in block.body:
            body.append(stmt)
            assigned, deleted = _effects(stmt)
            if assigned in flagged:
                body.append(_set_flag(assigned, False, stmt.loc))
            if deleted in flagged:
                body.append(_set_flag(deleted, True, stmt.loc))
        block.body = body
    entry = func_ir.blocks[func_ir.entry]
    entry.body[:0] = [_set_flag(name, True, entry.loc) for name in sorted(flagged)]


def _guard_reads(func_ir: ir.FunctionIR, label: int, reads: list[tuple[int, str]]) -> None:
    """Split block `label` before each read in `reads`: a test of the flag, then the rest."""
    block = func_ir.blocks[label]
    handler = func_ir.exception_handlers.get(label)
    guarded: dict[int, list[str]] = {}  # statement id -> the variables to test before it
    for stmt_id, name in reads:
        guarded.setdefault(stmt_id, []).append(name)
    pieces: list[list[ir.Stmt]] = [[]]
    tests: list[tuple[str, ir.Loc]] = []
    for stmt in block.body:
        for name in guarded.get(id(stmt), ()):
            free = (id(stmt), name) in func_ir.free_variable_reads
            tests.append((name, free, stmt.loc))
            pieces.append([])
        pieces[-1].append(stmt)
    labels = _new_labels(func_ir, 2 * len(tests))
    block.body = pieces[0]
    current = block
    for (name, free, loc), rest in zip(tests, pieces[1:]):
        raise_label, rest_label = next(labels), next(labels)
        current.body.append(ir.Branch(_flag(name, loc), raise_label, rest_label, loc, likely=False))
        raising = ir.Block(raise_label, loc, [_unbound_raise(name, free, loc)])
        current = ir.Block(rest_label, loc, rest)
        for new in (raising, current):
            func_ir.blocks[new.label] = new
            if handler is not None:
                func_ir.exception_handlers[new.label] = handler


def _unbound_raise(name: str, free: bool, loc: ir.Loc) -> ir.StaticRaise:
    """CPython's error for reading `name` unassigned: in an inner function that closes over
    it (`free`), a NameError about a free variable."""
    shown = _source_name(name)
    if free:
        message = (
            f"cannot access free variable '{shown}' where it is not associated with a value in "
            "enclosing scope"
        )
        return ir.StaticRaise(NameError, (message,), loc)
    message = f"cannot access local variable '{shown}' where it is not associated with a value"
    return ir.StaticRaise(UnboundLocalError, (message,), loc)


def _new_labels(func_ir: ir.FunctionIR, count: int) -> Iterator[int]:
    start = max(func_ir.blocks) + 1
    return iter(range(start, start + count))


def _source_name(name: str) -> str:
    """`x` for a variable of an inlined inner function (`inner.3.x`)."""
    return name.rsplit(".", 1)[-1]
