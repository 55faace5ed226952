"""Compile time and import time: ember against Numba, each measured in fresh processes.

    python benchmarks/bench_compile.py [--quick]

- import: `import ember` / `import numba` timed with `time.perf_counter` in `python -c`.
- cold:   `jit(func)` plus its first call, as the first compilation after the import in a fresh
          process (includes initializing LLVM and the JIT's lazily built state).
- warm:   the same for a second, distinct function compiled after the first in that process.
- import + first call: what a script waits for before its first jitted `add(1, 2)` returns.
- 2nd call: the next call of the warm function (one-time work a JIT defers shows up here).

Functions: `add(a, b)` and a ~30-line scalar `kernel` (see `_compile_child.py`). Each figure is
the median over several processes. Every process loads both libraries' cached bytecode, as an
installed package does: the children share a temporary PYTHONPYCACHEPREFIX that one unmeasured
process fills first (and PYTHONDONTWRITEBYTECODE is cleared for them). The issue's goal: ember
at most half of Numba (<= 0.50x).

- generated N blocks: jit + first call of a function of N `if/else` blocks (generated_blocks.py),
  in ms per block, N = 10, 50, 200, 800 (800 left out by --quick). Goals: ember's own passes
  (all but LLVM's machine code) per block at 800 within 1.5x of their per-block time at 10,
  and at most 3 s in all at 800 blocks.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _harness import Report, Row, import_numba, run_standalone

HERE = Path(__file__).resolve().parent
CHILD = HERE / "_compile_child.py"
GOAL = 0.5
BLOCK_COUNTS = (10, 50, 200, 800)
OWN_PASSES_GOAL = 1.5  # per-block time of ember's own passes at 800 blocks / at 10 blocks
TOTAL_GOAL_800 = 3.0  # seconds to compile and first call the 800-block function
IMPORT_SNIPPET = "import time; t = time.perf_counter(); import {0}; print(time.perf_counter() - t)"


_BYTECODE = tempfile.TemporaryDirectory(prefix="bench-compile-pycache-")
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
CHILD_ENV["PYTHONPYCACHEPREFIX"] = _BYTECODE.name


def run_python(args: list[str]) -> str:
    """Last stdout line of a fresh `python` process (earlier lines may be EMBER_DUMP_* output);
    raises RuntimeError with the last line of its stderr on failure. (A generous timeout: on a
    machine shared by many processes, a child compiling 200 blocks under Numba took over 120 s
    of wall time.)"""
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=900, env=CHILD_ENV
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        raise RuntimeError(f"`python {' '.join(args)[:60]}` failed: {tail[0]}")
    return done.stdout.strip().splitlines()[-1]


def import_seconds(module: str, runs: int) -> float:
    """Median seconds of `import module` over `runs` fresh processes."""
    snippet = IMPORT_SNIPPET.format(module)
    return statistics.median(float(run_python(["-c", snippet])) for _ in range(runs))


def compile_samples(jit: str, runs: int) -> dict[str, list]:
    """Per measured quantity, the samples of `runs` child processes of each function order."""
    samples: dict[str, list] = {}
    for _ in range(runs):
        for first, second in (("add", "kernel"), ("kernel", "add")):
            timings = json.loads(run_python([str(CHILD), jit, first, second]))
            samples.setdefault(f"import+cold {first}", []).append(
                timings["import"] + timings["cold"]
            )
            samples.setdefault(f"cold {first}", []).append(timings["cold"])
            samples.setdefault(f"warm {second}", []).append(timings["warm"])
            samples.setdefault(f"warm {second}: 2nd call", []).append(timings["warm_call2"])
            samples.setdefault(f"passes warm {second}", []).append(timings["warm_passes"])
            samples.setdefault(f"passes cold {first}", []).append(timings["cold_passes"])
    return samples


def _median(samples: dict[str, list], key: str) -> float:
    return statistics.median(samples[key])


def _goal_note(row: Row) -> str:
    ratio = row.ratio("ember", "numba")
    if ratio is None:
        return ""
    return f"goal <= {GOAL:.2f}x: {'met' if ratio <= GOAL else 'MISSED'}"


def pass_breakdown(samples: dict[str, list], key: str) -> str:
    """ember's median milliseconds per compiler pass for one measured compilation."""
    runs = [run for run in samples[key] if run]
    if not runs:
        return f"{key}: no pass timings"
    total = statistics.median(sum(run.values()) for run in runs) * 1e3
    parts = ", ".join(
        f"{name} {statistics.median(run.get(name, 0.0) for run in runs) * 1e3:.1f}"
        for name in runs[0]
    )
    return f"ember {key.removeprefix('passes ')}: passes {total:.1f} ms = {parts}"


