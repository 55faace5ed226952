"""The rewrite registry (seed 002): user rewrites run at their stage with the documented
arguments, change what a function computes, and a rewrite that never stops is reported."""

from __future__ import annotations

import pytest

from ember import njit, types
from ember.errors import CompilerError
from ember.ir import nodes as ir
from ember.rewrites.registry import Rewrite, register_rewrite, rewrite_registry


def _constant_seven_to_eight(block: ir.Block) -> list[ir.Stmt]:
    return [
        stmt
        for stmt in block.body
        if isinstance(stmt, ir.Assign)
        and isinstance(stmt.value, ir.Const)
        and stmt.value.value == 7
    ]


def test_user_rewrite_changes_the_result_and_sees_documented_arguments():
    seen = []

    class SevenBecomesEight(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            seen.append((type(func_ir), type(block), typemap, calltypes))
            self.targets = _constant_seven_to_eight(block)
            self.block = block
            return bool(self.targets)

        def apply(self):
            new_block = ir.Block(self.block.label, self.block.loc)
            for stmt in self.block.body:
                if stmt in self.targets:
                    stmt = ir.Assign(stmt.target, ir.Const(8, stmt.value.loc), stmt.loc)
                new_block.append(stmt)
            return new_block

    register_rewrite("before-inference")(SevenBecomesEight)
    try:

        @njit
        def f(x):
            return x * 7

        assert f(2) == 16  # Python says 14: the rewrite changed the constant
        assert f.py_func(2) == 14
    finally:
        rewrite_registry.unregister("before-inference", SevenBecomesEight)
    assert seen and all(s[:2] == (ir.FunctionIR, ir.Block) for s in seen)
    assert all(s[2] is None and s[3] is None for s in seen)  # untyped stage: no types yet


def test_after_inference_rewrites_receive_the_typemap():
    seen_types = []

    class Observe(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            seen_types.append(dict(typemap))
            return False

        def apply(self):
            raise AssertionError("never matched")

    register_rewrite("after-inference")(Observe)
    try:

        @njit
        def g(a, b):
            return a + b

        assert g(1.5, 2) == 3.5
    finally:
        rewrite_registry.unregister("after-inference", Observe)
    assert seen_types and seen_types[0]["a"] is types.float64
    assert seen_types[0]["b"] is types.int64


def test_a_rewrite_that_keeps_matching_is_stopped_and_named():
    class Forever(Rewrite):
        def match(self, func_ir, block, typemap, calltypes):
            self.block = block
            return True

        def apply(self):
            return ir.Block(self.block.label, self.block.loc, list(self.block.body))

    register_rewrite("before-inference")(Forever)
    try:

        @njit
        def h(x):
            return x

        with pytest.raises(CompilerError) as caught:
            h(1)
    finally:
        rewrite_registry.unregister("before-inference", Forever)
    assert "Forever" in str(caught.value)
    assert "still matched" in str(caught.value)


def test_unknown_stage_and_duplicate_registration_are_rejected():
    class Twice(Rewrite):
        pass

    with pytest.raises(ValueError, match="unknown rewrite stage"):
        register_rewrite("sometime")(Twice)
    register_rewrite("after-inference")(Twice)
    try:
        with pytest.raises(ValueError, match="already registered"):
            register_rewrite("after-inference")(Twice)
    finally:
        rewrite_registry.unregister("after-inference", Twice)
