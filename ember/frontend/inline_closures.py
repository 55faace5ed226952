"""Stage 2b: inner functions (`def`, `lambda`) are inlined where they are called.

Consumes the IR of stage 2, where `def`/`lambda` is a `MakeFunction` and a cell (a variable an
inner function reads or writes) is an ordinary variable of the enclosing function; produces IR
with neither: each call of an inner function becomes a copy of its body, its parameters bound
to the call's arguments, its free variables reading and writing the enclosing variables
themselves, its returns jumping to the statement after the call.

Why inlining: a closure that does not escape needs no runtime object at all. The body reads the
enclosing variable when it runs, as CPython does (a captured value reassigned between the `def`
and the call is seen), `nonlocal` writes land in the enclosing variable (Numba refuses them), and
each call site is typed for its own argument types. An inner function passed to another jitted
function (`apply(inner, x)`) is handled the same way: the callee is inlined too, so the call of
its parameter becomes a call of the inner function. A variable that holds one of several
inner functions (`f = (lambda ...) if c else (lambda ...)`) holds a small number instead; each
call of it tests the number and runs the inlined body of the chosen one. An inner function used
as a value (returned, passed to a function that is not inlined) or called recursively becomes a
jitted function, or a closure value over run-time captures (escaping_closures.py); other uses
raise an UnsupportedError naming the line. A callee's body is copied by inline_renaming.py.

    before:                                   after:
      inner = make_function(inner, (k,))        x.inner.1 = n
      $4 = call inner(n)                        $inner.1.2 = x.inner.1 * k
      ...                                       $4 = $inner.1.2
                                                jump <continuation>
"""

from __future__ import annotations

import dataclasses
import inspect
import operator
from collections.abc import Callable
from types import CellType, CodeType, FunctionType, ModuleType
from typing import Any

from ember.errors import KWARGS_PARAMETERS_MESSAGE, UnsupportedError
from ember.frontend.bytecode import ByteCode
from ember.frontend.escaping_closures import EscapingFunctions, definitions
from ember.frontend.genexpr import closure_function_of, generator_of
from ember.frontend.inline_renaming import Renamer
from ember.frontend.interpreter import build_ir
from ember.ir import nodes as ir
from ember.library.builtins.key_functions import BY_METHOD, ITEMS_AS_ARGUMENTS, WITH_DEFAULT

_MAX_INLINED_CALLS = 1000  # a guard against runaway growth (e.g. a chain of wrappers)


def inline_inner_functions(
    func_ir: ir.FunctionIR, jitted_function_of: Callable[[Any], FunctionType | dict | None]
) -> None:
    """Inline every call of an inner function of `func_ir` in place.

    `jitted_function_of(value)` gives the Python function behind a jitted function (a global
    the IR calls; a dict of them by the call's number of positional arguments), or None: such
    callees are inlined when an inner function is passed to them.
    """
    if func_ir.makes_functions():
        _Inliner(func_ir, jitted_function_of).run()


@dataclasses.dataclass
class _CallSite:
    block: ir.Block
    index: int
    code: CodeType | None
    make_function: ir.MakeFunction | None  # None: a jitted callee (py_func) is inlined
    py_func: FunctionType | None = None
    candidates: list[ir.MakeFunction] | None = None  # chosen at run time among these


