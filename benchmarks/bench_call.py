"""Cost of one call from Python into a compiled function: ember, Numba and plain Python.

    python benchmarks/bench_call.py [--quick]

Each case calls a trivial function (`call_targets.py`) through `timeit` with the function bound to
a local name; the figure is the best of several repeats, in nanoseconds per call, and includes
timeit's own loop (about the `empty loop` row, printed for reference). A case whose compiled call
fails (ember does not take NumPy arrays yet, for instance) prints "n/a".
"""

from __future__ import annotations

import timeit

import call_targets
import numpy as np
from _harness import Report, Row, import_numba, run_standalone, same_result

ARRAY = np.arange(10.0)

# (label, target function name, argument expression): `timeit` runs `f(<arguments>)`.
CASES = [
    ("f()", "no_args", ""),
    ("f(1, 2)", "add", "1, 2"),
    ("f(1.0, 2.0)", "add", "1.0, 2.0"),
    ("f(1, 2, 3, 4, 5)", "add5", "1, 2, 3, 4, 5"),
    ("f((1, 2))", "sum_pair", "(1, 2)"),
    ("f(1) [default b=2]", "add_default", "1"),
    ("f(1, b=3) [keyword]", "add_default", "1, b=3"),
    ("f(arr) [float64[10]]", "length", "arr"),
    ("f(arr) -> arr * 2.0", "doubled", "arr"),
    ("f(arr) -> (arr[1:], len(arr))", "tail_and_length", "arr"),
]


def ns_per_call(func, arguments: str, repeat: int, number: int) -> float:
    """Best-of-`repeat` seconds per `func(arguments)` call, `func` being a local in the loop."""
    namespace = {"_f": func, "_arr": ARRAY}
    timer = timeit.Timer(f"f({arguments})", setup="f = _f; arr = _arr", globals=namespace)
    return min(timer.repeat(repeat=repeat, number=number)) / number


def call_once(func, arguments: str) -> object:
    return eval(f"f({arguments})", {"f": func, "arr": ARRAY})


def measure_case(arguments: str, impls: dict, repeat: int, number: int) -> tuple[dict, list]:
    """Seconds per call for each implementation (None if its call fails or disagrees)."""
    expected = call_once(impls["python"], arguments)
    times, notes = {}, []
    for impl, func in impls.items():
        try:
            got = call_once(func, arguments)  # compiles the JITs
        except Exception as error:
            times[impl] = None
            notes.append(f"{impl} f({arguments}): {type(error).__name__}: {_first_line(error)}")
            continue
        if not same_result(expected, got):
            times[impl] = None
            notes.append(f"{impl} f({arguments}) = {got!r}, Python gives {expected!r}")
            continue
        times[impl] = ns_per_call(func, arguments, repeat, number)
    return times, notes


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else ""


def collect(quick: bool = False) -> Report:
    from ember import njit

    report = Report("call overhead from Python: ns per call (best of repeats, timeit loop)")
    numba = import_numba()
    repeat, number = (3, 50_000) if quick else (7, 200_000)
    empty = min(timeit.Timer("pass").repeat(repeat=repeat, number=number)) / number
    report.rows.append(Row("call", "empty loop", {"python": empty}, unit="ns"))
    for label, name, arguments in CASES:
        py_func = getattr(call_targets, name)
        impls = {"ember": njit(py_func)}
        if numba is not None:
            impls["numba"] = numba.njit(py_func)
        impls["python"] = py_func
        times, notes = measure_case(arguments, impls, repeat, number)
        report.rows.append(Row("call", label, times, unit="ns"))
        report.notes += notes
    report.notes.append(f"best of {repeat} x {number:,} calls")
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
