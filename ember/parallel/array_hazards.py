"""The array side of prange legality (legality.py): consumes a loop body's statements and
types, produces which outside arrays it writes and how (each iteration's own slab, provable
races, writes run on the program's word), and which parameters jitted functions write."""

from __future__ import annotations

import operator

import numpy as np

from ember import types
from ember.ir import nodes as ir
from ember.parallel import reductions as red
from ember.parallel.api import get_thread_id

_SHAPE_ATTRS = {"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides"}
_MUTATING_METHODS = {"fill", "sort", "resize", "put", "itemset", "setfield", "partition"}
# NumPy functions that write into their first argument
_MUTATING_FUNCTIONS = {np.copyto, np.put, np.place, np.putmask, np.fill_diagonal,
                       np.random.shuffle}  # fmt: skip
_CONTAINER_READS = {"index", "count", "copy"}


class NotParallel(Exception):
    """The loop must stay serial; the message says why (shown in diagnostics)."""


# Where an access reaches, relative to the iteration: ('at', position, offset) when one index
# component is the loop index plus a constant (offset 0: the iteration's own slab), VARYING when
# it otherwise depends on the iteration (data read at the loop index, `2 * i`, a counter
# started from it), FIXED when every iteration reaches the same elements. An origin's place may
# also be None: the whole array, not indexed yet.
VARYING = "varying"
FIXED = "fixed"


def own_slab(place) -> int | None:
    """The position of the loop index when `place` is the iteration's own slab, else None."""
    return place[1] if isinstance(place, tuple) and place[0] == "at" and place[2] == 0 else None


