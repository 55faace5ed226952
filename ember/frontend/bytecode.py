"""Stage 1: a code object's instructions, its basic blocks and their control-flow graph."""

from __future__ import annotations

import dis
from dataclasses import dataclass
from types import CodeType, FunctionType

from ember.errors import UnsupportedError
from ember.frontend.cfg import ControlFlowGraph
from ember.frontend.opcodes import OpcodeTable, current_table
from ember.ir.nodes import Loc


@dataclass(frozen=True)
class Instruction:
    offset: int
    opname: str
    arg: int | None
    argval: object
    next_offset: int
    loc: Loc

    def jump_target(self) -> int:
        return self.argval  # dis resolves jump arguments to absolute offsets


class ByteCode:
    """The decoded instructions of one function, split into basic blocks."""

    def __init__(self, py_func: FunctionType) -> None:
        self.py_func = py_func
        self.code: CodeType = py_func.__code__
        self.table: OpcodeTable = current_table()
        self.filename = self.code.co_filename
        self._reject_exception_handlers()
        self.instructions = self._decode()
        self.by_offset = {inst.offset: inst for inst in self.instructions}
        self.block_starts = self._find_leaders()

    def _reject_exception_handlers(self) -> None:
        if self.code.co_exceptiontable:
            loc = Loc(self.filename, self.code.co_firstlineno)
            raise UnsupportedError(
                "try/except, with-statements and generators are not supported in nopython mode",
                loc,
            )

    def _decode(self) -> list[Instruction]:
        raw = [inst for inst in dis.get_instructions(self.code) if inst.opname != "CACHE"]
        decoded = []
        line = self.code.co_firstlineno
        for index, inst in enumerate(raw):
            positions = inst.positions
            if positions is not None and positions.lineno is not None:
                line = positions.lineno
            col = positions.col_offset if positions else None
            end_col = positions.end_col_offset if positions else None
            if positions is not None and positions.end_lineno not in (None, line):
                end_col = None  # a multi-line span has no single-line caret
            next_offset = raw[index + 1].offset if index + 1 < len(raw) else inst.offset + 2
            loc = Loc(self.filename, line, col, end_col)
            decoded.append(
                Instruction(inst.offset, inst.opname, inst.arg, inst.argval, next_offset, loc)
            )
        return decoded

    def _find_leaders(self) -> list[int]:
        leaders = {self.instructions[0].offset}
        for inst in self.instructions:
            if self.table.is_jump(inst.opname):
                leaders.add(inst.jump_target())
            if self.table.ends_block(inst.opname) and inst.next_offset in self.by_offset:
                leaders.add(inst.next_offset)
        return sorted(leaders)

    def block_instructions(self, start: int) -> list[Instruction]:
        """The instructions of the block that starts at `start`."""
        index = self.block_starts.index(start)
        end = self.block_starts[index + 1] if index + 1 < len(self.block_starts) else None
        return [
            inst
            for inst in self.instructions
            if inst.offset >= start and (end is None or inst.offset < end)
        ]

    def successors(self, start: int) -> list[int]:
        """Successor block offsets, jump target first (as the seed's adjacency lists show)."""
        last = self.block_instructions(start)[-1]
        if last.opname in self.table.terminators:
            return []
        if last.opname in self.table.unconditional_jumps:
            return [last.jump_target()]
        if last.opname in self.table.conditional_jumps:
            return [last.jump_target(), last.next_offset]
        return [last.next_offset]

    def control_flow_graph(self) -> ControlFlowGraph:
        cfg = ControlFlowGraph()
        for start in self.block_starts:
            cfg.add_node(start)
        for start in self.block_starts:
            for succ in self.successors(start):
                cfg.add_edge(start, succ)
        cfg.set_entry_point(self.block_starts[0])
        cfg.process()
        return cfg
