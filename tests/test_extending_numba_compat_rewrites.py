"""Issue 17: IR rewrites written in Numba's style (seed 002) run on ember's IR after changing
only the imports: `from ember.rewrites import Rewrite, register_rewrite`, `ember.core.ir`
constructors in Numba's argument order, `func_ir.func_id`, `block.find_exprs`, `guard` /
`get_definition`; a broken rewrite is reported as its own fault. Expected values come from
CPython running the unrewritten function or from hand-worked arithmetic.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from ember.core.ir_utils import find_callname, find_const, get_definition, guard, require
from ember.core.rewrites import rewrite_registry
from ember.core.typing.templates import signature
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit
from ember.core import ir, types
from ember.errors import CompilerError
from ember.rewrites import Rewrite, register_rewrite

FLOATS = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e100, max_value=1e100)


@pytest.fixture
def registered():
    """Register rewrite classes for one test only (the registry is process-wide)."""
    added: list = []

    def add(stage, rewrite_class):
        register_rewrite(stage)(rewrite_class)
        added.append((stage, rewrite_class))
        return rewrite_class

    yield add
    for stage, rewrite_class in added:
        rewrite_registry.unregister(stage, rewrite_class)


@njit
def slow_square(x):
    return x**2 + 0.0 * x  # what the rewrite must remove


class SquareCalls(Rewrite):
    """`slow_square(x)` -> `x * x` in functions whose name starts with `fast_`."""

    def match(self, func_ir, block, typemap, calltypes):
        if not func_ir.func_id.func_name.startswith("fast_"):
            return False
        self.block = block
        self.found = {}
        for expr in block.find_exprs(op="call"):
            callee = guard(get_definition, func_ir, expr.func)
            if isinstance(callee, ir.Global) and callee.value is slow_square:
                self.found[expr] = expr.args[0]
        return bool(self.found)

    def apply(self):
        new_block = ir.Block(self.block.scope, self.block.loc)
        for stmt in self.block.body:
            if isinstance(stmt, ir.Assign) and stmt.value in self.found:
                arg = self.found[stmt.value]
                product = ir.Expr.binop(operator.mul, arg, arg, stmt.loc)
                stmt = ir.Assign(product, stmt.target, stmt.loc)
            new_block.append(stmt)
        return new_block


def test_rewrite_in_numbas_style_replaces_calls(registered):
    registered("before-inference", SquareCalls)

    @njit
    def fast_sum_squares(n):
        total = 0.0
        for i in range(n):
            total += slow_square(i * 0.5)
        return total

    @njit
    def slow_sum_squares(n):  # not matched: func_id.func_name does not start with fast_
        return slow_square(n * 0.5)

    assert fast_sum_squares(10) == sum((i * 0.5) * (i * 0.5) for i in range(10))
    assert slow_sum_squares(3) == slow_square.py_func(1.5)
    func_ir = _compiled_ir(fast_sum_squares)
    callees = [
        guard(get_definition, func_ir, expr.func)
        for block in func_ir.blocks.values()
        for expr in block.find_exprs(op="call")
    ]
    assert any(isinstance(c, ir.Global) and c.value is range for c in callees)
    assert not any(isinstance(c, ir.Global) and c.value is slow_square for c in callees)


def _compiled_ir(dispatcher):
    """The function IR of a dispatcher's only specialization, after the rewrites."""
    (result,) = dispatcher.overloads.values()
    return result.func_ir


@njit
def protected_div(a, b):
    return a / b if b != 0 else 0.0


class DivisionToCall(Rewrite):
    """`a / b` -> `protected_div(a, b)`: a new global, a temporary, a call."""

    def match(self, func_ir, block, typemap, calltypes):
        if func_ir.func_id.func_qualname.split(".")[-1] != "ratio":
            return False
        self.block = block
        self.divisions = [e for e in block.find_exprs(op="binop") if e.fn is operator.truediv]
        return bool(self.divisions)

    def apply(self):
        new_block = self.block.copy()
        new_block.clear()
        scope = self.block.scope
        for stmt in self.block.body:
            if isinstance(stmt, ir.Assign) and stmt.value in self.divisions:
                expr, loc = stmt.value, stmt.loc
                func_var = scope.redefine("$protected_div", loc)
                new_block.append(ir.Assign(ir.Global("protected_div", protected_div, loc),
                                           func_var, loc))  # fmt: skip
                call = ir.Expr.call(func_var, [expr.lhs, expr.rhs], (), loc)
                new_block.append(ir.Assign(call, stmt.target, loc))
            else:
                new_block.append(stmt)
        return new_block