class ArrayHazards:
    """Tracks where each array in the body comes from and where the body reaches the arrays
    from outside; decides whether those it writes keep the iterations apart."""

    def __init__(self, statements, typemap, params, index_aliases, blocks=None) -> None:
        self.statements = statements
        self.typemap = typemap
        self.index_aliases = index_aliases
        self.definitions = single_definitions(statements)
        self.varying, self.guarded = _varying_names(statements, index_aliases, typemap, blocks)
        self.outer = {p for p in params if _is_array(typemap.get(p))}
        # name -> (outer array, place); absent: private to the iteration
        self.origin: dict[str, tuple[str, object]] = {p: (p, None) for p in self.outer}
        self.accesses: dict[str, list[tuple[object, str, bool]]] = {}  # (place, text, write)
        self.written: set[str] = set()
        self.accumulated: list[tuple[str, str]] = []  # (array, kind): private copies per thread
        for p in params:
            if isinstance(typemap.get(p), types.List):
                self._check_list(p)

    def _gather(self) -> None:
        for _ in range(2):  # twice: a block may use a view made in a later-numbered block
            for stmt in self.statements:
                self._track(stmt)
        for stmt in self.statements:
            self._find_writes(stmt)

    def collect(self) -> dict[str, tuple[set, bool]]:
        """Per array from outside: the loop-index positions it is reached at (None: not at the
        iteration's own slab) and whether the body writes it. Raises NotParallel when a write
        is not at the iteration's own slab (fusion only moves loops it can prove apart)."""
        self._gather()
        for array in sorted(self.written):
            for place, text, write in self.accesses[array]:
                if write and own_slab(place) is None:
                    raise NotParallel(
                        f"'{array}' is written at an index that does not hold the loop index "
                        f"({text}): two iterations may write the same element"
                    )
        return {
            array: ({own_slab(place) for place, _, _ in accesses}, array in self.written)
            for array, accesses in self.accesses.items()
        }

    def check(self) -> list[str]:
        """Notes in `accumulated` the arrays the body only accumulates into (`h[k] += v`:
        per-thread copies make them reductions); raises NotParallel for a write that provably
        races (the same elements in every iteration, or an element another iteration reads or
        writes at a constant shift of the loop index); returns a note for each array written
        at places no analysis ties to one iteration: as in Numba, those run in parallel on the
        program's word."""
        self._gather()
        trusted = []
        for array in sorted(self.written):
            accesses = self.accesses[array]
            places = {place for place, _, _ in accesses}
            if len(places) == 1 and isinstance(next(iter(places)), tuple):
                continue  # each iteration owns its slab (`a[i]`, or `a[i + 1]` throughout)
            kind = self._accumulation(array)
            if kind is not None:
                self.accumulated.append((array, kind))
                continue
            _check_same_elements(array, accesses)
            _check_shifted(array, accesses)
            _check_reads_elsewhere(array, accesses)
            text = _odd_write(accesses)
            trusted.append(
                f"'{array}' is written at elements not tied to one iteration ({text}): it runs "
                "in parallel as written (as in Numba, keeping iterations apart is the "
                "program's responsibility)"
            )
        return trusted

    def _accumulation(self, array: str) -> str | None:
        """The reduction kind when the body only accumulates into `array` by name (views
        only on the way of an update: `h[:] += v`, `h[k, :] += row`)."""
        stable = self.outer - self.written  # arrays whose items the loop does not change
        found = _accumulation(array, self.statements, self.definitions, stable)
        if found is None:
            return None
        kind, passing = found
        views = {name for name, (source, _) in self.origin.items() if source == array}
        if views - passing - {array}:
            return None  # reached through views or copies too
        return kind if red.supported_type(self.typemap[array], kind) else None

    # ------------------------------------------------------------------ places

    def _shift(self, name: str) -> int | None:
        """c when `name` holds the loop index plus the constant c, else None."""
        if name in self.index_aliases:
            return 0
        stmt = self.definitions.get(name)
        if stmt is None or not isinstance(stmt.value, ir.BinOp):
            return None
        value = stmt.value
        sign = {operator.add: 1, operator.sub: -1}.get(value.fn)
        if sign is None:
            return None
        if value.lhs.name in self.index_aliases:
            constant = self._constant(value.rhs.name)
            return None if constant is None else sign * constant
        if sign == 1 and value.rhs.name in self.index_aliases:
            return self._constant(value.lhs.name)
        return None

    def _constant(self, name: str) -> int | None:
        stmt = self.definitions.get(name)
        if stmt is not None and isinstance(stmt.value, (ir.Const, ir.Global, ir.FreeVar)):
            value = stmt.value.value
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return None

    def _place_of_index(self, index: ir.Var | None):
        """Where `array[index]` reaches (see VARYING)."""
        if index is None:
            return FIXED
        items = [index]
        stmt = self.definitions.get(index.name)
        if stmt is not None and isinstance(stmt.value, ir.BuildTuple):
            items = stmt.value.items
        shifts = [self._shift(item.name) for item in items]
        for wanted in (lambda s: s == 0, lambda s: s is not None):  # the own slab first
            for position, shift in enumerate(shifts):
                if wanted(shift):
                    return ("at", position, shift)
        for position, item in enumerate(items):
            if self._is_thread_id(item):
                return ("thread", position, None)
        return VARYING if index.name in self.varying else FIXED

    def _is_thread_id(self, var: ir.Var) -> bool:
        """`var` holds get_thread_id(): elements at it belong to the running thread (the
        explicit per-thread bins idiom), which runs its chunks one after another."""
        stmt = self.definitions.get(_through_copies(var, self.definitions).name)
        if stmt is None or not isinstance(stmt.value, ir.Call) or stmt.value.args:
            return False
        key = getattr(self.typemap.get(stmt.value.func.name), "typing_key", None)
        return key is get_thread_id

    def _within(self, base, index: ir.Var | None):
        """The place of `view[index]` for a view at `base`."""
        if base is None:
            return self._place_of_index(index)
        if base == FIXED:
            return FIXED if self._place_of_index(index) == FIXED else VARYING
        return base  # inside the iteration's slab, or anywhere

    # ------------------------------------------------------------------ provenance

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
                place = self._within(base[1], index)
                self._access(base[0], place, stmt)
                if _is_array(self.typemap.get(target)):
                    self._derive(target, (base[0], place))
        elif isinstance(value, ir.GetAttr):
            base = self.origin.get(value.value.name)
            if base is not None and value.attr not in _SHAPE_ATTRS:
                self._access(base[0], base[1], stmt)
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
        if getattr(self.typemap.get(call.func.name), "typing_key", None) is len:
            return  # reads the shape only
        arrays = [v for v in call.sources() if v.name in self.origin]
        self._note_operands(stmt, arrays)
        if arrays and _is_array(self.typemap.get(target)):
            self._derive(target, self.origin[arrays[0].name])

    def _note_operands(self, stmt: ir.Stmt, operands: list[ir.Var]) -> None:
        for v in operands:
            base = self.origin.get(v.name)
            if base is not None:
                self._access(base[0], base[1], stmt)

    def _derive(self, name: str, origin: tuple | None) -> None:
        if origin is None:
            return
        known = self.origin.get(name)
        if known is not None and known != origin:  # two different sources
            both_fixed = known[1] == FIXED and origin[1] == FIXED
            origin = (origin[0], FIXED if both_fixed else VARYING)
        self.origin[name] = origin

    def _access(self, array: str, place, stmt: ir.Stmt, write: bool = False) -> None:
        place = FIXED if place is None else place  # the whole array
        if place == FIXED and id(stmt) in self.guarded:
            place = VARYING  # run or not by what differs between iterations
        self.accesses.setdefault(array, []).append((place, str(stmt), write))

    # ------------------------------------------------------------------ writes

    def _find_writes(self, stmt: ir.Stmt) -> None:
        if isinstance(stmt, ir.SetItem):
            base = self.origin.get(stmt.target.name)
            if base is not None:
                self._write(base[0], self._within(base[1], stmt.index), stmt)
        elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.InplaceBinOp):
            base = self.origin.get(stmt.value.lhs.name)
            if base is not None and _is_array(self.typemap.get(stmt.value.lhs.name)):
                self._write(base[0], base[1], stmt)
        elif isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call):
            for var, by_callee in self._mutated_arguments(stmt.value):
                base = self.origin.get(var.name)
                if base is None:
                    continue
                place = base[1]
                if by_callee and place in (None, FIXED) and self._call_varies(stmt.value, var):
                    place = VARYING  # the callee picks the elements from what varies
                self._write(base[0], place, stmt)
        elif isinstance(stmt, (ir.SetAttr, ir.DelAttr)):
            base = self.origin.get(stmt.target.name)
            if base is not None:
                self._write(base[0], base[1], stmt)

    def _call_varies(self, call: ir.Call, written: ir.Var) -> bool:
        """Whether an argument other than `written` depends on the iteration."""
        return any(v.name in self.varying for v in call.sources() if v.name != written.name)

    def _write(self, array: str, place, stmt: ir.Stmt) -> None:
        self.written.add(array)
        self._access(array, place, stmt, write=True)

    def _mutated_arguments(self, call: ir.Call) -> list[tuple[ir.Var, bool]]:
        """The arguments `call` may write, each with whether a jitted callee writes it (at
        elements the callee picks)."""
        fnty = self.typemap.get(call.func.name)
        found = [value for name, value in call.kws if name == "out"]
        if isinstance(fnty, types.BoundFunction) and fnty.attr in _MUTATING_METHODS:
            found.append(call.func)
        if _writes_first_argument(fnty) and call.args:
            found.append(call.args[0])
        found = [(var, False) for var in found]
        if isinstance(fnty, types.DispatcherType):
            written = written_parameters(fnty.dispatcher)
            arrays = [
                (k, v) for k, v in enumerate(call.args) if _is_array(self.typemap.get(v.name))
            ]
            found += [(v, True) for k, v in arrays if written is None or k in written]
            if written is None or written:
                found += [(v, True) for _, v in call.kws if _is_array(self.typemap.get(v.name))]
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


