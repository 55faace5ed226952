"""The register IR: one small class per statement and expression kind, every statement with a Loc.

Variables are named registers (not SSA: a source variable may be assigned in several blocks).
"""

from __future__ import annotations

import linecache
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Loc:
    """A source position: file, line and (when CPython knows them) columns."""

    filename: str
    line: int
    col: int | None = None
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.filename} ({self.line})"

    def source_line(self) -> str:
        return linecache.getline(self.filename, self.line).rstrip("\n")

    def describe(self) -> str:
        """`File "f.py", line 3:` then the source line and a caret under the columns."""
        header = f'File "{self.filename}", line {self.line}:'
        text = self.source_line()
        if not text:
            return header
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        lines = [header, f"    {stripped}"]
        if self.col is not None and self.end_col is not None and self.end_col > self.col:
            width = self.end_col - self.col
            lines.append("    " + " " * (self.col - indent) + "^" * width)
        return "\n".join(lines)


class Var:
    """A named register. Two Var objects with the same name denote the same variable."""

    __slots__ = ("name", "loc")

    def __init__(self, name: str, loc: Loc) -> None:
        self.name = name
        self.loc = loc

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Var({self.name}, {self.loc})"

    @property
    def is_temp(self) -> bool:
        return self.name.startswith("$")

    # Numba's names (ember.core.ir): one scope per process, versions after a dot.
    @property
    def scope(self) -> Any:
        from ember.ir.numba_ir import GLOBAL_SCOPE

        return GLOBAL_SCOPE

    @property
    def unversioned_name(self) -> str:
        return self.name.split(".")[0]


# ---------------------------------------------------------------------------- expressions


class Expr:
    """Base of right-hand sides. `sources()` lists the variables an expression reads."""

    loc: Loc

    def sources(self) -> list[Var]:
        return [value for value in vars(self).values() if isinstance(value, Var)]

    @property
    def op(self) -> str:
        """Numba's name for this kind of expression (`expr.op == "call"`)."""
        return NUMBA_OPS.get(type(self)) or type(self).__name__.lower()

    def list_vars(self) -> list[Var]:
        return self.sources()


@dataclass(eq=False)
class Arg(Expr):
    index: int
    name: str
    loc: Loc

    def __str__(self) -> str:
        return f"arg({self.index}, name={self.name})"


@dataclass(eq=False)
class Const(Expr):
    value: Any
    loc: Loc

    def sources(self) -> list[Var]:
        return []

    def __str__(self) -> str:
        return f"const({type(self.value).__name__}, {self.value})"


@dataclass(eq=False)
class Global(Expr):
    name: str
    value: Any
    loc: Loc

    def __str__(self) -> str:
        return f"global({self.name}: {self.value})"


@dataclass(eq=False)
class FreeVar(Expr):
    index: int
    name: str
    value: Any
    loc: Loc

    def __str__(self) -> str:
        return f"freevar({self.name}: {self.value})"


BINOP_SYMBOLS: dict[Callable, str] = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
    operator.lshift: "<<", operator.rshift: ">>", operator.and_: "&", operator.or_: "|",
    operator.xor: "^", operator.eq: "==", operator.ne: "!=", operator.lt: "<",
    operator.le: "<=", operator.gt: ">", operator.ge: ">=", operator.is_: "is",
    operator.is_not: "is not", operator.contains: "in",
}  # fmt: skip

INPLACE_OF: dict[Callable, Callable] = {
    operator.add: operator.iadd, operator.sub: operator.isub, operator.mul: operator.imul,
    operator.truediv: operator.itruediv, operator.floordiv: operator.ifloordiv,
    operator.mod: operator.imod, operator.pow: operator.ipow, operator.matmul: operator.imatmul,
    operator.lshift: operator.ilshift, operator.rshift: operator.irshift,
    operator.and_: operator.iand, operator.or_: operator.ior, operator.xor: operator.ixor,
}  # fmt: skip

UNARY_SYMBOLS: dict[Callable, str] = {
    operator.neg: "-", operator.pos: "+", operator.invert: "~", operator.not_: "not",
}  # fmt: skip


