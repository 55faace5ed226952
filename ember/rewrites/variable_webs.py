"""Each source variable split into webs before type inference, so a name rebound to a value of
another type compiles when the two values never meet (Numba's SSA reconstruction does the same).

Consumes the untyped IR (before `del` placement) and renames it in place: a web is the set of
assignments of a variable that reach a common read, closed under "reaches the same read" (joins
after `if`/`else`, loop back edges, `try` bodies reaching their handlers, `del`). One web keeps
the variable's name (the parameter's, else the first in block order); the others become
`x.1`, `x.2`... and `FunctionIR.user_names` remembers that they are `x` (messages, `locals=`).

    x = 1                      x = 1
    s = x + 1                  s = x + 1
    x = 2.5            ->      x.1 = 2.5          x: int64, x.1: float64
    s += x                     s += x.1
    if n: x = 3                if n: x.1 = 3      both reach `return x.1`: one web, unified
    return x                   return x.1
"""

from __future__ import annotations

import copy

from ember.ir import nodes as ir


def split_variable_webs(func_ir: ir.FunctionIR) -> None:
    """Give each web of every variable assigned more than once its own name."""
    definitions = _Definitions(func_ir)
    if not definitions.sites:
        return
    reaching_in = _reaching_definitions(func_ir, definitions)
    webs = _Webs(len(definitions.sites))
    uses = _join_at_uses(func_ir, definitions, reaching_in, webs)
    names = _web_names(func_ir, definitions, webs)
    if names:
        _rename(func_ir, definitions, webs, uses, names)


class _Definitions:
    """The assignments of the variables worth splitting (source names assigned twice or more;
    compiler temporaries `$...` never need it), numbered in block order, each with a bit."""

    def __init__(self, func_ir: ir.FunctionIR) -> None:
        counts: dict[str, int] = {}
        for _, stmt in func_ir.statements():
            if isinstance(stmt, ir.Assign) and not stmt.target.name.startswith("$"):
                counts[stmt.target.name] = counts.get(stmt.target.name, 0) + 1
        self.names = {name for name, count in counts.items() if count > 1}
        self.sites: list[ir.Assign] = []
        self.index_of: dict[int, int] = {}  # id(Assign) -> its number
        self.mask: dict[str, int] = dict.fromkeys(self.names, 0)  # name -> its assignments' bits
        if not self.names:
            return
        for _, stmt in func_ir.statements():
            if isinstance(stmt, ir.Assign) and stmt.target.name in self.names:
                self.index_of[id(stmt)] = len(self.sites)
                self.mask[stmt.target.name] |= 1 << len(self.sites)
                self.sites.append(stmt)

    def transfer(self, block: ir.Block, reaching: int) -> int:
        """The assignments reaching the end of `block` from those reaching its start."""
        for stmt in block.body:
            index = self.index_of.get(id(stmt))
            if index is not None:
                reaching = (reaching & ~self.mask[stmt.target.name]) | (1 << index)
        return reaching

    def assigned_in(self, block: ir.Block) -> int:
        """Every assignment of `block`: any of them may be the last before an exception."""
        found = 0
        for stmt in block.body:
            index = self.index_of.get(id(stmt))
            if index is not None:
                found |= 1 << index
        return found


def _reaching_definitions(func_ir: ir.FunctionIR, definitions: _Definitions) -> dict[int, int]:
    """Per block label, the bit set of assignments that reach its start (forward dataflow to a
    fixed point; a handler is reached by all that reach or happen in its protected blocks)."""
    normal_preds: dict[int, list[int]] = {label: [] for label in func_ir.blocks}
    raising_preds: dict[int, list[int]] = {label: [] for label in func_ir.blocks}
    for label, block in func_ir.blocks.items():
        for succ in block.successors():
            normal_preds[succ].append(label)
        handler = func_ir.exception_handlers.get(label)
        if handler is not None:
            raising_preds[handler].append(label)
    raised = {label: definitions.assigned_in(func_ir.blocks[label]) for label in func_ir.blocks}
    order = _reverse_postorder(func_ir)
    reaching_in = dict.fromkeys(func_ir.blocks, 0)
    reaching_out = dict.fromkeys(func_ir.blocks, 0)
    changed = True
    while changed:
        changed = False
        for label in order:
            incoming = 0
            for pred in normal_preds[label]:
                incoming |= reaching_out[pred]
            for pred in raising_preds[label]:
                incoming |= reaching_in[pred] | raised[pred]
            outgoing = definitions.transfer(func_ir.blocks[label], incoming)
            if incoming != reaching_in[label] or outgoing != reaching_out[label]:
                reaching_in[label], reaching_out[label] = incoming, outgoing
                changed = True
    return reaching_in


def _reverse_postorder(func_ir: ir.FunctionIR) -> list[int]:
    """Blocks reachable from the entry, each before its successors except along back edges."""
    seen: set[int] = {func_ir.entry}
    postorder: list[int] = []
    stack = [(func_ir.entry, iter(func_ir.successors(func_ir.entry)))]
    while stack:
        label, successors = stack[-1]
        for succ in successors:
            if succ not in seen:
                seen.add(succ)
                stack.append((succ, iter(func_ir.successors(succ))))
                break
        else:
            stack.pop()
            postorder.append(label)
    return postorder[::-1]