def _check_same_elements(array: str, accesses: list) -> None:
    for place, text, write in accesses:
        if write and place == FIXED:
            raise NotParallel(
                f"'{array}' is written at an index that does not hold the loop index and is "
                f"the same in every iteration ({text}): the iterations would overwrite each "
                "other's elements (a race in parallel)"
            )


def _check_reads_elsewhere(array: str, accesses: list) -> None:
    """Writes all at the iteration's own slab (`a[i] = ...`) and a read elsewhere (`a[n - 1 -
    i]`, `a[0]`, `a[:, i]`, the whole array): iteration i reads an element another iteration
    writes, before or after it depending on the threads (the serial loop fixes the order)."""
    writes = {place for place, _, write in accesses if write}
    if len(writes) != 1 or own_slab(next(iter(writes))) is None:
        return
    for place, text, write in accesses:
        if not write and place not in writes:
            raise NotParallel(
                f"'{array}' is written at the loop index and read at elements other "
                f"iterations write ({text}): a cross-iteration dependence"
            )


def _check_shifted(array: str, accesses: list) -> None:
    """A write at `a[i + c]` and another access at `a[i + d]` (c != d): iteration i reaches
    the element iteration i + c - d writes: a cross-iteration dependence."""
    shifted = [(place[1:], text, write) for place, text, write in accesses if place[0:1] == ("at",)]
    for (position, offset), text, write in shifted:
        if not write:
            continue
        for (other_position, other_offset), other_text, _ in shifted:
            if other_position == position and other_offset != offset:
                raise NotParallel(
                    f"'{array}' is written in the loop ({text}) and also reached at elements "
                    f"other iterations own ({other_text}): a cross-iteration dependence"
                )