@dataclass(eq=False)
class BinOp(Expr):
    fn: Callable
    lhs: Var
    rhs: Var
    loc: Loc

    def sources(self) -> list[Var]:  # the generic one, spelled out: the commonest expression
        return [self.lhs, self.rhs]

    def __str__(self) -> str:
        return f"{self.lhs} {BINOP_SYMBOLS[self.fn]} {self.rhs}"


@dataclass(eq=False)
class InplaceBinOp(Expr):
    """`a += b`: `fn` is the in-place operator, `immutable_fn` the plain one it falls back to."""

    fn: Callable
    immutable_fn: Callable
    lhs: Var
    rhs: Var
    loc: Loc

    def __str__(self) -> str:
        return f"{self.lhs} {BINOP_SYMBOLS[self.immutable_fn]}= {self.rhs}"


@dataclass(eq=False)
class UnaryOp(Expr):
    fn: Callable
    value: Var
    loc: Loc

    def __str__(self) -> str:
        return f"unary(fn={UNARY_SYMBOLS[self.fn]}, value={self.value})"


@dataclass(eq=False)
class Call(Expr):
    func: Var
    args: list[Var]
    kws: list[tuple[str, Var]]
    loc: Loc
    # `f(a, *t)`: the tuple whose items follow `args`; type inference replaces it by those
    # items once it knows how many there are (ember/typing/star_calls.py), so later passes
    # never see it.
    vararg: Var | None = None

    # Numba's call fields that ember's calls never use.
    varkwarg = None
    target = None

    def sources(self) -> list[Var]:
        spread = [self.vararg] if self.vararg is not None else []
        return [self.func, *self.args, *spread, *(value for _, value in self.kws)]

    def __str__(self) -> str:
        args = ", ".join(str(a) for a in self.args)
        kws = ", ".join(f"{k}={v}" for k, v in self.kws)
        return f"call {self.func}({args}{', ' if args and kws else ''}{kws})"


@dataclass(eq=False)
class GetAttr(Expr):
    value: Var
    attr: str
    loc: Loc

    def __str__(self) -> str:
        return f"getattr(value={self.value}, attr={self.attr})"


@dataclass(eq=False)
class GetItem(Expr):
    value: Var
    index: Var
    loc: Loc

    def __str__(self) -> str:
        return f"getitem(value={self.value}, index={self.index})"


@dataclass(eq=False)
class StaticGetItem(Expr):
    """Indexing by a constant known at IR-generation time (tuples need it to type)."""

    value: Var
    index: Any
    index_var: Var | None
    loc: Loc

    def __str__(self) -> str:
        return f"static_getitem(value={self.value}, index={self.index}, index_var={self.index_var})"


@dataclass(eq=False)
class BuildTuple(Expr):
    items: list[Var]
    loc: Loc

    def sources(self) -> list[Var]:
        return list(self.items)

    def __str__(self) -> str:
        return f"build_tuple(items=[{', '.join(str(i) for i in self.items)}])"


@dataclass(eq=False)
class BuildList(Expr):
    items: list[Var]
    loc: Loc

    def sources(self) -> list[Var]:
        return list(self.items)

    def __str__(self) -> str:
        return f"build_list(items=[{', '.join(str(i) for i in self.items)}])"


@dataclass(eq=False)
class GetIter(Expr):
    value: Var
    loc: Loc

    def __str__(self) -> str:
        return f"getiter(value={self.value})"


@dataclass(eq=False)
class IterNext(Expr):
    value: Var
    loc: Loc

    def __str__(self) -> str:
        return f"iternext(value={self.value})"


@dataclass(eq=False)
class PairFirst(Expr):
    value: Var
    loc: Loc

    def __str__(self) -> str:
        return f"pair_first(value={self.value})"


@dataclass(eq=False)
class PairSecond(Expr):
    value: Var
    loc: Loc

    def __str__(self) -> str:
        return f"pair_second(value={self.value})"


@dataclass(eq=False)
class ExhaustIter(Expr):
    """Unpack exactly `count` items from a tuple (`a, b = t`)."""

    value: Var
    count: int
    loc: Loc

    def __str__(self) -> str:
        return f"exhaust_iter(value={self.value}, count={self.count})"


