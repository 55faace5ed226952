"""Stage 1: a code object's instructions, its basic blocks and their control-flow graph."""

from __future__ import annotations

import bisect
import dis
import inspect
from types import CodeType, FunctionType
from typing import NamedTuple

from ember.errors import UnsupportedError
from ember.frontend.cfg import ControlFlowGraph
from ember.frontend.opcodes import OpcodeTable, current_table
from ember.ir.nodes import Loc


class Instruction(NamedTuple):  # a tuple: made by the ten thousand, cheaply
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
        self._offsets = [inst.offset for inst in self.instructions]  # ascending
        self.exception_entries = list(dis.Bytecode(self.code).exception_entries)
        self.block_starts = self._find_leaders()

    def _reject_exception_handlers(self) -> None:
        """Coroutines, `with` and exception groups compile to handlers nopython mode has no
        model for (generators and try/except/finally are supported)."""
        if self.code.co_flags & _ASYNC_FLAGS:
            line = _first_line_of(self.code, {"YIELD_VALUE"})
            raise UnsupportedError(
                "coroutines and async generators are not supported in nopython mode",
                Loc(self.filename, line or self.code.co_firstlineno),
            )
        construct = _unsupported_handler_construct(self.code)
        if construct is not None:
            message, line = construct
            raise UnsupportedError(message, Loc(self.filename, line or self.code.co_firstlineno))

    def _decode(self) -> list[Instruction]:
        decoded = []
        line = self.code.co_firstlineno
        locations: dict[tuple, Loc] = {}  # one Loc per source span, shared by its instructions
        raw = _decode_instructions(self.code)
        for index, (offset, opname, arg, argval, positions) in enumerate(raw):
            lineno, end_lineno, col, end_col = positions
            if lineno is not None:
                line = lineno
            if end_lineno not in (None, line):
                end_col = None  # a multi-line span has no single-line caret
            next_offset = raw[index + 1][0] if index + 1 < len(raw) else offset + 2
            key = (line, col, end_col)
            loc = locations.get(key)
            if loc is None:
                loc = locations[key] = Loc(self.filename, line, col, end_col)
            decoded.append(Instruction(offset, opname, arg, argval, next_offset, loc))
        return decoded

    def _find_leaders(self) -> list[int]:
        leaders = {self.instructions[0].offset}
        for entry in self.exception_entries:  # a block lies wholly inside one protected range
            leaders.update(o for o in (entry.start, entry.end, entry.target) if o in self.by_offset)
        for inst in self.instructions:
            if self.table.is_jump(inst.opname):
                leaders.add(inst.jump_target())
            if self.table.ends_block(inst.opname) and inst.next_offset in self.by_offset:
                leaders.add(inst.next_offset)
        return sorted(leaders)

    def block_instructions(self, start: int) -> list[Instruction]:
        """The instructions of the block that starts at `start`."""
        index = bisect.bisect_left(self.block_starts, start)
        first = bisect.bisect_left(self._offsets, start)
        if index + 1 < len(self.block_starts):
            return self.instructions[
                first : bisect.bisect_left(self._offsets, self.block_starts[index + 1])
            ]
        return self.instructions[first:]

    def handler_entry(self, start: int):
        """The exception-table entry protecting the block at `start` (None when unprotected):
        `.target` is the handler's offset, `.depth` the stack depth kept, `.lasti` whether
        the offset of the raising instruction is pushed too."""
        for entry in self.exception_entries:
            if entry.start <= start < entry.end:
                return entry
        return None

    def successors(self, start: int) -> list[int]:
        """Successor block offsets, jump target first (as the seed's adjacency lists show);
        a protected block's handler comes last."""
        entry = self.handler_entry(start)
        normal = self._normal_successors(start)
        return normal if entry is None else [*normal, entry.target]

    def _normal_successors(self, start: int) -> list[int]:
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


_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR

# ------------------------------------------------------------------------------ decoding
# `dis.get_instructions` does the same, slower (it builds the list of jump targets with a
# membership test on a list: quadratic in the number of branches) and with fields ember never
# reads; tests/frontend/test_decode.py checks this decoder against it.

_HAS_CONST = frozenset(dis.hasconst)
_HAS_NAME = frozenset(dis.hasname)
_HAS_JUMP_ABSOLUTE = frozenset(dis.hasjabs)
_HAS_JUMP_RELATIVE = frozenset(dis.hasjrel)
_HAS_VARIABLE = frozenset(dis.haslocal) | frozenset(dis.hasfree)
_HAS_COMPARE = frozenset(dis.hascompare)
_BACKWARD_JUMPS = frozenset(op for op in _HAS_JUMP_RELATIVE if "BACKWARD" in dis.opname[op])
_LOAD_GLOBAL = dis.opmap["LOAD_GLOBAL"]
_LOAD_CONST = dis.opmap["LOAD_CONST"]
_FORMAT_VALUE = dis.opmap["FORMAT_VALUE"]
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_FORMAT_CONVERSIONS = (None, str, repr, ascii)
_CACHE_ENTRIES = dis._inline_cache_entries  # noqa: SLF001 - how many CACHE units follow an op


