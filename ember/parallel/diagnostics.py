"""What the parallel pass did with each loop of one compiled function: which became parfors,
which stayed serial and why. Read by `f.parallel_diagnostics(level)` and printed under
EMBER_DEBUG_ARRAY_OPT_STATS. The same object is `metadata['parfor_diagnostics']` of a compile
result, with the query names Numba's ParallelDiagnostics has (`count_parfors()`, `fusion_info`,
`replaced_fns`, `hoisted_allocations()`, `dump(level)`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from ember.ir.nodes import Loc


@dataclass
class LoopRecord:
    loc: Loc
    parfor_id: int | None  # None: stayed serial
    reason: str = ""
    details: list[str] = field(default_factory=list)
    origin: str = "prange"  # or the NumPy call / assignment it was made from


@dataclass
class ParallelReport:
    """One function's parallelization record."""

    qualname: str
    options: str = ""
    loops: list[LoopRecord] = field(default_factory=list)
    serial_headers: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)  # range variable -> NumPy origin
    per_item: set[str] = field(default_factory=set)  # range variables of one-item iterations
    fused: list[tuple[int, int, Loc]] = field(default_factory=list)  # (kept, absorbed, loc)
    moved: dict[int, list[str]] = field(default_factory=dict)  # absorbed -> statements moved
    not_fused: list[tuple[int, int, str]] = field(default_factory=list)  # (first, second, why)
    callees: list[str] = field(default_factory=list)  # called code with parallel loops of its own
    inner: list[tuple[int, int, Loc]] = field(default_factory=list)  # (outer, nested, loc)
    hoisted: list[tuple[int, str]] = field(default_factory=list)  # (parfor, array name)

    def converted(self, parfor, loc: Loc, origin: str = "prange", notes: list = ()) -> None:
        flags = {r.flag for r in parfor.reductions}
        details = [_reduction_text(r) for r in parfor.reductions if r.var.name not in flags]
        details += notes  # writes run in parallel on the program's word (array_hazards.py)
        self.loops.append(LoopRecord(loc, parfor.id, details=details, origin=origin))

    def fusion(self, kept: int, absorbed: int, loc: Loc, moved: list[str] = ()) -> None:
        self.fused.append((kept, absorbed, loc))
        self.moved[absorbed] = list(moved)

    def nested(self, outer: int, inner: int, loc: Loc) -> None:
        """A prange loop inside parallel loop `outer`: it runs serially within each chunk."""
        self.inner.append((outer, inner, loc))

    def no_fusion(self, first: int, second: int, reason: str) -> None:
        self.not_fused.append((first, second, reason))

    def conversions(self) -> dict[str, int]:
        """How many parfors each origin produced ('prange', 'np.sum', ...)."""
        counts: dict[str, int] = {}
        for record in self.loops:
            if record.parfor_id is not None:
                counts[record.origin] = counts.get(record.origin, 0) + 1
        return counts

    def serial(self, header: int, loc: Loc, reason: str) -> None:
        self.serial_headers.add(header)
        self.loops.append(LoopRecord(loc, None, reason))

    @property
    def parfor_count(self) -> int:
        return sum(record.parfor_id is not None for record in self.loops)

    # Numba's ParallelDiagnostics query names, over this record
    def count_parfors(self) -> int:
        """The parallel loops left after fusion (each fused loop ran inside another), and
        those nested in them (which run serially inside, as in Numba)."""
        return self.parfor_count - len(self.fused) + len(self.inner)

    @property
    def fusion_info(self) -> dict[int, list[int]]:
        """Kept parallel loop -> the loops fused into it."""
        fused: dict[int, list[int]] = {}
        for kept, absorbed, _ in self.fused:
            fused.setdefault(kept, []).append(absorbed)
        return fused

    @property
    def nested_fusion_info(self) -> dict[int, list[int]]:
        """Parallel loop -> the prange loops nested in it (run serially within each chunk)."""
        nested: dict[int, list[int]] = {}
        for outer, inner, _ in self.inner:
            nested.setdefault(outer, []).append(inner)
        return nested

    @property
    def replaced_fns(self) -> dict[int, tuple]:
        """Parallel loop -> ((function, module) of the NumPy call it replaced, the call's
        location): the pair first, where Numba's entries have it."""
        return {
            record.parfor_id: (_numpy_call(record.origin), record.loc)
            for record in self.loops
            if record.parfor_id is not None and _numpy_call(record.origin)
        }

    @property
    def fusion_reports(self) -> list[FusionReport]:
        return [FusionReport(*entry) for entry in self.not_fused]

    def hoisted_allocations(self) -> list[tuple[int, str]]:
        """(parallel loop, array) of each allocation made once per chunk instead of once per
        iteration (ember/parallel/hoisting.py)."""
        return list(self.hoisted)

    def dump(self, level: int = 1) -> None:
        print(self.format(level))

    def format(self, level: int = 1) -> str:
        title = f" Parallel Accelerator Optimizing:  Function {self.qualname} "
        lines = ["=" * 80, title.center(80, "="), "=" * 80, ""]
        if self.options:
            lines.append(f"Options: {self.options}")
        if not self.loops and not self.callees:
            lines.append("No parallel loops were found (no prange loop in this function).")
        for callee in self.callees:
            lines.append(f"Calls {callee}: its loop runs in parallel, compiled apart")
        for record in sorted(self.loops, key=lambda r: r.loc.line):
            where = f"{record.loc.filename}:{record.loc.line}"
            if record.parfor_id is None:
                lines.append(f"Loop at {where} stays serial: {record.reason}")
                continue
            lines.append(f"Parallel for-loop #{record.parfor_id} at {where} ({record.origin})")
            if level >= 2:
                lines += [f"    {detail}" for detail in record.details]
            if level >= 2:
                lines += [
                    f"    allocation of {_user(name)} hoisted: made once per chunk"
                    for parfor_id, name in self.hoisted
                    if parfor_id == record.parfor_id
                ]
            for outer, inner, loc in self.inner:
                if outer == record.parfor_id:
                    lines.append(
                        f"    +-- prange loop #{inner} at line {loc.line}: nested, runs serially "
                        "inside each chunk of this loop"
                    )
        lines += self._fusion_lines(level)
        if level >= 2:
            lines += self.notes
        lines.append("-" * 80)
        return "\n".join(lines)

    def _fusion_lines(self, level: int) -> list[str]:
        if not self.fused and not (level >= 3 and self.not_fused):
            return []
        lines = ["", "Fusing loops:"]
        for kept, absorbed, loc in self.fused:
            lines.append(f"  parallel loop #{absorbed} fused into #{kept} (line {loc.line})")
            if level >= 4:
                lines += [f"      statement moved: {text}" for text in self.moved[absorbed]]
        if not self.fused:
            lines.append("  none")
        if level >= 3:
            for first, second, why in self.not_fused:
                lines.append(f"  #{first} and #{second} not fused: {why}")
        return lines


