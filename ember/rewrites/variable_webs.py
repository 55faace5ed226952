"""Each source variable split into webs before type inference, so a name rebound to a value of
another type compiles when the two values never meet (Numba's SSA reconstruction does the same).

Consumes the untyped IR (before `del` placement; the source's `del x` reads x, then leaves it
unassigned, so what follows starts a new web) and renames it in place: a web is the set of
assignments of a variable that reach a common read, closed under "reaches the same read"
(joins after `if`/`else`, loop back edges, `try` bodies reaching their handlers). One web
keeps the variable's name (the parameter's, else the first in block order); the others become
`x.1`, `x.2`... and `FunctionIR.user_names` remembers that they are `x` (for messages and
`locals=`). Found in time linear in the IR: liveness of the variables assigned twice or more,
then a union of each block's entry value of a live variable with what each predecessor leaves
in it. Runs after inner functions are inlined (frontend/inline_closures.py): a cell's reads
and writes are then ordinary statements where the inner
function runs, so captured variables split as safely as any other.

    x = 1                      x = 1
    s = x + 1                  s = x + 1
    x = 2.5            ->      x.1 = 2.5          x: int64, x.1: float64
    s += x                     s += x.1
    if n: x = 3                if n: x.1 = 3      both reach `return x.1`: one web, unified
    return x                   return x.1
"""

from __future__ import annotations

from types import CellType, CodeType, FunctionType

from ember.ir import nodes as ir

_READ, _DELETED = -1, -2  # the `site` of an event that reads, or deletes, its variable


def split_variable_webs(func_ir: ir.FunctionIR) -> None:
    """Give each web of every variable assigned more than once its own name."""
    variables = _Variables(func_ir)
    if not variables.sites:
        return
    live_in = _live_on_entry(func_ir, variables)
    webs = _Webs(len(variables.sites))
    reads = _connect(func_ir, variables, live_in, webs)
    _keep_parallel_reductions_whole(func_ir, variables, live_in, webs)
    names = _web_names(func_ir, variables, webs)
    if names:
        _rename(variables, webs, reads, names)


class _Variables:
    """The variables worth splitting (source names assigned twice or more; compiler
    temporaries `$...` never need it), each with a bit; their assignments (sites), numbered in
    block order; and per block, in order, its reads and assignments of them."""

    def __init__(self, func_ir: ir.FunctionIR) -> None:
        counts: dict[str, int] = {}
        for _, stmt in func_ir.statements():
            if isinstance(stmt, ir.Assign) and not stmt.target.name.startswith("$"):
                counts[stmt.target.name] = counts.get(stmt.target.name, 0) + 1
        self.assigned_names = set(counts)
        self.names = [name for name, count in counts.items() if count > 1]
        self.bit = {name: 1 << index for index, name in enumerate(self.names)}
        self.sites: list[ir.Assign] = []
        # label -> (stmt, Var read or None (a del, an assignment), name, site | _READ | _DELETED)
        self.events: dict[int, list[tuple[ir.Stmt, ir.Var | None, str, int]]] = {}
        self.read_first: dict[int, int] = {}  # label -> variables read before any assignment
        self.assigned: dict[int, int] = {}  # label -> variables assigned
        if self.names:
            for label in sorted(func_ir.blocks):
                self._scan(label, func_ir.blocks[label])

    def _scan(self, label: int, block: ir.Block) -> None:
        events = self.events[label] = []
        read_first = assigned = 0
        bit_of = self.bit
        for stmt in block.body:
            if isinstance(stmt, ir.Del):
                read = [(None, stmt.name)] if stmt.name in bit_of else []
            else:
                read = [(var, var.name) for var in stmt.sources() if var.name in bit_of]
            for var, name in read:
                events.append((stmt, var, name, _READ))
                read_first |= bit_of[name] & ~assigned
            if read and isinstance(stmt, ir.Del):
                # after `del x` (the `e = None; del e` ending `except E as e:` too) x holds
                # nothing: a later read that sees it there raises UnboundLocalError
                events.append((stmt, None, stmt.name, _DELETED))
                assigned |= bit_of[stmt.name]
            if isinstance(stmt, ir.Assign) and stmt.target.name in bit_of:
                events.append((stmt, None, stmt.target.name, len(self.sites)))
                self.sites.append(stmt)
                assigned |= bit_of[stmt.target.name]
        self.read_first[label], self.assigned[label] = read_first, assigned

    def named(self, bits: int) -> list[str]:
        """The variables of a bit set."""
        found = []
        while bits:
            found.append(self.names[(bits & -bits).bit_length() - 1])
            bits &= bits - 1
        return found


