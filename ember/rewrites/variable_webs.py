"""Each source variable split into webs before type inference, so a name rebound to a value of
another type compiles when the two values never meet (Numba's SSA reconstruction does the same).

Consumes the untyped IR (before `del` placement; a `del` counts as a read) and renames it in
place: a web is the set of assignments of a variable that reach a common read, closed under
"reaches the same read" (joins after `if`/`else`, loop back edges, `try` bodies reaching their
handlers). One web keeps the variable's name (the parameter's, else the first in block order);
the others become `x.1`, `x.2`... and `FunctionIR.user_names` remembers that they are `x`
(for messages and `locals=`). Runs after inner functions are inlined (frontend/
inline_closures.py): a cell's reads and writes are then ordinary statements where the inner
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


def split_variable_webs(func_ir: ir.FunctionIR) -> None:
    """Give each web of every variable assigned more than once its own name."""
    definitions = _Definitions(func_ir)
    if not definitions.sites:
        return
    reaching_in = _reaching_definitions(func_ir, definitions)
    webs = _Webs(len(definitions.sites))
    uses = _join_at_uses(func_ir, definitions, reaching_in, webs)
    _keep_parallel_reductions_whole(func_ir, definitions, reaching_in, webs)
    names = _web_names(func_ir, definitions, webs)
    if names:
        _rename(definitions, webs, uses, names)


class _Definitions:
    """The assignments of the variables worth splitting (source names assigned twice or more;
    compiler temporaries `$...` never need it), numbered in block order, each with a bit, and
    per block what its assignments do to the set of assignments reaching its end."""

    def __init__(self, func_ir: ir.FunctionIR) -> None:
        assigns: dict[int, list[ir.Assign]] = {}
        counts: dict[str, int] = {}
        for label, block in func_ir.blocks.items():
            found = assigns[label] = []
            for stmt in block.body:
                if isinstance(stmt, ir.Assign) and not stmt.target.name.startswith("$"):
                    found.append(stmt)
                    counts[stmt.target.name] = counts.get(stmt.target.name, 0) + 1
        self.assigned_names = set(counts)
        self.sites: list[ir.Assign] = []
        self.index_of: dict[int, int] = {}  # id(Assign) -> its number
        self.mask: dict[str, int] = {}  # name -> the bits of its assignments
        self.generated: dict[int, int] = {}  # label -> assignments reaching the block's end
        self.killed: dict[int, int] = {}  # label -> assignments the block's ones replace
        self.raised: dict[int, int] = {}  # label -> assignments made in the block
        by_block = {
            label: [stmt for stmt in found if counts[stmt.target.name] > 1]
            for label, found in sorted(assigns.items())
        }
        for stmts in by_block.values():
            for stmt in stmts:
                bit = 1 << len(self.sites)
                self.index_of[id(stmt)] = len(self.sites)
                self.mask[stmt.target.name] = self.mask.get(stmt.target.name, 0) | bit
                self.sites.append(stmt)
        for label, stmts in by_block.items():
            self._summarize(label, stmts)

    def _summarize(self, label: int, stmts: list[ir.Assign]) -> None:
        generated = killed = raised = 0
        for stmt in stmts:
            bit = 1 << self.index_of[id(stmt)]
            name_bits = self.mask[stmt.target.name]
            generated = (generated & ~name_bits) | bit
            killed |= name_bits
            raised |= bit
        self.generated[label], self.killed[label], self.raised[label] = generated, killed, raised


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
    generated, killed, raised = definitions.generated, definitions.killed, definitions.raised
    reaching_in = dict.fromkeys(func_ir.blocks, 0)
    reaching_out = dict.fromkeys(func_ir.blocks, 0)
    order = _reverse_postorder(func_ir)
    changed = True
    while changed:
        changed = False
        for label in order:
            incoming = 0
            for pred in normal_preds[label]:
                incoming |= reaching_out[pred]
            for pred in raising_preds[label]:
                incoming |= reaching_in[pred] | raised[pred]
            outgoing = generated[label] | (incoming & ~killed[label])
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
) -> list[tuple[ir.Stmt, ir.Var | None, int | None]]:
    """Join the assignments reaching each read (and `del`) of a split variable. Returns each
    read as (statement, variable read or None for a `del`, one assignment of the web read),
    the assignment None when none reaches (the variable unbound there, or unreachable code)."""
    reads: list[tuple[ir.Stmt, ir.Var | None, int | None]] = []
    mask_of, index_of = definitions.mask, definitions.index_of
    for label, block in func_ir.blocks.items():
        reaching = reaching_in[label]
        assigned_here: dict[str, int] = {}  # name -> its last assignment so far in the block
        for stmt in block.body:
            is_del = isinstance(stmt, ir.Del)
            for var in (None,) if is_del else stmt.sources():
                name = stmt.name if is_del else var.name
                if name not in mask_of:
                    continue
                if name in assigned_here:  # the one assignment reaching: nothing to join
                    reads.append((stmt, var, assigned_here[name]))
                elif reaching & mask_of[name]:
                    reads.append((stmt, var, webs.join(reaching & mask_of[name])))
                else:
                    reads.append((stmt, var, None))
            index = index_of.get(id(stmt))
            if index is not None:
                assigned_here[stmt.target.name] = index
    return reads


def _keep_parallel_reductions_whole(
    func_ir: ir.FunctionIR, definitions: _Definitions, reaching_in: dict[int, int], webs: _Webs
) -> None:
    """A variable carried around a `prange` loop (live at its header, assigned in its body: a
    reduction, as ember/parallel/reductions.py finds them by name) stays one web in and into
    the loop: `s += a[i]; s *= c` must not become `s.1 = s + a[i]; s = s.1 * c`."""
    headers = _prange_headers(func_ir) if _may_use_prange(func_ir.py_func) else []
    if not headers:
        return
    from ember.ir.liveness import live_variables

    live_in, _ = live_variables(func_ir)
    for header in headers:
        assigned_in_body = 0
        for label in _loop_body(func_ir, header):
            assigned_in_body |= definitions.raised.get(label, 0)
        for name in live_in[header]:
            mask = definitions.mask.get(name)
            if mask is not None and assigned_in_body & mask:
                webs.join((assigned_in_body | reaching_in[header]) & mask)


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


def _web_names(func_ir: ir.FunctionIR, definitions: _Definitions, webs: _Webs) -> dict[int, str]:
    """The new name of each web root that needs one. Per variable, the web holding the
    parameter (else the earliest assignment) keeps the name; the others take `name.1`, ...
    in the order of their first assignments, skipping names already in use."""
    roots_by_name: dict[str, dict[int, None]] = {}
    for index, stmt in enumerate(definitions.sites):
        roots_by_name.setdefault(stmt.target.name, {})[webs.find(index)] = None
    split = {name: list(roots) for name, roots in roots_by_name.items() if len(roots) > 1}
    if not split:
        return {}
    taken = set(definitions.assigned_names)
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


def _rename(
    definitions: _Definitions,
    webs: _Webs,
    reads: list[tuple[ir.Stmt, ir.Var | None, int | None]],
    names: dict[int, str],
) -> None:
    """Rename assignments and reads to their web's name. A Var object read in several places
    is renamed in place when every place reads the same web; one read as different webs (the
    IR builder never shares one so, but nothing forbids it) is replaced where it is read."""

    def web_name(site: int | None, name: str) -> str:
        return name if site is None else names.get(webs.find(site), name)

    targets = [web_name(i, stmt.target.name) for i, stmt in enumerate(definitions.sites)]
    wanted: dict[int, str] = {}  # id(Var) -> the name every place wants for it
    mixed: set[int] = set()  # ids of Vars read as different webs
    for stmt, new in zip(definitions.sites, targets):
        wanted[id(stmt.target)] = new
    read_names = []
    for stmt, var, site in reads:
        new = web_name(site, stmt.name if var is None else var.name)
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
    for stmt, new in zip(definitions.sites, targets):
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