_ACCUMULATING = {operator.add: "+", operator.sub: "+", operator.mul: "*"}


def _accumulation(array: str, statements: list, definitions: dict, stable: set):
    """('+' or '*', the loads' and updates' targets) when the body touches `array` only as
    `array[k] op= v` (or `array[k] = array[k] op v`; op +, - or *, one kind throughout):
    each thread can then accumulate into a private zeroed (or one-filled) copy, folded into
    the array after the loop, so iterations updating the same element (a histogram, column
    sums) need no order."""
    uses = [s for s in statements if array in {v.name for v in s.sources()}]
    read_count: dict[str, int] = {}
    for s in statements:
        for v in s.sources():
            read_count[v.name] = read_count.get(v.name, 0) + 1
    matched: set[int] = set()
    kinds, passing = set(), set()
    for s in uses:
        if not (isinstance(s, ir.SetItem) and s.target.name == array):
            continue
        found = _accumulating_update(s, array, definitions, read_count, stable)
        if found is None:
            return None
        kind, load = found
        kinds.add(kind)
        matched |= {id(s), id(load)}
        passing |= {load.target.name, s.value.name}
    if len(kinds) != 1 or any(id(s) not in matched for s in uses):
        return None
    return kinds.pop(), passing


def _accumulating_update(store: ir.SetItem, array: str, definitions, read_count, stable):
    """(kind, the load) when `store` is `array[k] = array[k] op v` through temporaries read
    nowhere else, else None."""
    update = definitions.get(store.value.name)
    if update is None or read_count.get(store.value.name) != 1 or store.index.name == array:
        return None
    value = update.value
    if not isinstance(value, (ir.BinOp, ir.InplaceBinOp)):
        return None
    fn = value.immutable_fn if isinstance(value, ir.InplaceBinOp) else value.fn
    kind = _ACCUMULATING.get(fn)
    if kind is None:
        return None
    candidates = [value.lhs] if fn is operator.sub else [value.lhs, value.rhs]
    for loaded in candidates:
        load = definitions.get(loaded.name)
        if (
            load is not None
            and isinstance(load.value, (ir.GetItem, ir.StaticGetItem))
            and load.value.value.name == array
            and read_count.get(loaded.name) == 1
            and same_index(_load_index(load.value), store.index, definitions, stable)
        ):
            return kind, load
    return None