@dataclass(eq=False)
class MakeFunction(Expr):
    """`def`/`lambda` inside a function: the code object, the cell variables it closes over
    (in `code.co_freevars` order) and its defaults tuple. Inlined at its call sites before
    typing (frontend/inline_closures.py), so no later stage sees one."""

    code: Any
    closure: list[Var]
    defaults: Var | None
    default_count: int
    loc: Loc

    def sources(self) -> list[Var]:
        return [*self.closure, *([self.defaults] if self.defaults is not None else [])]

    def __str__(self) -> str:
        cells = ", ".join(str(v) for v in self.closure)
        return (
            f"make_function({self.code.co_qualname}, closure=({cells}), defaults={self.defaults})"
        )


@dataclass(eq=False)
class Cast(Expr):
    """Convert to the function's return type just before `return`."""

    value: Var
    loc: Loc

    def __str__(self) -> str:
        return f"cast(value={self.value})"


@dataclass(eq=False)
class Yield(Expr):
    """`yield value` in a generator: suspend, handing `value` to the consumer; the result is
    what the consumer sends back (always None: `send` is not supported). `index` numbers the
    yields of the function from 1 (the point where the generator resumes)."""

    value: Var
    index: int
    loc: Loc

    def __str__(self) -> str:
        return f"yield {self.value}"


@dataclass(eq=False)
class CaughtException(Expr):
    """The exception that entered the handler block `handler` (which this expression opens)."""

    handler: int
    loc: Loc

    def __str__(self) -> str:
        return f"caught_exception(handler={self.handler})"


@dataclass(eq=False)
class ExceptionMatch(Expr):
    """`except classes:` test: whether `exception` is an instance of one of `classes`."""

    exception: Var
    classes: Var
    loc: Loc

    def __str__(self) -> str:
        return f"exception_match(exception={self.exception}, classes={self.classes})"


# ---------------------------------------------------------------------------- statements


class Stmt:
    """Base of statements. `sources()` are variables read, `targets()` variables written."""

    loc: Loc
    is_terminator = False

    def sources(self) -> list[Var]:
        return [value for value in vars(self).values() if isinstance(value, Var)]

    def targets(self) -> list[Var]:
        return []

    def list_vars(self) -> list[Var]:
        """Every variable the statement mentions (Numba's name)."""
        return [*self.targets(), *self.sources()]


@dataclass(eq=False)
class Assign(Stmt):
    target: Var
    value: Expr | Var
    loc: Loc

    def sources(self) -> list[Var]:
        return [self.value] if isinstance(self.value, Var) else self.value.sources()

    def targets(self) -> list[Var]:
        return [self.target]

    def __str__(self) -> str:
        return f"{self.target} = {self.value}"


@dataclass(eq=False)
class Del(Stmt):
    name: str
    loc: Loc

    def __str__(self) -> str:
        return f"del {self.name}"


@dataclass(eq=False)
class SetItem(Stmt):
    target: Var
    index: Var
    value: Var
    loc: Loc
    fills_display: bool = False  # stores a member of the dict display just made

    def __str__(self) -> str:
        return f"{self.target}[{self.index}] = {self.value}"


@dataclass(eq=False)
class SetAttr(Stmt):
    """`target.attr = value` (typed by attribute templates, lowered by `@lower_setattr`)."""

    target: Var
    attr: str
    value: Var
    loc: Loc

    def __str__(self) -> str:
        return f"({self.target}).{self.attr} = {self.value}"


@dataclass(eq=False)
class DelAttr(Stmt):
    """`del target.attr` (an `@overload_attribute` deleter)."""

    target: Var
    attr: str
    loc: Loc

    def __str__(self) -> str:
        return f"del ({self.target}).{self.attr}"


@dataclass(eq=False)
class Jump(Stmt):
    target: int
    loc: Loc
    is_terminator = True

    def __str__(self) -> str:
        return f"jump {self.target}"