def _live_on_entry(func_ir: ir.FunctionIR, variables: _Variables) -> dict[int, int]:
    """Per block label, the variables read on some path from its start before an assignment
    (backward dataflow to a fixed point). What a handler reads is live all through the blocks
    it protects: any of their statements may raise."""
    read_first, assigned = variables.read_first, variables.assigned
    live_in = dict.fromkeys(func_ir.blocks, 0)
    order = _reverse_postorder(func_ir)[::-1]
    reached = set(order)
    order += [label for label in func_ir.blocks if label not in reached]  # unreachable code
    changed = True
    while changed:
        changed = False
        for label in order:
            live_out = 0
            for succ in func_ir.blocks[label].successors():
                live_out |= live_in[succ]
            live = read_first[label] | (live_out & ~assigned[label])
            handler = func_ir.exception_handlers.get(label)
            if handler is not None:
                live |= live_in[handler]
            if live != live_in[label]:
                live_in[label] = live
                changed = True
    return live_in


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
    """Union-find over the assignments (nodes 0..count-1) and, per block and variable live on
    entry to it, the value the variable holds there (added as needed)."""

    def __init__(self, count: int) -> None:
        self.parent = list(range(count))
        self.entries: dict[tuple[int, str], int] = {}

    def entry(self, label: int, name: str) -> int:
        node = self.entries.get((label, name))
        if node is None:
            node = self.entries[label, name] = len(self.parent)
            self.parent.append(node)
        return node

    def nothing(self) -> int:
        """A node for "deleted": joined with what else reaches a read, it names no value."""
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, node: int) -> int:
        root = node
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[node] != root:
            self.parent[node], node = root, self.parent[node]
        return root

    def union(self, first: int, second: int) -> None:
        first, second = self.find(first), self.find(second)
        if first != second:
            self.parent[max(first, second)] = min(first, second)


def _connect(
    func_ir: ir.FunctionIR, variables: _Variables, live_in: dict[int, int], webs: _Webs
) -> list[tuple[ir.Stmt, ir.Var | None, int]]:
    """Join what flows together: a variable's value on entry to a block with the value it has
    at the end of each predecessor (an assignment there, else that block's own entry value)
    and, for a handler, with every value it takes in the blocks it protects. Returns each
    read (and `del`) as (statement, Var read or None, the node whose web it reads)."""
    reads: list[tuple[ir.Stmt, ir.Var | None, int]] = []
    for label, block in func_ir.blocks.items():
        last: dict[str, int] = {}  # variable -> its latest assignment so far in the block
        handler = func_ir.exception_handlers.get(label)
        live_in_handler = live_in[handler] if handler is not None else 0
        for stmt, var, name, site in variables.events[label]:
            if site >= 0:
                last[name] = site
                if live_in_handler & variables.bit[name]:
                    webs.union(site, webs.entry(handler, name))
            elif site == _DELETED:
                last[name] = webs.nothing()
            else:
                node = last.get(name)
                reads.append((stmt, var, webs.entry(label, name) if node is None else node))
        for succ in block.successors():
            for name in variables.named(live_in[succ]):
                node = last.get(name)
                leaving = webs.entry(label, name) if node is None else node
                webs.union(webs.entry(succ, name), leaving)
        for name in variables.named(live_in_handler):
            webs.union(webs.entry(handler, name), webs.entry(label, name))
    return reads


def _keep_parallel_reductions_whole(
    func_ir: ir.FunctionIR, variables: _Variables, live_in: dict[int, int], webs: _Webs
) -> None:
    """A variable carried around a `prange` loop (live at its header, assigned in its body: a
    reduction, as ember/parallel/reductions.py finds them by name) stays one web in and into
    the loop: `s += a[i]; s *= c` must not become `s.1 = s + a[i]; s = s.1 * c`."""
    headers = _prange_headers(func_ir) if _may_use_prange(func_ir.py_func) else []
    for header in headers:
        carried = live_in[header]
        for label in _loop_body(func_ir, header):
            for _, _, name, site in variables.events[label]:
                if site >= 0 and carried & variables.bit[name]:
                    webs.union(site, webs.entry(header, name))


def prange_loop_blocks(func_ir: ir.FunctionIR) -> set[int]:
    """The labels of the blocks `prange` loops run (headers and bodies): code whose values
    its threads share or keep private, which the untyped rewrites leave alone."""
    if not _may_use_prange(func_ir.py_func):
        return set()
    found: set[int] = set()
    for header in _prange_headers(func_ir):
        found |= {header, *_loop_body(func_ir, header)}
    return found


def _may_use_prange(py_func: FunctionType) -> bool:
    """Whether the function (with its inner functions) names `prange`, or a global or closure
    value that is one: a cheap test sparing other functions the search for prange loops."""
    from ember.parallel.api import prange

    names = _global_names(py_func.__code__)
    if "prange" in names:
        return True
    values = [py_func.__globals__.get(name) for name in names]
    values += [cell.cell_contents for cell in py_func.__closure__ or () if _is_filled(cell)]
    return any(isinstance(value, type) and issubclass(value, prange) for value in values)


def _global_names(code: CodeType) -> set[str]:
    found = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            found |= _global_names(const)
    return found


