"""Inner functions that escape (returned, stored, passed to what is not inlined) for stage 2b
(inline_closures.py): consumes the IR its inlining leaves, makes each escaping `def` a jitted
function or closure value, removes the other function values and refuses what cannot escape."""

from __future__ import annotations

from collections.abc import Callable
from types import CellType
from typing import Any

from ember.errors import TypingError, UnsupportedError
from ember.frontend.genexpr import closure_function_of, inner_function_of
from ember.ir import nodes as ir

_RUN_TIME = object()  # default values known only at run time


class EscapingFunctions:
    """The escaping side of inline_closures._Inliner (a base class: it shares the inliner's
    state, and reads what can reach a variable with the inliner's `_reaching_values`,
    `_functions_held`, `_static_item(s)`, `_static_items_of` and `_number`)."""

    func_ir: ir.FunctionIR
    definitions: dict[str, list]
    count: int
    choice_tests: set[int]  # ids of the statements comparing inner functions' numbers
    jitted_values: dict[int, Any]  # id(MakeFunction) -> jitted function (a value)

    def _closes_over_run_time_values(self, captured: list[ir.Var]) -> bool:
        """Whether some of the variables `captured` are not a constant on every path."""
        reaching = [self._reaching_values(var.name) for var in captured]
        return not all(
            len(values) == 1 and isinstance(values[0], (ir.Const, ir.Global, ir.FreeVar))
            for values in reaching
        )

    def _function_valued(self) -> set[str]:
        """The variables that hold an inner function (or a tuple display of some)."""
        return {
            name
            for name in self.definitions
            if any(isinstance(v, ir.MakeFunction) for v in self._reaching_values(name))
            or any(self._functions_held(item) for item in self._static_items_of(name))
        }

    def _escaping_uses(self, function_valued: set[str]) -> list[tuple[ir.Var, ir.Stmt]]:
        """(variable, statement) for each use of an inner function other than a call, a copy
        or a run-time choice: returned, stored, passed to a function that is not inlined."""
        uses = []
        for _, stmt in self.func_ir.statements():
            is_copy = isinstance(stmt, ir.Assign) and stmt.target.name in function_valued
            if is_copy or id(stmt) in self.choice_tests or self._reads_other_item(stmt):
                continue
            uses += [(var, stmt) for var in stmt.sources() if var.name in function_valued]
        return uses

    def _jit_escaping_functions(self) -> None:
        """An inner function used as a value (returned, passed to an @overload-ed function)
        becomes a jitted function (one of several: a run-time choice among jitted functions),
        unless a call elsewhere chooses among inner functions by their numbers."""
        self.definitions = definitions(self.func_ir)
        numbered = {
            id(function)
            for _, stmt in self.func_ir.statements()
            if id(stmt) in self.choice_tests
            for function in self._functions_held(stmt.value.lhs)
        }
        escaping, uses = {}, {}
        for var, stmt in self._escaping_uses(self._function_valued()):
            held = self._functions_held(var) or [  # a tuple display of inner functions
                function
                for item in self._static_items_of(var.name)
                for function in self._functions_held(item)
            ]
            if not any(id(function) in numbered for function in held):
                escaping.update({id(function): (function, stmt.loc) for function in held})
                for function in held:
                    uses.setdefault(id(function), []).append(stmt)
        if not escaping:
            return
        closures = {
            key
            for key, (mf, _) in escaping.items()
            if self._closes_over_run_time(mf)
            or (
                self._defaults_if_constant(mf) is _RUN_TIME
                and not any(self._functions_held(var) for var in mf.closure)
            )
        }
        for key in closures:
            self._check_captured_unchanged(escaping[key][0], uses[key])
        jitted = {
            key: self._closure_function(mf, loc) if key in closures else self._jitted_value(mf, loc)
            for key, (mf, loc) in escaping.items()
        }
        for block in self.func_ir.blocks.values():
            for stmt in list(block.body):
                if isinstance(stmt, ir.Assign) and id(stmt.value) in jitted:
                    made, function = stmt.value, jitted[id(stmt.value)]
                    stmt.value = ir.Global(made.code.co_name, function, stmt.loc)
                    if id(made) in closures:
                        run_time = self._defaults_if_constant(made) is _RUN_TIME
                        defaults = made.defaults if run_time else None
                        self._bind_closure(block, stmt, made.closure, defaults)

    def _closes_over_run_time(self, make_function: ir.MakeFunction) -> bool:
        """Whether an inner function closes over a value known only at run time (and over no
        other inner function): it becomes a closure value, its captured values and a jitted
        function taking them first."""
        reaching = [self._reaching_values(var.name) for var in make_function.closure]
        if any(isinstance(v, ir.MakeFunction) for values in reaching for v in values):
            return False
        return self._closes_over_run_time_values(make_function.closure)

    def _check_captured_unchanged(self, make_function: ir.MakeFunction, uses: list) -> None:
        """A closure value holds the captured values as they are at the `def`; CPython reads
        them when the function runs. Those agree unless a captured variable is assigned on a
        path from the `def` to a use of the function value: that is refused."""
        names = {var.name for var in make_function.closure}
        defined = self._site(lambda stmt: getattr(stmt, "value", None) is make_function)
        for use in uses:
            between = self._statements_between(defined, self._site(lambda stmt: stmt is use))
            for stmt in between:
                changed = names & {target.name for target in stmt.targets()}
                if changed:
                    name = self.func_ir.user_name(sorted(changed)[0])
                    raise UnsupportedError(
                        f"the inner function '{make_function.code.co_name}' is used as a value "
                        f"and closes over '{name}', which is assigned after the `def` and "
                        f"before that use; the function value holds '{name}' as it is at the "
                        f"`def` (CPython reads it when the function runs): assign '{name}' "
                        "before the `def`, or pass it as an argument",
                        stmt.loc,
                    )

    def _site(self, matches: Callable) -> tuple[int, int]:
        """(block label, index) of the statement `matches` picks."""
        for label, block in self.func_ir.blocks.items():
            for index, stmt in enumerate(block.body):
                if matches(stmt):
                    return label, index
        raise AssertionError("statement not found")

    def _statements_between(self, start: tuple[int, int], end: tuple[int, int]) -> list:
        """Statements some path from the statement at `start` to the one at `end` runs,
        without running `start` again (a path through its block again makes a new value)."""
        (first, after), (last, before) = start, end
        blocks = self.func_ir.blocks
        if first == last and after < before:
            return blocks[first].body[after + 1 : before]
        forward = _reachable(self.func_ir.successors, first, first)
        predecessors = self.func_ir.predecessors()
        backward = _reachable(lambda label: predecessors[label], last, first)
        middle = (forward & backward) - {first, last}
        found = blocks[first].body[after + 1 :] + blocks[last].body[:before]
        for label in sorted(middle):
            found += blocks[label].body
        return found

    def _closure_function(self, make_function: ir.MakeFunction, loc) -> Any:
        defaults = self._defaults_if_constant(make_function)
        if defaults is _RUN_TIME:  # the closure value holds them (bind_closure)
            defaults = None
        function = closure_function_of(make_function.code, self.func_ir.py_func, defaults)
        if function is None:  # what a closure value cannot express: the constants' error
            return self._jitted_value(make_function, loc)
        return function

    def _bind_closure(
        self,
        block: ir.Block,
        stmt: ir.Assign,
        captured: list[ir.Var],
        run_time_defaults: ir.Var | None = None,
    ) -> None:
        """`f = <jitted function>` becomes `f = bind_closure(<jitted function>, (captured),
        defaults)` (values read where the `def` runs; CPython reads its cells when f runs;
        `defaults` is () when they are constants, compiled into the function)."""
        from ember.lowering.closures import bind_closure

        loc, self.count = stmt.loc, self.count + 1
        function, binder, env, defaults = (ir.Var(f"$closure{self.count}.{n}", loc) for n in "fbed")
        given = run_time_defaults if run_time_defaults is not None else ir.BuildTuple([], loc)
        index = next(i for i, other in enumerate(block.body) if other is stmt)
        block.body[index : index + 1] = [
            ir.Assign(function, stmt.value, loc),
            ir.Assign(binder, ir.Global("bind_closure", bind_closure, loc), loc),
            ir.Assign(env, ir.BuildTuple(list(captured), loc), loc),
            ir.Assign(defaults, given, loc),
            ir.Assign(stmt.target, ir.Call(binder, [function, env, defaults], [], loc), loc),
        ]

    def _jitted_value(self, make_function: ir.MakeFunction, loc) -> Any:
        """The jitted function for an inner function used as a value: what it closes over
        must be constants or other inner functions (itself included), fixed at compile time
        (a Python closure sees the values of its cells when it runs)."""
        made = self.jitted_values.get(id(make_function))
        if made is not None:
            return made
        code = make_function.code
        cells = tuple(CellType() for _ in code.co_freevars)
        defaults = self._constant_defaults(make_function, loc)
        made = inner_function_of(code, self.func_ir.py_func, cells, defaults)
        self.jitted_values[id(make_function)] = made
        for cell, var in zip(cells, make_function.closure):
            cell.cell_contents = self._captured_constant(var, code.co_name, loc)
        return made

    def _captured_constant(self, var: ir.Var, user: str, loc) -> Any:
        values = self._reaching_values(var.name)
        if len(values) == 1 and isinstance(values[0], ir.MakeFunction):
            return self._jitted_value(values[0], loc)
        if len(values) == 1 and isinstance(values[0], (ir.Const, ir.Global, ir.FreeVar)):
            return values[0].value
        why = (
            f"Cannot capture a constant value for variable '{var.name}' as there are multiple "
            "definitions present"
            if len(values) > 1
            else f"Cannot capture the non-constant value associated with variable '{var.name}'"
        )
        raise TypingError(
            f"the inner function '{user}' is used as a value (returned, passed to a function "
            f"that is not inlined or called recursively), so it is compiled on its own and "
            f"can only close over constants: {why}; pass the value as an argument instead",
            loc,
        )

    def _constant_defaults(self, make_function: ir.MakeFunction, loc) -> tuple | None:
        defaults = self._defaults_if_constant(make_function)
        if defaults is _RUN_TIME:
            raise TypingError(
                f"the inner function '{make_function.code.co_name}' is used as a value and "
                "closes over other inner functions, so its default values must be constants",
                loc,
            )
        return defaults

    def _defaults_if_constant(self, make_function: ir.MakeFunction) -> Any:
        """The default values of an inner function when they are constants (None without
        defaults), else _RUN_TIME."""
        if make_function.defaults is None:
            return None
        values = self._reaching_values(make_function.defaults.name)
        if len(values) == 1 and isinstance(values[0], ir.Const):
            return tuple(values[0].value)
        items = self._static_items(make_function.defaults)
        constants = [self._reaching_values(item.name) for item in items or ()]
        if items is None or not all(len(v) == 1 and isinstance(v[0], ir.Const) for v in constants):
            return _RUN_TIME
        return tuple(v[0].value for v in constants)

    def _remove_function_values(self) -> None:
        """A variable holding an inner function keeps only its number, and only where a
        run-time choice reads it; other assignments go. Any other use is an error."""
        self._jit_escaping_functions()
        self.definitions = definitions(self.func_ir)
        function_valued = self._function_valued()
        for _, stmt in self.func_ir.statements():
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.MakeFunction):
                stmt.value = ir.Const(self._number(stmt.value), stmt.loc)
        self._remove_unread(function_valued)
        for var, stmt in self._escaping_uses(function_valued):
            raise UnsupportedError(_escape_message(var, stmt, self), stmt.loc)

    def _reads_other_item(self, stmt: ir.Stmt) -> bool:
        """`x = t[k]` where item k of the tuple display `t` is no inner function (another
        item is: the functions of `t` became numbers, so `t` is an ordinary tuple)."""
        if not isinstance(stmt, ir.Assign):
            return False
        item = self._static_item(stmt.value)
        return item is not None and not any(
            isinstance(value, ir.MakeFunction) for value in self._reaching_values(item.name)
        )

    def _remove_unread(self, names: set[str]) -> None:
        """Drop assignments to `names` that nothing reads, until none is left."""
        while True:
            read = {var.name for _, stmt in self.func_ir.statements() for var in stmt.sources()}
            removed = False
            for block in self.func_ir.blocks.values():
                kept = [
                    stmt
                    for stmt in block.body
                    if not (
                        isinstance(stmt, ir.Assign)
                        and stmt.target.name in names
                        and stmt.target.name not in read
                    )
                ]
                removed |= len(kept) != len(block.body)
                block.body = kept
            if not removed:
                return