@dataclass(eq=False)
class Branch(Stmt):
    cond: Var
    truebr: int
    falsebr: int
    loc: Loc
    #: False: the true branch is expected rarely (LLVM keeps it a branch); None: no guess.
    likely: bool | None = None
    is_terminator = True

    def __str__(self) -> str:
        return f"branch {self.cond}, {self.truebr}, {self.falsebr}"


@dataclass(eq=False)
class Return(Stmt):
    value: Var
    loc: Loc
    is_terminator = True

    def __str__(self) -> str:
        return f"return {self.value}"


@dataclass(eq=False)
class Raise(Stmt):
    exception: Var
    loc: Loc
    is_terminator = True

    def __str__(self) -> str:
        return f"raise {self.exception}"


@dataclass(eq=False)
class StaticRaise(Stmt):
    """Raise an exception whose class and arguments are compile-time constants."""

    exc_class: type
    exc_args: tuple
    loc: Loc
    is_terminator = True

    def __str__(self) -> str:
        if not self.exc_args:
            return f"raise {self.exc_class}"
        return f"raise {self.exc_class}({', '.join(repr(a) for a in self.exc_args)})"


# ---------------------------------------------------------------------------- containers


@dataclass(eq=False)
class Block:
    """A basic block: statements ending in exactly one terminator."""

    label: int
    loc: Loc
    body: list[Stmt] = field(default_factory=list)

    @property
    def terminator(self) -> Stmt:
        return self.body[-1]

    def successors(self) -> list[int]:
        term = self.terminator
        if isinstance(term, Jump):
            return [term.target]
        if isinstance(term, Branch):
            return [term.truebr, term.falsebr]
        return []

    def append(self, stmt: Stmt) -> None:
        self.body.append(stmt)

    def insert_before_terminator(self, stmt: Stmt) -> None:
        self.body.insert(len(self.body) - 1, stmt)

    # ---------------------------------------------------------------- Numba's names

    @property
    def scope(self) -> Any:
        from ember.ir.numba_ir import GLOBAL_SCOPE

        return GLOBAL_SCOPE

    @property
    def is_terminated(self) -> bool:
        return bool(self.body) and self.body[-1].is_terminator

    def find_exprs(self, op: str | None = None):
        """The expressions assigned in this block (those of kind `op` only, when given)."""
        for stmt in self.body:
            if isinstance(stmt, Assign) and isinstance(stmt.value, Expr):
                if op is None or stmt.value.op == op:
                    yield stmt.value

    def find_insts(self, cls: type | tuple | None = None):
        for stmt in self.body:
            if cls is None or isinstance(stmt, cls):
                yield stmt

    def find_variable_assignment(self, name: str) -> Assign | None:
        for stmt in self.body:
            if isinstance(stmt, Assign) and stmt.target.name == name:
                return stmt
        return None

    def prepend(self, stmt: Stmt) -> None:
        self.body.insert(0, stmt)

    def remove(self, stmt: Stmt) -> None:
        self.body.remove(stmt)

    def clear(self) -> None:
        self.body.clear()

    def insert_after(self, stmt: Stmt, other: Stmt) -> None:
        self.body.insert(self.body.index(other) + 1, stmt)

    def copy(self) -> Block:
        return Block(self.label, self.loc, list(self.body))

    def dump(self, file: Any = None) -> None:
        from ember.ir.printer import format_block_body

        print("\n".join(format_block_body(self)), file=file)