def generated_samples(jit: str, blocks: int, runs: int) -> list[dict]:
    return [json.loads(run_python([str(CHILD), jit, "blocks", str(blocks)])) for _ in range(runs)]


def _own_seconds(sample: dict) -> float:
    """ember's own passes: everything but LLVM's optimization and machine code."""
    return sum(seconds for name, seconds in sample["passes"].items() if name != "machine code")


def generated_rows(jits: list[str], quick: bool) -> tuple[list[Row], list[str]]:
    """Rows of ms per block for the generated functions, and notes on the issue's goals."""
    counts = BLOCK_COUNTS[:-1] if quick else BLOCK_COUNTS
    rows, notes, own_per_block = [], [], {}
    for blocks in counts:
        times: dict[str, float | None] = {}
        for jit in jits:
            runs = 1 if jit == "numba" and blocks >= 200 else 3  # Numba: about a minute at 800
            try:
                samples = generated_samples(jit, blocks, runs)
            except RuntimeError as error:
                times[jit], _ = None, notes.append(f"{jit} {blocks} blocks: {error}")
                continue
            times[jit] = statistics.median(s["total"] for s in samples) / blocks
            if jit == "ember":
                own = statistics.median(_own_seconds(s) for s in samples)
                own_per_block[blocks] = own / blocks
                notes.append(
                    f"ember {blocks} blocks: own passes {own * 1e3 / blocks:.2f} ms/block, "
                    f"in all {times[jit] * blocks:.2f} s"
                )
        rows.append(Row("compile", f"generated {blocks} blocks, per block", times))
    if 10 in own_per_block and 800 in own_per_block:
        ratio = own_per_block[800] / own_per_block[10]
        total = rows[-1].times.get("ember")
        met = ratio <= OWN_PASSES_GOAL and total is not None and total * 800 <= TOTAL_GOAL_800
        notes.append(
            f"ember own passes per block, 800 / 10 blocks: {ratio:.2f}x (goal <= "
            f"{OWN_PASSES_GOAL}x); 800 blocks in all: "
            f"{(total or 0) * 800:.2f} s (goal <= {TOTAL_GOAL_800:.0f} s): "
            + ("met" if met else "MISSED")
        )
    return rows, notes


def collect(quick: bool = False) -> Report:
    report = Report("compile and import time (median of fresh processes)")
    jits = ["ember"] + (["numba"] if import_numba() is not None else [])
    runs = 2 if quick else 5
    import_runs = 3 if quick else 9
    imports, samples, failures = {}, {}, []
    for jit in jits:
        try:
            run_python([str(CHILD), jit, "add", "kernel"])  # writes the bytecode caches
            imports[jit] = import_seconds(jit, import_runs)
            samples[jit] = compile_samples(jit, runs)
        except RuntimeError as error:
            failures.append(f"{jit}: {error}")
    keys = ["import+cold add", "cold add", "warm add", "warm add: 2nd call"]
    keys += ["cold kernel", "warm kernel", "warm kernel: 2nd call"]
    rows = [Row("compile", "import", {jit: imports.get(jit) for jit in jits})]
    for key in keys:
        times = {jit: _median(samples[jit], key) if jit in samples else None for jit in jits}
        rows.append(Row("compile", key, times))
    for row in rows:
        row.note = "" if "2nd call" in row.case else _goal_note(row)
    block_rows, block_notes = generated_rows(jits, quick)
    report.rows = rows + block_rows
    if "ember" in samples:
        for run in ("cold add", "warm add", "cold kernel", "warm kernel"):
            report.notes.append(pass_breakdown(samples["ember"], f"passes {run}"))
    report.notes += block_notes + failures
    report.notes.append(
        f"medians of {import_runs} processes (import) and {runs} per function order (compile)"
    )
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
