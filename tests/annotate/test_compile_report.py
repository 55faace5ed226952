"""`ember.compile_report()`: per function and signature, each pass's time, code size, cached;
`html=True` draws the bars; `EMBER_TIMING=1` prints the table at exit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from html.parser import HTMLParser

import numpy as np

import ember
from ember.annotate.report import _CHART_WIDTH
from ember.compiler import PIPELINE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def report_of_a_new_function():
    @ember.njit
    def reported_twice(a, k):
        return a * k

    assert reported_twice(3, 4) == 12
    np.testing.assert_array_equal(reported_twice(np.arange(3.0), 2.0), np.arange(3.0) * 2.0)
    report = ember.compile_report()
    rows = [row for row in report.rows if row.function.endswith("reported_twice")]
    # the last two rows are this definition's: each call defines a new function, and earlier
    # tests' ones may be freed already (their code size is then unknown)
    return reported_twice, report, rows[-2:]


def test_lists_each_function_and_signature_with_pass_times():
    _, report, rows = report_of_a_new_function()
    assert [row.signature for row in rows] == [
        "(int64, int64) -> int64",
        "(array(float64, 1d, C), float64) -> array(float64, 1d, C)",
    ]
    serial_passes = [name for name, _ in PIPELINE if name != "auto-parallelization"]
    for row in rows:  # each was called, so its machine code was generated too
        assert list(row.timings) == [*serial_passes, "code generation"]
        assert all(seconds > 0 for seconds in row.timings.values())
        assert row.total == sum(row.timings.values())
        assert row.cached is False


def test_code_size_is_the_machine_code_of_the_function():
    from ember.codegen.elf_object import ElfObject
    from ember.codegen.jit import engine

    function, _, rows = report_of_a_new_function()
    result = next(iter(function.overloads.values()))
    elf = engine().target_machine.emit_object(result.library._linkable.clone())
    size = {s.name: s.size for s in ElfObject(elf).function_symbols()}[result.symbol]
    assert rows[0].code_size == size > 0


def test_text_table():
    _, report, _ = report_of_a_new_function()
    text = str(report)
    header = text.splitlines()[1].split()
    assert header[:4] == ["function", "signature", "total", "ms"]
    lines = [line for line in text.splitlines() if "reported_twice" in line][-2:]
    assert lines[0].split()[-1] == "no"  # not cached
    assert re.search(r"\(int64, int64\) -> int64\s+\d+\.\d\d", lines[0])


class _Bars(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.bars: list[tuple[str, float]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "rect" and attributes.get("class") == "pass":
            self.bars.append((attributes["data-pass"], float(attributes["width"])))


def test_html_bar_chart():
    _, report, _ = report_of_a_new_function()
    page = ember.compile_report(html=True)
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script" not in page
    bars = _Bars(report._repr_html_()).bars
    per_row = [len(row.timings) for row in report.rows]
    assert len(bars) == sum(per_row)
    longest = max(row.total for row in report.rows)
    start = sum(per_row[:-1])  # the last row's bars are proportional to its pass times
    last = report.rows[-1].timings.items()
    for (name, width), (expected_name, seconds) in zip(bars[start:], last):
        assert name == expected_name
        assert abs(width - _CHART_WIDTH * seconds / longest) < 0.1


def test_timing_prints_the_report_at_exit():
    script = textwrap.dedent(
        """
        from ember import njit
        @njit
        def add(a, b):
            return a + b
        print("result", add(1, 2))
        """
    )
    env = {**os.environ, "PYTHONPATH": ROOT, "EMBER_TIMING": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "result 3"
    report = done.stderr.splitlines()
    assert report[0].startswith("ember compile report: 1 specializations")
    assert report[3].split()[:4] == ["add", "(int64,", "int64)", "->"]
