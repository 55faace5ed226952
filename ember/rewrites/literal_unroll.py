"""The literal-unroll pass: `for x in literal_unroll(t)` over a tuple becomes one copy of the loop
body per member of `t`, each typed on its own, so members may differ in type (Numba's
`literal_unroll`). Runs before type inference; a first, tolerant inference finds `t`'s length.

Before:                                  After (t: Tuple(int64, float64)):
    $it = getiter(value=$t)                  $it = $t
    $phi44.1 = $it; jump 44                  $phi44.1 = $it; jump H0
  44: $p = iternext($phi44.1)              H0: $v.0 = static_getitem($phi44.1, 0); jump B0
      $v = pair_first($p) ...              B0: x.0 = $v.0; ... jump H1     (loop body, copy 0)
      branch $ok, 46, 90                   H1: $v.1 = static_getitem($phi44.1, 1); jump B1
  46: x = $v; ... jump 44                  B1: x.1 = $v.1; ... jump H2     (loop body, copy 1)
                                           H2: jump 90
A `continue` goes to the next copy, a `break` to the loop's exit. Variables used only inside the
loop are renamed per copy (`x.0`, `x.1`); the others keep one name and one unified type.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ember import types
from ember.errors import EmberError, UnsupportedError
from ember.ir import nodes as ir
from ember.ir.liveness import insert_dels, strip_dels
from ember.misc.literal import literal_unroll

_MAX_LOOPS = 64


@dataclasses.dataclass
class _Loop:
    """A `for` loop over `literal_unroll(source)`: where it starts and what it iterates."""

    getiter: ir.Assign  # `$it = getiter(value=...)`
    source: ir.Var  # the argument of literal_unroll
    header: int  # the block holding `iternext`
    iterator: ir.Var  # the header's variable holding the iterator
    body: int
    exit: int
    constant: tuple | None  # the tuple's value when it is a constant (a global, a literal)
    indexed: bool = False  # `for i in range(len(literal_unroll(t)))`: i is 0, 1, ... (literals)
    plain: bool = False  # `for x in t` without literal_unroll: unrolled when t's types differ
    enumerated: ir.Assign | None = None  # `for i, x in enumerate(t)`: the enumerate call


def unroll_literal_loops(
    func_ir: ir.FunctionIR, infer_types, prune=None, everywhere: bool = False
) -> bool:
    """Unroll every loop over `literal_unroll(tuple)`; `infer_types(func_ir)` returns the
    (possibly partial) typemap of a tolerant inference. After each loop, `prune(func_ir,
    known)` may drop the branches that the members' types decide (`isinstance(x, str)` in
    the copy for a string member), given `known`: each copy's item variable -> member type.
    `everywhere`: plain loops over any value typed as a tuple of mixed types (a tuple the
    function computes), not only displays, constants and arguments. True if one unrolled."""
    import ember.typing.generators  # noqa: F401 - the tolerant inference may meet a `yield`

    declined: set[int] = set()
    pruned = False  # branches of ordinary loops over tuples decided by their item type
    unrolled = _zips_of_mixed_tuples_as_displays(func_ir, infer_types)
    if unrolled:
        strip_dels(func_ir)
    for _ in range(_MAX_LOOPS):
        loop = _next_loop(func_ir, declined, everywhere)
        if loop is None:
            break
        tuple_type = infer_types(func_ir).get(loop.source.name)
        if not isinstance(tuple_type, types.BaseTuple) or (loop.plain and _one_type(tuple_type)):
            declined.add(id(loop.getiter))  # a list, an array, a UniTuple: an ordinary loop
            if isinstance(tuple_type, types.BaseTuple) and len(tuple_type) and prune is not None:
                pruned |= bool(_prune_by_item_type(func_ir, loop, tuple_type, prune))
            continue
        if not unrolled:
            strip_dels(func_ir)
            unrolled = True
        unroller = _Unroller(func_ir, loop, len(tuple_type))
        unroller.run()
        if prune is not None and not loop.indexed:
            known = dict(zip(unroller.item_names, tuple_type.types, strict=True))
            prune(func_ir, _with_unpacked_members(func_ir, known))
            strip_dels(func_ir)
    if unrolled:
        _renumber(func_ir)
        _number_yields(func_ir)
        insert_dels(func_ir)
    return unrolled or pruned


def _prune_by_item_type(func_ir: ir.FunctionIR, loop: _Loop, tuple_type, prune) -> bool:
    """An ordinary loop over a tuple of one type: its item's type decides `isinstance(x,
    str)` in the body (one item variable for every iteration)."""
    header = func_ir.blocks[loop.header]
    items = [
        stmt.target.name
        for stmt in header.body
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.PairFirst)
    ]
    if len(items) != 1:
        return False
    item_type = types.unliteral(tuple_type.types[0])
    return prune(func_ir, {items[0]: item_type})


def _zips_of_mixed_tuples_as_displays(func_ir: ir.FunctionIR, infer_types) -> bool:
    """`z = zip(t, u)` of tuples, one of mixed types (no iterator type holds its items):
    `z = ((t[0], u[0]), (t[1], u[1]), ...)`, which loops over it unroll. True if one was."""
    definitions = _definitions(func_ir)
    calls = [
        (block, stmt)
        for block, stmt in func_ir.statements()
        if isinstance(stmt, ir.Assign) and _enumerate_call(stmt.value, definitions, zip)
    ]
    if not calls:
        return False
    typemap = infer_types(func_ir)
    changed = False
    for block, stmt in calls:
        zipped = [typemap.get(arg.name) for arg in stmt.value.args]
        if not all(isinstance(t, types.BaseTuple) for t in zipped) or all(map(_one_type, zipped)):
            continue
        loc, made = stmt.loc, []
        rows = []
        for k in range(min(len(t) for t in zipped)):
            row = ir.Var(f"{stmt.target.name}.zip{k}", loc)
            items = [ir.Var(f"{stmt.target.name}.zip{k}.{j}", loc) for j in range(len(zipped))]
            made += [
                ir.Assign(item, ir.StaticGetItem(arg, k, None, loc), loc)
                for item, arg in zip(items, stmt.value.args, strict=True)
            ]
            made.append(ir.Assign(row, ir.BuildTuple(items, loc), loc))
            rows.append(row)
        stmt.value = ir.BuildTuple(rows, loc)
        index = next(i for i, other in enumerate(block.body) if other is stmt)
        block.body[index:index] = made
        changed = True
    return changed


def _with_unpacked_members(func_ir: ir.FunctionIR, known: dict) -> dict:
    """`known` and the variables bound once to an item of a known tuple member (`for x, y in
    zip(t, u)` unpacks each row: y's type decides `isinstance(y, str)` in each copy), also
    through the `(index, member)` display of enumerate."""
    definitions = _definitions(func_ir)
    known, displays = dict(known), {}  # displays: a tuple display's variable -> its items
    for _ in range(6):  # rows of rows, enumerate's pair: a few levels
        grown = False
        for _, stmt in func_ir.statements():
            name = stmt.target.name if isinstance(stmt, ir.Assign) else None
            if name is None or name in known or len(definitions.get(name, ())) != 1:
                continue
            value = stmt.value
            if isinstance(value, ir.ExhaustIter):
                value = value.value
            if isinstance(value, ir.BuildTuple) and name not in displays:
                displays[name], grown = list(value.items), True
            elif isinstance(value, ir.Var) and value.name in displays and name not in displays:
                displays[name], grown = displays[value.name], True
            elif isinstance(value, ir.Var) and value.name in known:
                known[name], grown = known[value.name], True
            elif isinstance(value, ir.StaticGetItem) and isinstance(value.index, int):
                found = _item_type(value.value.name, value.index, known, displays)
                if found is not None:
                    known[name], grown = found, True
        if not grown:
            break
    return known


def _item_type(name: str, index: int, known: dict, displays: dict) -> types.Type | None:
    whole = known.get(name)
    if isinstance(whole, types.BaseTuple) and -len(whole) <= index < len(whole):
        return whole.types[index]
    items = displays.get(name)
    if items is not None and -len(items) <= index < len(items):
        return known.get(items[index].name)
    return None


def _list_display_as_tuple(func_ir: ir.FunctionIR, source: ir.Var) -> ir.Expr | None:
    """`literal_unroll([a, b, c])`: a list display read nowhere else is a tuple display, so
    its items keep their own types (as in Numba); a display of constants is a constant tuple,
    so each copy of the body sees its item as a literal."""
    definitions: dict[str, list[Any]] = {}
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign):
            definitions.setdefault(stmt.target.name, []).append(stmt)
    made = definitions.get(source.name, [])
    if len(made) != 1 or not isinstance(made[0].value, ir.BuildList):
        return None
    reads = sum(
        var.name == source.name for _, stmt in func_ir.statements() for var in stmt.sources()
    )
    if reads != 1:
        return None
    display = made[0].value
    constants = [definitions.get(item.name, []) for item in display.items]
    if all(len(c) == 1 and isinstance(c[0].value, ir.Const) for c in constants):
        made[0].value = ir.Const(tuple(c[0].value.value for c in constants), display.loc)
    else:
        made[0].value = ir.BuildTuple(list(display.items), display.loc)
    return made[0].value


def _one_type(tuple_type: types.BaseTuple) -> bool:
    """A tuple whose items share one type (an empty one has none: its loops unroll to no
    copy of the body, which then needs no type for the item)."""
    members = {types.unliteral(member) for member in tuple_type.types}
    return isinstance(tuple_type, types.UniTuple) or len(members) == 1


def may_loop_over_mixed_tuple(func_ir: ir.FunctionIR, arg_types: tuple) -> bool:
    """Whether a plain `for` loop of `func_ir` iterates over a tuple display or a tuple
    argument whose members differ in type (CPython runs such a loop; it is unrolled), also
    through enumerate() or zip()."""
    definitions = _definitions(func_ir)
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.GetIter):
            value = ir.origin_of(stmt.value.value, definitions)
            call = _enumerate_call(value, definitions) or _enumerate_call(value, definitions, zip)
            iterables = (
                [value] if call is None else [ir.origin_of(a, definitions) for a in call.args]
            )
            if any(_mixed_tuple(origin, definitions, arg_types) for origin in iterables):
                return True
    return False


def _mixed_tuple(value: Any, definitions: dict, arg_types: tuple) -> bool:
    """Whether `value` is a display, constant or argument tuple of members of mixed types."""
    if isinstance(value, ir.BuildTuple):
        return not _constants_of_one_class(value, definitions)
    if isinstance(value, ir.Const) and isinstance(value.value, tuple):
        return len({type(member) for member in value.value}) > 1
    if isinstance(value, ir.Arg) and value.index < len(arg_types):
        typ = arg_types[value.index]
        return isinstance(typ, types.BaseTuple) and not _one_type(typ)
    return False


def _enumerate_call(value: Any, definitions: dict, wrapper: Any = enumerate) -> ir.Call | None:
    """`enumerate(t)` (one argument; `zip(t, u, ...)`: one or more) when `value` is that
    call."""
    if not (isinstance(value, ir.Call) and value.args and not value.kws):
        return None
    if wrapper is enumerate and len(value.args) != 1:
        return None
    return value if _constant_of(value.func, definitions) is wrapper else None


def _enumerate_assignment(func_ir: ir.FunctionIR, var: ir.Var, definitions: dict, everywhere):
    """The statement `e = enumerate(t)` that `var` holds (through copies) when t may be a
    tuple (`everywhere`: any value, typing decides)."""
    call = _enumerate_call(ir.origin_of(var, definitions), definitions)
    if call is None or not (everywhere or _may_be_tuple(ir.origin_of(call.args[0], definitions))):
        return None
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign) and stmt.value is call:
            return stmt
    return None


def _may_be_computed(value: Any, definitions: dict) -> bool:
    """A value the function computes that may be a tuple (`a.shape + (1.5,)`, a call, an
    item of a tuple of tuples): not a call of range() or of another builtin class."""
    if isinstance(value, ir.Call):
        return not isinstance(_constant_of(value.func, definitions), type)
    return isinstance(value, (ir.BinOp, ir.GetAttr, ir.StaticGetItem, ir.GetItem))


def _may_be_tuple(value: Any) -> bool:
    """A tuple display, a constant tuple, or an argument (typed as a tuple or not)."""
    if isinstance(value, ir.Const):
        return isinstance(value.value, tuple)
    return isinstance(value, (ir.BuildTuple, ir.Arg))


def _constants_of_one_class(display: ir.BuildTuple, definitions: dict) -> bool:
    """`(0, 1)`: constants of one Python class, a UniTuple without typing anything."""
    origins = [ir.origin_of(item, definitions) for item in display.items]
    if not all(isinstance(origin, ir.Const) for origin in origins):
        return False
    return len({type(origin.value) for origin in origins}) <= 1


def _definitions(func_ir: ir.FunctionIR) -> dict[str, list[Any]]:
    definitions: dict[str, list[Any]] = {}
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign):
            definitions.setdefault(stmt.target.name, []).append(stmt.value)
    return definitions


def tolerant_typemap(make_inferer) -> Any:
    """The types inference found before it failed (the loop body cannot type yet)."""

    def infer(func_ir: ir.FunctionIR) -> dict:
        inferer = make_inferer(func_ir)
        try:
            inferer.infer()
        except EmberError:
            pass
        return inferer.typemap

    return infer


# ---------------------------------------------------------------------------- finding loops


def _next_loop(func_ir: ir.FunctionIR, declined: set[int], everywhere: bool) -> _Loop | None:
    definitions = _definitions(func_ir)
    for block, stmt in func_ir.statements():
        if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.GetIter)):
            continue
        if id(stmt) in declined:
            continue
        source = _unrolled_source(stmt.value.value, definitions)
        indexed = plain = False
        if source is None:
            source = _indexed_source(stmt.value.value, definitions)
            indexed = source is not None
        enumerated = None
        if source is None:
            enumerated = _enumerate_assignment(func_ir, stmt.value.value, definitions, everywhere)
            if enumerated is not None:
                source, plain = enumerated.value.args[0], True
        origin = ir.origin_of(stmt.value.value, definitions)
        if source is None and (
            _may_be_tuple(origin) or (everywhere and _may_be_computed(origin, definitions))
        ):
            source, plain = stmt.value.value, True
        if source is None:
            continue
        found = _header_of(func_ir, block, stmt.target)
        if found is not None:
            as_tuple = _list_display_as_tuple(func_ir, source)
            if as_tuple is not None:
                definitions[source.name] = [as_tuple]
            header, iterator = found
            branch = func_ir.blocks[header].terminator
            constant = _constant_tuple(source, definitions)
            return _Loop(
                stmt,
                source,
                header,
                iterator,
                branch.truebr,
                branch.falsebr,
                constant,
                indexed,
                plain,
                enumerated,
            )
    return None


def _indexed_source(var: ir.Var, definitions: dict) -> ir.Var | None:
    """The tuple `t` of `range(len(literal_unroll(t)))` that `var` holds, if it holds one
    (Numba unrolls such a loop too: `t[i]` then has a constant index in each copy)."""
    for outer in (range, len):
        values = definitions.get(var.name, [])
        if len(values) != 1:
            return None
        call = values[0]
        if not (isinstance(call, ir.Call) and len(call.args) == 1 and not call.kws):
            return None
        if _constant_of(call.func, definitions) is not outer:
            return None
        var = call.args[0]
    return _unrolled_source(var, definitions)


def _unrolled_source(var: ir.Var, definitions: dict) -> ir.Var | None:
    """The argument of the `literal_unroll(...)` call that `var` holds, if it holds one."""
    for _ in range(16):  # through copies (it = literal_unroll(t); for x in it)
        values = definitions.get(var.name, [])
        if len(values) != 1:
            return None
        value = values[0]
        if isinstance(value, ir.Var):
            var = value
            continue
        if isinstance(value, ir.Call) and _constant_of(value.func, definitions) is literal_unroll:
            if len(value.args) != 1 or value.kws:  # Numba's words
                found = len(value.args) + len(value.kws)
                raise UnsupportedError(f"literal_unroll takes one argument, found {found}")
            return value.args[0]
        return None
    return None


def _constant_of(var: ir.Var, definitions: dict) -> Any:
    """The global (or `module.name`) value `var` holds, else None."""
    values = definitions.get(var.name, [])
    if len(values) != 1:
        return None
    if isinstance(values[0], (ir.Global, ir.FreeVar)):
        return values[0].value
    if isinstance(values[0], ir.GetAttr):
        return getattr(_constant_of(values[0].value, definitions), values[0].attr, None)
    return None


def _constant_tuple(var: ir.Var, definitions: dict) -> tuple | None:
    """The value of a tuple that `var` holds as a constant (a global or a literal), else None."""
    values = definitions.get(var.name, [])
    if len(values) == 1 and isinstance(values[0], ir.Const):
        value = values[0].value
    elif len(values) == 1 and isinstance(values[0], ir.Var):  # a copy
        value = _constant_tuple(values[0], definitions)
    elif len(values) == 1 and isinstance(values[0], ir.StaticGetItem):  # `t[:2]`
        whole = _constant_tuple(values[0].value, definitions)
        index = values[0].index
        value = whole[index] if whole is not None and isinstance(index, slice) else None
    else:
        value = _constant_of(var, definitions)
    return value if isinstance(value, tuple) else None


def _header_of(func_ir: ir.FunctionIR, block: ir.Block, iterator: ir.Var):
    """(label, phi variable) of the loop header fed by `iterator` from `block`'s jump, or a
    few jumps later (an inlined comprehension receives the iterator as its parameter, copies
    it, then loops)."""
    names = {iterator.name}
    for _ in range(_MAX_HOPS_TO_HEADER):
        if not isinstance(block.terminator, ir.Jump):
            return None
        for stmt in block.body:  # in order: a copy of a copy counts
            if (
                isinstance(stmt, ir.Assign)
                and isinstance(stmt.value, ir.Var)
                and stmt.value.name in names
            ):
                names.add(stmt.target.name)
        header = func_ir.blocks[block.terminator.target]
        for stmt in header.body:
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.IterNext):
                if stmt.value.value.name in names and isinstance(header.terminator, ir.Branch):
                    return header.label, stmt.value.value
        block = header
    return None


_MAX_HOPS_TO_HEADER = 3


# ---------------------------------------------------------------------------- unrolling


class _Unroller:
    def __init__(self, func_ir: ir.FunctionIR, loop: _Loop, count: int) -> None:
        self.func_ir = func_ir
        self.loop = loop
        self.count = count
        self.region = _loop_region(func_ir, loop)
        self.local_names = _names_only_in(func_ir, self.region | {loop.header})
        self.carried = self._carried_indexes() if loop.indexed else set()
        self.local_names |= self.carried
        self.next_label = max(func_ir.blocks) + 1
        self.copy_names = self._copy_names()
        self.item_names: list[str] = []  # per copy, the variable holding its member

    def _carried_indexes(self) -> set[str]:
        """The loop's index variables used after the loop too (`for i in ...: ...; return i`):
        each copy gets its own (a literal there) and also sets the shared one."""
        header = self.func_ir.blocks[self.loop.header]
        members: set[str] = set()  # the member and the header's copies of it
        for stmt in header.body:
            if isinstance(stmt, ir.Assign) and (
                isinstance(stmt.value, ir.PairFirst)
                or (isinstance(stmt.value, ir.Var) and stmt.value.name in members)
            ):
                members.add(stmt.target.name)
        assigned: dict[str, int] = {}
        for label in self.region:
            for stmt in self.func_ir.blocks[label].body:
                for target in stmt.targets():
                    assigned[target.name] = assigned.get(target.name, 0) + 1
        return {
            stmt.target.name
            for stmt in self.func_ir.blocks[self.loop.body].body
            if isinstance(stmt, ir.Assign)
            and isinstance(stmt.value, ir.Var)
            and stmt.value.name in members
            and assigned.get(stmt.target.name) == 1
            and stmt.target.name not in self.local_names
        }

    def run(self) -> None:
        loop, blocks = self.loop, self.func_ir.blocks
        getiter = loop.getiter
        getiter.value = getiter.value.value  # the iterator is the tuple itself
        if loop.enumerated is not None:  # (the enumerate call's value is the tuple now)
            loop.enumerated.value = loop.source
        headers = [self._fresh() for _ in range(self.count + 1)]
        copies = [self._fresh_labels() for _ in range(self.count)]
        new_blocks: list[ir.Block] = []
        for k in range(self.count):
            new_blocks.append(self._header_copy(k, headers, copies[k]))
            for label in sorted(self.region):
                new_blocks.append(self._body_copy(blocks[label], k, headers, copies[k]))
        new_blocks.append(self._last_header(headers[-1]))
        for label, block in blocks.items():  # the loop's entry now enters the first copy
            if label not in self.region and label != loop.header:
                _retarget(block, {loop.header: headers[0]})
        layout: dict[int, ir.Block] = {}
        for label, block in blocks.items():
            if label == loop.header:
                layout.update((b.label, b) for b in new_blocks)
            elif label not in self.region:
                layout[label] = block
        self.func_ir.blocks = layout

    def _fresh_labels(self) -> dict[int, int]:
        return {label: self._fresh() for label in sorted(self.region)}

    def _fresh(self) -> int:
        self.next_label += 1
        return self.next_label

    def _copy_names(self) -> list[dict[str, str]]:
        """Per copy k (and the last header, k = count), each local variable's name `x.k`, or
        a free `x.k_j` when another variable has it (a web of `x` is `x.1`: variable_webs.py).
        The source's name of each is recorded for messages and `locals=`."""
        taken = {v.name for _, s in self.func_ir.statements() for v in (*s.sources(), *s.targets())}
        copies = []
        for k in range(self.count + 1):
            names = {}
            for name in sorted(self.local_names):
                new, j = f"{name}.{k}", 0
                while new in taken:
                    j += 1
                    new = f"{name}.{k}_{j}"
                taken.add(new)
                names[name] = new
                if not name.startswith("$"):
                    self.func_ir.user_names[new] = self.func_ir.user_name(name)
            copies.append(names)
        return copies

    def _names(self, k: int) -> dict[str, str]:
        return self.copy_names[k]

    def _header_copy(self, k: int, headers: list[int], labels: dict[int, int]) -> ir.Block:
        """The header for member k: the member replaces `pair_first(iternext(...))`."""
        header = self.func_ir.blocks[self.loop.header]
        names = self._names(k)
        body: list[ir.Stmt] = []
        for stmt in header.body[:-1]:
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.PairFirst):
                member = self._member(k, stmt.loc)
                target = _renamed(stmt.target, names)
                if self.loop.enumerated is not None:  # (k, member)
                    member = self._with_index(k, member, body, stmt.loc)
                else:
                    self.item_names.append(target.name)
                body.append(ir.Assign(target, member, stmt.loc))
            elif not (
                isinstance(stmt, ir.Assign) and isinstance(stmt.value, (ir.IterNext, ir.PairSecond))
            ):
                body.append(_renamed(stmt, names))
        body.append(ir.Jump(labels[self.loop.body], header.terminator.loc))
        return ir.Block(headers[k], header.loc, body)

    def _with_index(self, k: int, member: Any, body: list, loc: Any) -> ir.BuildTuple:
        index, item = ir.Var(f"$enumerate.{k}.i", loc), ir.Var(f"$enumerate.{k}.x", loc)
        body += [ir.Assign(index, ir.Const(k, loc), loc), ir.Assign(item, member, loc)]
        self.item_names.append(item.name)  # the member's type decides isinstance() there
        return ir.BuildTuple([index, item], loc)

    def _member(self, k: int, loc: Any) -> Any:
        """Member k of the tuple: a constant (typed as a literal, so `record[name]` and other
        literal-keyed calls work in the body) when the tuple is a constant of such values."""
        if self.loop.indexed:  # the index itself
            return ir.Const(k, loc)
        constant = self.loop.constant
        if constant is not None and isinstance(constant[k], (str, int)):  # bool is an int
            return ir.Const(constant[k], loc)
        return ir.StaticGetItem(self.loop.iterator, k, None, loc)

    def _last_header(self, label: int) -> ir.Block:
        """After the last member: the header's own copies that do not need an item, then the
        loop's exit."""
        header = self.func_ir.blocks[self.loop.header]
        dropped: set[str] = set()
        body: list[ir.Stmt] = []
        for stmt in header.body[:-1]:
            if isinstance(stmt, ir.Assign) and (
                isinstance(stmt.value, ir.IterNext)
                or any(v.name in dropped for v in stmt.sources())
            ):
                dropped.add(stmt.target.name)
                continue
            body.append(_renamed(stmt, self._names(self.count)))
        body.append(ir.Jump(self.loop.exit, header.terminator.loc))
        return ir.Block(label, header.loc, body)

    def _body_copy(self, block: ir.Block, k: int, headers: list[int], labels: dict) -> ir.Block:
        names = self._names(k)
        body = []
        for stmt in block.body:
            body.append(_renamed(stmt, names))
            if isinstance(stmt, ir.Assign) and stmt.target.name in self.carried:
                body.append(ir.Assign(stmt.target, body[-1].target, stmt.loc))  # the shared one
        copy = ir.Block(labels[block.label], block.loc, body)
        _retarget(copy, {**labels, self.loop.header: headers[k + 1]})
        return copy


def _loop_region(func_ir: ir.FunctionIR, loop: _Loop) -> set[int]:
    """The loop body and its break paths: reached from the body without passing the header,
    and not reached from the loop's exit."""
    after_exit = _reachable(func_ir, loop.exit, stop={loop.header})
    return _reachable(func_ir, loop.body, stop={loop.header}) - after_exit


def _reachable(func_ir: ir.FunctionIR, start: int, stop: set[int]) -> set[int]:
    seen: set[int] = set()
    pending = [start]
    while pending:
        label = pending.pop()
        if label in seen or label in stop:
            continue
        seen.add(label)
        pending.extend(func_ir.blocks[label].successors())
    return seen


def _names_only_in(func_ir: ir.FunctionIR, labels: set[int]) -> set[str]:
    """Variables that every statement outside `labels` leaves alone."""
    inside: set[str] = set()
    outside: set[str] = set()
    for block, stmt in func_ir.statements():
        names = {v.name for v in (*stmt.sources(), *stmt.targets())}
        (inside if block.label in labels else outside).update(names)
    return inside - outside - set(func_ir.arg_names)


def _renamed(node: Any, names: dict[str, str]) -> Any:
    """A copy of an IR statement or expression with variables renamed by `names`."""
    if isinstance(node, ir.Var):
        return ir.Var(names.get(node.name, node.name), node.loc)
    if isinstance(node, list):
        return [_renamed(item, names) for item in node]
    if isinstance(node, tuple):
        return tuple(_renamed(item, names) for item in node)
    if isinstance(node, (ir.Expr, ir.Stmt)) and dataclasses.is_dataclass(node):
        changes = {
            f.name: _renamed(getattr(node, f.name), names)
            for f in dataclasses.fields(node)
            if f.name != "loc"
        }
        return dataclasses.replace(node, **changes)
    return node


def _retarget(block: ir.Block, labels: dict[int, int]) -> None:
    term = block.terminator
    if isinstance(term, ir.Jump):
        term.target = labels.get(term.target, term.target)
    elif isinstance(term, ir.Branch):
        term.truebr = labels.get(term.truebr, term.truebr)
        term.falsebr = labels.get(term.falsebr, term.falsebr)


def _renumber(func_ir: ir.FunctionIR) -> None:
    """Labels in layout order (later passes read blocks in label order)."""
    mapping = {label: 2 * index for index, label in enumerate(func_ir.blocks)}
    for block in func_ir.blocks.values():
        _retarget(block, mapping)
        block.label = mapping[block.label]
    func_ir.entry = mapping[func_ir.entry]
    func_ir.blocks = {block.label: block for block in func_ir.blocks.values()}


def _number_yields(func_ir: ir.FunctionIR) -> None:
    """Each `yield` its own resume point again (1, 2, ... in layout order): the copies of an
    unrolled body carry the numbers of the body's yields, and a generator resumes by number."""
    number = 0
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Yield):
            number += 1
            stmt.value = dataclasses.replace(stmt.value, index=number)


def pass_mixed_tuples_to_generator_expressions(func_ir: ir.FunctionIR, typemap_of) -> bool:
    """`sum(f(x) for x in t)` with t a tuple of mixed types: the generator expression's
    function is given t itself rather than iter(t), which has no type (the function takes
    iter() of its source: frontend/interpreter.py), and its loop over t unrolls. `typemap_of`:
    the types of a failed inference. True when a call changed."""
    definitions = func_ir._definitions
    calls = []
    for _, stmt in func_ir.statements():
        call = getattr(stmt, "value", None)
        if not (isinstance(call, ir.Call) and call.args):
            continue
        callee = definitions.get(call.func.name, ())
        if len(callee) != 1 or not isinstance(callee[0], ir.Global) or callee[0].name != "genexpr":
            continue
        made = definitions.get(call.args[0].name, ())
        if len(made) == 1 and isinstance(made[0], ir.GetIter):
            calls.append(call.args[0].name)
    if not calls:
        return False
    typemap = typemap_of(func_ir)
    changed = False
    for _, stmt in func_ir.statements():
        if not (isinstance(stmt, ir.Assign) and stmt.target.name in calls):
            continue
        typ = typemap.get(stmt.value.value.name)
        if isinstance(typ, types.BaseTuple) and not isinstance(typ, types.UniTuple):
            stmt.value = stmt.value.value  # the tuple itself, not iter() of it
            changed = True
    return changed