class _Webs:
    """Union-find over the numbered assignments."""

    def __init__(self, count: int) -> None:
        self.parent = list(range(count))

    def find(self, index: int) -> int:
        root = index
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[index] != root:
            self.parent[index], index = root, self.parent[index]
        return root

    def join(self, bits: int) -> int:
        """Put the assignments of the (non-empty) bit set in one web; returns one of them."""
        first = (bits & -bits).bit_length() - 1
        root = self.find(first)
        bits &= bits - 1
        while bits:
            other = self.find((bits & -bits).bit_length() - 1)
            if other != root:
                self.parent[other] = root
            bits &= bits - 1
        return first


def _join_at_uses(
    func_ir: ir.FunctionIR, definitions: _Definitions, reaching_in: dict[int, int], webs: _Webs
) -> dict[tuple[int, str], int]:
    """Join the assignments reaching each read (and `del`) of a split variable; returns, per
    (id of the reading statement, name), one assignment of the web it reads (none reaching:
    a read on a path where the variable is unbound, or in unreachable code, is left out)."""
    uses: dict[tuple[int, str], int] = {}
    for label, block in func_ir.blocks.items():
        reaching = reaching_in[label]
        for stmt in block.body:
            for name in _names_read(stmt):
                mask = definitions.mask.get(name)
                if mask is not None and reaching & mask:
                    uses[id(stmt), name] = webs.join(reaching & mask)
            index = definitions.index_of.get(id(stmt))
            if index is not None:
                reaching = (reaching & ~definitions.mask[stmt.target.name]) | (1 << index)
    return uses


def _names_read(stmt: ir.Stmt) -> set[str]:
    if isinstance(stmt, ir.Del):
        return {stmt.name}
    return {var.name for var in stmt.sources()}


def _web_names(
    func_ir: ir.FunctionIR, definitions: _Definitions, webs: _Webs
) -> dict[int, str]:
    """The new name of each web root that needs one. Per variable, the web holding the
    parameter (else the earliest assignment) keeps the name; the others take `name.1`, ...
    in the order of their first assignments, skipping names already in use."""
    roots_by_name: dict[str, list[int]] = {}
    for index, stmt in enumerate(definitions.sites):
        roots = roots_by_name.setdefault(stmt.target.name, [])
        root = webs.find(index)
        if root not in roots:
            roots.append(root)
    split = {name: roots for name, roots in roots_by_name.items() if len(roots) > 1}
    if not split:
        return {}
    taken = _all_names(func_ir)
    parameter_webs = {
        webs.find(index)
        for index, stmt in enumerate(definitions.sites)
        if isinstance(stmt.value, ir.Arg)
    }
    names: dict[int, str] = {}
    for name, roots in split.items():
        keeper = next((root for root in roots if root in parameter_webs), roots[0])
        serial = 0
        for root in roots:
            if root == keeper:
                continue
            serial += 1
            while f"{name}.{serial}" in taken:
                serial += 1
            names[root] = f"{name}.{serial}"
            taken.add(names[root])
            func_ir.user_names[names[root]] = func_ir.user_name(name)
    return names


def _all_names(func_ir: ir.FunctionIR) -> set[str]:
    return {
        var.name for _, stmt in func_ir.statements() for var in (*stmt.sources(), *stmt.targets())
    }


def _rename(
    func_ir: ir.FunctionIR,
    definitions: _Definitions,
    webs: _Webs,
    uses: dict[tuple[int, str], int],
    names: dict[int, str],
) -> None:
    renamed_uses: dict[int, dict[str, str]] = {}  # id(stmt) -> {old name: new name}
    for (stmt_id, name), site in uses.items():
        new = names.get(webs.find(site))
        if new is not None:
            renamed_uses.setdefault(stmt_id, {})[name] = new
    for block in func_ir.blocks.values():
        for stmt in block.body:
            reads = renamed_uses.get(id(stmt))
            if reads is not None:
                _rename_reads(stmt, reads)
            index = definitions.index_of.get(id(stmt))
            if index is not None and webs.find(index) in names:
                stmt.target = ir.Var(names[webs.find(index)], stmt.target.loc)


def _rename_reads(stmt: ir.Stmt, names: dict[str, str]) -> None:
    """Rename the variables `stmt` reads (its target, if any, is left to the caller)."""
    if isinstance(stmt, ir.Del):
        stmt.name = names.get(stmt.name, stmt.name)
    elif isinstance(stmt, ir.Assign):
        stmt.value = _renamed(stmt.value, names)
    else:
        _rename_fields(stmt, names)


def _renamed(value: object, names: dict[str, str]) -> object:
    """`value` with the variables in `names` renamed: itself when nothing changes, else a
    copy (lists and expressions may be shared with other statements)."""
    if isinstance(value, ir.Var):
        new = names.get(value.name)
        return value if new is None else ir.Var(new, value.loc)
    if isinstance(value, (list, tuple)):
        items = [_renamed(item, names) for item in value]
        if all(new is old for new, old in zip(items, value)):
            return value
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, ir.Expr):
        renamed = copy.copy(value)
        return renamed if _rename_fields(renamed, names) else value
    return value


def _rename_fields(node: object, names: dict[str, str]) -> bool:
    changed = False
    for field, value in vars(node).items():
        new = _renamed(value, names)
        if new is not value:
            setattr(node, field, new)
            changed = True
    return changed