def _load_index(value) -> ir.Var | None:
    return value.index if isinstance(value, ir.GetItem) else value.index_var


def same_index(first: ir.Var | None, second: ir.Var, definitions: dict, stable: set) -> bool:
    """Whether two variables hold the same value in one iteration: one variable, or the same
    expression (constants, tuples, operators, reads of arrays in `stable`, which the loop
    does not write) of such variables."""
    if first is None:
        return False
    first, second = _through_copies(first, definitions), _through_copies(second, definitions)
    if first.name == second.name:
        return True
    one, two = definitions.get(first.name), definitions.get(second.name)
    if one is None or two is None or type(one.value) is not type(two.value):
        return False
    x, y = one.value, two.value

    def same(a, b):
        return same_index(a, b, definitions, stable)

    if isinstance(x, ir.Const):
        return type(x.value) is type(y.value) and x.value == y.value
    if isinstance(x, ir.BuildTuple):
        return len(x.items) == len(y.items) and all(map(same, x.items, y.items))
    if isinstance(x, ir.BinOp):
        return x.fn is y.fn and same(x.lhs, y.lhs) and same(x.rhs, y.rhs)
    if isinstance(x, ir.UnaryOp):
        return x.fn is y.fn and same(x.value, y.value)
    if isinstance(x, ir.Call) and _calls_slice(x, definitions) and _calls_slice(y, definitions):
        return len(x.args) == len(y.args) and all(map(same, x.args, y.args))
    if isinstance(x, (ir.GetItem, ir.StaticGetItem)) and x.value.name == y.value.name:
        if x.value.name not in stable:
            return False
        if isinstance(x, ir.StaticGetItem):
            return type(x.index) is type(y.index) and x.index == y.index
        return same(x.index, y.index)
    return False


def _calls_slice(call: ir.Call, definitions: dict) -> bool:
    """`slice(a, b)`: the frontend's form of `a:b` in an index."""
    func = definitions.get(call.func.name)
    return (
        func is not None
        and isinstance(func.value, ir.Global)
        and func.value.value is slice
        and not call.kws
    )


def _through_copies(var: ir.Var, definitions: dict) -> ir.Var:
    seen = set()
    while var.name not in seen:
        seen.add(var.name)
        stmt = definitions.get(var.name)
        if stmt is None or not isinstance(stmt.value, ir.Var):
            break
        var = stmt.value
    return var


def _odd_write(accesses: list) -> str:
    """The text of a write the loop index does not place alone (a computed index, or the
    loop index at another position than the first write's)."""
    writes = [(place, text) for place, text, write in accesses if write]
    for place, text in writes:
        if not isinstance(place, tuple) or place != writes[0][0]:
            return text
    return writes[0][1]


def single_definitions(statements: list[ir.Stmt]) -> dict[str, ir.Assign]:
    """Variable -> its assignment, for the variables the body assigns exactly once."""
    found: dict[str, ir.Assign] = {}
    counts: dict[str, int] = {}
    for s in statements:
        for v in s.targets():
            counts[v.name] = counts.get(v.name, 0) + 1
            if isinstance(s, ir.Assign):
                found[v.name] = s
    return {name: s for name, s in found.items() if counts[name] == 1}


def _varying_names(statements, seeds: set[str], typemap: dict, blocks) -> tuple[set, set]:
    """The variables whose values may differ between iterations (computed from the loop
    index, read from arrays written with such values, or assigned under a branch on such a
    value), and the ids of the statements run or not by such a branch."""
    varying = set(seeds)
    guarded: set[int] = set()
    while True:
        _follow_data(statements, varying, typemap)
        labels = _guarded_labels(blocks, varying) if blocks else set()
        now = {id(s) for label in labels for s in blocks[label].body}
        if now == guarded:
            return varying, guarded
        guarded = now
        varying |= {v.name for s in statements if id(s) in guarded for v in s.targets()}