def _decode_instructions(code: CodeType) -> list[tuple]:
    """(offset, opname, arg, argval, (line, end_line, col, end_col)) per instruction, CACHE
    units skipped; `argval` is what `dis` gives (names, constants, absolute jump targets)."""
    raw, names, consts = code.co_code, code.co_names, code.co_consts
    positions = list(code.co_positions())  # one entry per 2-byte unit, caches included
    opnames, variable_name = dis.opname, code._varname_from_oparg  # noqa: SLF001
    decoded = []
    extended = 0
    offset, end = 0, len(raw)
    while offset < end:
        op = raw[offset]
        arg = argval = None
        if op >= dis.HAVE_ARGUMENT:
            arg = argval = raw[offset + 1] | extended
            extended = arg << 8 if op == _EXTENDED_ARG else 0
            if op in _HAS_CONST:  # as dis: only LOAD_CONST's value (KW_NAMES: read co_consts)
                argval = consts[arg] if op == _LOAD_CONST else dis.UNKNOWN
            elif op in _HAS_NAME:
                argval = names[arg >> 1] if op == _LOAD_GLOBAL else names[arg]
            elif op in _HAS_JUMP_RELATIVE:
                argval = offset + 2 + (-arg if op in _BACKWARD_JUMPS else arg) * 2
            elif op in _HAS_JUMP_ABSOLUTE:
                argval = arg * 2
            elif op in _HAS_VARIABLE:
                argval = variable_name(arg)
            elif op in _HAS_COMPARE:
                argval = dis.cmp_op[arg]
            elif op == _FORMAT_VALUE:
                argval = (_FORMAT_CONVERSIONS[arg & 0x3], bool(arg & 0x4))
        else:
            extended = 0
        unit = offset >> 1  # bytecode patched after compiling may outrun its position table
        position = positions[unit] if unit < len(positions) else positions[-1]
        decoded.append((offset, opnames[op], arg, argval, position))
        offset += 2 + 2 * _CACHE_ENTRIES[op]
    return decoded


def _first_line_of(code: CodeType, opnames: set[str]) -> int | None:
    """The line of the first instruction named in `opnames` (None when there is none)."""
    opcodes = code.co_code[::2]  # each instruction is 2 bytes, its opcode first
    if not any(dis.opmap[name] in opcodes for name in opnames if name in dis.opmap):
        return None  # the common case, without decoding the whole function again
    for inst in dis.get_instructions(code):
        if inst.opname in opnames and inst.positions and inst.positions.lineno:
            return inst.positions.lineno
    return None


def _unsupported_handler_construct(code: CodeType) -> tuple[str, int | None] | None:
    """(message, line) for a `with` block or an exception group, which have no nopython model."""
    with_line = _first_line_of(code, {"BEFORE_WITH", "BEFORE_ASYNC_WITH"})
    if with_line is not None and code.co_flags & _CO_NESTED and "objmode" in _names_of(code):
        return (
            "an objmode block inside an inner function is not supported in nopython mode; "
            "put it in the jitted function's own body, or in a separate @njit function",
            with_line,
        )
    if with_line is not None:
        return (
            "a 'with' block is not supported in nopython mode; call what __enter__ and "
            "__exit__ do explicitly, in a try/finally",
            with_line,
        )
    group_line = _first_line_of(code, {"CHECK_EG_MATCH", "PREP_RERAISE_STAR"})
    if group_line is not None:
        return (
            "'except*' (exception groups) is not supported in nopython mode; "
            "use a plain 'except' clause",
            group_line,
        )
    return None


def uses_with_blocks(code: CodeType) -> bool:
    """Whether the function has a `with` statement (opcodes sit at the even bytes): only then
    is ember/frontend/objmode_blocks.py imported, to look for `with objmode(...)` blocks."""
    return _BEFORE_WITH in code.co_code[::2]


_BEFORE_WITH = dis.opmap["BEFORE_WITH"]
_CO_NESTED = 0x10  # a code flag: a function defined inside another


def _names_of(code: CodeType) -> tuple[str, ...]:
    """The global, attribute and enclosing-function names `code` reads."""
    return code.co_names + code.co_freevars
