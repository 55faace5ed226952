"""`EMBER_PERF_MAP=1`: profilers name jitted code. Every function the JIT loads gets a line
`START SIZE name` (hexadecimal) in `/tmp/perf-<pid>.map`, which `perf report`, `perf top` and
other profilers read, and a record in `/tmp/jit-<pid>.dump` (perf's jitdump format: the
code and, with `EMBER_DEBUGINFO=1`, its Python lines), which `perf inject --jit` turns into
objects that `perf annotate` shows with their source.

Consumes the object code the JIT engine generates (its object-cache notification) and the
addresses it loads it at; sizes and lines come from the object (ember/codegen/elf_object.py).
"""

from __future__ import annotations

import ctypes
import mmap
import os
import struct
import sys
import threading
import time

from ember.codegen.elf_object import ElfObject, ObjectSymbol

_GLOBAL = 1  # symbol binding

_JITDUMP_MAGIC = 0x4A695444
_JITDUMP_VERSION = 1
_CODE_LOAD, _CODE_DEBUG_INFO = 0, 2


def section_bases(symbols: list[ObjectSymbol], address_of) -> dict[int, int]:
    """Where each code section of an object was loaded, from one of its global symbols
    (`address_of(name)`): weak copies that several modules share could be any module's."""
    bases: dict[int, int] = {}
    for symbol in symbols:
        if symbol.binding == _GLOBAL and symbol.section not in bases:
            address = address_of(symbol.name)
            if address:
                bases[symbol.section] = address - symbol.offset
    return bases


def loaded_functions(symbols: list[ObjectSymbol], bases: dict) -> list[tuple[int, int, str]]:
    """(address, size, name) of each function of a loaded section."""
    return [
        (bases[s.section] + s.offset, s.size, s.name)
        for s in symbols
        if s.section in bases and s.size > 0
    ]


class PerfMap:
    """Appends the functions of each object the engine loads to this process's perf map and
    jitdump."""

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
            for data in pending:
                self._write_object(ElfObject(data), address_of)

    def _write_object(self, elf: ElfObject, address_of) -> None:
        if not elf.valid:
            return
        symbols = elf.function_symbols()
        bases = section_bases(symbols, address_of)
        functions = loaded_functions(symbols, bases)
        if not functions:
            return
        # the pid when written: a forked child has its own files
        with open(f"/tmp/perf-{os.getpid()}.map", "a") as out:
            out.writelines(f"{address:x} {size:x} {name}\n" for address, size, name in functions)
        lines = [
            (bases[row.section] + row.offset, row.line, row.file)
            for row in elf.line_rows()
            if row.section in bases and row.line > 0
        ]
        jitdump = _jitdump(elf.machine)
        if jitdump is not None:
            jitdump.write(functions, sorted(lines))


class JitDump:
    """`/tmp/jit-<pid>.dump`: mapped executable once so `perf record -k 1` notes it, then one
    code-load record per function, preceded by its line entries when it has them."""

    def __init__(self, machine: int) -> None:
        self.pid = os.getpid()
        self._out = open(f"/tmp/jit-{self.pid}.dump", "w+b")  # noqa: SIM115 - kept open
        header = struct.pack(
            "<IIIIIIQQ", _JITDUMP_MAGIC, _JITDUMP_VERSION, 40, machine, 0, self.pid, _now(), 0
        )
        self._out.write(header)
        self._out.flush()
        try:
            self._marker = mmap.mmap(
                self._out.fileno(), len(header), mmap.MAP_PRIVATE, mmap.PROT_READ | mmap.PROT_EXEC
            )
        except OSError:
            self._out.close()
            os.unlink(self._out.name)
            raise
        self._index = 0

    def write(self, functions: list[tuple[int, int, str]], lines: list[tuple]) -> None:
        with _jitdump_lock:
            self._write(functions, lines)

    def _write(self, functions: list[tuple[int, int, str]], lines: list[tuple]) -> None:
        thread = threading.get_native_id()
        for address, size, name in functions:
            inside = [entry for entry in lines if address <= entry[0] < address + size]
            if inside:
                self._record(_CODE_DEBUG_INFO, _debug_info(address, inside))
            code = ctypes.string_at(address, size)
            body = struct.pack("<IIQQQQ", self.pid, thread, address, address, size, self._index)
            self._record(_CODE_LOAD, body + name.encode() + b"\0" + code)
            self._index += 1
        self._out.flush()

    def _record(self, kind: int, body: bytes) -> None:
        self._out.write(struct.pack("<IIQ", kind, 16 + len(body), _now()) + body)


# By pid: one file per process, shared by every engine; None where it cannot be made.
_jitdumps: dict[int, JitDump | None] = {}
_jitdump_lock = threading.Lock()


def _jitdump(machine: int) -> JitDump | None:
    with _jitdump_lock:
        pid = os.getpid()
        if pid not in _jitdumps:
            try:
                _jitdumps[pid] = JitDump(machine)
            except OSError as error:  # /tmp mounted noexec, full, ...: the map still works
                print(f"ember: no jitdump for perf ({error})", file=sys.stderr)
                _jitdumps[pid] = None
        return _jitdumps[pid]


def _debug_info(address: int, lines: list[tuple[int, int, str]]) -> bytes:
    entries = b"".join(
        struct.pack("<Qii", at, line, 0) + file.encode() + b"\0" for at, line, file in lines
    )
    return struct.pack("<QQ", address, len(lines)) + entries


def _now() -> int:
    """perf's clock for jitdump timestamps (`perf record -k 1`)."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)