def _follow_data(statements: list[ir.Stmt], varying: set[str], typemap: dict) -> None:
    changed = True
    while changed:
        changed = False
        for s in statements:
            if not any(v.name in varying for v in s.sources()):
                continue
            reached = {v.name for v in s.targets()}
            if isinstance(s, ir.SetItem):
                reached.add(s.target.name)  # its items now differ between iterations
            elif isinstance(s, ir.Assign) and isinstance(s.value, ir.Call):
                reached |= {v.name for v in s.value.args if _is_array(typemap.get(v.name))}
            if not reached <= varying:
                varying |= reached
                changed = True


def _guarded_labels(blocks: dict[int, ir.Block], varying: set[str]) -> set[int]:
    """The body blocks a branch on a varying value decides whether to run: reachable from
    the branch without post-dominating it (a superset of control dependence)."""
    exit_node = None
    successors = {}
    for label, block in blocks.items():
        term = block.terminator
        targets = [term.truebr, term.falsebr] if isinstance(term, ir.Branch) else []
        targets = [term.target] if isinstance(term, ir.Jump) else targets
        successors[label] = [t if t in blocks else exit_node for t in targets] or [exit_node]
    every = set(blocks) | {exit_node}
    post = {label: set(every) for label in blocks}
    post[exit_node] = {exit_node}
    changed = True
    while changed:
        changed = False
        for label in blocks:
            found = {label} | set.intersection(*(post[t] for t in successors[label]))
            if found != post[label]:
                post[label], changed = found, True
    guarded: set[int] = set()
    for label, block in blocks.items():
        term = block.terminator
        if isinstance(term, ir.Branch) and term.cond.name in varying:
            reached = _reachable(successors, label) - {exit_node}
            guarded |= {b for b in reached if b not in post[label]}
    return guarded


def _reachable(successors: dict, start: int) -> set:
    seen: set = set()
    stack = list(successors[start])
    while stack:
        label = stack.pop()
        if label not in seen:
            seen.add(label)
            stack.extend(successors.get(label, ()))
    return seen


def parfor_array_accesses(parfor, typemap: dict) -> dict[str, tuple[set, bool]]:
    """`ArrayHazards.collect` for a parfor's body (its index variable and copies of it are
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
    return ArrayHazards(statements, typemap, params, aliases).collect()


def _is_array(typ) -> bool:
    return isinstance(typ, types.Array)


_MAX_CALL_DEPTH = 4


def written_parameters(dispatcher, depth: int = 0) -> set[int] | None:
    """The positions of the parameters whose array data a jitted callee may write (through
    views of them too), over its compiled specializations; None when unknown (not compiled
    yet, or calls nested too deep): then every array argument counts as written."""
    if not dispatcher.overloads or depth > _MAX_CALL_DEPTH:
        return None
    written: set[int] = set()
    for result in list(dispatcher.overloads.values()):
        found = result_written_parameters(result, depth)
        if found is None:
            return None
        written |= found
    return written


def result_written_parameters(result, depth: int = 0) -> frozenset[int] | None:
    """`written_parameters` of one compiled specialization: read from its body, or the
    summary its disk-cache entry kept (a loaded entry has no body)."""
    if result.func_ir is None or result.typing is None:
        return result.written_params
    statements = [s for _, s in result.func_ir.statements()]
    typemap = result.typing.typemap
    origins = _parameter_origins(statements, typemap)
    written: set[int] = set()
    for stmt in statements:
        found = _written_origins(stmt, typemap, origins, depth)
        if found is None:
            return None
        written |= found
    return frozenset(written)


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


# NumPy functions and array methods whose result may share its first operand's memory
_VIEW_FUNCTIONS = {np.reshape, np.ravel, np.transpose, np.squeeze, np.swapaxes, np.asarray,
                   np.ascontiguousarray, np.asfortranarray, np.atleast_1d, np.atleast_2d,
                   np.atleast_3d, np.expand_dims, np.moveaxis, np.broadcast_to, np.diagonal,
                   np.flip, np.fliplr, np.flipud, np.rot90, np.real, np.imag}  # fmt: skip
_VIEW_METHODS = {"reshape", "ravel", "transpose", "view", "swapaxes", "squeeze", "diagonal"}


def shared_memory(func_ir, typemap: dict, written: set[str], arrays: list[str]) -> list:
    """[(written, other, root, same_layout)] for each array `written` the loop writes and
    `other` it also reaches, both views of one array `root` made in the function (`b = a[1:]`,
    `a.T`, `a.reshape(...)`, `b = a`): each name's own-slab proof says nothing about the
    other's elements, unless `same_layout` (`b = a`, `b = a[:]`: equal indices, equal
    elements). Arguments that alias each other are the caller's business, as in Numba."""
    statements = [s for _, s in func_ir.statements()]
    roots = _memory_roots(statements, typemap)
    same = _same_layout(statements)
    found = []
    for name in sorted(written):
        for other in sorted(set(arrays) - {name}):
            common = roots.get(name, {name}) & roots.get(other, {other})
            if common:
                alike = same.get(name, name) == same.get(other, other)
                found.append((name, other, min(common), alike))
    return found


