"""Times every corpus kernel under ember and Numba in one process and prints the ratios.

python benchmarks/corpus/run.py [--quick] [--filter NAME[,NAME...]]

Each kernel is first checked: ember's result on the small input must equal the pure-Python one,
and ember's and Numba's results on the timed input must agree (np.allclose). Then the two are
timed alternately (ember, Numba, ember, ...), each turn a loop of calls lasting at least the
minimum time, and the best turn of each is kept. Kernels over 1.1x Numba's time are flagged.

Times are CPU seconds of this process (time.process_time), not wall time: on a shared machine
the wall clock also counts the time other processes hold the core. BLAS runs on one thread
(OPENBLAS_NUM_THREADS=1 unless set) for the same reason: a second BLAS thread spinning for a
busy core made `np.dot` timings vary tenfold between runs. And glibc keeps freed large blocks
for reuse (no mmap, no trimming: `steady_allocator`): otherwise whether a kernel returning a
new 8 MB array pays a page fault per page on each call depends on what the kernels before it
allocated (running_min_max measured 0.12x and 1.17x of Numba in two runs of the same code).
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import os
import statistics
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before NumPy loads its BLAS
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
import _this_tree  # noqa: E402, F401 - this tree's ember, not an installed one
from _corpus import Case, agree, jitted, load  # noqa: E402

FLAG_RATIO = 1.1
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_KEPT = 32 << 20  # glibc's largest mmap threshold (corpus arrays are at most 8 MB)


def steady_allocator() -> None:
    """Make glibc serve large blocks from its heap and keep freed memory (on other C
    libraries, nothing): both compilers' arrays then cost what they do in a long-running
    program, not what the allocation history of this process happens to make them cost."""
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    if libc is None or not hasattr(libc, "mallopt"):
        return
    libc.mallopt(_M_MMAP_THRESHOLD, _KEPT)
    libc.mallopt(_M_TRIM_THRESHOLD, _KEPT)


@dataclass
class Outcome:
    """What run.py found for one kernel: seconds per call (None: not timed) and a status."""

    case: Case
    ember: float | None = None
    numba: float | None = None
    status: str = ""

    @property
    def ratio(self) -> float | None:
        if self.ember is None or self.numba is None:
            return None
        return self.ember / self.numba


def one_line(error: BaseException) -> str:
    """The error on one line: its type and the lines of its message, joined and shortened."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: " + " / ".join(lines)[:240]


def calls_per_turn(func, args: tuple, min_seconds: float) -> int:
    """How many calls make one timing turn last at least `min_seconds`."""
    number = 1
    while True:
        started = time.process_time()
        for _ in range(number):
            func(*args)
        elapsed = time.process_time() - started
        if elapsed >= min_seconds or number >= 1 << 20:
            return number
        number *= 2 if elapsed * 4 > min_seconds else 8


def turn_seconds(func, args: tuple, number: int) -> float:
    started = time.process_time()
    for _ in range(number):
        func(*args)
    return (time.process_time() - started) / number


def time_alternating(funcs: dict, args: tuple, repeats: int, min_seconds: float) -> dict:
    """Best seconds per call of each function, timed in alternating turns."""
    numbers = {name: calls_per_turn(f, args, min_seconds) for name, f in funcs.items()}
    best = {name: float("inf") for name in funcs}
    for _ in range(repeats):
        for name, func in funcs.items():
            best[name] = min(best[name], turn_seconds(func, args, numbers[name]))
    return best


def check_ember(case: Case, reference: Case) -> tuple[object | None, str]:
    """ember's jitted kernel when it compiles and matches Python on the small input."""
    try:
        compiled = jitted(case, "ember")
        got = compiled(*case.build(case.small))
    except Exception as error:  # noqa: BLE001 - reported in the table, the run goes on
        return None, "FAILS: " + one_line(error)
    expected = reference.func(*reference.build(reference.small))
    if not agree(expected, got, case.rtol):
        return None, "WRONG vs Python"
    return compiled, ""