def test_rewrite_adding_a_global_and_a_call(registered):
    registered("before-inference", DivisionToCall)
    protected = protected_div.py_func

    @njit
    def ratio(a, b):
        return a / b + 1.0

    for a, b in [(1.0, 2.0), (3.0, 0.0), (-7.5, 2.5)]:
        assert ratio(a, b) == protected(a, b) + 1.0
    assert ratio(4.0, 0.0) == 1.0  # not a ZeroDivisionError: the rewrite ran


class PowerOfTwo(Rewrite):
    """After inference: `x ** 2` with a constant 2 -> `x * x`, keeping calltypes up to date
    (what Numba asks of typed rewrites); uses `find_const` and `require`."""

    def match(self, func_ir, block, typemap, calltypes):
        self.block, self.typemap, self.calltypes = block, typemap, calltypes
        self.squares = []
        for expr in block.find_exprs(op="binop"):
            if expr.fn is operator.pow and guard(self._is_two, func_ir, expr.rhs):
                if isinstance(typemap[expr.lhs.name], types.Float):
                    self.squares.append(expr)
        return bool(self.squares)

    @staticmethod
    def _is_two(func_ir, var):
        require(find_const(func_ir, var) == 2)
        return True

    def apply(self):
        new_block = ir.Block(self.block.scope, self.block.loc)
        for stmt in self.block.body:
            if isinstance(stmt, ir.Assign) and stmt.value in self.squares:
                base = stmt.value.lhs
                typ = self.typemap[base.name]
                product = ir.Expr.binop(operator.mul, base, base, stmt.loc)
                self.calltypes[product] = signature(typ, typ, typ)
                stmt = ir.Assign(product, stmt.target, stmt.loc)
            new_block.append(stmt)
        return new_block


@settings(deadline=None)
@given(xs=st.lists(FLOATS, min_size=1, max_size=50))
def test_typed_rewrite_updates_calltypes(squared_minus_one, xs):
    for x in xs:
        assert squared_minus_one(x) == x * x - 1.0
    operators = [e.fn for b in _compiled_ir(squared_minus_one).blocks.values()
                 for e in b.find_exprs(op="binop")]  # fmt: skip
    assert operator.pow not in operators and operator.mul in operators


@pytest.fixture(scope="module")
def squared_minus_one():
    register_rewrite("after-inference")(PowerOfTwo)
    try:
        squared = njit(lambda v: v**2 - 1.0)
        squared(1.0)  # compiled while the rewrite is registered
    finally:
        rewrite_registry.unregister("after-inference", PowerOfTwo)
    return squared