def _is_filled(cell: CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises ValueError
    except ValueError:
        return False
    return True


def _prange_headers(func_ir: ir.FunctionIR) -> list[int]:
    """The header labels of the loops over `prange(...)` (found before typing: through the
    globals, closure values and module attributes that the call's callee holds)."""
    from ember.parallel.api import prange

    values: dict[str, object] = {}  # variable -> the compile-time value it holds
    ranges: set[str] = set()  # variables holding a prange(...) or its iterator
    headers = []
    for block, stmt in func_ir.statements():
        if not isinstance(stmt, ir.Assign):
            continue
        value, name = stmt.value, stmt.target.name
        if isinstance(value, (ir.Global, ir.FreeVar)):
            values[name] = value.value
        elif isinstance(value, ir.GetAttr) and value.value.name in values:
            values[name] = getattr(values[value.value.name], value.attr, None)
        elif isinstance(value, ir.Call):
            callee = values.get(value.func.name)
            if isinstance(callee, type) and issubclass(callee, prange):
                ranges.add(name)
        elif isinstance(value, (ir.GetIter, ir.Var)) and _name_of(value) in ranges:
            ranges.add(name)
        elif isinstance(value, ir.IterNext) and value.value.name in ranges:
            headers.append(block.label)
    return headers


def _name_of(value: ir.GetIter | ir.Var) -> str:
    return value.name if isinstance(value, ir.Var) else value.value.name


def _loop_body(func_ir: ir.FunctionIR, header: int) -> set[int]:
    """The blocks a loop's iterations run: reached from the header's first successor without
    passing the header again."""
    terminator = func_ir.blocks[header].terminator
    if not isinstance(terminator, ir.Branch):
        return set()
    body: set[int] = set()
    pending = [terminator.truebr]
    while pending:
        label = pending.pop()
        if label not in body and label != header:
            body.add(label)
            pending.extend(func_ir.successors(label))
    return body


def _web_names(func_ir: ir.FunctionIR, variables: _Variables, webs: _Webs) -> dict[int, str]:
    """The new name of each web root that needs one. Per variable, the web holding the
    parameter (else the earliest assignment) keeps the name; the others take `name.1`, ...
    in the order of their first assignments, skipping names already in use."""
    roots_by_name: dict[str, dict[int, None]] = {}
    for index, stmt in enumerate(variables.sites):
        roots_by_name.setdefault(stmt.target.name, {})[webs.find(index)] = None
    split = {name: list(roots) for name, roots in roots_by_name.items() if len(roots) > 1}
    if not split:
        return {}
    taken = set(variables.assigned_names)
    parameter_webs = {
        webs.find(index)
        for index, stmt in enumerate(variables.sites)
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


def _rename(
    variables: _Variables,
    webs: _Webs,
    reads: list[tuple[ir.Stmt, ir.Var | None, int]],
    names: dict[int, str],
) -> None:
    """Rename assignments and reads to their web's name. A Var object read in several places
    is renamed in place when every place reads the same web; one read as different webs (the
    IR builder never shares one so, but nothing forbids it) is replaced where it is read."""

    def web_name(node: int, name: str) -> str:
        return names.get(webs.find(node), name)  # a web without assignments keeps the name

    targets = [web_name(i, stmt.target.name) for i, stmt in enumerate(variables.sites)]
    wanted: dict[int, str] = {}  # id(Var) -> the name every place wants for it
    mixed: set[int] = set()  # ids of Vars read as different webs
    for stmt, new in zip(variables.sites, targets):
        wanted[id(stmt.target)] = new
    read_names = []
    for stmt, var, node in reads:
        new = web_name(node, stmt.name if var is None else var.name)
        read_names.append(new)
        if var is not None and wanted.setdefault(id(var), new) != new:
            mixed.add(id(var))
    for (stmt, var, _), new in zip(reads, read_names):
        if var is None:
            stmt.name = new
        elif id(var) in mixed:
            _replace_read(stmt, var, ir.Var(new, var.loc))
        else:
            var.name = new
    for stmt, new in zip(variables.sites, targets):
        if new != stmt.target.name or id(stmt.target) in mixed:
            stmt.target = ir.Var(new, stmt.target.loc)


def _replace_read(stmt: ir.Stmt, old: ir.Var, new: ir.Var) -> None:
    """Replace the Var object `old` among what `stmt` reads (not its target) by `new`."""
    if isinstance(stmt, ir.Assign):
        stmt.value = _replaced(stmt.value, old, new)
    else:
        _replace_fields(stmt, old, new)


def _replaced(value: object, old: ir.Var, new: ir.Var) -> object:
    """`value` with `old` replaced: itself when `old` is not in it, else a copy (lists and
    expressions may be shared with other statements)."""
    if value is old:
        return new
    if isinstance(value, (list, tuple)):
        items = [_replaced(item, old, new) for item in value]
        if all(item is was for item, was in zip(items, value)):
            return value
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, ir.Expr):
        copied = object.__new__(type(value))  # a shallow copy, without copy.copy's detour
        copied.__dict__.update(vars(value))
        return copied if _replace_fields(copied, old, new) else value
    return value


def _replace_fields(node: object, old: ir.Var, new: ir.Var) -> bool:
    changed = False
    for field, value in vars(node).items():
        replaced = _replaced(value, old, new)
        if replaced is not value:
            setattr(node, field, replaced)
            changed = True
    return changed