def _memory_roots(statements: list, typemap: dict) -> dict[str, set[str]]:
    """Array (and bound method) variable -> the names of the arrays whose memory it may view:
    itself when it holds a new array or an argument."""
    roots: dict[str, set[str]] = {}
    for _ in range(2):  # twice: a block may use a view made in a later-numbered block
        for stmt in statements:
            if isinstance(stmt, ir.Assign):
                typ = typemap.get(stmt.target.name)
                if isinstance(typ, (types.Array, types.BoundFunction)):
                    sources = _view_sources(stmt.value, typemap)
                    found = set().union(*(roots.get(v.name, {v.name}) for v in sources))
                    roots.setdefault(stmt.target.name, set()).update(found or {stmt.target.name})
    return roots


def _same_layout(statements: list) -> dict[str, str]:
    """Variable -> the variable it is a plain copy or a whole view (`a[:]`) of, followed back
    as far as each step is the only definition."""
    definitions = single_definitions(statements)
    found = {}
    for name in definitions:
        source, seen = name, set()
        while source in definitions and source not in seen:
            seen.add(source)
            value = definitions[source].value
            if isinstance(value, ir.Var):
                source = value.name
            elif isinstance(value, ir.StaticGetItem) and _whole(value.index):
                source = value.value.name
            else:
                break
        found[name] = source
    return found


def _whole(index) -> bool:
    """`:` (or `:, :`, ...): every element in place."""
    if isinstance(index, tuple):
        return bool(index) and all(_whole(item) for item in index)
    return index == slice(None, None, None)


def _view_sources(value, typemap: dict) -> list[ir.Var]:
    """The variables whose memory `value` may share ([] for a new array)."""
    if isinstance(value, ir.Var):
        return [value]
    if isinstance(value, ir.StaticGetItem):
        return [value.value]
    if isinstance(value, ir.GetItem):  # an array or list index makes a copy
        index = typemap.get(value.index.name)
        return [] if isinstance(index, (types.Array, types.List)) else [value.value]
    if isinstance(value, ir.GetAttr):
        return (
            [value.value]
            if value.attr in ("T", "real", "imag") or (value.attr in _VIEW_METHODS)
            else []
        )
    if isinstance(value, ir.Call):
        fnty = typemap.get(value.func.name)
        if isinstance(fnty, types.BoundFunction):
            return [value.func] if fnty.attr in _VIEW_METHODS else []
        if isinstance(fnty, types.Function):
            return value.args[:1] if fnty.typing_key in _VIEW_FUNCTIONS else []
        if isinstance(fnty, types.DispatcherType):  # may return a view of an argument
            return [v for v in value.args if _is_array(typemap.get(v.name))]
    return []


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
