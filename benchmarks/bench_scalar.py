"""Steady-state speed of scalar loop kernels: ember, Numba, pure Python and C.

    python benchmarks/bench_scalar.py [--quick]

The kernels live once in `scalar_kernels.py` (Python) and `scalar_kernels.c` (C, compiled here
with `gcc -O3 -march=native -ffp-contract=off` into a temporary shared library and called
through ctypes; skipped when gcc is missing). Every implementation's answer is checked against
pure Python before it is timed; the time is the best of several repeats of one call (after a
first, compiling call), so compile time is excluded.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from _harness import (
    Report,
    Row,
    best_seconds_per_call,
    import_numba,
    run_standalone,
    same_result,
)

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "scalar_kernels.py"
C_SOURCE = HERE / "scalar_kernels.c"
C_FLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-shared", "-fPIC"]

# (kernel, argument): sized so that one compiled call takes roughly 1-10 ms.
CASES = [
    ("leibniz_pi", 2_000_000),
    ("collatz_steps", 20_000),
    ("trapezoid_sin", 1_000_000),
    ("count_primes", 50_000),
    ("logistic_map", 2_000_000),
    ("fib", 27),
]


def load_kernels(tag: str, jit: Callable | None = None):
    """A fresh copy of `scalar_kernels` with every kernel replaced by `jit(kernel)`.

    A separate module per JIT makes recursive calls (`fib`) reach that JIT's dispatcher.
    """
    spec = importlib.util.spec_from_file_location(f"scalar_kernels_{tag}", KERNELS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # Numba finds a function's globals through its module name
    spec.loader.exec_module(module)
    if jit is not None:
        for name, _ in CASES:
            setattr(module, name, jit(getattr(module, name)))
    return module


def build_c_library(workdir: str) -> tuple[ctypes.CDLL | None, str]:
    """The compiled C kernels (None if gcc is missing or fails) and a note saying why."""
    gcc = shutil.which("gcc")
    if gcc is None:
        return None, "C skipped: gcc not found"
    target = Path(workdir) / "scalar_kernels.so"
    command = [gcc, *C_FLAGS, str(C_SOURCE), "-o", str(target), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"C skipped: gcc failed: {done.stderr.strip()[:200]}"
    return ctypes.CDLL(str(target)), "C: gcc " + " ".join(C_FLAGS[:3])


def c_function(library: ctypes.CDLL, name: str, result: object) -> Callable:
    func = getattr(library, name)
    func.argtypes = [ctypes.c_int64]
    func.restype = ctypes.c_double if isinstance(result, float) else ctypes.c_int64
    return func


def measure_case(name: str, arg: int, impls: dict, quick: bool) -> tuple[Row, list[str]]:
    """Check every implementation against Python, then time one call of each."""
    expected = getattr(impls["python"], name)(arg)
    times, notes = {}, []
    for impl, source in impls.items():
        func = c_function(source, name, expected) if impl == "C" else getattr(source, name)
        try:
            got = func(arg)  # compiles the JITs; also the correctness check
        except Exception as error:  # an unsupported kernel is a finding, not a crash
            times[impl] = None
            notes.append(f"{impl} {name}({arg}) raised {type(error).__name__}: {error}")
            continue
        if not same_result(expected, got):
            times[impl] = None
            notes.append(f"{impl} {name}({arg}) = {got!r}, Python gives {expected!r}")
            continue
        slow = impl == "python"
        repeat = (1 if quick else 3) if slow else (3 if quick else 7)
        min_seconds = 0.0 if slow else (0.02 if quick else 0.1)
        times[impl] = best_seconds_per_call(lambda: func(arg), repeat, min_seconds)
    return Row("scalar", f"{name}({arg:,})", times, unit="ms"), notes


def collect(quick: bool = False) -> Report:
    from ember import njit

    report = Report("scalar kernels: time per call (best of repeats, compile excluded)")
    impls = {"ember": load_kernels("ember", njit)}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = load_kernels("numba", numba.njit)
    impls["python"] = load_kernels("python")
    with tempfile.TemporaryDirectory(prefix="ember-bench-") as workdir:
        library, c_note = build_c_library(workdir)
        if library is not None:
            impls["C"] = library
        for name, arg in CASES:
            row, notes = measure_case(name, arg, impls, quick)
            report.rows.append(row)
            report.notes += notes
    report.notes.append(c_note)
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
