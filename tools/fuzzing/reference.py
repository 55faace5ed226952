"""The CPython reference of a generated program: its source rewritten so that CPython computes
what ember documents (README "Deliberate differences from CPython"), and nothing more.

`reference_source(src)` rewrites arithmetic into calls of the helpers below; each helper states
which documented difference it encodes. Everything else runs as plain CPython and NumPy.
"""

from __future__ import annotations

import ast
import math
import operator
from fractions import Fraction

import numpy as np

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

OPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
}
IN_PLACE = {
    "+": operator.iadd,
    "-": operator.isub,
    "*": operator.imul,
    "/": operator.itruediv,
    "//": operator.ifloordiv,
    "%": operator.imod,
    "**": operator.ipow,
    "<<": operator.ilshift,
    ">>": operator.irshift,
    "&": operator.iand,
    "|": operator.ior,
    "^": operator.ixor,
}
AST_OPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}


def _wrap(value):
    """README: integers are 64-bit and wrap on overflow."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return (value - INT64_MIN) % 2**64 + INT64_MIN


def _folded(value):
    """README: a constant CPython folded wraps as the arithmetic would, except one in
    [2**63, 2**64), which is a uint64 constant (as in Numba)."""
    return value if isinstance(value, int) and 2**63 <= value < 2**64 else _wrap(value)


def _s(value):
    """A NumPy scalar read out of an array is a plain number in compiled code."""
    return value.item() if isinstance(value, np.generic) else value


def _is_int(value) -> bool:
    return isinstance(value, int)


def _int_binop(op: str, a: int, b: int):
    if op == "**":
        if b < 0:
            if a == 0:
                raise ZeroDivisionError("0.0 cannot be raised to a negative power")
            # README: `int ** negative int` raises ValueError (the result type must be static)
            # unless the base is 1 or -1, whose powers are integers.
            if a not in (1, -1):
                raise ValueError("integer ** negative integer")
            b = -b
        return _wrap(pow(a, b, 2**64))
    if op in ("<<", ">>") and b < 0:
        raise ValueError("negative shift count")
    if op == "<<":
        return 0 if b >= 64 else _wrap(a << b)  # README: `x << 64` is 0
    if op == ">>":
        return a >> min(b, 64)
    if op in ("&", "|", "^") and isinstance(a, bool) and isinstance(b, bool):
        return OPS[op](a, b)
    return _wrap(OPS[op](int(a), int(b)))


#: Beyond this magnitude ember's run-time integral exponents call the C pow, as CPython does.
POWER_LOOP_LIMIT = 1024


def correctly_rounded_power(x: float, n: int) -> float:
    """README: a float raised to an integer is correctly rounded (CPython's C pow may differ by
    one unit in the last place), with CPython's values at zeros, infinities and NaN and its
    errors; past `POWER_LOOP_LIMIT` it is CPython's."""
    if n == 0 or x == 0 or not math.isfinite(x) or abs(n) > POWER_LOOP_LIMIT:
        return x**n
    try:
        return float(Fraction(x) ** n)  # int / int: correctly rounded
    except OverflowError:
        raise OverflowError(34, "Numerical result out of range") from None


def square_root_power(x: float) -> float:
    """README: `x ** 0.5` is the correctly rounded square root, pow's values at -0.0 and -inf."""
    if x == -math.inf:
        return math.inf
    if x < 0:
        raise ValueError("negative number cannot be raised to a fractional power")
    return math.sqrt(x) + 0.0


def _power_literal(a, exponent: float):
    """`a ** 2.0`, `a ** 0.5`: a float literal exponent that ember computes exactly."""
    a = _s(a)
    if isinstance(a, np.ndarray | list):
        return _bin("**", a, exponent)
    if exponent == 0.5:
        return square_root_power(float(a))
    return correctly_rounded_power(float(a), int(exponent))


def _is_exact_power_literal(node: ast.expr) -> bool:
    """A float literal exponent ember computes without the C pow (as ember/lowering/powers.py)."""
    if not isinstance(node, ast.Constant) or type(node.value) is not float:
        return False
    return node.value == 0.5 or (node.value.is_integer() and abs(node.value) <= 64)


def _scalar_binop(op: str, a, b):
    if _is_int(a) and _is_int(b):
        return _int_binop(op, a, b)
    if op == "**" and isinstance(a, float) and _is_int(b) and not isinstance(b, bool):
        return correctly_rounded_power(a, b)
    if op == "**":
        if a < 0 and math.isfinite(a) and math.isfinite(b) and b != int(b):
            # README: a negative float raised to a fractional power raises ValueError.
            raise ValueError("negative number cannot be raised to a fractional power")
        result = a**b
        if isinstance(result, complex):
            # README: a negative float raised to a fractional power raises ValueError.
            raise ValueError("negative number cannot be raised to a fractional power")
        return result
    return OPS[op](a, b)


