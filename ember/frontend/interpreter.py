"""Stage 2: symbolic execution of the bytecode's value stack into the register IR.

Each basic block starts from a stack of phi variables (`$phi<label>.<i>`); a block's end assigns
its outgoing stack into the phi variables of each successor, just before the terminator.
"""

from __future__ import annotations

import builtins
import operator
from dataclasses import dataclass
from types import FunctionType
from typing import Any

from ember.errors import KWARGS_PARAMETERS_MESSAGE, TypingError, UnsupportedError
from ember.frontend.bytecode import ByteCode, Instruction
from ember.frontend.cfg import ControlFlowGraph
from ember.frontend.container_opcodes import ContainerOpcodes
from ember.frontend.genexpr import RecursiveClosure
from ember.ir import nodes as ir
from ember.ir.liveness import remove_unread_assignments

_NULL = object()  # the NULL CPython pushes before a callable; never becomes a variable
_LASTI = object()  # the offset an exception handler gets pushed; nothing reads it


@dataclass(frozen=True)
class _HandledException:
    """What PUSH_EXC_INFO saves on the stack: a bare `raise` below it re-raises `exception`."""

    exception: ir.Var


_UNARY_OPS = {
    "UNARY_NEGATIVE": operator.neg,
    "UNARY_POSITIVE": operator.pos,
    "UNARY_INVERT": operator.invert,
    "UNARY_NOT": operator.not_,
}

_NESTED_CODE = {  # co_name of a nested code object -> the construct that made it
    "<lambda>": "a lambda",
    "<listcomp>": "a list comprehension",
    "<setcomp>": "a set comprehension",
    "<dictcomp>": "a dict comprehension",
    "<genexpr>": "a generator expression",
}

_INLINED_CODE = {  # handled by inline_closures.py
    "<lambda>",
    "<listcomp>",
    "<dictcomp>",
    "<setcomp>",
    "<genexpr>",
}

_NESTED_CODE_HINTS = {
    "<listcomp>": "; build the list with a loop instead: xs = [] then xs.append(...) in a for loop",
}

_UNSUPPORTED_OPCODES = {  # opname -> the construct a user wrote, for error messages
    "STORE_GLOBAL": "assigning a global variable",
    "DELETE_GLOBAL": "deleting a global variable",
    "GET_AWAITABLE": "await",
    "DICT_MERGE": "a call with **kwargs unpacking",
    "LOAD_BUILD_CLASS": "a class definition",
    "PRINT_EXPR": "an interactive expression",
}

_BRANCH_ON = {  # opname -> (branch when the tested value is true?, test is "is None")
    "POP_JUMP_FORWARD_IF_FALSE": (False, False),
    "POP_JUMP_BACKWARD_IF_FALSE": (False, False),
    "POP_JUMP_FORWARD_IF_TRUE": (True, False),
    "POP_JUMP_BACKWARD_IF_TRUE": (True, False),
    "POP_JUMP_FORWARD_IF_NONE": (True, True),
    "POP_JUMP_BACKWARD_IF_NONE": (True, True),
    "POP_JUMP_FORWARD_IF_NOT_NONE": (False, True),
    "POP_JUMP_BACKWARD_IF_NOT_NONE": (False, True),
}


class UndefinedName(UnsupportedError, TypingError):
    """A global the function reads is not bound (yet: an eager signature may be compiled
    again once the module defines it, as for mutually recursive functions). A TypingError
    too, as Numba reports it."""


_NUMBA_NAMES = frozenset({"prange", "literal_unroll", "literally", "objmode", "pndindex"})


def _undefined(name: str) -> str:
    """Python's words for an unbound global, as Numba quotes them, with a hint for the
    names programs forget to import from numba/ember."""
    message = f"NameError: name '{name}' is not defined"
    if name in _NUMBA_NAMES:
        message += f". '{name}' looks like a Numba internal function, has it been imported?"
    return message


def build_ir(
    bytecode: ByteCode,
    cfg: ControlFlowGraph,
    self_reference: Any = None,
    free_variables_as_locals: bool = False,
) -> ir.FunctionIR:
    """Translate every reachable block of `bytecode` into IR blocks labelled by offset.

    `self_reference` (the dispatcher being compiled) stands for the function's own name
    while that global is not bound yet (recursion under an eager explicit signature).
    `free_variables_as_locals` reads the free variables of an inner function as variables
    of the same name (the enclosing function's cells, once inlined; see inline_closures.py)
    rather than as constants taken from the Python closure.
    """
    return _IRBuilder(bytecode, cfg, self_reference, free_variables_as_locals).run()


