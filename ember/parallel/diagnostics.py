"""What the parallel pass did with each loop of one compiled function: which became parfors,
which stayed serial and why. Read by `f.parallel_diagnostics(level)` and printed under
EMBER_DEBUG_ARRAY_OPT_STATS."""

from __future__ import annotations

from dataclasses import dataclass, field

from ember.ir.nodes import Loc


@dataclass
class LoopRecord:
    loc: Loc
    parfor_id: int | None  # None: stayed serial
    reason: str = ""
    details: list[str] = field(default_factory=list)


@dataclass
class ParallelReport:
    """One function's parallelization record."""

    qualname: str
    options: str = ""
    loops: list[LoopRecord] = field(default_factory=list)
    serial_headers: set[int] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)

    def converted(self, parfor, loc: Loc) -> None:
        details = [f"reduction: {r.var.name} ({r.kind})" for r in parfor.reductions]
        self.loops.append(LoopRecord(loc, parfor.id, details=details))

    def serial(self, header: int, loc: Loc, reason: str) -> None:
        self.serial_headers.add(header)
        self.loops.append(LoopRecord(loc, None, reason))

    @property
    def parfor_count(self) -> int:
        return sum(record.parfor_id is not None for record in self.loops)

    def format(self, level: int = 1) -> str:
        title = f" Parallel Accelerator Optimizing:  Function {self.qualname} "
        lines = ["=" * 80, title.center(80, "="), "=" * 80, ""]
        if self.options:
            lines.append(f"Options: {self.options}")
        if not self.loops:
            lines.append("No parallel loops were found (no prange loop in this function).")
        for record in sorted(self.loops, key=lambda r: r.loc.line):
            where = f"{record.loc.filename}:{record.loc.line}"
            if record.parfor_id is None:
                lines.append(f"Loop at {where} stays serial: {record.reason}")
                continue
            lines.append(f"Parallel for-loop #{record.parfor_id} at {where} (prange)")
            if level >= 2:
                lines += [f"    {detail}" for detail in record.details]
        if level >= 2:
            lines += self.notes
        lines.append("-" * 80)
        return "\n".join(lines)


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
