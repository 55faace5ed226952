"""Reading the ELF object code the JIT generates: function symbols (name, section, offset, size)
and the DWARF line table (`.debug_line`, version 2-4, with its relocations applied).

Consumes the bytes of a 64-bit little-endian relocatable object; produces plain records. Used
by the perf map and jitdump writers (perfmap.py) and the compile report's code sizes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

_ELF_MAGIC = b"\x7fELF"
_SYMTAB, _RELA = 2, 4  # section header types
_FUNC, _SECTION = 2, 3  # symbol types (low nibble of st_info)


@dataclass(frozen=True)
class ObjectSymbol:
    """A function symbol of an object file: its section, offset in it, size and binding."""

    name: str
    section: int
    offset: int
    size: int
    binding: int


@dataclass(frozen=True)
class LineRow:
    """A row of the line table: code from `offset` in `section` comes from `file`:`line`."""

    section: int
    offset: int
    file: str
    line: int


@dataclass(frozen=True)
class _Section:
    name: str
    kind: int
    offset: int
    size: int
    link: int
    info: int
    entry_size: int


class ElfObject:
    """The parts of one relocatable ELF object that profilers need."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.valid = data[:4] == _ELF_MAGIC and data[4] == 2 and data[5] == 1
        self.sections = self._sections() if self.valid else []

    @property
    def machine(self) -> int:
        return struct.unpack_from("<H", self.data, 0x12)[0]

    def _sections(self) -> list[_Section]:
        (table,) = struct.unpack_from("<Q", self.data, 0x28)
        entry_size, count, names_index = struct.unpack_from("<HHH", self.data, 0x3A)
        raw = [
            struct.unpack_from("<IIQQQQIIQQ", self.data, table + i * entry_size)
            for i in range(count)
        ]
        names_at = raw[names_index][4] if count else 0
        return [
            _Section(self._string(names_at + name), kind, offset, size, link, info, entsize)
            for name, kind, _, _, offset, size, link, info, _, entsize in raw
        ]

    def _string(self, at: int) -> str:
        return self.data[at : self.data.index(b"\0", at)].decode("utf-8", "replace")

    def _symbols(self) -> list[tuple[str, int, int, int, int, int]]:
        """(name, type, binding, section, value, size) of every symbol-table entry."""
        found = []
        for section in self.sections:
            if section.kind != _SYMTAB:
                continue
            strings = self.sections[section.link].offset
            for at in range(section.offset, section.offset + section.size, section.entry_size):
                name, info, _, index, value, size = struct.unpack_from("<IBBHQQ", self.data, at)
                found.append(
                    (self._string(strings + name), info & 0xF, info >> 4, index, value, size)
                )
        return found

    def function_symbols(self) -> list[ObjectSymbol]:
        return [
            ObjectSymbol(name, index, value, size, binding)
            for name, kind, binding, index, value, size in self._symbols()
            if kind == _FUNC and index != 0
        ]

    def line_rows(self) -> list[LineRow]:
        """The rows of `.debug_line` (none without debug information)."""
        by_name = {section.name: i for i, section in enumerate(self.sections)}
        index = by_name.get(".debug_line")
        if index is None:
            return []
        section = self.sections[index]
        addresses = self._relocated_addresses(index)
        rows: list[LineRow] = []
        at = section.offset
        while at < section.offset + section.size:
            at = _line_program(self.data, at, section.offset, addresses, rows)
        return rows

    def _relocated_addresses(self, target: int) -> dict[int, tuple[int, int]]:
        """{offset in the section: (section, offset)} of the addresses written there."""
        symbols = self._symbols()
        found = {}
        for section in self.sections:
            if section.kind != _RELA or section.info != target:
                continue
            for at in range(section.offset, section.offset + section.size, section.entry_size):
                offset, info, addend = struct.unpack_from("<QQq", self.data, at)
                _, _, _, index, value, _ = symbols[info >> 32]
                found[offset] = (index, value + addend)
        return found


def _line_program(data: bytes, at: int, base: int, addresses: dict, rows: list) -> int:
    """Run one line-number program from `at`; returns where the next one starts."""
    (length,) = struct.unpack_from("<I", data, at)
    end = at + 4 + length
    version, header_length = struct.unpack_from("<HI", data, at + 4)
    cursor = at + 10
    min_length = data[cursor]
    cursor += 2 if version >= 4 else 1  # maximum_operations_per_instruction (version 4)
    line_base = struct.unpack_from("<b", data, cursor + 1)[0]
    line_range, opcode_base = data[cursor + 2], data[cursor + 3]
    lengths = data[cursor + 4 : cursor + 4 + opcode_base - 1]
    cursor += 4 + opcode_base - 1
    directories = []
    while data[cursor]:
        text = data[cursor : data.index(b"\0", cursor)]
        directories.append(text.decode())
        cursor += len(text) + 1
    cursor += 1
    files = [""]
    while data[cursor]:
        text = data[cursor : data.index(b"\0", cursor)]
        cursor += len(text) + 1
        directory, cursor = _uleb(data, cursor)
        _, cursor = _uleb(data, cursor)
        _, cursor = _uleb(data, cursor)
        name = text.decode()
        if directory and not name.startswith("/"):
            name = f"{directories[directory - 1]}/{name}"
        files.append(name)
    cursor = at + 10 + header_length
    state = _Registers()
    while cursor < end:
        opcode = data[cursor]
        cursor += 1
        if opcode >= opcode_base:
            adjusted = opcode - opcode_base
            state.offset += (adjusted // line_range) * min_length
            state.line += line_base + adjusted % line_range
            state.emit(rows, files)
        elif opcode == 0:
            size, cursor = _uleb(data, cursor)
            sub = data[cursor]
            if sub == 1:  # end_sequence
                state = _Registers()
            elif sub == 2:  # set_address: relocated to a section and offset
                state.section, state.offset = addresses.get(cursor + 1 - base, (0, 0))
            cursor += size
        elif opcode == 1:  # copy
            state.emit(rows, files)
        elif opcode == 2:
            advance, cursor = _uleb(data, cursor)
            state.offset += advance * min_length
        elif opcode == 3:
            advance, cursor = _sleb(data, cursor)
            state.line += advance
        elif opcode == 4:
            state.file, cursor = _uleb(data, cursor)
        elif opcode == 8:  # const_add_pc
            state.offset += ((255 - opcode_base) // line_range) * min_length
        elif opcode == 9:
            state.offset += struct.unpack_from("<H", data, cursor)[0]
            cursor += 2
        else:  # set_column, negate_stmt, ...: skip their operands
            for _ in range(lengths[opcode - 1]):
                _, cursor = _uleb(data, cursor)
    return end


class _Registers:
    def __init__(self) -> None:
        self.section, self.offset, self.file, self.line = 0, 0, 1, 1

    def emit(self, rows: list, files: list) -> None:
        name = files[self.file] if self.file < len(files) else ""
        rows.append(LineRow(self.section, self.offset, name, self.line))


def _uleb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def _sleb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            if byte & 0x40:
                value -= 1 << shift
            return value, at