def _bin(op: str, a, b):
    a, b = _s(a), _s(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        with np.errstate(all="ignore"):
            return OPS[op](a, b)
    if isinstance(a, list) or isinstance(b, list):
        return OPS[op](a, b)
    return _scalar_binop(op, a, b)


def _aug(op: str, a, b):
    """`a op= b`: arrays and lists change in place, numbers follow `_bin`."""
    b = _s(b)
    if isinstance(a, np.ndarray) or isinstance(a, list):
        with np.errstate(all="ignore"):
            return IN_PLACE[op](a, b)
    return _bin(op, a, b)


def _neg(a):
    a = _s(a)
    if isinstance(a, np.ndarray):
        return -a
    return _wrap(-a)


def _abs(a):
    a = _s(a)
    if isinstance(a, np.ndarray):
        return np.abs(a)
    return _wrap(abs(a))


def _within_int64(x: float, converted: int) -> int:
    """README: a float beyond int64 raises OverflowError in `int`, `math.floor`..."""
    if not INT64_MIN <= converted <= INT64_MAX:
        raise OverflowError(f"cannot convert float {x!r} beyond int64 to integer")
    return converted


def _int(x):
    """README: floats beyond int64 raise OverflowError in `int` (NaN and infinities raise as in
    CPython)."""
    x = _s(x)
    if isinstance(x, float) and math.isfinite(x):
        return _within_int64(x, int(x))
    return _wrap(int(x))


def _floor(x):
    """README: floats beyond int64 raise OverflowError in `math.floor` too."""
    x = _s(x)
    if isinstance(x, float) and math.isfinite(x):
        return _within_int64(x, math.floor(x))
    return math.floor(x)


def _minmax(fn, a, b):
    """README: `min`/`max` of an int and a float return a float."""
    a, b = _s(a), _s(b)
    result = fn(a, b)
    if isinstance(a, float) != isinstance(b, float):
        return float(result)
    return result


def _min(a, b):
    return _minmax(min, a, b)


def _max(a, b):
    return _minmax(max, a, b)


def _sequential(values, start):
    total = start
    for v in values:
        total = _bin("+", total, _s(v)) if isinstance(start, float) else total + v
    return total


def _fold_order(a: np.ndarray):
    """The elements in the order ember folds them: memory order for a Fortran-ordered array
    (as NumPy), else C order."""
    fortran = a.flags.f_contiguous and not a.flags.c_contiguous
    return a.ravel(order="F" if fortran else "C")


def _sum(a):
    """README: reductions sum sequentially (NumPy sums floats pairwise)."""
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return _sequential(_fold_order(a), 0.0)
    return _s(np.sum(a))


def _mean(a):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size:
        return _sum(a) / a.size
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _s(np.mean(a))


def _prod(a):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        total = 1.0
        for v in _fold_order(a):
            total *= float(v)
        return total
    return _s(np.prod(a))


def _extremum(a, axis, fn, zero_wins_if_signbit):
    """README: `max`/`min` of floats fold with IEEE maximum/minimum: NaN propagates and
    `+0.0` counts as larger than `-0.0` (NumPy's answer depends on the order)."""
    result = fn(a, axis=axis)
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        zeros = (a == 0) & (np.signbit(a) == zero_wins_if_signbit)
        zero = -0.0 if zero_wins_if_signbit else 0.0
        result = np.where((result == 0) & np.any(zeros, axis=axis), zero, result)
        if axis is None:
            result = result[()]
    return _s(result)


def _amax(a, axis=None):
    return _extremum(a, axis, np.max, False)


def _amin(a, axis=None):
    return _extremum(a, axis, np.min, True)


HELPERS = {
    "_folded": _folded,
    "_s": _s,
    "_bin": _bin,
    "_aug": _aug,
    "_neg": _neg,
    "_abs": _abs,
    "_int": _int,
    "_floor": _floor,
    "_min": _min,
    "_max": _max,
    "_sum": _sum,
    "_mean": _mean,
    "_power_literal": _power_literal,
    "_prod": _prod,
    "_amax": _amax,
    "_amin": _amin,
}
BUILTIN_REWRITES = {"abs": "_abs", "int": "_int", "min": "_min", "max": "_max"}
REDUCTIONS = {"sum": "_sum", "mean": "_mean", "prod": "_prod", "max": "_amax", "min": "_amin"}


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(name, ast.Load()), args=list(args), keywords=[])


class _ToReference(ast.NodeTransformer):
    """Arithmetic into helper calls; array element reads into plain numbers."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        if _is_folded(node):  # CPython computes it when compiling: ember sees its result
            return _call("_folded", node)
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow) and _is_exact_power_literal(node.right):
            return _call("_power_literal", node.left, node.right)
        return _call("_bin", ast.Constant(AST_OPS[type(node.op)]), node.left, node.right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
            return _call("_neg", node.operand)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        load = _to_load(node.target)
        value = _call("_aug", ast.Constant(AST_OPS[type(node.op)]), load, node.value)
        return ast.Assign(targets=[node.target], value=value, lineno=node.lineno)

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        self.generic_visit(node)
        return _call("_s", node) if isinstance(node.ctx, ast.Load) else node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and func.id in BUILTIN_REWRITES and len(node.args) <= 2:
            if not node.keywords:
                node.func = ast.Name(BUILTIN_REWRITES[func.id], ast.Load())
            return node
        if ast.unparse(func) == "math.floor" and len(node.args) == 1:
            return _call("_floor", node.args[0])
        if isinstance(func, ast.Attribute) and func.attr in REDUCTIONS:
            is_np = isinstance(func.value, ast.Name) and func.value.id == "np"
            helper = ast.Name(REDUCTIONS[func.attr], ast.Load())
            if is_np and len(node.args) == 1:
                return ast.Call(func=helper, args=node.args, keywords=node.keywords)
            if not is_np and not node.args:
                return ast.Call(func=helper, args=[func.value], keywords=node.keywords)
        return _call("_s", node)


def _is_folded(node: ast.expr) -> bool:
    """An expression of constants only, which CPython's compiler replaces by its value."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _is_folded(node.operand)
    return isinstance(node, ast.BinOp) and _is_folded(node.left) and _is_folded(node.right)


def _to_load(target: ast.expr) -> ast.expr:
    """The value read by an augmented assignment's target (`a[i]` in `a[i] += 1`)."""
    load = ast.parse(ast.unparse(target), mode="eval").body
    return _ToReference().visit(load)


def reference_source(source: str) -> str:
    """`source` rewritten for CPython to compute what ember documents."""
    tree = _ToReference().visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
