"""Empty containers take their item types from later stores, during type inference.

Consumes the inferer's typemap and definitions; refines the type of an empty list, dict or set
display (and the variables it was copied into) from the first store, append or call that decides
it, and widens a list display of numbers that later takes a wider number (`xs.append(2.5)`).
"""

from __future__ import annotations

import heapq

from ember import types
from ember.errors import TypingError
from ember.ir import nodes as ir
from ember.typing.failure_report import PRECISE_LIST_NOTE


class Pending(Exception):
    """An operand is not typed yet: try this statement again on the next sweep."""


class ListWidened(Exception):
    """A list display must hold a wider number type: type the function again."""


def require_precise(arg_types: tuple) -> None:
    """Operations wait until the item type of an empty list is known."""
    if not all(t.is_precise for t in arg_types):
        raise Pending


class ContainerRefinement:
    """The part of `TypeInferer` (typing/infer.py) that decides empty containers' types."""

    def _refine_stored_containers(self, stmt: ir.SetItem, args: tuple) -> None:
        """`xs[i] = v`, `xs[i:j] = []` and `d[k] = []` decide an empty container's items."""
        if not args[0].is_precise and is_refinable(args[0]):
            self._refine_list(stmt.target, args[0].refined_by("__setitem__", args[1:]), stmt.loc)
        if _empty_into_slice(*args):  # `xs[i:j] = []`: the items of xs
            self._refine_list(stmt.value, args[2].of(args[0].dtype), stmt.loc)
        if isinstance(args[0], types.DictType) and _empty_of_values(args[0], args[2]):
            self._refine_list(stmt.value, args[0].value_type, stmt.loc)  # `d[k] = []`

    def _refine_by_call(self, expr: ir.Call, fnty: types.Type, args: tuple) -> types.Type | None:
        """A method call on (or a push into) an empty container decides its items; returns
        the call's provisional result type while a dict still waits for its values."""
        if isinstance(fnty, types.BoundFunction) and is_refinable(fnty.this):
            if not fnty.this.is_precise:
                found = fnty.this.provisional_result(fnty.attr, args)
                waiting = awaiting_values(fnty.this) or is_refinable(found)
                if found is not None and (found.is_precise or waiting):
                    return found  # typed again, for real, once a store decides the dict
                refined = fnty.this.refined_by(fnty.attr, args)
                self._refine_list(self._receiver(expr.func), refined, expr.loc)
            self._widen_list(expr, fnty, args)
        if _pushes_into_empty_list(fnty, args):  # `heap = []; heapq.heappush(heap, item)`
            self._refine_list(expr.args[0], args[0].refined_by("append", args[1:]), expr.loc)
        if isinstance(fnty, types.BoundFunction) and _empty_default(fnty, args):
            # `d.setdefault(k, []).append(v)`: the empty display holds the dict's values
            self._refine_list(expr.args[1], fnty.this.value_type, expr.loc)
        return None

    def _check_empty_lists(self, statements: list[ir.Stmt]) -> None:
        """An empty list (dict, set) display that nothing stores into has no item type to
        compile for."""
        untyped = [
            stmt
            for stmt in statements
            if isinstance(stmt, ir.Assign)
            and is_refinable(self.typemap.get(stmt.target.name))
            and not self.typemap[stmt.target.name].is_precise
        ]
        if untyped:
            named = [
                self.func_ir.user_name(s.target.name)
                for s in untyped
                if not s.target.name.startswith("$")
            ]
            name = f"'{named[0]}'" if named else "here"
            kind = self.typemap[untyped[0].target.name]
            if awaiting_values(kind):
                what = "item type of the empty containers stored as values in the dict"
                hint = "d = {0: [0.0]}) or append"
            elif isinstance(kind, types.DictType):
                what, hint = "key and value types of the empty dict", "d = {0: 0.0}) or store"
            elif isinstance(kind, types.Set):
                what, hint = "item type of the empty set", "s = {0.0}) or add"
            else:
                what, hint = "item type of the empty list", "xs = [0.0]) or append"
            variable = named[0] if named else untyped[0].target.name
            numba_words = (
                f"Cannot infer the type of variable '{variable}', have imprecise type: {kind}."
            )
            if not named:  # a temporary: Numba's words for it too
                numba_words = f"Undecided type {variable} := {kind}. {numba_words}"
            if not isinstance(kind, (types.DictType, types.Set)):
                numba_words += " " + PRECISE_LIST_NOTE
            raise TypingError(
                f"{numba_words}\nCannot infer the {what} {name}: nothing is stored into it in "
                f"this function (an imprecise type). Give it an item ({hint} to it",
                untyped[0].loc,
            )

    def _refine_list(self, holder: ir.Var, refined: types.Type | None, loc: ir.Loc) -> None:
        """Give an empty list of undefined items the type a store into it decides: the
        variable `holder` and, backwards through copies, every variable it came from (later
        sweeps carry the type forward). Then retry the statement."""
        if refined is not None and (refined.is_precise or awaiting_values(refined)):
            self._settle_number_clash(holder, refined)
            self._refine_backwards(holder.name, refined, loc)
        raise Pending

    def _settle_number_clash(self, holder: ir.Var, refined: types.Type) -> None:
        """A store typed before another one decided the list (`xs = [float(x) for x in a]`
        with `xs.extend([1, 2])` typed first, before the comprehension's type reached xs): of
        two number types, the list display holds the wider one (retyped, as
        `_widen_list_for`), and a narrower store waits (Pending) for the list's type to reach
        it, its items converted when it is typed again."""
        if not (isinstance(refined, types.List) and isinstance(refined.dtype, types.Number)):
            return
        pending, seen = [holder.name], set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            current = self.typemap.get(name)
            if isinstance(current, types.List) and current.is_precise:
                if not isinstance(current.dtype, types.Number):
                    return
                wider = self.context.unify_pair(current.dtype, refined.dtype)
                if wider is current.dtype:
                    raise Pending
                self._widen_list_for(ir.Var(name, holder.loc), current, refined.dtype)
                return
            pending += [v.name for v in self.definitions.get(name, ()) if isinstance(v, ir.Var)]

    def _refine_backwards(self, name: str, refined: types.Type, loc: ir.Loc) -> None:
        """`refined` for `name` and the variables it was copied from; a container read out of
        a dict that waits for its values (`d[k]`, `d.setdefault(k, [])`) decides that dict's
        value type too: `d.setdefault(k, []).append(v)` with `d = {}`."""
        pending, seen = [name], set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            self._refine(ir.Var(name, loc), refined, loc)
            for value in self.definitions.get(name, ()):
                if isinstance(value, ir.Var):
                    pending.append(value.name)
                    continue
                source = self._waiting_dict_read(value)
                if source is not None:
                    key_type = self.typemap[source.name].key_type
                    self._refine_backwards(source.name, types.DictType(key_type, refined), loc)

    def _waiting_dict_read(self, value: ir.Expr) -> ir.Var | None:
        """The dict variable of `d[k]`, `d.setdefault(k, v)`, `d.get(k, v)` or `d.pop(k, v)`
        when that dict still waits for its value type, else None."""
        if isinstance(value, (ir.GetItem, ir.StaticGetItem)):
            source = value.value
        elif isinstance(value, ir.Call) and len(value.args) == 2:
            method = next(iter(self.definitions.get(value.func.name, ())), None)
            if not isinstance(method, ir.GetAttr) or method.attr not in _DEFAULTED_READS:
                return None
            source = method.value
        else:
            return None
        return source if awaiting_values(self.typemap.get(source.name)) else None

    def _widen_list(self, expr: ir.Call, method: types.BoundFunction, args: tuple) -> None:
        """`xs = [1]` then `xs.append(2.5)`: as in Numba, the list made here holds the wider
        number type from the start (its displays are typed again so, their items converted).
        A list that comes from elsewhere (an argument, a call) keeps its type."""
        if method.attr in ("append", "insert") and args:
            item = args[-1]
        elif method.attr == "extend" and len(args) == 1:  # `xs.extend([2.5])`
            item = types.items_of(args[0])
        else:
            return
        self._widen_list_for(self._receiver(expr.func), method.this, item)

    def _widen_list_for(self, receiver: ir.Var, this: types.Type, item: types.Type | None):
        """`receiver` (a list display's variable, of type `this`) takes `item`s: as Numba,
        the display holds the wider number type (`xs = [1]; xs += [2.5]`)."""
        if not this.is_precise or not isinstance(this, types.List) or item is None:
            return
        item = types.unliteral(item)
        if not isinstance(this.dtype, types.Number) or not isinstance(item, types.Number):
            return
        wider = self.context.unify_pair(this.dtype, item)
        if wider is None or wider is this.dtype:
            return
        displays = self._list_displays(receiver.name)
        if not displays:
            return
        for display in displays:
            self.widened_displays[id(display)] = types.List(wider)
        raise ListWidened

    def _list_displays(self, name: str) -> list[ir.BuildList]:
        """The list displays that reach the variable `name` (through copies); none when any
        definition on the way is something else."""
        seen, displays, pending = set(), [], [name]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            for value in self.definitions.get(current, ()):
                if isinstance(value, ir.Var):
                    pending.append(value.name)
                elif isinstance(value, ir.BuildList):
                    displays.append(value)
                else:
                    return []
        return displays

    def _refine_empty_copy(self, source: ir.Var, target_type, loc: ir.Loc) -> None:
        """`xs = a.split() if c else []`, `r = []` on one path of an `if`, `return []`: the
        empty list copied into a variable (returned) that another path made a precise list of
        the same kind takes that type, which nothing stored into it would decide."""
        source_type = self.typemap.get(source.name)
        if (
            is_refinable(source_type)
            and not source_type.is_precise
            and not awaiting_values(source_type)
            and target_type is not None
            and target_type.is_precise
            and type(target_type) is type(source_type)
        ):
            self._refine_backwards(source.name, target_type, loc)


