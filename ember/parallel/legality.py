"""Decides whether a prange loop's iterations are independent, and what crosses the boundary.

Consumes a `PrangeLoop` with the function's typemap and liveness; produces its parameters
(values read from outside), its reductions, or a `NotParallel` reason. The rules:

- a variable assigned in the body whose value reaches the next iteration or the code after
  the loop must be a recognised reduction (`reductions.py`);
- an array from outside the loop that the body writes (item assignment, in-place operators,
  ufuncs with `out=`, mutating methods, jitted callees that write) must be reached only at
  indices holding the loop index at one fixed position (`a[i]`, `a[i, j]`, `a[j, i]`, views
  `a[i]`), so each iteration owns its slab; any other access of it is a dependence;
- lists from outside may only be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ember import types
from ember.ir import nodes as ir
from ember.parallel import reductions as red
from ember.parallel.loops import PrangeLoop

_SHAPE_ATTRS = {"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides"}
_MUTATING_METHODS = {"fill", "sort", "resize", "put", "itemset", "setfield", "partition"}
# NumPy functions that write into their first argument
_MUTATING_FUNCTIONS = {np.copyto, np.put, np.place, np.putmask, np.fill_diagonal,
                       np.random.shuffle}  # fmt: skip
_CONTAINER_READS = {"index", "count", "copy"}


class NotParallel(Exception):
    """The loop must stay serial; the message says why (shown in diagnostics)."""


@dataclass
class LoopAnalysis:
    params: list[str]
    reductions: list[tuple[str, str, bool]]  # (name, kind, inplace)
    index_aliases: set[str]
    dropped: set[int] = field(default_factory=set)  # ids of iterator copies in the body


def analyze(func_ir, typemap: dict, loop: PrangeLoop, live_in: dict) -> LoopAnalysis:
    if loop.leaves_loop:
        raise NotParallel("the body can leave the loop early (break or return)")
    if loop.odd_header:
        raise NotParallel(f"the loop header computes more than the next index ({loop.odd_header})")
    blocks = [func_ir.blocks[label] for label in loop.body]
    if any(isinstance(b.terminator, (ir.Raise, ir.StaticRaise)) for b in blocks):
        raise NotParallel("the body may raise an exception (such loops run serially for now)")
    handlers = func_ir.exception_handlers  # a try inside the body protects not the header
    if any(handlers.get(label) not in (None, handlers.get(loop.header)) for label in loop.body):
        raise NotParallel("the body has a try statement (such loops run serially for now)")
    statements = [s for b in blocks for s in b.body if not isinstance(s, ir.Del)]
    dropped, carriers = _iterator_copies(statements, loop)
    statements = [s for s in statements if id(s) not in dropped]
    index_aliases = _index_aliases(statements, loop)
    _check_header_reads(statements, loop, index_aliases)
    defs = {v.name for s in statements for v in s.targets()}
    reads = [v.name for s in statements for v in s.sources()]
    carried = (live_in[loop.header] & defs) - carriers
    after = (live_in[loop.exit] & defs) - loop.header_defs
    reductions = [_reduction(name, statements, typemap) for name in sorted(carried | after)]
    reduction_names = {name for name, _, _ in reductions}
    params = sorted({n for n in reads if n not in defs} - loop.header_defs - reduction_names)
    _ArrayHazards(statements, typemap, params, index_aliases).check()
    return LoopAnalysis(params, reductions, index_aliases, dropped)


def _iterator_copies(statements: list[ir.Stmt], loop: PrangeLoop) -> tuple[set[int], set[str]]:
    """The copies that hand the iterator (and the iterators of enclosing loops) from block to
    block and back to the header (`$phi38.0 = $phi40.0`): the parfor has no iterator, so they
    go. Returns their ids and every variable they carry."""
    carriers = loop.iterator_vars | {copy.target.name for copy in loop.header_copies}
    found: set[int] = set()
    changed = True
    while changed:
        changed = False
        for s in statements:
            if (
                id(s) not in found
                and isinstance(s, ir.Assign)
                and isinstance(s.value, ir.Var)
                and s.value.name in carriers
            ):
                found.add(id(s))
                carriers.add(s.target.name)
                changed = True
    return found, carriers


def _index_aliases(statements: list[ir.Stmt], loop: PrangeLoop) -> set[str]:
    """Variables holding the loop index unchanged (`i = $phi40.1`, `j = i`)."""
    aliases = set(loop.index_sources)
    changed = True
    counts: dict[str, int] = {}
    for s in statements:
        for v in s.targets():
            counts[v.name] = counts.get(v.name, 0) + 1
    while changed:
        changed = False
        for s in statements:
            if (
                isinstance(s, ir.Assign)
                and isinstance(s.value, ir.Var)
                and s.value.name in aliases
                and s.target.name not in aliases
                and counts[s.target.name] == 1
            ):
                aliases.add(s.target.name)
                changed = True
    return aliases - loop.index_sources


def _check_header_reads(statements, loop: PrangeLoop, index_aliases: set[str]) -> None:
    allowed = loop.index_sources
    for s in statements:
        for v in s.sources():
            if v.name in loop.header_defs and v.name not in allowed:
                raise NotParallel(f"the body reads the loop's iterator state ({s})")
            if v.name in allowed and not (isinstance(s, ir.Assign) and s.value is v):
                raise NotParallel(f"unexpected use of the loop index: {s}")


def _reduction(name: str, statements: list[ir.Stmt], typemap: dict) -> tuple[str, str, bool]:
    user = name if not name.startswith("$") else "a temporary"
    definitions = {
        s.target.name: s for s in statements if isinstance(s, ir.Assign) and s.target.name != name
    }
    updates = []
    for s in statements:
        if name in {v.name for v in s.targets()}:
            found = red.match_update(s, name, definitions, typemap)
            if found is None:
                raise NotParallel(  # Numba's warning text first: its users match it
                    f"Variable {user} used in parallel loop may be written to simultaneously "
                    "by multiple workers and may result in non-deterministic or unintended "
                    f"results. '{user}' is assigned in the loop and its value carries over to "
                    f"other iterations or past the loop, but '{s}' is not a reduction "
                    "(+=, -=, *=, |=, &=, ^=, r = max(r, v), r = min(r, v))"
                )
            updates.append(found)
    kinds = {kind for kind, _, _ in updates}
    if len(kinds) != 1:
        raise NotParallel(f"'{user}' is updated with different operators ({', '.join(kinds)})")
    kind = kinds.pop()
    producers = {id(p) for _, _, p in updates}
    for s in statements:
        if id(s) in producers or name in {v.name for v in s.targets()}:
            continue
        if name in {v.name for v in s.sources()}:
            raise NotParallel(
                f"'{user}' is a reduction variable but the loop also reads it ({s}): "
                "iterations would see each other's partial results"
            )
    typ = typemap[name]
    if not red.supported_type(typ, kind):
        raise NotParallel(f"reduction '{kind}' of '{user}' ({typ}) is not supported in parallel")
    inplace = all(inplace for _, inplace, _ in updates)
    return name, kind, inplace


# ---------------------------------------------------------------------------- arrays


class _ArrayHazards:
    """Tracks where each array in the body comes from, and checks writes and reads of the
    arrays from outside that the body writes."""

    def __init__(self, statements, typemap, params, index_aliases) -> None:
        self.statements = statements
        self.typemap = typemap
        self.index_aliases = index_aliases
        self.outer = {p for p in params if _is_array(typemap.get(p))}
        # name -> (outer array, slab position or None for the whole array); absent: private
        self.origin: dict[str, tuple[str, int | None]] = {p: (p, None) for p in self.outer}
        self.accesses: dict[str, list[tuple[int | None, str]]] = {}
        self.written: set[str] = set()
        for p in params:
            if isinstance(typemap.get(p), types.List):
                self._check_list(p)

    def collect(self) -> dict[str, tuple[set, bool]]:
        """Per array from outside: the loop-index positions it is reached at (None: not at the
        loop index) and whether the body writes it."""
        for _ in range(2):  # twice: a block may use a view made in a later-numbered block
            for stmt in self.statements:
                self._track(stmt)
        for stmt in self.statements:
            self._find_writes(stmt)
        return {
            array: ({pos for pos, _ in accesses}, array in self.written)
            for array, accesses in self.accesses.items()
        }

    def check(self) -> None:
        self.collect()
        for array in sorted(self.written):
            accesses = self.accesses.get(array, [])
            slabs = [pos for pos, _ in accesses]
            usual = max(set(slabs), key=slabs.count)
            for position, text in accesses:
                if position is None or position != usual:
                    raise NotParallel(
                        f"'{array}' is written in the loop and also reached at elements "
                        f"other iterations own ({text}): a cross-iteration dependence"
                    )

    # ------------------------------------------------------------------ provenance

    def _slab_position(self, index: ir.Var | None) -> int | None:
        """Where the loop index sits in an index (`a[i]`: 0, `a[j, i]`: 1), or None."""
        if index is not None and index.name in self.index_aliases:
            return 0
        if index is not None:
            for s in self.statements:
                if (
                    isinstance(s, ir.Assign)
                    and s.target.name == index.name
                    and isinstance(s.value, ir.BuildTuple)
                ):
                    for pos, item in enumerate(s.value.items):
                        if item.name in self.index_aliases:
                            return pos
        return None

    def _track(self, stmt: ir.Stmt) -> None:
        if not isinstance(stmt, ir.Assign):
            return
        value, target = stmt.value, stmt.target.name
        if isinstance(value, ir.Var):
            self._derive(target, self.origin.get(value.name))
        elif isinstance(value, (ir.GetItem, ir.StaticGetItem)):
            base = self.origin.get(value.value.name)
            if base is not None:
                index = value.index if isinstance(value, ir.GetItem) else value.index_var
                slab = base[1] if base[1] is not None else self._slab_position(index)
                self._access(base[0], slab, str(stmt))
                if _is_array(self.typemap.get(target)):
                    self._derive(target, (base[0], slab))
        elif isinstance(value, ir.GetAttr):
            base = self.origin.get(value.value.name)
            if base is not None and value.attr not in _SHAPE_ATTRS:
                self._access(base[0], base[1], str(stmt))
                if _is_array(self.typemap.get(target)) or isinstance(
                    self.typemap.get(target), types.BoundFunction
                ):
                    self._derive(target, base)
        elif isinstance(value, ir.InplaceBinOp):
            self._derive(target, self.origin.get(value.lhs.name))
            self._note_operands(stmt, value.sources())
        elif isinstance(value, ir.Call):
            self._track_call(stmt, value, target)
        else:
            self._note_operands(stmt, value.sources())

    def _track_call(self, stmt: ir.Assign, call: ir.Call, target: str) -> None:
        arrays = [v for v in call.sources() if v.name in self.origin]
        self._note_operands(stmt, arrays)
        if arrays and _is_array(self.typemap.get(target)):
            self._derive(target, self.origin[arrays[0].name])

    def _note_operands(self, stmt: ir.Stmt, operands: list[ir.Var]) -> None:
        for v in operands:
            base = self.origin.get(v.name)
            if base is not None:
                self._access(base[0], base[1], str(stmt))

    def _derive(self, name: str, origin: tuple | None) -> None:
        if origin is None:
            return
        known = self.origin.get(name)
        if known is not None and known != origin:
            origin = (origin[0], None)  # two different sources: assume the whole array
        self.origin[name] = origin

    def _access(self, array: str, position: int | None, text: str) -> None:
        self.accesses.setdefault(array, []).append((position, text))

    # ------------------------------------------------------------------ writes

    def _find_writes(self, stmt: ir.Stmt) -> None:
        if isinstance(stmt, ir.SetItem):
            base = self.origin.get(stmt.target.name)
            if base is not None:
                position = self._slab_position(stmt.index)
                slab = base[1] if base[1] is not None else position
                self._write(base[0], slab, str(stmt))
        elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.InplaceBinOp):
            base = self.origin.get(stmt.value.lhs.name)
            if base is not None and _is_array(self.typemap.get(stmt.value.lhs.name)):
                self._write(base[0], base[1], str(stmt))
        elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call):
            for var in self._mutated_arguments(stmt.value):
                base = self.origin.get(var.name)
                if base is not None:
                    self._write(base[0], base[1], str(stmt))
        elif isinstance(stmt, (ir.SetAttr, ir.DelAttr)):
            base = self.origin.get(stmt.target.name)
            if base is not None:
                self._write(base[0], base[1], str(stmt))

    def _write(self, array: str, position: int | None, text: str) -> None:
        self.written.add(array)
        self._access(array, position, text)
        if position is None:
            raise NotParallel(
                f"'{array}' is written at an index that does not hold the loop index "
                f"({text}): two iterations may write the same element"
            )

    def _mutated_arguments(self, call: ir.Call) -> list[ir.Var]:
        fnty = self.typemap.get(call.func.name)
        found = [value for name, value in call.kws if name == "out"]
        if isinstance(fnty, types.BoundFunction) and fnty.attr in _MUTATING_METHODS:
            found.append(call.func)
        if _writes_first_argument(fnty) and call.args:
            found.append(call.args[0])
        if isinstance(fnty, types.DispatcherType):
            written = written_parameters(fnty.dispatcher)
            arrays = [
                (k, v) for k, v in enumerate(call.args) if _is_array(self.typemap.get(v.name))
            ]
            found += [v for k, v in arrays if written is None or k in written]
            if written is None or written:
                found += [v for _, v in call.kws if _is_array(self.typemap.get(v.name))]
        return found

    def _check_list(self, name: str) -> None:
        for stmt in self.statements:
            if isinstance(stmt, ir.SetItem) and stmt.target.name == name:
                raise NotParallel(f"the list '{name}' is modified in the loop ({stmt})")
            if (
                isinstance(stmt, ir.Assign)
                and isinstance(stmt.value, ir.GetAttr)
                and stmt.value.value.name == name
                and stmt.value.attr not in _CONTAINER_READS
            ):
                raise NotParallel(f"the list '{name}' may be modified in the loop ({stmt})")
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.InplaceBinOp):
                if stmt.value.lhs.name == name:
                    raise NotParallel(f"the list '{name}' is modified in the loop ({stmt})")


def parfor_array_accesses(parfor, typemap: dict) -> dict[str, tuple[set, bool]]:
    """`_ArrayHazards.collect` for a parfor's body (its index variable and copies of it are
    the loop index); raises NotParallel for a body it cannot describe."""
    statements = [s for b in parfor.nested_blocks() for s in b.body if not isinstance(s, ir.Del)]
    aliases = {nest.index_variable.name for nest in parfor.loop_nests}
    counts: dict[str, int] = {}
    for s in statements:
        for v in s.targets():
            counts[v.name] = counts.get(v.name, 0) + 1
    changed = True
    while changed:
        changed = False
        for s in statements:
            if (
                isinstance(s, ir.Assign)
                and isinstance(s.value, ir.Var)
                and s.value.name in aliases
                and s.target.name not in aliases
                and counts[s.target.name] == 1  # `k = i; k += 1` is not the index
            ):
                aliases.add(s.target.name)
                changed = True
    params = [p.name for p in parfor.params]
    return _ArrayHazards(statements, typemap, params, aliases).collect()


def _is_array(typ) -> bool:
    return isinstance(typ, types.Array)


_MAX_CALL_DEPTH = 4


def written_parameters(dispatcher, depth: int = 0) -> set[int] | None:
    """The positions of the parameters whose array data a jitted callee may write (through
    views of them too), from its compiled bodies; None when unknown (not compiled yet, or
    calls nested too deep): then every array argument counts as written."""
    if not dispatcher.overloads or depth > _MAX_CALL_DEPTH:
        return None
    written: set[int] = set()
    for result in dispatcher.overloads.values():
        if result.func_ir is None or result.typing is None:
            return None  # loaded from the on-disk cache: no body to read
        statements = [s for _, s in result.func_ir.statements()]
        typemap = result.typing.typemap
        origins = _parameter_origins(statements, typemap)
        for stmt in statements:
            found = _written_origins(stmt, typemap, origins, depth)
            if found is None:
                return None
            written |= found
    return written


def _parameter_origins(statements: list, typemap: dict) -> dict[str, set[int]]:
    """Variable -> the parameters whose memory it may view (arrays and bound methods)."""
    origins: dict[str, set[int]] = {}
    for _ in range(2):  # twice: a block may use a view made in a later-numbered block
        for stmt in statements:
            if not isinstance(stmt, ir.Assign):
                continue
            value, target = stmt.value, stmt.target.name
            if isinstance(value, ir.Arg):
                origins[target] = {value.index}
                continue
            if not isinstance(typemap.get(target), (types.Array, types.BoundFunction)):
                continue
            if isinstance(value, ir.Var):
                sources = [value]
            elif isinstance(value, (ir.GetItem, ir.StaticGetItem, ir.GetAttr)):
                sources = [value.value]
            elif isinstance(value, ir.Call) and not _returns_new_array(value, typemap):
                sources = [value.func, *value.args, *(v for _, v in value.kws)]
            else:
                continue  # arithmetic makes a new array
            for var in sources:
                origins.setdefault(target, set()).update(origins.get(var.name, ()))
    return origins


def _writes_first_argument(fnty) -> bool:
    return isinstance(fnty, types.Function) and fnty.typing_key in _MUTATING_FUNCTIONS


def _returns_new_array(call: ir.Call, typemap: dict) -> bool:
    """NumPy functions (np.sum, np.empty, ...) return new arrays; methods and jitted functions
    may return views of their arguments."""
    fnty = typemap.get(call.func.name)
    return isinstance(fnty, types.Function) and getattr(
        fnty.typing_key, "__module__", ""
    ).startswith("numpy")


def _written_origins(stmt, typemap: dict, origins: dict, depth: int) -> set[int] | None:
    def of(var):
        return origins.get(var.name, set())

    if isinstance(stmt, (ir.SetItem, ir.SetAttr, ir.DelAttr)):
        return of(stmt.target)
    if not isinstance(stmt, ir.Assign):
        return set()
    value = stmt.value
    if isinstance(value, ir.InplaceBinOp):
        return of(value.lhs) if _is_array(typemap.get(value.lhs.name)) else set()
    if not isinstance(value, ir.Call):
        return set()
    found = set().union(*(of(v) for name, v in value.kws if name == "out"))
    fnty = typemap.get(value.func.name)
    if isinstance(fnty, types.BoundFunction) and fnty.attr in _MUTATING_METHODS:
        found |= of(value.func)
    if _writes_first_argument(fnty) and value.args:
        found |= of(value.args[0])
    if isinstance(fnty, types.DispatcherType):
        nested = written_parameters(fnty.dispatcher, depth + 1)
        if nested is None:
            return None
        for position, var in enumerate(value.args):
            if position in nested:
                found |= of(var)
        if nested:
            found = found.union(*(of(v) for _, v in value.kws))
    return found
