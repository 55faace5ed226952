"""Shared pieces of the benchmark scripts: the result row, timing loops and the table printer.

Every script reports a list of `Row`s (one measured case: seconds per call for each
implementation) plus free-form notes; `print_report` turns them into one aligned table with the
ratios ember/numba, ember/C and python/ember. Nothing here asserts: figures are printed only.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import _this_tree  # noqa: F401 - first: this tree's ember

IMPLEMENTATIONS = ("ember", "numba", "python", "C")


@dataclass
class Row:
    """One measured case: seconds per operation by implementation (a missing key: not measured
    for this case; None: the implementation failed or gave a wrong answer)."""

    section: str
    case: str
    times: dict[str, float | None]
    unit: str = "ms"
    note: str = ""

    def ratio(self, top: str, bottom: str) -> float | None:
        a, b = self.times.get(top), self.times.get(bottom)
        if a is None or b is None or b <= 0:
            return None
        return a / b


@dataclass
class Report:
    """What one benchmark script measured: table rows plus lines printed under the table."""

    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def parse_args(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer repeats: a rough, fast run")
    return parser.parse_args()


def run_standalone(collect: Callable[[bool], Report], doc: str) -> None:
    """A benchmark script's `main`: read `--quick`, measure, print the table."""
    args = parse_args(doc.splitlines()[0])
    print_report(collect(args.quick))


def import_numba():
    """The numba module, or None when it is not installed (the harness then skips it)."""
    try:
        import numba
    except ImportError:
        return None
    return numba


# ------------------------------------------------------------------------------ timing


def best_seconds_per_call(
    func: Callable[[], object], repeat: int, min_seconds: float, max_number: int = 1 << 20
) -> float:
    """Best of `repeat` timings of `func()`, each loop long enough to last `min_seconds`."""
    number = 1
    while True:
        elapsed = _loop_seconds(func, number)
        if elapsed >= min_seconds or number >= max_number:
            break
        number *= 2 if elapsed * 4 > min_seconds else 8
    best = elapsed / number
    for _ in range(repeat - 1):
        best = min(best, _loop_seconds(func, number) / number)
    return best


def time_ember_numba_numpy(func: Callable, args: tuple, quick: bool) -> dict[str, float | None]:
    """Seconds per call of `func(*args)` jitted by ember and by Numba (when installed) and run
    as plain NumPy code ("python"); None for an implementation that raises or whose result
    differs from NumPy's (to 1e-12 relative)."""
    import numpy as np

    from ember import njit

    impls = {"ember": njit(func), "python": func}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = numba.njit(func)
    expected = func(*args)
    times: dict[str, float | None] = {}
    for name, impl in impls.items():
        try:
            got = impl(*args)
        except Exception:  # noqa: BLE001 - e.g. Numba rejects a keyword: reported as n/a
            times[name] = None
            continue
        if not np.allclose(got, expected, rtol=1e-12):
            times[name] = None
            continue
        times[name] = best_seconds_per_call(lambda: impl(*args), 3 if quick else 7, 0.05)
    return times


def _loop_seconds(func: Callable[[], object], number: int) -> float:
    started = time.perf_counter()
    for _ in range(number):
        func()
    return time.perf_counter() - started


def same_result(expected: object, got: object) -> bool:
    """Equal, or (for floats) equal to 1e-9 relative: compiled code may round differently;
    arrays and tuples item by item."""
    if isinstance(expected, tuple) and isinstance(got, tuple):
        pairs = zip(expected, got, strict=False)
        return len(expected) == len(got) and all(same_result(e, g) for e, g in pairs)
    if hasattr(expected, "__array__") or hasattr(got, "__array__"):
        import numpy as np

        return type(expected) is type(got) and np.array_equal(expected, got)
    if isinstance(expected, float) and isinstance(got, float):
        return math.isclose(expected, got, rel_tol=1e-9, abs_tol=1e-12)
    return expected == got


# ------------------------------------------------------------------------------ printing

_UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}
_RATIOS = (  # (column label, numerator, denominator)
    ("ember/numba", "ember", "numba"),
    ("ember/C", "ember", "C"),
    ("python/ember", "python", "ember"),
)


def format_table(rows: list[Row]) -> str:
    """Rows as an aligned text table; empty cells are '-' (not measured) or 'n/a' (failed)."""
    shown = [name for name in IMPLEMENTATIONS if any(name in row.times for row in rows)]
    ratios = [spec for spec in _RATIOS if spec[1] in shown and spec[2] in shown]
    notes = ["note"] if any(row.note for row in rows) else []
    header = ["section", "case", "unit", *shown, *(label for label, _, _ in ratios), *notes]
    lines = [header]
    for row in rows:
        cells = [row.section, row.case, row.unit]
        cells += [_format_time(row, name) for name in shown]
        cells += [_format_ratio(row.ratio(top, bottom)) for _, top, bottom in ratios]
        lines.append([*cells, row.note][: len(header)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    numeric = range(3, len(header) - len(notes))
    out = []
    for n, line in enumerate(lines):
        cells = [
            cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
            for i, cell in enumerate(line)
        ]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _format_time(row: Row, name: str) -> str:
    if name not in row.times:
        return "-"
    seconds = row.times[name]
    if seconds is None:
        return "n/a"
    value = seconds * _UNITS[row.unit]
    return f"{value:.3g}" if value < 1000 else f"{value:.0f}"


def _format_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    return f"{ratio:.2f}x" if ratio < 100 else f"{ratio:.0f}x"


def print_report(report: Report) -> None:
    print(f"== {report.title} ==")
    print(format_table(report.rows))
    for note in report.notes:
        print(f"  * {note}")
    print()