def first_results(funcs: dict, args: tuple) -> tuple[dict, str]:
    """Each function's result on the timed input; one that raises is dropped from `funcs`
    and named in the returned status."""
    results, status = {}, ""
    for impl, func in list(funcs.items()):
        try:
            results[impl] = func(*args)
        except Exception as error:  # noqa: BLE001 - reported in the table, the run goes on
            del funcs[impl]
            status = status or f"{impl} fails: " + one_line(error)
    return results, status


def measure(name: str, cases: dict, quick: bool) -> Outcome:
    """Check one kernel, then time ember and Numba on its timed input."""
    ember_case = cases["ember"][name]
    outcome = Outcome(ember_case)
    ember, outcome.status = check_ember(ember_case, cases["python"][name])
    funcs = {}
    if ember is not None:
        funcs["ember"] = ember
    if "numba" in cases:
        numba_case = cases["numba"][name]
        try:
            funcs["numba"] = jitted(numba_case, "numba")
        except Exception as error:  # noqa: BLE001
            outcome.status = outcome.status or "numba fails: " + one_line(error)
    args = ember_case.build(ember_case.size)
    results, failure = first_results(funcs, args)
    outcome.status = outcome.status or failure
    if len(results) == 2 and not agree(results["numba"], results["ember"], ember_case.rtol):
        outcome.status = "ember and Numba differ"
        return outcome
    times = time_alternating(funcs, args, 5 if quick else 9, 0.01 if quick else 0.03)
    outcome.ember, outcome.numba = times.get("ember"), times.get("numba")
    if outcome.ratio is not None and outcome.ratio > FLAG_RATIO and not outcome.status:
        outcome.status = f"> {FLAG_RATIO}x Numba"
    return outcome


def milliseconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    value = seconds * 1e3
    return f"{value:.3g}" if value < 1000 else f"{value:.0f}"


def print_table(outcomes: list[Outcome]) -> None:
    lines = [("kernel", "topic", "ember ms", "numba ms", "ember/numba", "note")]
    for o in outcomes:
        ratio = "-" if o.ratio is None else f"{o.ratio:.2f}x"
        lines.append(
            (
                o.case.name,
                o.case.topic,
                milliseconds(o.ember),
                milliseconds(o.numba),
                ratio,
                o.status,
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(5)]
    for n, line in enumerate(lines):
        cells = [line[0].ljust(widths[0]), line[1].ljust(widths[1])]
        cells += [line[i].rjust(widths[i]) for i in range(2, 5)]
        print("  ".join([*cells, line[5]]).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths) + "  ----")


def print_summary(outcomes: list[Outcome]) -> None:
    ratios = [o.ratio for o in outcomes if o.ratio is not None]
    flagged = [o for o in outcomes if o.ratio is not None and o.ratio > FLAG_RATIO]
    failing = [o for o in outcomes if o.status.startswith(("FAILS", "WRONG", "ember"))]
    print()
    if failing:
        print(
            f"ember fails or disagrees ({len(failing)}): " + ", ".join(o.case.name for o in failing)
        )
    if ratios:
        print(f"median ember/numba: {statistics.median(ratios):.2f}x over {len(ratios)} kernels")
    listed = ", ".join(f"{o.case.name} ({o.ratio:.2f}x)" for o in flagged) or "none"
    print(f"flagged (> {FLAG_RATIO}x Numba, {len(flagged)}): {listed}")


def load_all() -> dict[str, dict[str, Case]]:
    cases = {"ember": load("ember"), "python": load("python")}
    try:
        cases["numba"] = load("numba")
    except ImportError:
        print("Numba is not installed: ember is timed alone")
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter timing turns")
    parser.add_argument(
        "--filter",
        default="",
        help="only kernels whose name or topic has this (several: separated by commas)",
    )
    args = parser.parse_args()
    steady_allocator()
    cases = load_all()
    wanted = args.filter.split(",")
    names = [
        name
        for name, case in cases["ember"].items()
        if any(part in name or part in case.topic for part in wanted)
    ]
    outcomes = []
    for name in names:
        try:
            outcomes.append(measure(name, cases, args.quick))
        except Exception:  # noqa: BLE001 - a broken kernel must not stop the table
            traceback.print_exc()
        print(f"  {name}", file=sys.stderr, flush=True)
    print_table(outcomes)
    print_summary(outcomes)


if __name__ == "__main__":
    main()
