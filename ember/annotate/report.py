"""`ember.compile_report()`: every specialization compiled so far, with the time of each
compiler pass, its machine code size and whether it came from the cache; a text table, or an
HTML page with an inline SVG bar chart. `EMBER_TIMING=1` prints the table (to stderr) at exit.

Consumes `ember.compiler.compile_log`; code sizes come from the object code of each
function's optimized module (its symbol's size), generated when the report asks for it.
"""

from __future__ import annotations

import html
import sys
from dataclasses import dataclass

from ember.compiler import PIPELINE, CompileRecord, compile_log

_PASS_COLOURS = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
)  # fmt: skip


@dataclass
class ReportRow:
    function: str
    signature: str
    timings: dict[str, float]
    code_size: int | None  # bytes of machine code; None when its module is gone
    cached: bool

    @property
    def total(self) -> float:
        return sum(self.timings.values())


class CompileReport:
    """The rows of the report; `str()` is the text table, `to_html()` the chart."""

    def __init__(self, rows: list[ReportRow]) -> None:
        self.rows = rows

    @property
    def passes(self) -> list[str]:
        """The passes that ran, in pipeline order (passes from elsewhere after them)."""
        seen = {name for row in self.rows for name in row.timings}
        ordered = [name for name, _ in (*PIPELINE, (CODE_GENERATION, None)) if name in seen]
        return ordered + sorted(seen - set(ordered))

    def __str__(self) -> str:
        return format_table(self)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return chart(self)

    def to_html(self) -> str:
        return page(self)


def compile_report(html: bool = False) -> CompileReport | str:
    """Every specialization compiled so far in this process: per function and signature,
    the milliseconds of each compiler pass, the machine code size and whether it was cached.
    Returns a CompileReport (printed as a table; shown as a chart in a notebook), or with
    `html=True` a self-contained HTML page with the bar chart."""
    report = CompileReport([_row(record) for record in list(compile_log)])
    return report.to_html() if html else report


CODE_GENERATION = "code generation"  # not a pipeline pass: done on the first call


def _row(record: CompileRecord) -> ReportRow:
    args = ", ".join(str(t) for t in record.arg_types)
    library = record.library()
    timings = dict(record.timings)
    size = None
    if library is not None:
        size = code_size(library, record.symbol)
        if getattr(library, "codegen_seconds", None) is not None:
            timings[CODE_GENERATION] = library.codegen_seconds
    signature = f"({args}) -> {record.return_type}"
    return ReportRow(record.qualname, signature, timings, size, record.cached)


def code_size(library, symbol: str) -> int | None:
    """Bytes of machine code of `symbol`, from the object code of its optimized module."""
    from ember.codegen.elf_object import ElfObject
    from ember.codegen.jit import engine

    module = getattr(library, "_linkable", None)
    if module is None:
        return None
    elf = engine().target_machine.emit_object(module.clone())
    sizes = {s.name: s.size for s in ElfObject(elf).function_symbols()}
    return sizes.get(symbol)


# ------------------------------------------------------------------------------ text


# Column headings of the text table (milliseconds); other passes show their own names.
_HEADINGS = {
    "bytecode analysis": "bytecode",
    "IR generation": "IR",
    "untyped rewrites": "rewrites",
    "type inference": "typing",
    "auto-parallelization": "parallel",
    "typed rewrites": "typed-rw",
    "nopython lowering": "lowering",
    "machine code": "LLVM-opt",
    CODE_GENERATION: "codegen",
}


def format_table(report: CompileReport) -> str:
    passes = report.passes
    headings = [_HEADINGS.get(name, name) for name in passes]
    header = ["function", "signature", "total ms", *headings, "code bytes", "cached"]
    rows = [
        [
            row.function,
            row.signature,
            f"{row.total * 1e3:.2f}",
            *(f"{row.timings[name] * 1e3:.2f}" if name in row.timings else "-" for name in passes),
            "?" if row.code_size is None else str(row.code_size),
            "yes" if row.cached else "no",
        ]
        for row in report.rows
    ]
    total = sum(row.total for row in report.rows)
    title = (
        f"ember compile report: {len(rows)} specializations, {total * 1e3:.1f} ms compiling "
        "(times in ms)"
    )
    widths = [max(len(cells[i]) for cells in [header, *rows]) for i in range(len(header))]
    lines = [title, _cells(header, widths), _cells(["-" * w for w in widths], widths)]
    lines += [_cells(cells, widths) for cells in rows]
    return "\n".join(lines)


def _cells(cells: list[str], widths: list[int]) -> str:
    # the function and signature read left to right, the numbers line up on the right
    text = [
        cell.ljust(width) if column < 2 else cell.rjust(width)
        for column, (cell, width) in enumerate(zip(cells, widths))
    ]
    return "  ".join(text).rstrip()


def print_report_at_exit() -> None:
    """EMBER_TIMING=1: the whole table once the program ends (stderr: stdout stays the
    program's own)."""
    if compile_log:
        print(compile_report(), file=sys.stderr)


# ------------------------------------------------------------------------------ HTML

_BAR_HEIGHT = 18
_LABEL_WIDTH = 360
_CHART_WIDTH = 520


def chart(report: CompileReport) -> str:
    """A horizontal stacked bar per specialization, one colour per pass (inline SVG)."""
    passes = report.passes
    colours = {name: _PASS_COLOURS[i % len(_PASS_COLOURS)] for i, name in enumerate(passes)}
    longest = max((row.total for row in report.rows), default=0.0) or 1.0
    scale = _CHART_WIDTH / longest
    height = (len(report.rows) + 1) * (_BAR_HEIGHT + 6) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_LABEL_WIDTH + _CHART_WIDTH + 90}" '
        f'height="{height}" font-family="sans-serif" font-size="12" role="img">'
    ]
    for index, row in enumerate(report.rows):
        y = 6 + index * (_BAR_HEIGHT + 6)
        label = html.escape(f"{row.function}{row.signature}")
        parts.append(f'<text x="4" y="{y + 13}">{label}</text>')
        x = float(_LABEL_WIDTH)
        for name in passes:
            width = row.timings.get(name, 0.0) * scale
            if width <= 0:
                continue
            title = html.escape(f"{name}: {row.timings[name] * 1e3:.2f} ms")
            parts.append(
                f'<rect class="pass" data-pass="{html.escape(name)}" x="{x:.1f}" y="{y}" '
                f'width="{width:.1f}" height="{_BAR_HEIGHT}" fill="{colours[name]}">'
                f"<title>{title}</title></rect>"
            )
            x += width
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 13}">{row.total * 1e3:.1f} ms</text>')
    parts.append("</svg>")
    legend = "".join(
        f'<span style="display:inline-block;margin-right:12px">'
        f'<span style="display:inline-block;width:12px;height:12px;background:{colours[name]}">'
        f"</span> {html.escape(name)}</span>"
        for name in passes
    )
    return f'<div class="ember-compile-report"><p>{legend}</p>{"".join(parts)}</div>'


def page(report: CompileReport) -> str:
    table = html.escape(format_table(report))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>ember compile report</title></head>"
        '<body style="font-family:sans-serif">'
        f"<h1>ember compile report</h1>{chart(report)}<pre>{table}</pre></body></html>\n"
    )
