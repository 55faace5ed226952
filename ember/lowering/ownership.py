"""Reference ownership in typed IR, decided before lowering: which variables borrow their
reference (unchanged parameters, method reads) and which copies take one over (moves).
Consumes a FunctionIR (and its typemap); produces names and statement ids."""

from __future__ import annotations

from ember import types
from ember.ir import nodes as ir


def borrowed_arguments(func_ir: ir.FunctionIR) -> frozenset[str]:
    """Parameters never reassigned: their variable can borrow the caller's reference for the
    whole call (no incref on entry, no decref at their `del`)."""
    assignments: dict[str, int] = {}
    from_arg: set[str] = set()
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign):
            name = stmt.target.name
            assignments[name] = assignments.get(name, 0) + 1
            if isinstance(stmt.value, ir.Arg) and stmt.value.name == name:
                from_arg.add(name)
    return frozenset(name for name in from_arg if assignments[name] == 1)


def moved_statements(func_ir: ir.FunctionIR, borrowed: frozenset[str]) -> set[int]:
    """Copies `x = y` directly followed by `del y`: the copy takes over y's reference (no
    incref, no decref). Returns the ids of those Assign and Del statements."""
    found: set[int] = set()
    for block in func_ir.blocks.values():
        body = block.body
        for index, stmt in enumerate(body):
            if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Var)):
                continue
            source = stmt.value.name
            if source == stmt.target.name or source in borrowed:
                continue
            for following in body[index + 1 :]:
                if not isinstance(following, ir.Del):
                    break
                if following.name == source:
                    found.update((id(stmt), id(following)))
                    break
    return found


def lent_method_reads(func_ir: ir.FunctionIR, typemap: dict) -> set[int]:
    """Methods `m = x.append` whose variable x is neither reassigned nor deleted before
    `del m` in the same block: m borrows x's reference (no incref, no decref), so a method
    call in a loop costs no reference counting. Returns the ids of those GetAttr and Del."""
    found: set[int] = set()
    for block in func_ir.blocks.values():
        open_methods: dict[str, tuple[str, ir.GetAttr]] = {}  # method var -> (owner, getattr)
        for stmt in block.body:
            if isinstance(stmt, ir.Del) and stmt.name in open_methods:
                found.update((id(open_methods.pop(stmt.name)[1]), id(stmt)))
                continue
            touched = stmt.name if isinstance(stmt, ir.Del) else None
            if isinstance(stmt, ir.Assign):
                touched = stmt.target.name
                if isinstance(stmt.value, ir.Var):  # copied (to a phi: `x.m(a if c else b)`)
                    open_methods.pop(stmt.value.name, None)  # the copy owns a reference
            if open_methods and touched is not None:  # (most statements: nothing to drop)
                open_methods = {m: v for m, v in open_methods.items() if v[0] != touched}
            if (
                isinstance(stmt, ir.Assign)
                and isinstance(stmt.value, ir.GetAttr)
                and isinstance(typemap.get(stmt.target.name), types.BoundFunction)
            ):
                open_methods[stmt.target.name] = (stmt.value.value.name, stmt.value)
    return found
