"""Reduction variables of a parallel loop: which updates are recognised, their identity values,
and the small jitted helpers that make per-thread array accumulators and combine partial results.

Recognised updates of a variable `r` (anywhere in the body, under conditions too):
`r += v`, `r -= v`, `r *= v`, `r |= v`, `r &= v`, `r ^= v`, `r = r + v` (and the other
operators, `v + r` for commutative ones), `r = max(r, v)`, `r = min(v, r, w)` (any number of
arguments), `r = np.maximum(r, v)` (arrays too), the (value, index) pairs of np.argmin /
np.argmax (`r = next_min_pair(r, (a[i], i))`, templates.py), and tuples updated item by item
(`r = (r[0] + v, max(r[1], w))`: kind '(+, max)', each item a scalar reduction of its own).
`r` must be read nowhere else in the body, so no iteration sees another's partial value.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from ember import types
from ember.ir import nodes as ir

_OPERATOR_KINDS = {
    operator.add: "+", operator.sub: "+", operator.mul: "*", operator.or_: "|",
    operator.and_: "&", operator.xor: "^",
}  # fmt: skip
_COMMUTATIVE = {operator.add, operator.mul, operator.or_, operator.and_, operator.xor}
_ARRAY_KINDS = {"+", "*", "npmin", "npmax"}
# np.minimum / np.maximum of scalars: min/max that propagate NaN, as np.min / np.max do
_NUMPY_KINDS = {np.minimum: "npmin", np.maximum: "npmax"}


def match_update(
    stmt: ir.Stmt, name: str, definitions: dict, typemap: dict, aliases: frozenset = frozenset()
) -> tuple[str, bool, ir.Assign] | None:
    """(kind, inplace, the expression's statement) when `stmt` is `name = <update of name>`
    through one temporary (as the frontend writes `r += v`), else None. `aliases`: the
    temporaries only ever holding a copy of `name` (`r += a if c else b` hands r through the
    branches on the stack)."""
    if not (isinstance(stmt, ir.Assign) and stmt.target.name == name):
        return None
    value = stmt.value
    producer = None
    if isinstance(value, ir.Var):
        producer = definitions.get(value.name)
        if producer is None:
            return None
        value = producer.value
    found = _update_kind(value, name, typemap, aliases)
    if found is None:
        return None
    kind, inplace = found
    return kind, inplace, producer or stmt


def _update_kind(
    value: Any, name: str, typemap: dict, aliases: frozenset = frozenset()
) -> tuple[str, bool] | None:
    def is_r(var: ir.Var) -> bool:
        return var.name == name or var.name in aliases

    if isinstance(value, (ir.BinOp, ir.InplaceBinOp)):
        fn = value.immutable_fn if isinstance(value, ir.InplaceBinOp) else value.fn
        kind = _OPERATOR_KINDS.get(fn)
        if kind is None:
            return None
        if is_r(value.lhs) and not is_r(value.rhs):
            return kind, isinstance(value, ir.InplaceBinOp)
        if fn in _COMMUTATIVE and is_r(value.rhs) and not is_r(value.lhs):
            return kind, False
        return None
    if isinstance(value, ir.Call) and len(value.args) >= 2 and not value.kws:
        fnty = typemap.get(value.func.name)
        key = getattr(fnty, "typing_key", None)
        count = sum(map(is_r, value.args))
        # max(r, v, w) is max(max(r, v), w): any number of arguments folds the same way
        if key in (max, min) and count == 1:
            return key.__name__, False
        if len(value.args) != 2:
            return None
        if key in _NUMPY_KINDS and count == 1:
            return _NUMPY_KINDS[key], False
        if isinstance(fnty, types.DispatcherType) and is_r(value.args[0]) and count == 1:
            kind = next((k for k, f in _PAIR_PICKS.items() if f is fnty.dispatcher), None)
            if kind is not None:
                return kind, False
    return None


def stack_aliases(name: str, statements: list[ir.Stmt]) -> frozenset:
    """The body's temporaries every assignment of which copies `name` or another of them
    (`$phi.. = r`: the frontend handing r through a conditional expression's branches)."""
    copies: dict[str, set[str]] = {}
    others = set()
    for s in statements:
        for target in s.targets():
            if isinstance(s, ir.Assign) and isinstance(s.value, ir.Var):
                copies.setdefault(target.name, set()).add(s.value.name)
            else:
                others.add(target.name)
    aliases: set[str] = set()
    changed = True
    while changed:
        changed = False
        for target, sources in copies.items():
            if target in aliases or target in others or not target.startswith("$"):
                continue
            if sources <= aliases | {name}:
                aliases.add(target)
                changed = True
    return frozenset(aliases)


class TupleUpdate:
    """`r = (op0(r[0], v0), op1(r[1], v1), ...)` (also through `a, b = r`): the item kinds,
    and the temporaries carrying r's partial value, each with the statements allowed to read
    it (only the next step of its own item's update)."""

    def __init__(self, kinds: list[str], readers: dict[str, set[int]], producers: list):
        self.kinds = kinds
        self.readers = readers
        self.producers = producers

    @property
    def kind(self) -> str:
        return tuple_kind(self.kinds)


def tuple_kind(kinds: list[str]) -> str:
    return "(" + ", ".join(kinds) + ")"


def item_kinds(kind: str) -> list[str] | None:
    """The items' kinds of a tuple reduction's kind '(+, max)', else None."""
    if not kind.startswith("("):
        return None
    return kind[1:-1].split(", ")


def match_tuple_update(stmt: ir.Stmt, name: str, single: dict, typemap: dict) -> TupleUpdate | None:
    """The item-by-item update `stmt` makes of the tuple `name`, else None. `single`: the
    body's variables assigned exactly once, with their assignments."""
    if not (isinstance(stmt, ir.Assign) and stmt.target.name == name):
        return None
    build = _producer(stmt.value, single)
    if build is None or not isinstance(build.value, ir.BuildTuple):
        return None
    readers: dict[str, set[int]] = {}
    producers = [stmt, build]
    _chain(stmt.value, stmt, readers, single)
    kinds = []
    for position, item in enumerate(build.value.items):
        update = _producer(item, single)
        found = update and _item_update(update, name, position, single, typemap)
        if not found:
            return None
        kind, operand, getter = found
        kinds.append(kind)
        _chain(item, build, readers, single)
        _chain(operand, update, readers, single)
        producers += [update, getter]
        if getter.value.value.name != name:  # `a, b = r`: through an exhaust_iter
            unpack = single[getter.value.value.name]
            readers.setdefault(unpack.target.name, set()).add(id(getter))
            producers.append(unpack)
    return TupleUpdate(kinds, readers, producers)


def _producer(var: Any, single: dict) -> ir.Assign | None:
    """The assignment computing `var`'s value, past plain copies `x = y`."""
    for _ in range(32):
        stmt = single.get(var.name) if isinstance(var, ir.Var) else None
        if stmt is None or not isinstance(stmt.value, ir.Var):
            return stmt
        var = stmt.value
    return None


def _chain(var: ir.Var, reader: ir.Stmt, readers: dict, single: dict) -> None:
    """Notes that `var` may be read only by `reader`, and each copy it comes from only on the
    way there."""
    for _ in range(32):
        readers.setdefault(var.name, set()).add(id(reader))
        reader = single.get(var.name)
        if reader is None or not isinstance(reader.value, ir.Var):
            return
        var = reader.value


def _item_update(update: ir.Assign, name: str, position: int, single: dict, typemap: dict):
    """(kind, the operand holding `name[position]`, the statement reading that item) when
    `update` computes a reduction of item `position` of the tuple `name`."""
    for operand in update.value.sources():
        getter = _producer(operand, single)
        if getter is None or not _reads_item(getter.value, name, position, single):
            continue
        found = _update_kind(update.value, operand.name, typemap)
        if found is None or found[0] in _PAIR_PICKS:
            return None
        return found[0], operand, getter
    return None


def _reads_item(value: Any, name: str, position: int, single: dict) -> bool:
    """Whether `value` is `name[position]` (a constant index), or the item `position` of
    `a, b = name`."""
    if not isinstance(value, ir.StaticGetItem) or value.index != position:
        return False
    if value.value.name == name:
        return True
    unpack = single.get(value.value.name)
    return (
        unpack is not None
        and isinstance(unpack.value, ir.ExhaustIter)
        and unpack.value.value.name == name
    )


def supported_type(typ: types.Type, kind: str) -> bool:
    kinds = item_kinds(kind)
    if kinds is not None:
        return (
            isinstance(typ, types.BaseTuple)
            and len(typ.types) == len(kinds)
            and all(not isinstance(t, types.Array) for t in typ.types)
            and all(map(supported_type, typ.types, kinds))
        )
    if kind in _PAIR_PICKS:
        return isinstance(typ, types.BaseTuple) and len(typ.types) == 2
    if isinstance(typ, types.Array):
        if kind in ("npmin", "npmax"):
            return isinstance(typ.dtype, (types.Integer, types.Float))
        return kind in _ARRAY_KINDS and isinstance(typ.dtype, (types.Integer, types.Float,
                                                               types.Complex))  # fmt: skip
    if isinstance(typ, types.Boolean):
        return kind in ("|", "&", "^", "max", "min")
    if kind in ("npmin", "npmax"):
        return isinstance(typ, (types.Integer, types.Float))
    if isinstance(typ, types.Complex):
        return kind in ("+", "*")
    return isinstance(typ, (types.Integer, types.Float))


def identity(typ: types.Type, kind: str) -> Any:
    """The value each thread's accumulator starts from."""
    kinds = item_kinds(kind)
    if kinds is not None:
        return tuple(map(identity, typ.types, kinds))
    if isinstance(typ, types.Array):
        typ = typ.dtype
    if kind in _PAIR_PICKS:  # no item yet: any item's index is below this one
        return (identity(typ.types[0], kind[3:]), _NO_INDEX)
    if kind in ("+", "|", "^"):
        return False if isinstance(typ, types.Boolean) else 0
    if kind == "*":
        return 1
    if kind == "&":
        return True if isinstance(typ, types.Boolean) else -1
    if isinstance(typ, types.Boolean):
        return kind == "min"
    largest = kind in ("max", "npmax")
    if isinstance(typ, types.Float):
        return -math.inf if largest else math.inf
    return typ.minval if largest else typ.maxval


# ---------------------------------------------------------------------------- jitted helpers

_helpers: dict[tuple, Any] = {}


def combine_helper(kind: str, inplace: bool):
    """A jitted `(acc, part) -> acc'` for this kind of reduction."""
    key = ("combine", kind, inplace)
    if key not in _helpers:
        _helpers[key] = _make_combine(kind, inplace)
    return _helpers[key]


def compare_helper(symbol: str):
    """A jitted `(x, y) -> x <symbol> y` for the comparisons of conditional extremes."""
    key = ("compare", symbol)
    if key not in _helpers:
        from ember.decorators import njit

        _helpers[key] = njit(_COMPARES[symbol])
    return _helpers[key]


_COMPARES = {
    "<": lambda x, y: x < y, "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y, ">=": lambda x, y: x >= y,
}  # fmt: skip


def init_helper(typ: types.Array, kind: str):
    """A jitted `(acc) -> a new per-thread accumulator shaped like acc, filled with the
    kind's identity` (array reductions)."""
    start = identity(typ, kind)
    key = ("init", start)
    if key not in _helpers:
        _helpers[key] = _make_init(start)
    return _helpers[key]


def _make_combine(kind: str, inplace: bool):
    from ember.decorators import njit

    if kind in _PAIR_COMBINES:
        return _PAIR_COMBINES[kind]
    kinds = item_kinds(kind)
    if kinds is not None:
        return _tuple_combine(kinds)
    return njit((_INPLACE_COMBINES if inplace else _COMBINES)[kind])


def _tuple_combine(kinds: list[str]):
    """A jitted `(acc, part) -> acc'` combining a tuple reduction item by item."""
    from ember.decorators import njit

    namespace = {f"combine{k}": combine_helper(kind, False) for k, kind in enumerate(kinds)}
    items = "".join(f"combine{k}(acc[{k}], part[{k}]), " for k in range(len(kinds)))
    exec(f"def combine_items(acc, part):\n    return ({items})\n", namespace)
    return njit(namespace["combine_items"])


def _add(acc, part):
    return acc + part


def _mul(acc, part):
    return acc * part


def _or(acc, part):
    return acc | part


def _and(acc, part):
    return acc & part


def _xor(acc, part):
    return acc ^ part


def _max(acc, part):
    return max(acc, part)


def _min(acc, part):
    return min(acc, part)


def _npmin(acc, part):
    return np.minimum(acc, part)


def _npmax(acc, part):
    return np.maximum(acc, part)


def _iadd(acc, part):
    acc += part
    return acc


def _imul(acc, part):
    acc *= part
    return acc


_COMBINES = {
    "+": _add, "*": _mul, "|": _or, "&": _and, "^": _xor, "max": _max, "min": _min,
    "npmin": _npmin, "npmax": _npmax,
}  # fmt: skip
_INPLACE_COMBINES = {**_COMBINES, "+": _iadd, "*": _imul}


def _make_init(start):
    from ember.decorators import njit

    if start == 0:

        def init_zeros(acc):
            return np.zeros_like(acc)

        return njit(init_zeros)

    def init_filled(acc):
        return np.full_like(acc, start)

    return njit(init_filled)


# ---------------------------------------------------------------------------- argmin / argmax

_NO_INDEX = np.iinfo(np.int64).max  # the index of the identity pair: no item yet


def _next_pair(before, not_before):
    """The item update of np.argmin's loop (before is operator.lt, not_before operator.ge)
    or np.argmax's (gt, le)."""

    def next_pair(acc, item):
        # one item, whose index is above acc's (a chunk runs in order): the first NaN stays,
        # else a value before the best wins. Shaped so the usual case (not before) is one
        # predictable branch: LLVM turns the plain `a or b or c` into selects, 4x slower
        value, best = item[0], acc[0]
        if not_before(value, best) or best != best:
            if acc[1] != _NO_INDEX:
                return acc
        elif before(value, best):
            return item
        if acc[1] == _NO_INDEX or (value != value and best == best):
            return item
        return acc

    return next_pair


def _first_pair(before):
    """The combination of two chunks' pairs of np.argmin (before is operator.lt) or
    np.argmax (gt)."""

    def first_pair(acc, part):
        # in either order: the first NaN, else the value before the other, a tie going to
        # the lower index
        value, index = part
        best, best_index = acc
        if value != value:
            return acc if best != best and best_index < index else part
        if best != best:
            return acc
        return part if before(value, best) or (value == best and index < best_index) else acc

    return first_pair


def _jitted(functions: dict) -> dict:
    from ember.decorators import njit

    return {kind: njit(function) for kind, function in functions.items()}


_PAIR_PICKS = _jitted(
    {"argmin": _next_pair(operator.lt, operator.ge), "argmax": _next_pair(operator.gt, operator.le)}
)
_PAIR_COMBINES = _jitted({"argmin": _first_pair(operator.lt), "argmax": _first_pair(operator.gt)})


def pair_pick(kind: str):
    """The jitted item update of np.argmin's ('argmin') or np.argmax's ('argmax') loop."""
    return _PAIR_PICKS[kind]
