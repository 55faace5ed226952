"""Random, valid, terminating Python programs in the subset ember compiles.

`generate(seed, size, features)` returns a `Program`: module source (helpers and a main `f`)
plus a few argument tuples, each written as Python source text (so they travel as JSON).
Every loop is bounded by construction, recursion takes a depth that shrinks to 0, and every
variable keeps one type, so ember's type inference has what it needs.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass, field

FEATURES = (
    "int",
    "float",
    "loops",
    "tuples",
    "calls",
    "recursion",
    "arrays",
    "arrays2d",
    "lists",
    "exceptions",
)

SCALARS = ("int", "float")
INT_EDGES = (0, 1, -1, 2, 3, -7, 63, 64, 100, 2**31, -(2**31), 2**62, 2**63 - 1, -(2**63))
FLOAT_EDGES = ("0.0", "-0.0", "1.5", "-2.25", "0.1", "1e308", "-1e308", "5e-324", "1e-300")
FLOAT_SPECIALS = ("nan", "inf", "-inf")


def _is_constant(text: str) -> bool:
    try:
        ast.literal_eval(text)
    except ValueError:
        return False
    return True


@dataclass
class Program:
    """A generated module: `source` defines `f` (and helpers); `inputs` are argument tuples."""

    source: str
    inputs: list[str]
    functions: list[str]
    boundscheck: bool = False


@dataclass
class Scope:
    """Variables visible at one point: name -> type; `frozen` lists must not grow (iterated)."""

    names: dict[str, str] = field(default_factory=dict)
    readonly: set[str] = field(default_factory=set)
    frozen: set[str] = field(default_factory=set)

    def child(self) -> Scope:
        return Scope(dict(self.names), set(self.readonly), set(self.frozen))

    def of(self, typ: str) -> list[str]:
        return [n for n, t in self.names.items() if t == typ]


@dataclass
class Helper:
    name: str
    params: list[str]
    ret: str
    recursive: bool = False


class Generator:
    """Writes one program; `self.lines` collects indented source lines."""

    def __init__(self, rng: random.Random, size: int, features: set[str]):
        self.rng = rng
        self.size = size
        self.features = features
        self.counter = 0
        self.lines: list[str] = []
        self.helpers: list[Helper] = []
        self.loop_depth = 0
        self.in_loop = False
        self.boundscheck = rng.random() < 0.3

    # ----- small utilities -----
    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def has(self, feature: str) -> bool:
        return feature in self.features

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def scalar_types(self) -> list[str]:
        return [t for t in SCALARS if self.has(t)] or ["int"]

    def array_types(self) -> list[str]:
        kinds = []
        if self.has("arrays"):
            kinds += ["a1f", "a1i"]
        if self.has("arrays2d"):
            kinds.append("a2f")
        return kinds

    def value_types(self) -> list[str]:
        kinds = self.scalar_types() + self.array_types()
        if self.has("lists"):
            kinds += ["li", "lf"] if self.has("float") else ["li"]
        return kinds

    # ----- expressions -----
    def expr(self, typ: str, scope: Scope, depth: int = 2) -> str:
        makers = {
            "int": self.int_expr,
            "float": self.float_expr,
            "bool": self.bool_expr,
            "a1f": self.a1f_expr,
            "a1i": self.a1i_expr,
            "a2f": self.a2f_expr,
            "li": self.list_expr,
            "lf": self.list_expr,
            "tup": self.tuple_expr,
        }
        return makers[typ](typ, scope, depth) if typ in ("li", "lf") else makers[typ](scope, depth)

    def pick_var(self, typ: str, scope: Scope) -> str | None:
        names = scope.of(typ)
        return self.rng.choice(names) if names else None

    def int_const(self) -> str:
        if self.chance(0.85):
            return str(self.rng.randint(-9, 9))
        return f"({self.rng.choice(INT_EDGES)})"

    def float_const(self) -> str:
        r = self.rng.random()
        if r < 0.5:
            return repr(round(self.rng.uniform(-10, 10), self.rng.randint(0, 3)))
        if r < 0.9:
            return f"({self.rng.choice(FLOAT_EDGES)})"
        return f"float('{self.rng.choice(FLOAT_SPECIALS)}')"

    def index(self, arr: str, scope: Scope, axis: int | None = None) -> str:
        """An index into `arr` along one axis: in range whenever the axis is non-empty."""
        size = f"len({arr})" if axis is None else f"{arr}.shape[{axis}]"
        i = self.int_expr(scope, 0)
        if self.boundscheck and self.chance(0.3):
            return i
        return f"({i}) % {size}"

    def list_index(self, xs: str, scope: Scope) -> str:
        """Lists always check their indices: out of range is an IndexError on both sides."""
        i = self.int_expr(scope, 0)
        return i if self.chance(0.2) else f"({i}) % len({xs})"

    def small_count(self, scope: Scope, bound: int = 6) -> str:
        return f"({self.int_expr(scope, 0)}) % {bound}"

    def int_expr(self, scope: Scope, depth: int) -> str:
        options = ["const", "var", "var", "var"]
        if depth > 0:
            options += ["bin", "bin", "bin", "bin", "unary", "cond", "minmax"]
            if self.has("float"):
                options.append("from_float")
            if self.has("tuples"):
                options.append("tuple")
            if self.has("calls") and any(h.ret == "int" for h in self.helpers):
                options.append("call")
            if any(scope.of(t) for t in ("a1i", "a1f", "a2f", "li", "lf")):
                options += ["len", "len"]
            if scope.of("a1i"):
                options += ["elem", "reduce"]
            if scope.of("li"):
                options.append("lelem")
        kind = self.rng.choice(options)
        sub = depth - 1
        if kind == "var":
            return self.pick_var("int", scope) or self.int_const()
        if kind == "bin":
            op = self.rng.choice(["+", "-", "*", "//", "%", "<<", ">>", "&", "|", "^", "**"])
            left = self.int_expr(scope, sub)
            if _is_constant(left) and scope.of("int"):
                left = self.rng.choice(scope.of("int"))  # CPython would fold two constants
            if op in ("<<", ">>", "**") and (self.chance(0.7) or _is_constant(left)):
                right = str(self.rng.randint(0, 70 if op != "**" else 5))  # CPython folds 2 ** -1
            else:
                right = self.int_expr(scope, sub)
            return f"({left} {op} {right})"
        if kind == "unary":
            op = self.rng.choice(["-", "~", "abs"])
            inner = self.int_expr(scope, sub)
            return f"abs({inner})" if op == "abs" else f"({op}{inner})"
        if kind == "cond":
            c = self.bool_expr(scope, sub)
            return f"({self.int_expr(scope, sub)} if {c} else {self.int_expr(scope, sub)})"
        if kind == "minmax":
            fn = self.rng.choice(["min", "max"])
            return f"{fn}({self.int_expr(scope, sub)}, {self.int_expr(scope, sub)})"
        if kind == "from_float" and self.chance(0.5):
            return f"int({self.float_expr(scope, sub)})"
        if kind == "tuple":
            return f"{self.tuple_expr(scope, sub)}[0]"
        if kind == "call":
            return self.call_expr("int", scope, sub)
        if kind == "len":
            arrs = [n for t in ("a1i", "a1f", "a2f", "li", "lf") for n in scope.of(t)]
            arr = self.rng.choice(arrs)
            if scope.names[arr] == "a2f" and self.chance(0.5):
                return f"{arr}.shape[{self.rng.randint(0, 1)}]"
            return f"len({arr})"
        if kind == "elem":
            arr = self.rng.choice(scope.of("a1i"))
            return f"{arr}[{self.index(arr, scope)}]"
        if kind == "reduce":
            arr = self.rng.choice(scope.of("a1i"))
            return self.rng.choice([f"{arr}.sum()", f"np.sum({arr})", f"{arr}.max()"])
        if kind == "lelem":
            xs = self.rng.choice(scope.of("li"))
            return f"{xs}[{self.list_index(xs, scope)}]"
        return self.int_const()

    def float_expr(self, scope: Scope, depth: int) -> str:
        if not self.has("float"):
            return f"float({self.int_expr(scope, depth)})"
        options = ["const", "var", "var", "var"]
        if depth > 0:
            options += ["bin", "bin", "bin", "bin", "unary", "cond", "from_int", "math", "minmax"]
            if self.has("tuples"):
                options.append("tuple")
            if self.has("calls") and any(h.ret == "float" for h in self.helpers):
                options.append("call")
            if scope.of("a1f"):
                options += ["elem", "reduce"]
            if scope.of("a2f"):
                options += ["elem2", "reduce2"]
            if scope.of("lf"):
                options.append("lelem")
        kind = self.rng.choice(options)
        sub = depth - 1
        if kind == "var":
            return self.pick_var("float", scope) or self.float_const()
        if kind == "bin":
            op = self.rng.choice(["+", "-", "*", "/", "//", "%", "**"])
            left = self.float_expr(scope, sub)
            if op == "**" and self.chance(0.6):
                return f"({left} ** {self.rng.choice(['2', '3', '-1', '0.5', '2.0'])})"
            if _is_constant(left) and scope.of("float"):
                left = self.rng.choice(scope.of("float"))  # CPython would fold two constants
            other = self.int_expr(scope, sub) if self.chance(0.25) else self.float_expr(scope, sub)
            if _is_constant(left) and _is_constant(other):
                left = f"abs({left})"  # not folded by CPython: (-8.0) ** 0.5 is no complex
            return f"({left} {op} {other})" if self.chance(0.7) else f"({other} {op} {left})"
        if kind == "unary":
            inner = self.float_expr(scope, sub)
            return f"abs({inner})" if self.chance(0.5) else f"(-{inner})"
        if kind == "cond":
            c = self.bool_expr(scope, sub)
            return f"({self.float_expr(scope, sub)} if {c} else {self.float_expr(scope, sub)})"
        if kind == "from_int":
            return f"float({self.int_expr(scope, sub)})"
        if kind == "math":
            fn = self.rng.choice(["sqrt", "floor", "fabs", "sin", "exp", "log", "atan2", "hypot"])
            args = self.float_expr(scope, sub)
            if fn in ("atan2", "hypot"):
                args += ", " + self.float_expr(scope, sub)
            call = f"math.{fn}({args})"
            return f"float({call})" if fn == "floor" else call
        if kind == "minmax":
            fn = self.rng.choice(["min", "max"])
            return f"{fn}({self.float_expr(scope, sub)}, {self.float_expr(scope, sub)})"
        if kind == "tuple":
            return f"{self.tuple_expr(scope, sub)}[1]"
        if kind == "call":
            return self.call_expr("float", scope, sub)
        if kind == "elem":
            arr = self.rng.choice(scope.of("a1f"))
            return f"{arr}[{self.index(arr, scope)}]"
        if kind == "elem2":
            arr = self.rng.choice(scope.of("a2f"))
            return f"{arr}[{self.index(arr, scope, 0)}, {self.index(arr, scope, 1)}]"
        if kind in ("reduce", "reduce2"):
            arr = self.rng.choice(scope.of("a1f" if kind == "reduce" else "a2f"))
            return self.rng.choice(
                [f"{arr}.sum()", f"np.sum({arr})", f"{arr}.max()", f"{arr}.min()",
                 f"np.mean({arr})", f"{arr}.prod()"]
            )  # fmt: skip
        if kind == "lelem":
            xs = self.rng.choice(scope.of("lf"))
            return f"{xs}[{self.list_index(xs, scope)}]"
        return self.float_const()

    def bool_expr(self, scope: Scope, depth: int) -> str:
        r = self.rng.random()
        if depth > 0 and r < 0.2:
            op = self.rng.choice(["and", "or"])
            return f"({self.bool_expr(scope, depth - 1)} {op} {self.bool_expr(scope, depth - 1)})"
        if depth > 0 and r < 0.27:
            return f"(not {self.bool_expr(scope, depth - 1)})"
        if self.has("float") and r < 0.32:
            return f"math.{self.rng.choice(['isnan', 'isinf'])}({self.float_expr(scope, 1)})"
        if scope.of("li") and r < 0.36:
            return f"({self.int_expr(scope, 0)} in {self.rng.choice(scope.of('li'))})"
        left_t = self.rng.choice(self.scalar_types())
        right_t = self.rng.choice(self.scalar_types())
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        left = self.expr(left_t, scope, max(depth - 1, 0))
        return f"({left} {op} {self.expr(right_t, scope, max(depth - 1, 0))})"

    def tuple_expr(self, scope: Scope, depth: int) -> str:
        if scope.of("tup") and self.chance(0.5):
            return self.rng.choice(scope.of("tup"))
        calls = [h for h in self.helpers if h.ret == "tup"]
        if calls and self.has("calls") and self.chance(0.3):
            return self.call_expr("tup", scope, depth)
        return f"({self.int_expr(scope, depth)}, {self.float_expr(scope, depth)})"

    def call_expr(self, ret: str, scope: Scope, depth: int) -> str:
        helper = self.rng.choice([h for h in self.helpers if h.ret == ret])
        args = [self.expr(t, scope, max(depth, 0)) for t in helper.params]
        if helper.recursive:
            args[0] = self.small_count(scope)
        return f"{helper.name}({', '.join(args)})"

    def a1f_expr(self, scope: Scope, depth: int) -> str:
        options = ["var", "var", "zeros", "arange"]
        if depth > 0:
            options += ["bin", "bin", "ufunc", "slice", "where", "copy"]
            if scope.of("a2f"):
                options += ["row", "axis"]
            if scope.of("lf"):
                options.append("fromlist")
        kind = self.rng.choice(options)
        sub = depth - 1
        if kind == "var" and scope.of("a1f"):
            return self.rng.choice(scope.of("a1f"))
        if kind == "bin":
            op = self.rng.choice(["+", "-", "*", "/"])
            left = self.a1f_expr(scope, sub)
            other_t = self.rng.choice(["a1f", "a1f", "float", "int", "a1i"])
            same_shape = other_t == "a1f" and self.chance(0.6)
            other = left if same_shape else self.expr(other_t, scope, sub)
            return f"({left} {op} {other})"
        if kind == "ufunc":
            fn = self.rng.choice(["sqrt", "abs", "exp", "sin", "negative"])
            return f"np.{fn}({self.a1f_expr(scope, sub)})"
        if kind == "slice":
            arr = self.a1f_expr(scope, 0)
            lo, hi = self.int_expr(scope, 0), self.int_expr(scope, 0)
            step = self.rng.choice(["", "", ":2", ":-1"])
            return f"{arr}[{lo}:{hi}{step}]"
        if kind == "where":
            arr = self.a1f_expr(scope, 0)
            cut, other = self.float_expr(scope, 0), self.float_expr(scope, 0)
            return f"np.where({arr} > {cut}, {arr}, {other})"
        if kind == "copy":
            return f"{self.a1f_expr(scope, sub)}.copy()"
        if kind == "row":
            arr = self.rng.choice(scope.of("a2f"))
            return f"{arr}[{self.index(arr, scope, 0)}]"
        if kind == "axis":
            arr = self.rng.choice(scope.of("a2f"))
            return f"{arr}.{self.rng.choice(['max', 'min'])}(axis={self.rng.randint(0, 1)})"
        if kind == "fromlist":
            return f"np.array({self.rng.choice(scope.of('lf'))})"
        if kind == "arange":
            return f"(np.arange({self.small_count(scope)}) * {self.float_expr(scope, 0)})"
        return f"np.zeros({self.small_count(scope)})"

    def a1i_expr(self, scope: Scope, depth: int) -> str:
        options = ["var", "var", "arange"]
        if depth > 0:
            options += ["bin", "bin", "slice", "copy"]
        kind = self.rng.choice(options)
        sub = depth - 1
        if kind == "var" and scope.of("a1i"):
            return self.rng.choice(scope.of("a1i"))
        if kind == "bin":
            op = self.rng.choice(["+", "-", "*", "&", "//", "%"])
            left = self.a1i_expr(scope, sub)
            other = self.a1i_expr(scope, sub) if self.chance(0.3) else self.int_expr(scope, sub)
            return f"({left} {op} {left if self.chance(0.3) else other})"
        if kind == "slice":
            arr = self.a1i_expr(scope, 0)
            return f"{arr}[{self.int_expr(scope, 0)}:{self.rng.choice(['', '-1', '3'])}]"
        if kind == "copy":
            return f"{self.a1i_expr(scope, sub)}.copy()"
        return f"np.arange({self.small_count(scope)})"

    def a2f_expr(self, scope: Scope, depth: int) -> str:
        options = ["var", "var", "zeros"]
        if depth > 0:
            options += ["bin", "bin", "T", "slice", "ufunc"]
        kind = self.rng.choice(options)
        sub = depth - 1
        if kind == "var" and scope.of("a2f"):
            return self.rng.choice(scope.of("a2f"))
        if kind == "bin":
            op = self.rng.choice(["+", "-", "*"])
            left = self.a2f_expr(scope, sub)
            other_t = self.rng.choice(["a2f", "float", "int"])
            same_shape = other_t == "a2f" and self.chance(0.6)
            other = left if same_shape else self.expr(other_t, scope, sub)
            return f"({left} {op} {other})"
        if kind == "T":
            return f"{self.a2f_expr(scope, sub)}.T"
        if kind == "slice":
            arr = self.a2f_expr(scope, 0)
            return f"{arr}[{self.int_expr(scope, 0)}:, ::{self.rng.choice(['1', '-1', '2'])}]"
        if kind == "ufunc":
            return f"np.{self.rng.choice(['sqrt', 'abs'])}({self.a2f_expr(scope, sub)})"
        n, m = self.small_count(scope, 4), self.small_count(scope, 4)
        return f"np.zeros(({n}, {m}))"

    def list_expr(self, typ: str, scope: Scope, depth: int) -> str:
        item = "int" if typ == "li" else "float"
        r = self.rng.random()
        if r < 0.4 and scope.of(typ):
            return self.rng.choice(scope.of(typ))
        if r < 0.55 and typ == "li":
            return f"list(range({self.small_count(scope)}))"
        if r < 0.65 and scope.of(typ) and depth > 0:
            return f"({self.rng.choice(scope.of(typ))} + {self.list_expr(typ, scope, 0)})"
        if r < 0.72 and scope.of(typ):
            xs = self.rng.choice(scope.of(typ))
            return f"{xs}[{self.int_expr(scope, 0)}:{self.int_expr(scope, 0)}]"
        n = self.rng.randint(1, 4)
        return "[" + ", ".join(self.expr(item, scope, max(depth - 1, 0)) for _ in range(n)) + "]"

    # ----- statements -----
    def block(self, scope: Scope, indent: int, count: int) -> None:
        start = len(self.lines)
        for _ in range(count):
            self.statement(scope, indent)
        if len(self.lines) == start:
            self.emit(indent, "pass")

    def statement(self, scope: Scope, indent: int) -> None:
        nested = indent < 4
        choices = ["assign", "assign", "assign", "aug", "aug"]
        if nested:
            choices += ["if", "if"]
            if self.has("loops"):
                choices += ["for", "while"]
            if self.has("exceptions"):
                choices.append("try")
        if self.in_loop and self.has("loops"):
            choices += ["jump", "accumulate", "accumulate"]
        if self.has("exceptions"):
            choices.append("raise")
        if any(scope.of(t) for t in ("a1f", "a1i", "a2f")):
            choices += ["store", "store"]
        if any(n not in scope.frozen for t in ("li", "lf") for n in scope.of(t)):
            choices.append("listop")
        if self.has("tuples"):
            choices.append("unpack")
        kind = self.rng.choice(choices)
        getattr(self, f"stmt_{kind}")(scope, indent)

    def stmt_assign(self, scope: Scope, indent: int) -> None:
        typ = self.rng.choice(self.value_types() + (["tup"] if self.has("tuples") else []))
        targets = [n for n in scope.of(typ) if n not in scope.readonly]
        value = self.expr(typ, scope, 2)
        if targets and typ not in ("li", "lf") and self.chance(0.5):
            self.emit(indent, f"{self.rng.choice(targets)} = {value}")
            return
        name = self.fresh()
        self.emit(indent, f"{name} = {value}")
        scope.names[name] = typ

    def stmt_aug(self, scope: Scope, indent: int) -> None:
        typ = self.rng.choice(self.scalar_types() + self.array_types())
        targets = [n for n in scope.of(typ) if n not in scope.readonly]
        if not targets:
            return self.stmt_assign(scope, indent)
        target = self.rng.choice(targets)
        if typ == "int":
            op = self.rng.choice(["+=", "-=", "*=", "//=", "%=", "^=", "|=", "<<=", ">>="])
            value = str(self.rng.randint(0, 5)) if op in ("<<=", ">>=") else None
            value = value or self.int_expr(scope, 1)
        elif typ == "float":
            op = self.rng.choice(["+=", "-=", "*=", "/="])
            value = self.float_expr(scope, 1)
        elif typ == "a1i":
            op = self.rng.choice(["+=", "-=", "*="])
            value = self.rng.choice([self.int_expr(scope, 1), self.a1i_expr(scope, 0)])
        else:
            op = self.rng.choice(["+=", "-=", "*=", "/="])
            value = self.float_expr(scope, 1) if self.chance(0.6) else self.expr(typ, scope, 0)
        self.emit(indent, f"{target} {op} {value}")

    def stmt_store(self, scope: Scope, indent: int) -> None:
        arrs = [n for t in ("a1f", "a1i", "a2f") for n in scope.of(t)]
        arr = self.rng.choice(arrs)
        typ = scope.names[arr]
        item = "int" if typ == "a1i" else "float"
        if typ == "a2f":
            where = f"{self.index(arr, scope, 0)}, {self.index(arr, scope, 1)}"
            if self.chance(0.3):
                where = f"{self.index(arr, scope, 0)}, :"
        elif self.chance(0.3):
            where = f"{self.int_expr(scope, 0)}:{self.int_expr(scope, 0)}"
        else:
            where = self.index(arr, scope)
        op = self.rng.choice(["=", "=", "+="])
        self.emit(indent, f"{arr}[{where}] {op} {self.expr(item, scope, 1)}")

    def stmt_listop(self, scope: Scope, indent: int) -> None:
        lists = [n for t in ("li", "lf") for n in scope.of(t) if n not in scope.frozen]
        xs = self.rng.choice(lists)
        item = "int" if scope.names[xs] == "li" else "float"
        kind = self.rng.choice(["append", "append", "set", "pop", "insert", "reverse", "sort"])
        if kind == "append":
            self.emit(indent, f"{xs}.append({self.expr(item, scope, 1)})")
        elif kind == "set":
            self.emit(indent, f"{xs}[{self.list_index(xs, scope)}] = {self.expr(item, scope, 1)}")
        elif kind == "pop":
            self.emit(indent, f"if len({xs}) > 1:")
            self.emit(indent + 1, f"{xs}.pop()")
        elif kind == "insert":
            value = self.expr(item, scope, 1)
            self.emit(indent, f"{xs}.insert({self.int_expr(scope, 0)}, {value})")
        else:
            self.emit(indent, f"{xs}.{kind}()")

    def stmt_accumulate(self, scope: Scope, indent: int) -> None:
        """`x = x * K + e`: a hash-like update that overflows 64 bits within a few rounds."""
        typ = self.rng.choice(self.scalar_types())
        targets = [n for n in scope.of(typ) if n not in scope.readonly]
        if not targets:
            return self.stmt_assign(scope, indent)
        target = self.rng.choice(targets)
        factor = self.rng.choice(["31", "1000003", "(2**40 + 7)", "-3", "2.5", "0.5"])
        if typ == "int":
            factor = factor if "." not in factor else "7"
        self.emit(indent, f"{target} = {target} * {factor} + {self.expr(typ, scope, 1)}")

    def stmt_unpack(self, scope: Scope, indent: int) -> None:
        a, b = self.fresh(), self.fresh()
        self.emit(indent, f"{a}, {b} = {self.tuple_expr(scope, 1)}")
        scope.names[a], scope.names[b] = "int", "float"

    def stmt_if(self, scope: Scope, indent: int) -> None:
        self.emit(indent, f"if {self.bool_expr(scope, 2)}:")
        self.block(scope.child(), indent + 1, self.rng.randint(1, 3))
        if self.chance(0.3):
            self.emit(indent, f"elif {self.bool_expr(scope, 1)}:")
            self.block(scope.child(), indent + 1, self.rng.randint(1, 2))
        if self.chance(0.5):
            self.emit(indent, "else:")
            self.block(scope.child(), indent + 1, self.rng.randint(1, 2))

    def loop_body(self, scope: Scope, indent: int) -> None:
        was = self.in_loop
        self.in_loop = True
        self.block(scope, indent, self.rng.randint(1, 4))
        self.in_loop = was

    def stmt_for(self, scope: Scope, indent: int) -> None:
        inner = scope.child()
        var = self.fresh("i")
        iterables = [n for t in ("a1f", "a1i", "li", "lf") for n in scope.of(t)]
        if iterables and self.chance(0.3):
            seq = self.rng.choice(iterables)
            inner.names[var] = {"a1f": "float", "lf": "float"}.get(scope.names[seq], "int")
            inner.frozen.add(seq)
            self.emit(indent, f"for {var} in {seq}:")
        else:
            lo, hi = self.small_count(scope, 8), self.small_count(scope, 8)
            step = self.rng.choice(["", "", ", 2", ", -1", ", -2"])
            if step.startswith(", -"):
                lo, hi = hi, lo
            self.emit(indent, f"for {var} in range({lo}, {hi}{step}):")
            inner.names[var] = "int"
        inner.readonly.add(var)
        self.loop_body(inner, indent + 1)

    def stmt_while(self, scope: Scope, indent: int) -> None:
        counter = self.fresh("c")
        self.emit(indent, f"{counter} = 0")
        inner = scope.child()
        bound = self.rng.randint(1, 8)
        cond = f" and {self.bool_expr(scope, 1)}" if self.chance(0.5) else ""
        self.emit(indent, f"while {counter} < {bound}{cond}:")
        self.emit(indent + 1, f"{counter} += 1")
        inner.names[counter] = "int"
        inner.readonly.add(counter)
        self.loop_body(inner, indent + 1)

    def stmt_jump(self, scope: Scope, indent: int) -> None:
        self.emit(indent, f"if {self.bool_expr(scope, 1)}:")
        self.emit(indent + 1, self.rng.choice(["break", "continue"]))

    def stmt_try(self, scope: Scope, indent: int) -> None:
        self.emit(indent, "try:")
        self.block(scope.child(), indent + 1, self.rng.randint(1, 3))
        caught = self.rng.choice(
            ["ZeroDivisionError", "(IndexError, ValueError)", "ArithmeticError", "Exception",
             "OverflowError", "ValueError"]
        )  # fmt: skip
        self.emit(indent, f"except {caught}:")
        self.block(scope.child(), indent + 1, self.rng.randint(1, 2))
        if self.chance(0.2):
            self.emit(indent, "finally:")
            self.block(scope.child(), indent + 1, 1)

    def stmt_raise(self, scope: Scope, indent: int) -> None:
        conditions = " and ".join(self.bool_expr(scope, 1) for _ in range(3))
        self.emit(indent, f"if {conditions}:")
        error = self.rng.choice(["ValueError", "IndexError", "ZeroDivisionError"])
        self.emit(indent + 1, f'raise {error}("fuzz")')

    # ----- functions -----
    def param_types(self, count: int, allow_lists: bool) -> list[str]:
        kinds = self.scalar_types() * 2 + self.array_types()
        if allow_lists and self.has("lists"):
            kinds.append("li")
        return [self.rng.choice(kinds) for _ in range(count)]

    def function(self, name: str, params: list[str], ret: str, statements: int) -> Helper:
        names = [f"p{k}" for k in range(len(params))]
        scope = Scope(dict(zip(names, params)))
        self.emit(0, f"def {name}({', '.join(names)}):")
        helper = Helper(name, params, ret)
        if ret != "any" and self.has("recursion") and params[0] == "int" and self.chance(0.4):
            helper.recursive = True
            scope.readonly.add("p0")  # the depth only shrinks: the recursion ends
            self.emit(1, "if p0 <= 0:")
            self.emit(2, f"return {self.expr(ret, scope, 1)}")
        self.block(scope, 1, statements)
        if helper.recursive:
            args = [self.expr(t, scope, 0) for t in params]
            args[0] = "p0 - 1"
            rec = f"{name}({', '.join(args)})"
            if ret == "tup":
                self.emit(1, f"return ({rec}[0] + {self.int_expr(scope, 0)}, {rec}[1])")
            else:
                op = "+" if ret == "int" else "-"
                self.emit(1, f"return {rec} {op} {self.expr(ret, scope, 1)}")
        elif ret == "any":
            self.emit(1, f"return {self.result(scope)}")
        else:
            self.emit(1, f"return {self.expr(ret, scope, 2)}")
        self.emit(0, "")
        return helper

    def result(self, scope: Scope) -> str:
        values = [n for n, t in scope.names.items() if t in ("int", "float", "a1f", "a1i", "a2f")]
        lists = [n for n, t in scope.names.items() if t in ("li", "lf")]
        if lists and self.chance(0.15):
            return self.rng.choice(lists)
        chosen = self.rng.sample(values, min(len(values), self.rng.randint(1, 3)))
        if not chosen:
            return self.int_expr(scope, 1)
        return "(" + ", ".join(chosen) + ",)" if len(chosen) > 1 or self.chance(0.3) else chosen[0]

    def program(self) -> tuple[str, list[str], list[str]]:
        self.emit(0, "import math")
        self.emit(0, "")
        self.emit(0, "import numpy as np")
        self.emit(0, "")
        self.emit(0, "")
        functions = []
        if self.has("calls"):
            for k in range(self.rng.randint(0, 2)):
                rets = self.scalar_types() + (["tup"] if self.has("tuples") else [])
                params = self.param_types(self.rng.randint(1, 3), allow_lists=False)
                if self.has("recursion") and self.chance(0.5):
                    params[0] = "int"
                helper = self.function(f"h{k}", params, self.rng.choice(rets), self.size // 3)
                self.helpers.append(helper)
                functions.append(helper.name)
        params = self.param_types(self.rng.randint(1, 4), allow_lists=True)
        self.function("f", params, "any", self.size)
        functions.append("f")
        return "\n".join(self.lines).rstrip() + "\n", params, functions


def argument(rng: random.Random, typ: str) -> str:
    """Source text of one argument value of type `typ`, corner cases often."""
    if typ == "int":
        return str(rng.choice(INT_EDGES)) if rng.random() < 0.3 else str(rng.randint(-20, 20))
    if typ == "float":
        r = rng.random()
        if r < 0.15:
            return f"float('{rng.choice(FLOAT_SPECIALS)}')"
        if r < 0.35:
            return rng.choice(FLOAT_EDGES)
        return repr(round(rng.uniform(-20, 20), rng.randint(0, 4)))
    if typ == "li":
        return "[" + ", ".join(argument(rng, "int") for _ in range(rng.randint(1, 5))) + "]"
    item = "int" if typ == "a1i" else "float"
    dtype = "np.int64" if typ == "a1i" else "np.float64"
    if typ == "a2f":
        rows, cols = rng.choice([0, 1, 2, 3, 3, 4]), rng.choice([0, 1, 2, 4, 4, 3])
        data = [[argument(rng, item) for _ in range(cols)] for _ in range(rows)]
        body = "[" + ", ".join("[" + ", ".join(r) + "]" for r in data) + "]"
        shape = f".reshape({rows}, {cols})"
        return f"np.array({body}, dtype={dtype}){shape}"
    n = rng.choice([0, 1, 2, 3, 3, 4, 5, 5, 6, 8])
    return f"np.array([{', '.join(argument(rng, item) for _ in range(n))}], dtype={dtype})"


def generate(seed: int, size: int = 8, features: set[str] | None = None) -> Program:
    """The program numbered by `seed`: same seed, same program."""
    rng = random.Random(seed)
    gen = Generator(rng, size, set(features or FEATURES))
    source, params, functions = gen.program()
    inputs = []
    for _ in range(rng.randint(2, 4)):
        inputs.append("(" + "".join(argument(rng, t) + ", " for t in params) + ")")
    return Program(source, inputs, functions, gen.boundscheck)