def test_find_callname_and_expression_views(registered):
    seen = []

    class Spy(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            if func_ir.func_id.func_name == "spied":
                for expr in block.find_exprs(op="call"):
                    seen.append(guard(find_callname, func_ir, expr))
                for expr in block.find_exprs(op="getattr"):
                    seen.append(("getattr", expr.attr))
            return False

        def apply(self):  # pragma: no cover - never matches
            raise AssertionError

    registered("before-inference", Spy)

    @njit
    def spied(a):
        return np.sqrt(a).sum() + math.floor(2.5) + len(a.shape)

    a = np.arange(4.0)
    assert spied(a) == spied.py_func(a)
    assert ("sqrt", "numpy") in seen and ("floor", "math") in seen and ("len", "builtins") in seen
    assert ("getattr", "shape") in seen


def test_ir_names_build_embers_nodes():
    from ember.ir import nodes

    loc = ir.Loc("f.py", 3)
    x = ir.Var(None, "x", loc)
    const = ir.Const(2.5, loc)
    assert isinstance(ir.Const(1, loc, use_literal_type=False), nodes.Const)
    assign = ir.Assign(const, x, loc)
    assert isinstance(assign, nodes.Assign) and (assign.target, assign.value) == (x, const)
    assert isinstance(assign, ir.Assign) and isinstance(assign, ir.Stmt)
    call = ir.Expr.call(x, [x], (), loc)
    assert (call.op, call.func, call.args, call.kws, call.vararg) == ("call", x, [x], [], None)
    assert isinstance(call, ir.Expr) and not isinstance(const, ir.Expr)
    getattr_expr = ir.Expr.getattr(x, "real", loc)
    assert (getattr_expr.op, getattr_expr.value, getattr_expr.attr) == ("getattr", x, "real")
    binop = ir.Expr("binop", loc, fn=operator.sub, lhs=x, rhs=x)
    assert (binop.op, binop.fn, binop.lhs, binop.rhs) == ("binop", operator.sub, x, x)
    g = ir.Global("np", np, loc)
    assert (g.name, g.value) == ("np", np) and isinstance(g, ir.Global)
    assert isinstance(ir.Arg("a", 0, loc), nodes.Arg) and ir.Arg("a", 0, loc).index == 0
    assert assign.list_vars() == [x] and call.list_vars() == [x, x]
    scope = x.scope
    first, second = scope.redefine("x", loc), scope.make_temp(loc)
    assert len({first.name, second.name, "x"}) == 3 and first.unversioned_name == "x"
    with pytest.raises(ember.errors.UnsupportedError, match="vararg"):
        ir.Expr.call(x, [], (), loc, vararg=x)


def test_func_id_and_definitions(registered):
    captured = {}

    class Capture(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            if func_ir.func_id.func_name == "identity_of":
                captured["id"] = func_ir.func_id
                captured["defs"] = {
                    name: [str(v) for v in values]
                    for name, values in func_ir._definitions.items()
                    if not name.startswith("$")
                }
                captured["c"] = func_ir.get_definition("c")
                captured["c_lhs"] = func_ir.get_definition("c", lhs_only=True)
            return False

        def apply(self):  # pragma: no cover
            raise AssertionError

    registered("before-inference", Capture)

    @njit
    def identity_of(a, b):
        c = 7
        return a + b + c

    assert identity_of(1, 2) == 10
    func_id = captured["id"]
    assert func_id.func_name == "identity_of"
    assert func_id.func_qualname.endswith("identity_of")
    assert func_id.modname == __name__ and func_id.arg_names == ("a", "b")
    assert func_id.arg_count == 2 and func_id.filename == __file__
    assert isinstance(captured["c"], ir.Const) and captured["c"].value == 7
    last_copy = captured["c_lhs"]  # c = $const: the variable holding the constant
    assert isinstance(last_copy, ir.Var) and last_copy.name != "c"


# ------------------------------------------------------------------ older spellings


class OldStyleDoubling(Rewrite):
    """Seed 002's form: registered bare, `match(self, block, typemap, calltypes)`; turns the
    constant 21 into 42 (the typemap says its type)."""

    def match(self, block, typemap, calltypes):
        self.block = block
        self.hits = [
            stmt
            for stmt in block.body
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Const)
            and stmt.value.value == 21 and typemap[stmt.target.name] == types.int64
        ]  # fmt: skip
        return bool(self.hits)

    def apply(self):
        for stmt in self.hits:
            stmt.value = ir.Const(42, stmt.loc)
        return self.block


def test_bare_register_rewrite_and_three_argument_match():
    register_rewrite(OldStyleDoubling)
    try:
        assert njit(lambda: 21)() == 42
    finally:
        rewrite_registry.unregister("after-inference", OldStyleDoubling)
    assert njit(lambda: 21)() == 21


# ------------------------------------------------------------------ broken rewrites


class ReadsAnUndefinedVariable(Rewrite):
    def match(self, func_ir, block, typemap, calltypes):
        self.block = block
        return func_ir.func_id.func_name == "victim" and not getattr(block, "_broken", False)

    def apply(self):
        new_block = self.block.copy()
        loc = self.block.loc
        ghost = ir.Var(self.block.scope, "ghost", loc)
        junk = self.block.scope.make_temp(loc)
        new_block.insert_before_terminator(ir.Assign(ghost, junk, loc))
        new_block._broken = True
        return new_block


class ReturnsNothing(Rewrite):
    def match(self, func_ir, block, typemap, calltypes):
        return func_ir.func_id.func_name == "victim"

    def apply(self):
        return None


@pytest.mark.parametrize(
    "rewrite_class, message",
    [
        (ReadsAnUndefinedVariable, "'ghost' is read but never written"),
        (ReturnsNothing, r"apply\(\) returned None, not a Block"),
    ],
)
def test_a_broken_rewrite_is_named(registered, rewrite_class, message):
    registered("before-inference", rewrite_class)

    def victim(x):
        return x + 1

    with pytest.raises(CompilerError, match=message) as caught:
        njit(victim)(1)
    assert rewrite_class.__qualname__ in str(caught.value)
