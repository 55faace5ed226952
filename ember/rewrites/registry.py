"""IR rewrites (seed 002): `Rewrite` with match/apply, a registry by pipeline stage, and
`register_rewrite`. Rewrites run block by block until none matches, within a bound."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember import config
from ember.errors import CompilerError
from ember.ir import nodes as ir
from ember.ir.printer import format_block_body

STAGES = ("before-inference", "after-inference")
_MAX_APPLICATIONS_PER_BLOCK = 1000


class Rewrite:
    """Base class: `match` inspects a block and keeps state on self; `apply` returns the new
    block. Constructed once per function with the function IR."""

    def __init__(self, func_ir: ir.FunctionIR) -> None:
        self.func_ir = func_ir

    def match(
        self, func_ir: ir.FunctionIR, block: ir.Block, typemap: dict | None, calltypes: dict | None
    ) -> bool:
        raise NotImplementedError

    def apply(self) -> ir.Block:
        raise NotImplementedError


class RewriteRegistry:
    """Rewrite classes by stage, applied in registration order."""

    def __init__(self) -> None:
        self.rewrites: dict[str, list[type[Rewrite]]] = {stage: [] for stage in STAGES}

    def register(self, stage: str) -> Callable[[type[Rewrite]], type[Rewrite]]:
        if stage not in self.rewrites:
            raise ValueError(f"unknown rewrite stage {stage!r}; expected one of {STAGES}")

        def decorate(rewrite_class: type[Rewrite]) -> type[Rewrite]:
            if rewrite_class in self.rewrites[stage]:
                raise ValueError(f"{rewrite_class.__name__} is already registered for {stage}")
            self.rewrites[stage].append(rewrite_class)
            return rewrite_class

        return decorate

    def unregister(self, stage: str, rewrite_class: type[Rewrite]) -> None:
        self.rewrites[stage].remove(rewrite_class)

    def apply(
        self,
        stage: str,
        func_ir: ir.FunctionIR,
        typemap: dict | None = None,
        calltypes: dict | None = None,
    ) -> None:
        """Rewrite every block of `func_ir` with each rewrite of `stage` until none matches."""
        for rewrite_class in self.rewrites[stage]:
            rewrite = rewrite_class(func_ir)
            for label in sorted(func_ir.blocks):
                self._rewrite_block(rewrite, func_ir, label, typemap, calltypes)

    def _rewrite_block(self, rewrite: Rewrite, func_ir, label, typemap, calltypes) -> None:
        for _ in range(_MAX_APPLICATIONS_PER_BLOCK):
            block = func_ir.blocks[label]
            if not rewrite.match(func_ir, block, typemap, calltypes):
                return
            new_block = rewrite.apply()
            if config.DUMP_IR:
                print(_rewriting_dump(block, new_block))
            func_ir.blocks[label] = new_block
        raise CompilerError(
            f"rewrite {type(rewrite).__name__} still matched block {label} after "
            f"{_MAX_APPLICATIONS_PER_BLOCK} applications; a rewrite must stop matching "
            "a block it has already rewritten",
            func_ir.blocks[label].loc,
        )


def _rewriting_dump(before: ir.Block, after: ir.Block) -> str:
    lines = ["REWRITING:", *format_block_body(before), "_" * 60, *format_block_body(after)]
    return "\n".join(lines)


rewrite_registry = RewriteRegistry()


def register_rewrite(stage: str) -> Callable[[type[Rewrite]], type[Rewrite]]:
    """Class decorator adding a Rewrite to the pipeline at `stage`."""
    return rewrite_registry.register(stage)


def _load_builtin_rewrites() -> Any:
    from ember.rewrites import (  # noqa: F401 - they register themselves
        arrayexpr,
        generators,
        static_raise,
        typed_list_calls,
    )


_load_builtin_rewrites()