def is_refinable(typ: types.Type | None) -> bool:
    """Containers whose empty display takes its member types from a later store."""
    return isinstance(typ, (types.List, types.HashTable))


def _empty_into_slice(target: types.Type, index: types.Type, value: types.Type) -> bool:
    """`xs[i:j] = []`: an empty list of undefined items stored into a known list's slice."""
    known_list = isinstance(target, types.List) and target.is_precise
    empty = isinstance(value, types.List) and not value.is_precise
    return known_list and empty and isinstance(index, types.SliceType)


def _empty_default(method: types.BoundFunction, args: tuple) -> bool:
    """`d.setdefault(k, [])` (or get/pop) of a known dict: the default is an empty display of
    undefined items of the same kind of container as the dict's values."""
    this = method.this
    if len(args) != 2 or method.attr not in _DEFAULTED_READS:
        return False
    return isinstance(this, types.DictType) and _empty_of_values(this, args[1])


def _empty_of_values(table: types.DictType, value: types.Type) -> bool:
    """Whether `value` is an empty display of undefined items of the same kind of container
    as the values of the known dict `table`."""
    if not table.is_precise or value.is_precise:
        return False
    kinds = (types.List, types.Set, types.DictType)
    return any(isinstance(value, k) and isinstance(table.value_type, k) for k in kinds)


_DEFAULTED_READS = ("setdefault", "get", "pop")

# Functions that store their second argument into the list given first.
_PUSHING_FUNCTIONS = (heapq.heappush, heapq.heappushpop)


def _pushes_into_empty_list(fnty: types.Type, args: tuple) -> bool:
    if not isinstance(fnty, types.Function) or fnty.typing_key not in _PUSHING_FUNCTIONS:
        return False
    return len(args) == 2 and isinstance(args[0], types.List) and not args[0].is_precise


def awaiting_values(typ: types.Type | None) -> bool:
    """A dict display whose key type is known and whose values are empty containers still
    waiting for their items (`d = {}; d[k] = []` before the `d[k].append(v)`)."""
    return (
        isinstance(typ, types.DictType)
        and typ.key_type.is_precise
        and not typ.value_type.is_precise
        and is_refinable(typ.value_type)
    )
