"""Optimized LLVM IR (compiled with `debug=True`) split by Python source line, and what each
line's instructions do: stay native, allocate, call the runtime, call Python, or raise.

Consumes the text of `CodeLibrary.optimized_ir`; produces {line: [instruction text]} and
{line: kind}. An instruction's line is its `!dbg` location, followed through `inlinedAt` to
the function's own lines; a call's kind is its callee's (by name, or for a call through an
absolute address, by the symbol the dynamic linker finds there).
"""

from __future__ import annotations

import ctypes
import functools
import re
from dataclasses import dataclass, field

# The kinds, lightest first: a line takes the heaviest kind of its instructions. A `raise`
# releases what the function holds (runtime calls) on its way out, so raising ranks above them.
KINDS = ("native", "runtime", "raises", "allocates", "python")
_RANK = {kind: rank for rank, kind in enumerate(KINDS)}

_ALLOCATORS = {"ember_nrt_allocate", "ember_nrt_allocate_small", "malloc", "calloc", "realloc"}
_RUNTIME_PREFIXES = ("NRT_", "ember_")
_PYTHON_PREFIXES = ("Py", "_Py")

_DEFINE = re.compile(r'^define [^@]*@("(?P<quoted>[^"]+)"|(?P<plain>[\w.$]+))\(')
_LOCATION = re.compile(r"^!(?P<id>\d+) = (?:distinct )?!DILocation\((?P<fields>.*)\)$")
_SCOPE_FILE = re.compile(r"^!(?P<id>\d+) = (?:distinct )?!DILexicalBlockFile\(")
_DBG = re.compile(r", !dbg !(\d+)")
_CALL = re.compile(
    r'\b(?:call|invoke)\b[^@(]*?(?:@("(?P<quoted>[^"]+)"|(?P<plain>[\w.$]+))'
    r"|inttoptr \(i64 (?P<address>\d+) to ptr\))"
)
_EXCINFO_STORE = re.compile(r"^store .*, ptr %excinfo\b")


@dataclass
class FunctionCode:
    """One function's optimized instructions by source line and the kind of each line."""

    instructions: dict[int, list[str]] = field(default_factory=dict)
    kinds: dict[int, str] = field(default_factory=dict)


def code_by_line(optimized_ir: str, symbol: str) -> FunctionCode:
    """The instructions of `symbol` in `optimized_ir`, by line, and each line's kind."""
    bodies = _function_bodies(optimized_ir)
    locations, other_files = _locations(optimized_ir)
    callee_kinds = _defined_function_kinds(bodies)
    code = FunctionCode()
    for instruction in bodies.get(symbol, []):
        match = _DBG.search(instruction)
        line = _source_line(int(match.group(1)), locations, other_files) if match else None
        if not line:
            continue
        text = _DBG.sub("", instruction).strip()
        code.instructions.setdefault(line, []).append(text)
        kind = instruction_kind(text, callee_kinds)
        if _RANK[kind] > _RANK[code.kinds.get(line, "native")]:
            code.kinds[line] = kind
        else:
            code.kinds.setdefault(line, "native")
    return code


def heavier(first: str, second: str) -> str:
    return first if _RANK[first] >= _RANK[second] else second


def instruction_kind(text: str, callee_kinds: dict[str, str]) -> str:
    """What one instruction does (see KINDS); calls take their callee's kind."""
    if _EXCINFO_STORE.match(text):
        return "raises"
    call = _CALL.search(text)
    if call is None:
        return "native"
    if call["address"] is not None:
        return callee_kind(_symbol_at(int(call["address"])) or "", {})
    return callee_kind(call["quoted"] or call["plain"], callee_kinds)


def callee_kind(name: str, defined: dict[str, str]) -> str:
    if name in defined:
        return defined[name]
    if name in _ALLOCATORS:
        return "allocates"
    if name.startswith(_PYTHON_PREFIXES) or not name:  # no symbol: a ctypes callback
        return "python"
    if name.startswith(_RUNTIME_PREFIXES):
        return "runtime"
    return "native"  # intrinsics, libm, BLAS, other compiled functions


def _defined_function_kinds(bodies: dict[str, list[str]]) -> dict[str, str]:
    """The kind of each function defined in the module (its heaviest instruction), found to
    a fixed point so a call's kind includes what its callees do."""
    kinds = {name: "native" for name in bodies}
    for name in bodies:
        if name.startswith(_RUNTIME_PREFIXES):
            kinds[name] = "runtime"
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            found = kinds[name]
            for instruction in body:
                found = heavier(found, instruction_kind(instruction, kinds))
            if found != kinds[name]:
                kinds[name], changed = found, True
    return kinds


def _function_bodies(optimized_ir: str) -> dict[str, list[str]]:
    bodies: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in optimized_ir.splitlines():
        match = _DEFINE.match(line)
        if match is not None:
            current = bodies.setdefault(match["quoted"] or match["plain"], [])
        elif line.startswith("}"):
            current = None
        elif current is not None and line.startswith("  "):
            current.append(line)
    return bodies


def _locations(optimized_ir: str) -> tuple[dict[int, dict[str, str]], set[int]]:
    """DILocation fields by metadata id, and the ids of scopes naming another file."""
    locations, other_files = {}, set()
    for line in optimized_ir.splitlines():
        if not line.startswith("!"):
            continue
        match = _LOCATION.match(line)
        if match is not None:
            fields = dict(re.findall(r"(\w+): ([^,]+)", match["fields"]))
            locations[int(match["id"])] = fields
        elif (scope := _SCOPE_FILE.match(line)) is not None:
            other_files.add(int(scope["id"]))
    return locations, other_files


def _source_line(location_id: int, locations: dict, other_files: set[int]) -> int | None:
    """The function's own line for a location (inlined code: the line of the call)."""
    seen = set()
    while location_id in locations and location_id not in seen:
        seen.add(location_id)
        fields = locations[location_id]
        inlined_at = fields.get("inlinedAt")
        if inlined_at is None:
            if int(fields.get("scope", "!0")[1:]) in other_files:
                return None
            return int(fields.get("line", 0)) or None
        location_id = int(inlined_at[1:])
    return None


@functools.cache
def _symbol_at(address: int) -> str | None:
    """The dynamic symbol at `address` (a C-API function called by address), if any."""
    info = _DlInfo()
    if not _dladdr(ctypes.c_void_p(address), ctypes.byref(info)) or not info.dli_sname:
        return None
    return info.dli_sname.decode()


class _DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


try:
    _dladdr = ctypes.CDLL(None).dladdr
    _dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
except (AttributeError, OSError):  # no dladdr: calls by address count as calls into Python

    def _dladdr(address, info) -> int:
        return 0