@dataclass(eq=False)
class FunctionIR:
    """A whole function: blocks by label, entry label, argument names and where it came from."""

    blocks: dict[int, Block]
    arg_names: tuple[str, ...]
    py_func: Callable
    loc: Loc
    entry: int = 0
    # protected block label -> label of the handler block its exceptions enter
    exception_handlers: dict[int, int] = field(default_factory=dict)
    # a variable a pass renamed (`x.1`, a web of `x`: rewrites/variable_webs.py) -> the name
    # the source gives it, for messages and `locals=` declarations
    user_names: dict[str, str] = field(default_factory=dict)
    # (id of a statement, variable) for each read an inlined inner function makes of a
    # variable it closes over (frontend/inline_closures.py): an unassigned one is a NameError
    free_variable_reads: set[tuple[int, str]] = field(default_factory=set)

    def user_name(self, name: str) -> str:
        """The source's name of variable `name`."""
        return self.user_names.get(name, name)

    def successors(self, label: int) -> list[int]:
        """A block's successors, with the handler its exceptions jump to."""
        succs = self.blocks[label].successors()
        handler = self.exception_handlers.get(label)
        return succs if handler is None else [*succs, handler]

    def predecessors(self) -> dict[int, list[int]]:
        """Each block's predecessors (handlers' included), by label."""
        found: dict[int, list[int]] = {label: [] for label in self.blocks}
        for label in self.blocks:
            for succ in self.successors(label):
                found[succ].append(label)
        return found

    @property
    def qualname(self) -> str:
        return self.py_func.__qualname__

    # ---------------------------------------------------------------- Numba's names

    @property
    def func_id(self) -> Any:
        """Numba's FunctionIdentity: `func_name`, `func_qualname`, `modname`, ..."""
        from ember.ir.numba_ir import FunctionIdentity

        return FunctionIdentity.of(self.py_func, self.arg_names)

    @property
    def arg_count(self) -> int:
        return len(self.arg_names)

    @property
    def _definitions(self) -> dict[str, list]:
        """Variable name -> the values assigned to it, in label order (computed afresh)."""
        found: dict[str, list] = {}
        for _, stmt in self.statements():
            if isinstance(stmt, Assign):
                found.setdefault(stmt.target.name, []).append(stmt.value)
        return found

    def get_definition(self, value: Var | str, lhs_only: bool = False) -> Any:
        """What a variable holds, through plain copies `a = b` (KeyError if it is assigned
        zero or several times); with `lhs_only`, the last variable of the chain."""
        from ember.ir.numba_utils import definition_of

        return definition_of(self, value, lhs_only)

    def dump(self, file: Any = None) -> None:
        from ember.ir.printer import dump_function

        print(dump_function(self), file=file)

    def statements(self):
        """Every (block, statement) pair in label order."""
        for label in sorted(self.blocks):
            block = self.blocks[label]
            for stmt in block.body:
                yield block, stmt

    def makes_functions(self) -> bool:
        """Whether an inner function (`def`, `lambda`) is made here: ember/frontend/
        inline_closures.py inlines its calls."""
        return any(
            isinstance(stmt, Assign) and isinstance(stmt.value, MakeFunction)
            for _, stmt in self.statements()
        )


def origin_of(var: Var, definitions: dict) -> Expr | None:
    """The one expression `var` holds through copies, given `definitions` (name -> the
    values assigned to it), or None when some variable on the way is assigned in more than
    one place."""
    seen = set()
    while var.name not in seen:
        seen.add(var.name)
        values = definitions.get(var.name, ())
        if len(values) != 1:
            return None
        if not isinstance(values[0], Var):
            return values[0]
        var = values[0]
    return None


def copied_values(var: Var, definitions: dict) -> list:
    """The expressions (not copies) that reach `var` through copies on any path, given
    `definitions` (name -> the values assigned to it), each once."""
    found: list = []
    pending, seen = [var.name], set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for value in definitions.get(name, ()):
            if isinstance(value, Var):
                pending.append(value.name)
            elif not any(value is other for other in found):
                found.append(value)
    return found


# Numba's `expr.op` names for ember's expression classes (ember.core.ir); a class missing here
# answers its lower-cased class name.
NUMBA_OPS: dict[type, str] = {
    Arg: "arg", Const: "const", Global: "global", FreeVar: "freevar", BinOp: "binop",
    InplaceBinOp: "inplace_binop", UnaryOp: "unary", Call: "call", GetAttr: "getattr",
    GetItem: "getitem", StaticGetItem: "static_getitem", BuildTuple: "build_tuple",
    BuildList: "build_list", GetIter: "getiter", IterNext: "iternext", PairFirst: "pair_first",
    PairSecond: "pair_second", ExhaustIter: "exhaust_iter", MakeFunction: "make_function",
    Cast: "cast", Yield: "yield", CaughtException: "caught_exception",
    ExceptionMatch: "exception_match",
}  # fmt: skip