class _IRBuilder(ContainerOpcodes):
    def __init__(
        self,
        bytecode: ByteCode,
        cfg: ControlFlowGraph,
        self_reference: Any = None,
        free_variables_as_locals: bool = False,
    ) -> None:
        self.bytecode = bytecode
        self.cfg = cfg
        self.self_reference = self_reference
        self.free_variables_as_locals = free_variables_as_locals
        self.py_func: FunctionType = bytecode.py_func
        self.code = bytecode.code
        self.table = bytecode.table
        self.incoming_depth: dict[int, int] = {cfg.topological_order()[0]: 0}
        # stack slots holding markers (_NULL, _LASTI, _HandledException), not variables
        self.incoming_markers: dict[int, dict[int, object]] = {}
        self.blocks: dict[int, ir.Block] = {}
        self.pending_edges: list[tuple[ir.Block, int, list]] = []
        self.yield_count = 0
        self.exception_handlers: dict[int, int] = {}
        self.handler_targets = {entry.target: entry for entry in bytecode.exception_entries}

    # ------------------------------------------------------------------ driver

    def run(self) -> ir.FunctionIR:
        arg_names = _argument_names(self.code)
        entry = self.cfg.topological_order()[0]
        for label in self.cfg.topological_order():
            if label not in self.incoming_depth:  # only after a failed import (a raise)
                continue
            self._build_block(label, arg_names if label == entry else ())
        for block, succ, stack in self.pending_edges:
            self._assign_phis(block, succ, stack)
        self._drop_unread_phis()
        first = self.bytecode.instructions[0].loc
        loc = ir.Loc(first.filename, self.code.co_firstlineno)
        func_ir = ir.FunctionIR(self.blocks, arg_names, self.py_func, loc, entry)
        func_ir.exception_handlers = self.exception_handlers
        return func_ir

    def _build_block(self, label: int, arg_names: tuple[str, ...]) -> None:
        instructions = self.bytecode.block_instructions(label)
        self.block = ir.Block(label, self._block_loc(instructions))
        self.blocks[label] = self.block
        self.label = label
        self.counter = 0
        self.constants: dict[str, Any] = {}
        self.imported_modules: dict[str, Any] = {}  # the variables IMPORT_NAME pushed
        self.kw_names: tuple[str, ...] = ()
        depth = self.incoming_depth[label]
        markers = self.incoming_markers.get(label, {})
        self.stack: list = [
            markers.get(i) or ir.Var(f"$phi{label}.{i}", self.block.loc) for i in range(depth)
        ]
        for index, name in enumerate(arg_names):
            self._assign(ir.Var(name, self.block.loc), ir.Arg(index, name, self.block.loc))
        if label in self.handler_targets:
            self._enter_handler()
        self.edges: dict[int, list] = {}
        self.spread_lists: dict[str, list] = {}
        self.map_displays: dict[str, list] = {}  # dict displays of this block: their pairs
        for inst in instructions:
            self.inst = inst
            self._dispatch(inst)
            if self.block.body and isinstance(self.block.body[-1], ir.StaticRaise):
                break  # a failed import in a `try` body: the rest of the block never runs
        if not self.block.body or not self.block.terminator.is_terminator:
            self._jump(instructions[-1].next_offset)
        self.build_spread_lists()  # `[a, *t]`: a list display, not the items of a call or tuple
        self._protect(label)
        for succ, stack in self.edges.items():
            self.pending_edges.append((self.block, succ, stack))

    def _block_loc(self, instructions: list[Instruction]) -> ir.Loc:
        """The first real statement's position: RESUME sits on the `def` (or decorator) line,
        while the seed's annotation shows the arguments under the first line of the body."""
        for inst in instructions:
            if inst.opname not in self.table.no_ops:
                return inst.loc
        return instructions[0].loc

    def _dispatch(self, inst: Instruction) -> None:
        if inst.opname in self.table.no_ops:
            return
        if inst.opname in _UNARY_OPS:
            value = self.stack.pop()
            self._push_expr(ir.UnaryOp(_UNARY_OPS[inst.opname], value, inst.loc))
            return
        if inst.opname in _BRANCH_ON:
            self._pop_jump(*_BRANCH_ON[inst.opname])
            return
        handler = getattr(self, f"op_{inst.opname}", None)
        if handler is None:
            construct = _UNSUPPORTED_OPCODES.get(inst.opname, "this Python construct")
            raise UnsupportedError(
                f"{construct} is not supported in nopython mode (bytecode {inst.opname})",
                inst.loc,
            )
        handler(inst)

    # ------------------------------------------------------------------ helpers

    def _temp(self, prefix: str = "") -> ir.Var:
        name = f"${prefix}{self.label}.{self.counter}"
        self.counter += 1
        return ir.Var(name, self.inst.loc)

    def _assign(self, target: ir.Var, value: ir.Expr | ir.Var) -> None:
        self.block.append(ir.Assign(target, value, target.loc))

    def _push_expr(self, expr: ir.Expr, prefix: str = "") -> ir.Var:
        target = self._temp(prefix)
        self._assign(target, expr)
        self.stack.append(target)
        return target

    def _edge(self, succ: int, stack: list) -> None:
        depth = len(stack)
        known = self.incoming_depth.setdefault(succ, depth)
        if known != depth:
            raise UnsupportedError("inconsistent stack depth at a merge", self.inst.loc)
        # a call's NULL marker stays one across a branch inside its arguments (f(a if c else b))
        self.incoming_markers[succ] = {
            i: v for i, v in enumerate(stack) if not isinstance(v, ir.Var)
        }
        self.edges[succ] = list(stack)

    def _jump(self, target: int) -> None:
        self._edge(target, self.stack)
        self.block.append(ir.Jump(target, self.inst.loc))

    def _branch(self, cond: ir.Var, true_target: int, false_target: int) -> None:
        self.block.append(ir.Branch(cond, true_target, false_target, self.inst.loc))

    def _drop_unread_phis(self) -> None:
        """Remove the copies into stack slots nothing reads: a slot the successor pops (a
        failed `case (0, y):` leaves the subject or an item there, values of different
        types for one slot) must not be typed."""
        remove_unread_assignments(self.blocks, lambda stmt: stmt.target.name.startswith("$phi"))

    def _assign_phis(self, block: ir.Block, succ: int, stack: list) -> None:
        for index, value in enumerate(stack):
            if not isinstance(value, ir.Var):
                continue
            phi = ir.Var(f"$phi{succ}.{index}", block.terminator.loc)
            if value.name != phi.name:
                block.insert_before_terminator(ir.Assign(phi, value, block.terminator.loc))

    def _const(self, value: Any) -> ir.Var:
        var = self._push_expr(ir.Const(value, self.inst.loc), prefix="const")
        self.constants[var.name] = value
        return var

    # ------------------------------------------------------------------ loads and stores

    def op_LOAD_CONST(self, inst: Instruction) -> None:
        self._const(inst.argval)

    def op_LOAD_FAST(self, inst: Instruction) -> None:
        var = ir.Var(inst.argval, inst.loc)
        if inst.argval == ".0" and self.code.co_name == "<genexpr>":
            # a generator expression's source: iter() of it (an iterator stays itself), so
            # the caller may pass a tuple of mixed types, whose loop then unrolls
            self._push_expr(ir.GetIter(var, inst.loc))
            return
        self.stack.append(var)

    def op_STORE_FAST(self, inst: Instruction) -> None:
        value = self.stack.pop()
        self._preserve_stacked_loads(inst.argval)
        self._assign(ir.Var(inst.argval, inst.loc), value)

    def _preserve_stacked_loads(self, name: str) -> None:
        """Copy stacked loads of `name` before it is overwritten (`a, b = b, a` reads old a)."""
        if not any(isinstance(v, ir.Var) and v.name == name for v in self.stack):
            return
        saved = self._temp()
        self._assign(saved, ir.Var(name, self.inst.loc))
        self.stack = [saved if isinstance(v, ir.Var) and v.name == name else v for v in self.stack]

    def op_DELETE_FAST(self, inst: Instruction) -> None:
        """`del x`: a `del` statement, which the unbound-locals pass turns into "x is unbound
        from here" (reads after it raise UnboundLocalError). The `e = None; del e` that ends
        an `except E as e:` block keeps only the `del` (e is never None: it is unbound after
        the handler, as in CPython)."""
        last = self.block.body[-1] if self.block.body else None
        stored = getattr(getattr(last, "value", None), "name", None)
        if (
            isinstance(last, ir.Assign)
            and last.target.name == inst.argval
            and stored in self.constants
            and self.constants[stored] is None
        ):
            self.block.body.pop()
        self.block.append(ir.Del(inst.argval, inst.loc))

    def op_LOAD_GLOBAL(self, inst: Instruction) -> None:
        if inst.arg & 1:
            self.stack.append(_NULL)
        name = inst.argval
        globals_ = self.py_func.__globals__
        if name in globals_:
            value = globals_[name]
        elif hasattr(builtins, name):
            value = getattr(builtins, name)
        elif name == self.py_func.__name__ and self.self_reference is not None:
            value = self.self_reference
        else:
            raise UndefinedName(_undefined(name), inst.loc)
        var = self._push_expr(ir.Global(name, value, inst.loc))
        self._note_index_constant(var, value)

    def _is_cell_variable(self, name: str) -> bool:
        """Cells this function owns (or, inlined, shares with its enclosing function) are
        ordinary variables: an inner function is inlined where it is called."""
        return name in self.code.co_cellvars or self.free_variables_as_locals

    def op_LOAD_DEREF(self, inst: Instruction) -> None:
        name = inst.argval
        if self._is_cell_variable(name):
            self.op_LOAD_FAST(inst)
            return
        freevars = self.code.co_freevars
        if name not in freevars:
            raise UnsupportedError(f"closure cell '{name}' defined here is not supported", inst.loc)
        index = freevars.index(name)
        try:
            value = self.py_func.__closure__[index].cell_contents
        except ValueError:
            # an inner function compiled eagerly (explicit signature) that calls itself: its
            # name is bound once the decorator returns
            if name != self.py_func.__name__ or self.self_reference is None:
                message = (
                    f"free variable '{name}' is not bound yet: the enclosing function assigns "
                    "it after this function is compiled; assign it before the first call"
                )
                raise TypingError(message, inst.loc) from None  # the program's error (Numba's)
            value = self.self_reference
        if isinstance(value, RecursiveClosure):
            self._push_recursive_closure(value, inst.loc)
            return
        var = self._push_expr(ir.FreeVar(index, name, value, inst.loc))
        self._note_index_constant(var, value)

    def _note_index_constant(self, var: ir.Var, value: Any) -> None:
        """A global or free variable holding an int or a slice of ints indexes and slices
        tuples as a constant would (t[:NDIM], t[SL])."""
        if type(value) is int:
            self.constants[var.name] = value
        elif type(value) is slice:
            parts = (value.start, value.stop, value.step)
            if all(part is None or type(part) is int for part in parts) and value.step != 0:
                self.constants[var.name] = value

    def _push_recursive_closure(self, value: RecursiveClosure, loc: ir.Loc) -> None:
        """A recursive closure function's own name: the closure value of itself over the
        captured values it was given (its first parameters, which it never assigns)."""
        from ember.lowering.closures import bind_closure

        function = self._push_expr(ir.Global(self.py_func.__name__, value.function, loc))
        binder = self._push_expr(ir.Global("bind_closure", bind_closure, loc))
        captured = [ir.Var(name, loc) for name in value.captured]
        env = self._push_expr(ir.BuildTuple(captured, loc))
        defaults = self._push_expr(ir.BuildTuple([], loc))  # (constants: in the function)
        del self.stack[-4:]
        self._push_expr(ir.Call(binder, [function, env, defaults], [], loc))

    def op_LOAD_CLOSURE(self, inst: Instruction) -> None:
        """The cell itself: a variable named like it; a cell of an enclosing function (a
        comprehension reading the enclosing function's free variable) passes on its value."""
        if inst.argval in self.code.co_freevars and not self._is_cell_variable(inst.argval):
            self.op_LOAD_DEREF(inst)
        else:
            self.op_LOAD_FAST(inst)

    def op_STORE_DEREF(self, inst: Instruction) -> None:
        if not self._is_cell_variable(inst.argval):
            raise UnsupportedError(
                f"assigning '{inst.argval}', a variable of the Python function enclosing this "
                "jitted function, is not supported; return the new value instead",
                inst.loc,
            )
        self.op_STORE_FAST(inst)

    def op_LOAD_ASSERTION_ERROR(self, inst: Instruction) -> None:
        self._push_expr(ir.Global("AssertionError", AssertionError, inst.loc))

    def op_LOAD_ATTR(self, inst: Instruction) -> None:
        value = self.stack.pop()
        self._push_expr(ir.GetAttr(value, inst.argval, inst.loc))

    def op_LOAD_METHOD(self, inst: Instruction) -> None:
        value = self.stack.pop()
        self.stack.append(_NULL)
        self._push_expr(ir.GetAttr(value, inst.argval, inst.loc))

    def op_IMPORT_NAME(self, inst: Instruction) -> None:
        """`import math` / `from numpy import linalg` in the function: the module is imported
        while compiling and frozen like a global (the value CPython's run-time import gives,
        without its run-time cost). A failed import is a compile error, but in a `try` body,
        where it raises its ImportError when it runs."""
        fromlist, level = self.stack.pop(), self.stack.pop()
        try:
            module = __import__(
                inst.argval,
                self.py_func.__globals__,
                None,
                self.constants.get(fromlist.name),
                self.constants.get(level.name, 0),
            )
        except ImportError as error:
            if self._raised_in_a_try_body(error, inst):
                return
            raise UnsupportedError(
                f"import {inst.argval!r} in a jitted function failed while compiling ({error}); "
                "modules are imported when the function compiles: import optional modules at "
                "module level and pass what you need in",
                inst.loc,
            ) from None
        var = self._push_expr(ir.Global(inst.argval, module, inst.loc))
        self.imported_modules[var.name] = module

    def _raised_in_a_try_body(self, error: ImportError, inst: Instruction) -> bool:
        """A failed import inside a `try` body raises `error` there, for its handlers to catch
        (`try: import scipy except ImportError: ...`); the block's rest is not built."""
        if self.bytecode.handler_entry(inst.offset) is None:
            return False
        self.block.append(ir.StaticRaise(type(error), (str(error),), inst.loc))
        return True

    def op_IMPORT_FROM(self, inst: Instruction) -> None:
        """`from module import name`: the module stays on the stack for the next name."""
        module = self.imported_modules[self.stack[-1].name]
        try:
            value = getattr(module, inst.argval)
        except AttributeError:
            name = getattr(module, "__name__", module)
            error = ImportError(f"cannot import name {inst.argval!r} from {name!r}")
            if self._raised_in_a_try_body(error, inst):
                return
            raise UnsupportedError(
                f"cannot import name {inst.argval!r} from {getattr(module, '__name__', module)!r}",
                inst.loc,
            ) from None
        self._push_expr(ir.Global(inst.argval, value, inst.loc))

    def op_PUSH_NULL(self, inst: Instruction) -> None:
        self.stack.append(_NULL)

    # ------------------------------------------------------------------ stack shuffles

    def op_POP_TOP(self, inst: Instruction) -> None:
        self.stack.pop()

    def op_COPY(self, inst: Instruction) -> None:
        self.stack.append(self.stack[-inst.arg])

    def op_SWAP(self, inst: Instruction) -> None:
        self.stack[-1], self.stack[-inst.arg] = self.stack[-inst.arg], self.stack[-1]

    # ------------------------------------------------------------------ operators

    def op_BINARY_OP(self, inst: Instruction) -> None:
        fn, inplace = self.table.binary_op_by_arg[inst.arg]
        rhs = self.stack.pop()
        lhs = self.stack.pop()
        if inplace:
            expr = ir.InplaceBinOp(ir.INPLACE_OF[fn], fn, lhs, rhs, inst.loc)
        else:
            expr = ir.BinOp(fn, lhs, rhs, inst.loc)
        self._push_expr(expr)

    def op_COMPARE_OP(self, inst: Instruction) -> None:
        rhs = self.stack.pop()
        lhs = self.stack.pop()
        self._push_expr(ir.BinOp(self.table.compare_ops[inst.argval], lhs, rhs, inst.loc))

    def op_IS_OP(self, inst: Instruction) -> None:
        rhs = self.stack.pop()
        lhs = self.stack.pop()
        fn = operator.is_not if inst.arg else operator.is_
        self._push_expr(ir.BinOp(fn, lhs, rhs, inst.loc))

    def op_CONTAINS_OP(self, inst: Instruction) -> None:
        container = self.set_of_constant_frozenset(self.stack.pop())
        item = self.stack.pop()
        result = self._push_expr(ir.BinOp(operator.contains, container, item, inst.loc))
        if inst.arg:
            self.stack.pop()
            self._push_expr(ir.UnaryOp(operator.not_, result, inst.loc))

    # ------------------------------------------------------------------ calls

    def op_KW_NAMES(self, inst: Instruction) -> None:
        self.kw_names = self.code.co_consts[inst.arg]

    def op_CALL(self, inst: Instruction) -> None:
        argc = inst.arg
        args = self.stack[len(self.stack) - argc :] if argc else []
        del self.stack[len(self.stack) - argc :]
        callable_or_self = self.stack.pop()
        null_or_method = self.stack.pop()
        if null_or_method is _NULL:
            func = callable_or_self
        else:
            func, args = null_or_method, [callable_or_self, *args]
        kw_count = len(self.kw_names)
        positional = args[: len(args) - kw_count]
        keywords = list(zip(self.kw_names, args[len(args) - kw_count :]))
        self.kw_names = ()
        self._push_expr(ir.Call(func, positional, keywords, inst.loc))

    def op_CALL_FUNCTION_EX(self, inst: Instruction) -> None:
        """`f(*t)` and `f(a, *t, b)` (the arguments arrive as one tuple): a call whose
        arguments are that tuple's items, counted once it is typed."""
        keywords = self._display_keywords(self.stack.pop()) if inst.arg & 0x01 else []
        arguments = self.stack.pop()
        func = self.stack.pop()
        if self.stack and self.stack[-1] is _NULL:
            self.stack.pop()
        positional = self._listed_arguments(arguments)
        if positional is None:
            self._push_expr(ir.Call(func, [], keywords, inst.loc, vararg=arguments))
        else:
            self._push_expr(ir.Call(func, positional, keywords, inst.loc))

    def _display_keywords(self, mapping: ir.Var) -> list[tuple[str, ir.Var]]:
        """`f(a, k1=x, ..., k20=y)`: CPython passes many keywords as a dict display of constant
        names; they become the call's keywords. A `**d` of any other dict is refused."""
        pairs = self.map_displays.get(mapping.name)
        if pairs is None or not all(isinstance(self.constants.get(k.name), str) for k, _ in pairs):
            raise UnsupportedError(
                "a call with **kwargs unpacking is not supported in nopython mode; "
                "pass the keyword arguments by name",
                self.inst.loc,
            )
        self.drop_map_display(mapping)
        return [(self.constants[key.name], value) for key, value in pairs]

    def _listed_arguments(self, arguments: ir.Var) -> list | None:
        """The positional arguments of a call that passes them as a tuple built (or loaded as
        a constant) in this block; None for a tuple known only once typed (`f(*t)`)."""
        constants = self.constants.get(arguments.name)
        if isinstance(constants, tuple):
            values = [self._const(value) for value in constants]
            del self.stack[len(self.stack) - len(values) :]
            return values
        for stmt in self.block.body:
            if (
                isinstance(stmt, ir.Assign)
                and stmt.target.name == arguments.name
                and isinstance(stmt.value, ir.BuildTuple)
            ):
                self.block.body.remove(stmt)
                return list(stmt.value.items)
        return None

    def op_MAKE_FUNCTION(self, inst: Instruction) -> None:
        """`def`/`lambda` inside the function: a MakeFunction that inline_closures.py inlines
        at its call sites (flags: 0x01 defaults, 0x02 keyword defaults, 0x04 annotations,
        0x08 closure; pushed in that order, the code object last)."""
        code = self._drop_definition(self.stack.pop()).value
        name = getattr(code, "co_name", "")
        if name in _NESTED_CODE and name not in _INLINED_CODE:
            raise UnsupportedError(
                f"{_NESTED_CODE[name]} inside a jitted function is not supported in nopython "
                f"mode{_NESTED_CODE_HINTS.get(name, '')}",
                inst.loc,
            )
        closure = self._drop_definition(self.stack.pop()).items if inst.arg & 0x08 else []
        if inst.arg & 0x04:
            self._drop_definition(self.stack.pop())  # annotations mean nothing here
        if inst.arg & 0x02:
            raise UnsupportedError(
                "keyword-only parameters with defaults in an inner function are not supported "
                "in nopython mode; give them a default-free keyword or a positional parameter",
                inst.loc,
            )
        defaults, default_count = None, 0
        if inst.arg & 0x01:
            defaults = self.stack[-1]
            default_count = self._tuple_length(defaults)
            self.stack.pop()
        self._push_expr(ir.MakeFunction(code, closure, defaults, default_count, inst.loc))

    def _drop_definition(self, var: ir.Var) -> ir.Expr:
        """Remove the statement of this block defining the temporary `var`; its value (the
        code object, closure tuple or annotations of a `def` exist only while compiling)."""
        for stmt in self.block.body:
            if isinstance(stmt, ir.Assign) and stmt.target.name == var.name:
                self.block.body.remove(stmt)
                return stmt.value
        raise UnsupportedError("a function built from values of another block", self.inst.loc)

    def _tuple_length(self, var: Any) -> int:
        if var.name in self.constants:
            return len(self.constants[var.name])
        for stmt in self.block.body:
            if isinstance(stmt, ir.Assign) and stmt.target.name == var.name:
                if isinstance(stmt.value, ir.BuildTuple):
                    return len(stmt.value.items)
        raise UnsupportedError("defaults of an inner function built elsewhere", self.inst.loc)

    # ------------------------------------------------------------------ iteration

    def op_GET_ITER(self, inst: Instruction) -> None:
        value = self.set_of_constant_frozenset(self.stack.pop(), iterated=True)
        self._push_expr(ir.GetIter(value, inst.loc))

    def _next_item(self, iterator: ir.Var, loc: ir.Loc) -> tuple[ir.Var, ir.Var]:
        """(item, whether there was one) of one step of `iterator`."""
        pair = self._temp()
        self._assign(pair, ir.IterNext(iterator, loc))
        value = self._temp()
        self._assign(value, ir.PairFirst(pair, loc))
        valid = self._temp()
        self._assign(valid, ir.PairSecond(pair, loc))
        return value, valid

    def op_FOR_ITER(self, inst: Instruction) -> None:
        iterator = self.stack[-1]
        value, valid = self._next_item(iterator, inst.loc)
        self._edge(inst.jump_target(), self.stack[:-1])
        self._edge(inst.next_offset, [*self.stack, value])
        self._branch(valid, inst.next_offset, inst.jump_target())

    # ------------------------------------------------------------------ control flow

    def op_JUMP_FORWARD(self, inst: Instruction) -> None:
        self._jump(inst.jump_target())

    op_JUMP_BACKWARD = op_JUMP_BACKWARD_NO_INTERRUPT = op_JUMP_FORWARD

    def _pop_jump(self, jump_when_true: bool, test_none: bool) -> None:
        inst = self.inst
        cond = self.stack.pop()
        if test_none:
            none = self._const(None)
            self.stack.pop()
            cond = self._push_expr(ir.BinOp(operator.is_, cond, none, inst.loc))
            self.stack.pop()
        self._edge(inst.jump_target(), self.stack)
        self._edge(inst.next_offset, self.stack)
        if jump_when_true:
            self._branch(cond, inst.jump_target(), inst.next_offset)
        else:
            self._branch(cond, inst.next_offset, inst.jump_target())

    def _jump_or_pop(self, jump_when_true: bool) -> None:
        inst = self.inst
        cond = self.stack[-1]
        self._edge(inst.jump_target(), self.stack)
        self._edge(inst.next_offset, self.stack[:-1])
        if jump_when_true:
            self._branch(cond, inst.jump_target(), inst.next_offset)
        else:
            self._branch(cond, inst.next_offset, inst.jump_target())

    def op_JUMP_IF_FALSE_OR_POP(self, inst: Instruction) -> None:
        self._jump_or_pop(jump_when_true=False)

    def op_JUMP_IF_TRUE_OR_POP(self, inst: Instruction) -> None:
        self._jump_or_pop(jump_when_true=True)

    def op_RETURN_VALUE(self, inst: Instruction) -> None:
        value = self.stack.pop()
        result = self._temp()
        self._assign(result, ir.Cast(value, inst.loc))
        self.block.append(ir.Return(result, inst.loc))

    # ------------------------------------------------------------------ generators

    def op_RETURN_GENERATOR(self, inst: Instruction) -> None:
        self.stack.append(_NULL)  # the generator object CPython makes here; POP_TOP drops it

    def op_YIELD_VALUE(self, inst: Instruction) -> None:
        """A `yield` inside `except` blocks leaves their handlers while the generator is
        suspended: they stop publishing their exceptions (innermost first) and publish them
        again on resuming (the caller may handle others meanwhile)."""
        handled = [value.exception for value in self.stack if isinstance(value, _HandledException)]
        yielded = self.stack.pop()
        for _ in handled:
            self._call_runtime("restore_handled")
        self.yield_count += 1
        self._push_expr(ir.Yield(yielded, self.yield_count, inst.loc))
        for exception in handled:
            self._call_runtime("publish_handled", exception)

    op_GET_YIELD_FROM_ITER = op_GET_ITER  # `yield from it`: a loop over iter(it)

    def op_SEND(self, inst: Instruction) -> None:
        """`yield from`'s step: the iterator's next item goes on to be yielded; once it is
        exhausted, the `yield from` expression's value (what a generator returned, None for
        other iterators: nothing can be sent into a compiled generator) goes to the jump
        target."""
        from ember.library.objects.generators import yield_from_result

        self.stack.pop()  # the value sent in: always None here
        iterator = self.stack[-1]
        value, valid = self._next_item(iterator, inst.loc)
        func = self._push_expr(ir.Global("yield_from_result", yield_from_result, inst.loc))
        self.stack.pop()
        result = self._push_expr(ir.Call(func, [iterator], [], inst.loc))
        self.stack.pop()
        self._edge(inst.jump_target(), [*self.stack[:-1], result])
        self._edge(inst.next_offset, [*self.stack, value])
        self._branch(valid, inst.next_offset, inst.jump_target())

    def op_RAISE_VARARGS(self, inst: Instruction) -> None:
        if inst.arg == 0:
            self.block.append(ir.Raise(self._handled_exception(), inst.loc))
            return
        if inst.arg == 2:  # `raise E from cause`: the cause is not kept
            self.stack.pop()
        self.block.append(ir.Raise(self.stack.pop(), inst.loc))

    # ------------------------------------------------------------------ exception handlers

    def _protect(self, label: int) -> None:
        """Record the handler of a protected block and hand it the stack slots it keeps.

        Those slots hold the same values all through the block (PUSH_EXC_INFO, which opens a
        handler, cannot raise), so they are read at the block's end and copied into the
        handler's phi variables before anything in the block can raise.
        """
        entry = self.bytecode.handler_entry(label)
        if entry is None:
            return
        self.exception_handlers[label] = entry.target
        kept = self.stack[: entry.depth]
        markers = {i: v for i, v in enumerate(kept) if not isinstance(v, ir.Var)}
        if entry.lasti:
            markers[entry.depth] = _LASTI
        self.incoming_markers[entry.target] = markers
        self.incoming_depth[entry.target] = entry.depth + entry.lasti
        for index, value in enumerate(kept):
            if isinstance(value, ir.Var):
                phi = ir.Var(f"$phi{entry.target}.{index}", self.block.loc)
                self.block.body.insert(
                    self._after_definition(value), ir.Assign(phi, value, phi.loc)
                )

    def _after_definition(self, var: ir.Var) -> int:
        """The index just after this block's assignment of `var` (0 when it comes from before)."""
        for index, stmt in enumerate(self.block.body):
            if any(target.name == var.name for target in stmt.targets()):
                return index + 1
        return 0

    def _enter_handler(self) -> None:
        """A handler block starts with the exception that entered it on top of the stack."""
        exception = ir.Var(f"$exc{self.label}", self.block.loc)
        self._assign(exception, ir.CaughtException(self.label, self.block.loc))
        self.stack.append(exception)

    def _handled_exception(self) -> ir.Var:
        for value in reversed(self.stack):
            if isinstance(value, _HandledException):
                return value.exception
        return self._callers_exception()

    def _callers_exception(self) -> ir.Var:
        """A bare `raise` outside every `except`: the exception the caller is handling."""
        from ember.library.builtins.caught_exceptions import handled_exception

        loc = self.inst.loc
        func = self._push_expr(ir.Global("handled_exception", handled_exception, loc))
        self.stack.pop()
        exception = self._push_expr(ir.Call(func, [], [], loc))
        self.stack.pop()
        return exception

    def op_PUSH_EXC_INFO(self, inst: Instruction) -> None:
        exception = self.stack.pop()
        self._call_runtime("publish_handled", exception)
        self.stack.append(_HandledException(exception))
        self.stack.append(exception)

    def op_POP_EXCEPT(self, inst: Instruction) -> None:
        self.stack.pop()
        self._call_runtime("restore_handled")

    def _call_runtime(self, name: str, *args: ir.Var) -> None:
        """A call of caught_exceptions.`name`: handlers publish the exception they handle (as
        sys.exc_info()) for a bare `raise` in the functions they call, from PUSH_EXC_INFO to
        POP_EXCEPT (every way out of a handler passes one; a generator's `yield` leaves
        its handlers for a while, op_YIELD_VALUE)."""
        from ember.library.builtins import caught_exceptions

        loc = self.inst.loc
        func = self._push_expr(ir.Global(name, getattr(caught_exceptions, name), loc))
        self.stack.pop()
        self._push_expr(ir.Call(func, list(args), [], loc))
        self.stack.pop()

    def op_CHECK_EXC_MATCH(self, inst: Instruction) -> None:
        classes = self.stack.pop()
        self._push_expr(ir.ExceptionMatch(self.stack[-1], classes, inst.loc))

    def op_RERAISE(self, inst: Instruction) -> None:
        self.block.append(ir.Raise(self.stack.pop(), inst.loc))


def _argument_names(code) -> tuple[str, ...]:
    """Parameter names in binding order: positional, then *args, then keyword-only (CPython
    lists the keyword-only ones before the *args name in co_varnames)."""
    if code.co_flags & 0x08:  # CO_VARKEYWORDS
        raise UnsupportedError(KWARGS_PARAMETERS_MESSAGE)
    positional = code.co_varnames[: code.co_argcount]
    keyword_only = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
    end = code.co_argcount + code.co_kwonlyargcount
    varargs = code.co_varnames[end : end + 1] if code.co_flags & 0x04 else ()  # CO_VARARGS
    return (*positional, *varargs, *keyword_only)