def _escape_message(var: ir.Var, stmt: ir.Stmt, inliner: EscapingFunctions) -> str:
    functions = [v for v in inliner._reaching_values(var.name) if isinstance(v, ir.MakeFunction)]
    names = sorted({function.code.co_name for function in functions})
    name = var.name if not var.is_temp else "/".join(names)
    if len(functions) != len(inliner._reaching_values(var.name)):
        return (
            f"'{name}' holds an inner function on some paths and another value on others; "
            "nopython mode needs one kind of value per variable"
        )
    return (
        f"the inner function '{name}' can only be called (or passed to a jitted function) in "
        "nopython mode; returning it, storing it or passing it elsewhere is not supported: "
        "make it a module-level @njit function"
    )


def _reachable(neighbours: Callable, start: int, stop: int) -> set[int]:
    """Blocks reached from `start`'s neighbours, not going through `stop`."""
    found: set[int] = set()
    pending = [n for n in neighbours(start) if n != stop]
    while pending:
        label = pending.pop()
        if label not in found:
            found.add(label)
            pending.extend(n for n in neighbours(label) if n != stop)
    return found


def definitions(func_ir: ir.FunctionIR) -> dict[str, list]:
    """Every value assigned to each variable of `func_ir`, by variable name."""
    found: dict[str, list] = {}
    for _, stmt in func_ir.statements():
        if isinstance(stmt, ir.Assign):
            found.setdefault(stmt.target.name, []).append(stmt.value)
    return found
