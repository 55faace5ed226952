"""IR rewrites (seed 002): `Rewrite` with match/apply, a registry by pipeline stage, and
`register_rewrite`. Rewrites run block by block until none matches, within a bound."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ember import config
from ember.errors import CompilerError
from ember.ir import nodes as ir
from ember.ir.printer import format_block_body
from ember.ir.verify import verify_function

STAGES = ("before-inference", "after-inference")
_MAX_APPLICATIONS_PER_BLOCK = 1000


class Rewrite:
    """Base class: `match` inspects a block and keeps state on self; `apply` returns the new
    block. Constructed once per function with the function IR (Numba's `pipeline`/`state`
    argument: a Numba rewrite's `__init__(self, state, *args, **kws)` receives it)."""

    def __init__(self, func_ir: ir.FunctionIR, *args: Any, **kws: Any) -> None:
        self.func_ir = func_ir
        self.pipeline = self.state = func_ir

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
            match = _matcher(rewrite)
            checked = _is_user_rewrite(rewrite_class)
            for label in sorted(func_ir.blocks):
                self._rewrite_block(rewrite, match, checked, func_ir, label, typemap, calltypes)

    def _rewrite_block(
        self, rewrite: Rewrite, match, checked: bool, func_ir, label, typemap, calltypes
    ) -> None:
        for _ in range(_MAX_APPLICATIONS_PER_BLOCK):
            block = func_ir.blocks[label]
            if not match(func_ir, block, typemap, calltypes):
                return
            new_block = rewrite.apply()
            if checked:
                new_block = _checked_result(rewrite, new_block, label, block)
            if config.DUMP_IR:
                print(_rewriting_dump(block, new_block))
            func_ir.blocks[label] = new_block
            if checked:
                _verify_after(rewrite, func_ir, typemap)
        raise CompilerError(
            f"rewrite {type(rewrite).__name__} still matched block {label} after "
            f"{_MAX_APPLICATIONS_PER_BLOCK} applications; a rewrite must stop matching "
            "a block it has already rewritten",
            func_ir.blocks[label].loc,
        )


def _matcher(rewrite: Rewrite) -> Callable:
    """`match(func_ir, block, typemap, calltypes)` of ember and Numba, or an adapter for the
    older `match(block, typemap, calltypes)` (seed 002's spelling)."""
    if _takes_func_ir(type(rewrite).match):
        return rewrite.match
    return lambda func_ir, block, typemap, calltypes: rewrite.match(block, typemap, calltypes)


@functools.cache
def _takes_func_ir(match: Callable) -> bool:
    parameters = inspect.signature(match).parameters.values()
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    varargs = any(p.kind is p.VAR_POSITIONAL for p in parameters)
    return varargs or len(positional) >= 5  # self, func_ir, block, typemap, calltypes


def _is_user_rewrite(rewrite_class: type) -> bool:
    """Rewrites outside ember are checked after each application: a broken one is reported
    as its own fault, not as a crash in a later pass."""
    return not rewrite_class.__module__.startswith("ember.")


def _checked_result(rewrite: Rewrite, new_block: Any, label: int, old: ir.Block) -> ir.Block:
    if not isinstance(new_block, ir.Block):
        raise CompilerError(
            f"rewrite {_name(rewrite)}.apply() returned {new_block!r}, not a Block", old.loc
        )
    new_block.label = label  # a Numba-style ir.Block(scope, loc) has no label of its own
    return new_block


def _verify_after(rewrite: Rewrite, func_ir: ir.FunctionIR, typemap: dict | None) -> None:
    try:
        verify_function(func_ir, typemap)
    except CompilerError as error:
        raise CompilerError(
            f"rewrite {_name(rewrite)} produced invalid IR: {error.msg}"
            + (
                "; an after-inference rewrite must add its new variables to the typemap"
                if typemap is not None and "has no type" in error.msg
                else ""
            ),
            error.loc,
        ) from None


def _name(rewrite: Rewrite) -> str:
    return f"{type(rewrite).__module__}.{type(rewrite).__qualname__}"


def _rewriting_dump(before: ir.Block, after: ir.Block) -> str:
    lines = ["REWRITING:", *format_block_body(before), "_" * 60, *format_block_body(after)]
    return "\n".join(lines)


rewrite_registry = RewriteRegistry()


def register_rewrite(stage: Any) -> Any:
    """Class decorator adding a Rewrite to the pipeline at `stage` ("before-inference" or
    "after-inference"). Used bare (`@register_rewrite`, the older spelling), it registers
    the class after inference, where `match` receives the typemap."""
    if isinstance(stage, type):
        return rewrite_registry.register("after-inference")(stage)
    return rewrite_registry.register(stage)


def _load_builtin_rewrites() -> Any:
    from ember.rewrites import (  # noqa: F401 - they register themselves
        array_displays,
        arrayexpr,
        generators,
        operator_calls,
        static_raise,
    )


_load_builtin_rewrites()
