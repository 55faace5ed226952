"""What each CPython opcode means to ember, one table per Python version.

The bytecode analysis and the IR builder read opcode facts only from here, so adding
Python 3.12/3.13 means adding a table, not editing the passes.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable
from dataclasses import dataclass

from ember.errors import UnsupportedError


@dataclass(frozen=True)
class OpcodeTable:
    """Control-flow roles of opcodes and the operator behind each numbered operation."""

    unconditional_jumps: frozenset[str]
    conditional_jumps: frozenset[str]
    terminators: frozenset[str]
    no_ops: frozenset[str]
    binary_op_by_arg: tuple[tuple[Callable, bool], ...]  # (plain operator, is_inplace)
    compare_ops: dict[str, Callable]

    def is_jump(self, opname: str) -> bool:
        return opname in self.unconditional_jumps or opname in self.conditional_jumps

    def ends_block(self, opname: str) -> bool:
        return self.is_jump(opname) or opname in self.terminators


_NB_OPS_311 = (
    operator.add, operator.and_, operator.floordiv, operator.lshift, operator.matmul,
    operator.mul, operator.mod, operator.or_, operator.pow, operator.rshift, operator.sub,
    operator.truediv, operator.xor,
)  # fmt: skip

_COMPARE_OPS = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
    ">": operator.gt, ">=": operator.ge,
}  # fmt: skip

PY311 = OpcodeTable(
    unconditional_jumps=frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT"}),
    conditional_jumps=frozenset(
        {
            "POP_JUMP_FORWARD_IF_FALSE",
            "POP_JUMP_FORWARD_IF_TRUE",
            "POP_JUMP_BACKWARD_IF_FALSE",
            "POP_JUMP_BACKWARD_IF_TRUE",
            "POP_JUMP_FORWARD_IF_NONE",
            "POP_JUMP_FORWARD_IF_NOT_NONE",
            "POP_JUMP_BACKWARD_IF_NONE",
            "POP_JUMP_BACKWARD_IF_NOT_NONE",
            "JUMP_IF_FALSE_OR_POP",
            "JUMP_IF_TRUE_OR_POP",
            "FOR_ITER",
            "SEND",
        }
    ),  # fmt: skip
    terminators=frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE"}),
    no_ops=frozenset(
        {"RESUME", "NOP", "PRECALL", "CACHE", "EXTENDED_ARG", "MAKE_CELL", "COPY_FREE_VARS"}
    ),
    binary_op_by_arg=tuple((fn, False) for fn in _NB_OPS_311)
    + tuple((fn, True) for fn in _NB_OPS_311),
    compare_ops=_COMPARE_OPS,
)

TABLES = {(3, 11): PY311}


def current_table() -> OpcodeTable:
    """The table of the running interpreter, or a clear error for an unsupported version."""
    version = sys.version_info[:2]
    try:
        return TABLES[version]
    except KeyError:
        supported = ", ".join(f"{major}.{minor}" for major, minor in TABLES)
        raise UnsupportedError(
            f"ember compiles Python {supported} bytecode; this is Python {version[0]}.{version[1]}"
        ) from None