class _Inliner(EscapingFunctions):
    def __init__(self, func_ir: ir.FunctionIR, jitted_function_of: Callable) -> None:
        self.func_ir = func_ir
        self.jitted_function_of = jitted_function_of
        self.chains: dict[int, tuple[CodeType, ...]] = {}  # label -> codes inlined around it
        self.count = 0
        self.numbers: dict[int, int] = {}  # id(MakeFunction) -> its number as a run-time value
        self.choice_tests: set[int] = set()  # ids of the statements comparing those numbers
        self.jitted_values: dict[int, Any] = {}  # id(MakeFunction) -> jitted function (a value)

    def run(self) -> None:
        while True:
            self.definitions = definitions(self.func_ir)
            site = self._next_call_site()
            if site is None:
                break
            self.count += 1
            if self.count > _MAX_INLINED_CALLS:
                raise UnsupportedError("too many nested inner-function calls to inline", None)
            if site.candidates is not None:
                self._split_choice(site)
            elif site.code is not None and _is_generator(site.code):
                self._call_generator(site)
            else:
                self._inline(site)
        self._remove_function_values()

    # ------------------------------------------------------------------ finding calls

    def _reaching_values(self, name: str, seen: set[str] | None = None) -> list:
        """The non-copy values that can reach variable `name` through copies."""
        seen = set() if seen is None else seen
        if name in seen:
            return []
        seen.add(name)
        found = []
        for value in self.definitions.get(name, ()):
            item = self._static_item(value)
            if isinstance(value, ir.Var):
                found += self._reaching_values(value.name, seen)
            elif item is not None:  # `t[0]` of a tuple display: what the display holds there
                found += self._reaching_values(item.name, seen)
            else:
                found.append(value)
        return found

    def _static_items_of(self, name: str) -> list:
        """The items of variable `name` when it is a tuple display (or sum of them), else []
        (a tuple that carried inner functions to a spread call goes with them)."""
        return self._static_items(ir.Var(name, None)) or []

    def _static_item(self, value: Any) -> ir.Var | None:
        if not (isinstance(value, ir.StaticGetItem) and type(value.index) is int):
            return None
        items = self._static_items(value.value)
        if items is None or not -len(items) <= value.index < len(items):
            return None
        return items[value.index]

    def _functions_held(self, var: ir.Var) -> list[ir.MakeFunction]:
        """The distinct inner functions `var` may hold when it holds nothing else, else []."""
        values = self._reaching_values(var.name)
        if not values or not all(isinstance(value, ir.MakeFunction) for value in values):
            return []
        return list({id(value): value for value in values}.values())

    def _function_of(self, var: ir.Var) -> ir.MakeFunction | None:
        """The one inner function that `var` always holds, or None."""
        held = self._functions_held(var)
        return held[0] if len(held) == 1 else None

    def _jitted_callee(self, call: ir.Call) -> FunctionType | None:
        """The Python function to inline for a call that passes an inner function: a jitted
        function's, or a method taking a key function (`xs.sort(key=...)`), whose receiver
        then becomes the first argument."""
        values = self._reaching_values(call.func.name)
        if len(values) == 1 and isinstance(values[0], ir.GetAttr):
            module = self._module_of(values[0].value)
            if module is not None:  # functools.reduce(...): the module's function
                values = [ir.Global(values[0].attr, getattr(module, values[0].attr, None), None)]
        if len(values) == 1 and isinstance(values[0], (ir.Global, ir.FreeVar)):
            callee = self.jitted_function_of(values[0].value)
            if isinstance(callee, dict):  # chosen by the number of positional arguments
                callee = callee.get(len(call.args))
            if any(name == "default" for name, _ in call.kws):
                callee = WITH_DEFAULT.get(callee, callee)
            return callee
        if len(values) == 1 and isinstance(values[0], ir.GetAttr):
            method = BY_METHOD.get(values[0].attr)
            if method is not None:
                call.args = [values[0].value, *call.args]
            return method
        return None

    def _module_of(self, var: ir.Var) -> ModuleType | None:
        values = self._reaching_values(var.name)
        if len(values) == 1 and isinstance(values[0], ir.Global):
            value = values[0].value
            return value if isinstance(value, ModuleType) else None
        return None

    def _next_call_site(self) -> _CallSite | None:
        for label in sorted(self.func_ir.blocks):
            block = self.func_ir.blocks[label]
            for index, stmt in enumerate(block.body):
                if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Call)):
                    continue
                call = stmt.value
                held = self._functions_held(call.func)
                if held and call.vararg is not None:
                    index += self._spread_static_tuple(block, index, call, stmt.loc)
                if len(held) == 1:
                    return _CallSite(block, index, held[0].code, held[0])
                if held:
                    return _CallSite(block, index, None, None, candidates=held)
                spread = [] if call.vararg is None else self._static_items(call.vararg) or []
                operands = [*call.args, *spread, *(value for _, value in call.kws)]
                if any(self._functions_held(var) for var in operands):
                    if spread:
                        index += self._spread_static_tuple(block, index, call, stmt.loc)
                    py_func = self._jitted_callee(call)
                    if py_func in ITEMS_AS_ARGUMENTS and len(call.args) > 1:
                        index += self._pack_arguments(block, index, call, stmt.loc)
                    # a generator callee is not inlined: it is given the jitted function
                    if py_func is not None and not _is_generator(py_func.__code__):
                        return _CallSite(block, index, py_func.__code__, None, py_func)
        return None

    def _static_items(self, var: ir.Var, seen: frozenset = frozenset()) -> list | None:
        """The item variables of `var` when it always holds one tuple display, or a sum of
        them (`(f,) + args`, how `g(f, *args)` is built), else None."""
        values = self._reaching_values(var.name)
        if len(values) != 1 or var.name in seen:
            return None
        value = values[0]
        if isinstance(value, ir.BuildTuple):
            return list(value.items)
        if isinstance(value, ir.BinOp) and value.fn is operator.add:
            left = self._static_items(value.lhs, seen | {var.name})
            right = self._static_items(value.rhs, seen | {var.name})
            return None if left is None or right is None else left + right
        return None

    def _pack_arguments(self, block: ir.Block, index: int, call: ir.Call, loc) -> int:
        """`max(a, b, key=f)` becomes `max((a, b), key=f)`: the one-iterable form that
        key_functions implements. Returns how many statements were inserted."""
        packed = ir.Var(f"$packed{self.count}.{index}", loc)
        block.body.insert(index, ir.Assign(packed, ir.BuildTuple(list(call.args), loc), loc))
        call.args = [packed]
        self.definitions.setdefault(packed.name, []).append(block.body[index].value)
        return 1

    def _spread_static_tuple(self, block: ir.Block, index: int, call: ir.Call, loc) -> int:
        """`f(a, *t)` where `t` has a length known here (`t = (x, y)`, as an inlined
        `def g(f, *args): f(*args)` binds it) becomes `f(a, t[0], t[1])`: the items are read
        from `t` just before the call. Returns how many statements were inserted."""
        items = self._static_items(call.vararg)
        if items is None:
            raise UnsupportedError(
                "calling an inner function with *args unpacking is supported only for a tuple "
                "written out in the function (or the *args of a jitted function it is passed "
                "to); pass the items one by one",
                loc,
            )
        reads = []
        for position in range(len(items)):
            item = ir.Var(f"$spread{self.count}.{index}.{position}", loc)
            reads.append(ir.Assign(item, ir.StaticGetItem(call.vararg, position, None, loc), loc))
            call.args.append(item)
        call.vararg = None
        block.body[index:index] = reads
        return len(reads)

    # ------------------------------------------------------------------ inlining one call

    def _inline(self, site: _CallSite) -> None:
        call_stmt = site.block.body[site.index]
        chain = self.chains.get(site.block.label, ())
        if site.code in chain:
            self._call_jitted_recursion(site, call_stmt)
            return
        callee_ir, bound = self._callee(site, call_stmt.value)
        tag = f"{site.code.co_name.strip('<>')}.{self.count}"
        kept = {}
        if site.make_function is not None:  # free variables are the enclosing cells
            kept = dict(zip(site.code.co_freevars, (v.name for v in site.make_function.closure)))
        base = max(self.func_ir.blocks) + 1
        continuation = base + max(callee_ir.blocks) + 1
        renamer = Renamer(tag, kept, base, set(callee_ir.blocks))
        for label, block in callee_ir.blocks.items():
            copied = ir.Block(base + label, block.loc)
            for stmt in block.body:
                copies = renamer.statement(stmt, bound, call_stmt.target, continuation)
                copied.body += copies
                self._note_free_variable_reads(stmt, copies, kept)
            self.func_ir.blocks[copied.label] = copied
            self.chains[copied.label] = (*chain, site.code)
        rest = ir.Block(continuation, call_stmt.loc, site.block.body[site.index + 1 :])
        self.func_ir.blocks[continuation] = rest
        self.chains[continuation] = chain
        self._protect_inlined(site.block.label, callee_ir, base, continuation)
        site.block.body[site.index :] = [ir.Jump(base + callee_ir.entry, call_stmt.loc)]

    def _note_free_variable_reads(self, stmt: ir.Stmt, copies: list, kept: dict) -> None:
        """Remember the copies of a statement that reads variables the inner function closes
        over (`kept`: its free variable -> the enclosing variable)."""
        free = {kept[var.name] for var in stmt.sources() if var.name in kept}
        for copy in copies if free else ():
            read = {var.name for var in copy.sources()} & free
            self.func_ir.free_variable_reads.update((id(copy), name) for name in read)

    def _call_jitted_recursion(self, site: _CallSite, call_stmt: ir.Assign) -> None:
        """A recursive call of an inner function calls it as a jitted function (which calls
        itself), when everything it closes over is a constant."""
        if site.make_function is None:
            raise UnsupportedError(
                f"the recursive function '{site.code.co_name}' cannot be compiled when it is "
                "given an inner function: define both at module level with @njit",
                call_stmt.loc,
            )
        if self._recursive_closure_call(site, call_stmt):
            return
        jitted = self._jitted_value(site.make_function, call_stmt.loc)
        callee = ir.Var(f"$recursion{self.count}", call_stmt.loc)
        site.block.body.insert(
            site.index,
            ir.Assign(callee, ir.Global(site.code.co_name, jitted, callee.loc), callee.loc),
        )
        call_stmt.value = dataclasses.replace(call_stmt.value, func=callee)

    def _recursive_closure_call(self, site: _CallSite, call_stmt: ir.Assign) -> bool:
        """A recursive inner function over run-time values (and itself): the recursive call
        calls its closure function (genexpr.closure_function_of) over the current values of
        the variables it closes over, as CPython reads its cells at the call. False when it
        closes over constants only, or over other inner functions."""
        make_function = site.make_function
        itself = []
        captured = []
        for name, var in zip(site.code.co_freevars, make_function.closure):
            values = self._reaching_values(var.name)
            if any(value is make_function for value in values):
                itself.append(name)
            elif any(isinstance(value, ir.MakeFunction) for value in values):
                return False
            else:
                captured.append(var)
        if len(itself) != 1 or not self._closes_over_run_time_values(captured):
            return False
        defaults = self._constant_defaults(make_function, call_stmt.loc)
        code, py_func = site.code, self.func_ir.py_func
        function = closure_function_of(code, py_func, defaults, itself=itself[0])
        if function is None:
            return False
        callee = ir.Var(f"$recursion{self.count}", call_stmt.loc)
        site.block.body.insert(
            site.index, ir.Assign(callee, ir.Global(code.co_name, function, callee.loc), callee.loc)
        )
        self._bind_closure(site.block, site.block.body[site.index], captured)
        call_stmt.value = dataclasses.replace(call_stmt.value, func=callee)
        return True

    def _protect_inlined(self, caller_label: int, callee_ir, base: int, continuation: int) -> None:
        """The callee's `try` blocks keep their handlers (relabelled); its other blocks, and
        the rest of the caller's block, raise to the handler protecting the call, if any."""
        handlers = self.func_ir.exception_handlers
        enclosing = handlers.get(caller_label)
        for label in callee_ir.blocks:
            own = callee_ir.exception_handlers.get(label)
            if own is not None:
                handlers[base + label] = base + own
            elif enclosing is not None:
                handlers[base + label] = enclosing
        if enclosing is not None:
            handlers[continuation] = enclosing

    def _call_generator(self, site: _CallSite) -> None:
        """A call of a generator expression or inner generator function becomes a call of a
        jitted generator function with its arguments and the enclosing variables it reads
        (frontend/genexpr.py)."""
        call_stmt = site.block.body[site.index]
        loc = call_stmt.loc
        code = site.code
        if (
            site.make_function is None
            or code.co_flags & inspect.CO_VARARGS
            or code.co_kwonlyargcount
        ):
            raise UnsupportedError(
                f"the inner generator {code.co_name} can only be called directly, and without "
                "*args or keyword-only parameters, in nopython mode",
                loc,
            )
        generator = generator_of(code, self.func_ir.py_func, loc)
        callee = ir.Var(f"$genexpr{self.count}", loc)
        statements = [ir.Assign(callee, ir.Global("genexpr", generator, loc), loc)]
        arguments = []
        bound = self._bind(self._binding_function(site), site.make_function, call_stmt.value)
        for position, value in enumerate(bound.values()):  # keywords and defaults in place
            if not isinstance(value, ir.Var):
                var = ir.Var(f"$genexpr{self.count}.arg{position}", loc)
                statements.append(ir.Assign(var, value, loc))
                value = var
            arguments.append(value)
        for position, cell in enumerate(site.make_function.closure):
            inner = self._function_of(cell)
            if inner is not None:  # another inner function the generator calls: jitted too
                cell = ir.Var(f"$genexpr{self.count}.{position}", loc)
                jitted = self._jitted_value(inner, loc)
                statements.append(ir.Assign(cell, ir.Global(inner.code.co_name, jitted, loc), loc))
            arguments.append(cell)
        statements.append(ir.Assign(call_stmt.target, ir.Call(callee, arguments, [], loc), loc))
        site.block.body[site.index : site.index + 1] = statements

    def _split_choice(self, site: _CallSite) -> None:
        """`r = f(args)` where f is one of several inner functions: compare f's number with
        each candidate's and call that one (each call is then inlined on its own)."""
        call_stmt = site.block.body[site.index]
        call, loc = call_stmt.value, call_stmt.loc
        chain = self.chains.get(site.block.label, ())
        base = max(self.func_ir.blocks) + 1
        continuation = base + 2 * len(site.candidates)
        tail = site.block.body[site.index + 1 :]
        site.block.body[site.index :] = [ir.Jump(base, loc)]
        last = len(site.candidates) - 1
        for position, candidate in enumerate(site.candidates):
            test_label, call_label = base + 2 * position, base + 2 * position + 1
            callee = ir.Var(f"$choice{self.count}.{position}", loc)
            calling = [
                ir.Assign(callee, candidate, loc),
                ir.Assign(call_stmt.target, ir.Call(callee, call.args, call.kws, loc), loc),
                ir.Jump(continuation, loc),
            ]
            if position == last:  # no test: the only one left
                testing = [ir.Jump(call_label, loc)]
            else:
                testing = self._number_test(call.func, candidate, call_label, test_label + 2, loc)
            self._add_block(ir.Block(call_label, loc, calling), chain)
            self._add_block(ir.Block(test_label, loc, testing), chain)
        self._add_block(ir.Block(continuation, loc, tail), chain)

    def _number_test(self, func: ir.Var, candidate, if_equal: int, otherwise: int, loc) -> list:
        number = ir.Var(f"$choice{self.count}.{if_equal}.number", loc)
        equal = ir.Var(f"$choice{self.count}.{if_equal}.equal", loc)
        compare = ir.Assign(equal, ir.BinOp(operator.eq, func, number, loc), loc)
        self.choice_tests.add(id(compare))
        return [
            ir.Assign(number, ir.Const(self._number(candidate), loc), loc),
            compare,
            ir.Branch(equal, if_equal, otherwise, loc),
        ]

    def _number(self, make_function: ir.MakeFunction) -> int:
        return self.numbers.setdefault(id(make_function), len(self.numbers))

    def _add_block(self, block: ir.Block, chain: tuple) -> None:
        self.func_ir.blocks[block.label] = block
        self.chains[block.label] = chain

    def _binding_function(self, site: _CallSite) -> FunctionType:
        """A Python function with the callee's parameters (and as many defaults)."""
        if site.make_function is None:
            return site.py_func
        cells = tuple(CellType() for _ in site.code.co_freevars)
        py_func = FunctionType(site.code, self.func_ir.py_func.__globals__, None, None, cells)
        py_func.__defaults__ = (None,) * site.make_function.default_count or None
        return py_func

    def _callee(self, site: _CallSite, call: ir.Call) -> tuple[ir.FunctionIR, dict]:
        """The callee's IR and, per parameter, the value (Var or Expr) the call binds to it."""
        py_func = self._binding_function(site)
        bytecode = ByteCode(py_func)
        callee_ir = build_ir(
            bytecode,
            bytecode.control_flow_graph(),
            free_variables_as_locals=site.make_function is not None,
        )
        return callee_ir, self._bind(py_func, site.make_function, call)

    def _bind(self, py_func: FunctionType, make_function, call: ir.Call) -> dict:
        signature = inspect.signature(py_func)
        try:
            arguments = signature.bind(*call.args, **dict(call.kws)).arguments
        except TypeError as error:
            raise UnsupportedError(f"{py_func.__name__}(): {error}", call.loc) from None
        positional = [p for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
        bound: dict[str, ir.Var | ir.Expr] = {}
        for index, param in enumerate(signature.parameters.values()):
            if param.kind is param.VAR_KEYWORD:
                raise UnsupportedError(KWARGS_PARAMETERS_MESSAGE, call.loc)
            if param.name in arguments:
                value = arguments[param.name]
                if param.kind is param.VAR_POSITIONAL:
                    value = ir.BuildTuple(list(value), call.loc)
                bound[param.name] = value
            elif param.kind is param.VAR_POSITIONAL:
                bound[param.name] = ir.BuildTuple([], call.loc)
            elif make_function is not None:  # defaults evaluated where the `def` ran
                first_default = len(positional) - make_function.default_count
                bound[param.name] = ir.StaticGetItem(
                    make_function.defaults, index - first_default, None, call.loc
                )
            else:
                bound[param.name] = ir.Const(param.default, call.loc)
        # a comprehension's iterator parameter is `.0` in its code; inspect calls it `implicit0`
        for name in py_func.__code__.co_varnames[: len(bound)]:
            if name.startswith(".") and f"implicit{name[1:]}" in bound:
                bound[name] = bound.pop(f"implicit{name[1:]}")
        return bound


def _is_generator(code: CodeType) -> bool:
    return bool(code.co_flags & inspect.CO_GENERATOR)
