"""`EMBER_PERF_MAP=1`: `/tmp/perf-<pid>.map` lines (`START SIZE name`, hexadecimal) for every
function the JIT loads, so `perf report`, `perf top` and py-spy's native mode name jitted code.

Consumes the object code the JIT engine generates (its object-cache notification) and the
addresses it loads it at; function sizes come from the object's ELF symbol table.
"""

from __future__ import annotations

import os
import struct
import threading
from dataclasses import dataclass

_ELF_MAGIC = b"\x7fELF"
_SYMTAB = 2  # section header type
_FUNC = 2  # symbol type (low nibble of st_info)
_GLOBAL, _WEAK = 1, 2  # symbol bindings (high nibble of st_info)


@dataclass(frozen=True)
class ObjectSymbol:
    """A function symbol of an object file: its section, offset in it, size and binding."""

    name: str
    section: int
    offset: int
    size: int
    binding: int


def function_symbols(elf: bytes) -> list[ObjectSymbol]:
    """The defined function symbols of a 64-bit little-endian ELF object (others: none)."""
    if elf[:4] != _ELF_MAGIC or elf[4] != 2 or elf[5] != 1:
        return []
    (section_offset,) = struct.unpack_from("<Q", elf, 0x28)
    entry_size, count = struct.unpack_from("<HH", elf, 0x3A)
    sections = [_section(elf, section_offset + i * entry_size) for i in range(count)]
    found = []
    for kind, offset, size, link, sym_size in sections:
        if kind != _SYMTAB:
            continue
        strings_offset = sections[link][1]
        for at in range(offset, offset + size, sym_size):
            name_at, info, _, index, value, length = struct.unpack_from("<IBBHQQ", elf, at)
            if info & 0xF == _FUNC and index != 0:
                name = elf[strings_offset + name_at : elf.index(b"\0", strings_offset + name_at)]
                found.append(ObjectSymbol(name.decode(), index, value, length, info >> 4))
    return found


def _section(elf: bytes, at: int) -> tuple[int, int, int, int, int]:
    """(type, file offset, size, link, entry size) of the section header at `at`."""
    _, kind, _, _, offset, size, link, _, _, entry_size = struct.unpack_from("<IIQQQQIIQQ", elf, at)
    return kind, offset, size, link, entry_size


def loaded_functions(symbols: list[ObjectSymbol], address_of) -> list[tuple[int, int, str]]:
    """(address, size, name) of each function: a section's load address is found from one of
    its global symbols (`address_of(name)`), which weak copies shared by several modules
    could not tell reliably; local functions of that section follow from their offsets."""
    bases: dict[int, int] = {}
    for symbol in symbols:
        if symbol.binding == _GLOBAL and symbol.section not in bases:
            address = address_of(symbol.name)
            if address:
                bases[symbol.section] = address - symbol.offset
    return [
        (bases[s.section] + s.offset, s.size, s.name)
        for s in symbols
        if s.section in bases and s.size > 0
    ]


class PerfMap:
    """Appends the functions of each object the engine loads to this process's perf map."""

    def __init__(self) -> None:
        self._pending: list[bytes] = []
        self._lock = threading.Lock()

    def attach(self, engine) -> None:
        """Receive `engine`'s object code (the MCJIT object-cache notification)."""
        engine.set_object_cache(notify_func=lambda _module, elf: self._pending.append(elf))

    def write_loaded(self, address_of) -> None:
        """After the engine finalized its objects: write the functions they hold."""
        with self._lock:
            pending, self._pending = self._pending, []
            lines = [
                f"{address:x} {size:x} {name}\n"
                for elf in pending
                for address, size, name in loaded_functions(function_symbols(elf), address_of)
            ]
            if lines:  # the pid when written: a forked child has its own map
                with open(f"/tmp/perf-{os.getpid()}.map", "a") as out:
                    out.writelines(lines)