class FusionReport(NamedTuple):
    """Two parallel loops that were not fused, and why (Numba's `fusion_reports` items)."""

    first: int
    second: int
    message: str


def _numpy_call(origin: str) -> tuple | None:
    """('argmin', 'numpy') for the origin 'np.argmin' (or 'np.sum(axis=1)'); None for prange."""
    found = re.match(r"np\.(\w+)", origin)
    return (found.group(1), "numpy") if found else None


def _reduction_text(reduction) -> str:
    name = _user(reduction.var.name)
    if reduction.kind != "last":
        return f"reduction: {name} ({reduction.kind})"
    if reduction.compare is None:
        return f"last value: {name} (the last iteration assigning it, as the serial loop)"
    leader, symbol = reduction.compare
    if reduction.var.name == leader:
        return f"reduction: {name} (running extreme: kept when `x {symbol} {name}`)"
    return f"last value: {name} (follows the running extreme {_user(leader)})"


def _user(name: str) -> str:
    """A user variable's name (the templates' renamed ones: `sum_1d.3.acc` -> `acc`)."""
    return name.rsplit(".", 1)[-1] if "." in name and not name.startswith("$") else name


def print_diagnostics(dispatcher, results: list, level: int) -> None:
    if not 1 <= level <= 4:
        raise ValueError(f"level must be 1, 2, 3 or 4, not {level!r}")
    if not results:
        raise ValueError("No compiled signatures yet: call the function first")
    for result in results:
        report = result.parallel_report
        if report is None:
            name = dispatcher.py_func.__qualname__
            print(f"Function {name} was compiled without parallel=True: no parallel diagnostics.")
            continue
        print(report.format(level))
