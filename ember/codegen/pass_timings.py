"""LLVM pass timings of one library (`EMBER_LLVM_PASS_TIMINGS=1`, Numba's
`LLVM_PASS_TIMINGS`): each optimization pipeline's report from LLVM and the time spent making
machine code, read as `f.get_metadata(sig)['llvm_pass_timings']`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PassTimingRecord:
    """One stage: its name, its wall time in seconds and LLVM's report of its passes."""

    name: str
    seconds: float
    report: str


class PassTimings:
    """The records of one library, in the order the stages ran."""

    def __init__(self, library_name: str) -> None:
        self.library_name = library_name
        self.records: list[PassTimingRecord] = []

    def record(self, name: str, seconds: float, report: str = "") -> None:
        self.records.append(PassTimingRecord(name, seconds, report))

    def get_total_time(self) -> float:
        return sum(record.seconds for record in self.records)

    def list_records(self) -> list[PassTimingRecord]:
        return list(self.records)

    def list_longest_first(self) -> list[PassTimingRecord]:
        return sorted(self.records, key=lambda record: record.seconds, reverse=True)

    def summary(self, topn: int = 5) -> str:
        """The total, then the `topn` longest stages with their share of it."""
        total = self.get_total_time() or 1.0
        lines = [f"Total {self.get_total_time():.4f}s"]
        for record in self.list_longest_first()[:topn]:
            share = 100.0 * record.seconds / total
            lines.append(f"  {record.seconds:.4f}s {share:5.1f}% {record.name}")
        return "\n".join(lines)

    def __bool__(self) -> bool:
        return bool(self.records)

    def __str__(self) -> str:
        lines = [
            f"Printing pass timings for {self.library_name}",
            f"Total time: {self.get_total_time():.4f}",
        ]
        for number, record in enumerate(self.records):
            lines.append(f"== #{number} {record.name} ({record.seconds:.4f}s)")
            if record.report:
                lines.append(record.report.rstrip())
        return "\n".join(lines)
