"""Steady-state speed of array kernels: ember, Numba, NumPy and C, side by side.

    python benchmarks/bench_arrays.py [--quick]

Kernels (explicit loops for ember, Numba and C; idiomatic whole-array code for NumPy):
- sum of squares of 10M float64;
- 2-D 5-point Jacobi sweeps on a 1000x1000 grid;
- naive (i, j, k) matrix product of 300x300 float64 (NumPy: `a @ b` on BLAS);
- histogram of 10M uniform values into 100 bins (NumPy: np.histogram).

C is compiled here with `gcc -O3 -march=native -ffp-contract=off` into a temporary shared library
and called through ctypes (skipped when gcc is missing). Every implementation's answer is checked
against NumPy's before it is timed; the time is the best of several repeats of one call after a
first, compiling call. Nothing is asserted: read the ratios.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from _harness import import_numba, parse_args

# ---------------------------------------------------------------------------- the kernels


def sum_of_squares(a):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * a[i]
    return total


def jacobi(u, sweeps):
    n, m = u.shape
    u = u.copy()  # the sweeps swap buffers: never write into the caller's grid
    v = u.copy()
    for _ in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        u, v = v, u
    return u


def matmul(a, b):
    n, k = a.shape
    m = b.shape[1]
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            total = 0.0
            for p in range(k):
                total += a[i, p] * b[p, j]
            out[i, j] = total
    return out


def histogram(values, bins):
    counts = np.zeros(bins, np.int64)
    for i in range(values.shape[0]):
        index = int(values[i] * bins)
        if 0 <= index < bins:
            counts[index] += 1
    return counts


def numpy_sum_of_squares(a):
    return np.sum(a * a)


def numpy_jacobi(u, sweeps):
    u = u.copy()
    v = u.copy()
    for _ in range(sweeps):
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u, v = v, u
    return u


def numpy_matmul(a, b):
    return a @ b


def numpy_histogram(values, bins):
    return np.histogram(values, bins=bins, range=(0.0, 1.0))[0]


C_SOURCE = r"""
#include <stdint.h>
#include <string.h>

double sum_of_squares(const double *a, int64_t n) {
    double total = 0.0;
    for (int64_t i = 0; i < n; i++) total += a[i] * a[i];
    return total;
}

void jacobi(double *u, double *v, int64_t n, int64_t m, int64_t sweeps) {
    memcpy(v, u, sizeof(double) * n * m);
    for (int64_t s = 0; s < sweeps; s++) {
        for (int64_t i = 1; i < n - 1; i++)
            for (int64_t j = 1; j < m - 1; j++)
                v[i * m + j] = 0.25 * (u[(i - 1) * m + j] + u[(i + 1) * m + j]
                                       + u[i * m + j - 1] + u[i * m + j + 1]);
        double *t = u; u = v; v = t;
    }
}

void matmul(const double *a, const double *b, double *out, int64_t n, int64_t k, int64_t m) {
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < m; j++) {
            double total = 0.0;
            for (int64_t p = 0; p < k; p++) total += a[i * k + p] * b[p * m + j];
            out[i * m + j] = total;
        }
}

void histogram(const double *values, int64_t n, int64_t *counts, int64_t bins) {
    memset(counts, 0, sizeof(int64_t) * bins);
    for (int64_t i = 0; i < n; i++) {
        int64_t index = (int64_t)(values[i] * bins);
        if (index >= 0 && index < bins) counts[index]++;
    }
}
"""
C_FLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-shared", "-fPIC"]

# ---------------------------------------------------------------------------- C wrappers


def _pointer(array: np.ndarray):
    return array.ctypes.data_as(ctypes.c_void_p)


def build_c(workdir: str) -> tuple[dict[str, Callable] | None, str]:
    gcc = shutil.which("gcc")
    if gcc is None:
        return None, "C skipped: gcc not found"
    source = Path(workdir) / "array_kernels.c"
    source.write_text(C_SOURCE)
    target = Path(workdir) / "array_kernels.so"
    done = subprocess.run([gcc, *C_FLAGS, str(source), "-o", str(target)],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        return None, f"C skipped: gcc failed: {done.stderr.strip()[:200]}"
    lib = ctypes.CDLL(str(target))
    i64, ptr = ctypes.c_int64, ctypes.c_void_p
    lib.sum_of_squares.argtypes = [ptr, i64]
    lib.sum_of_squares.restype = ctypes.c_double
    lib.jacobi.argtypes = [ptr, ptr, i64, i64, i64]
    lib.matmul.argtypes = [ptr, ptr, ptr, i64, i64, i64]
    lib.histogram.argtypes = [ptr, i64, ptr, i64]

    def c_sum(a):
        return lib.sum_of_squares(_pointer(a), a.shape[0])

    def c_jacobi(u, sweeps):
        u, v = u.copy(), np.empty_like(u)
        lib.jacobi(_pointer(u), _pointer(v), u.shape[0], u.shape[1], sweeps)
        return u if sweeps % 2 == 0 else v

    def c_matmul(a, b):
        out = np.empty((a.shape[0], b.shape[1]))
        lib.matmul(_pointer(a), _pointer(b), _pointer(out), a.shape[0], a.shape[1], b.shape[1])
        return out

    def c_histogram(values, bins):
        counts = np.empty(bins, np.int64)
        lib.histogram(_pointer(values), values.shape[0], _pointer(counts), bins)
        return counts

    kernels = {"sum_of_squares": c_sum, "jacobi": c_jacobi, "matmul": c_matmul,
               "histogram": c_histogram}  # fmt: skip
    return kernels, "C: gcc " + " ".join(C_FLAGS[:3])


# ---------------------------------------------------------------------------- measuring


def best_of(func: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - started)
    return best


def cases(quick: bool) -> list[tuple[str, tuple, Callable]]:
    rng = np.random.default_rng(0)
    n = 2_000_000 if quick else 10_000_000
    grid = rng.random((500, 500) if quick else (1000, 1000))
    size = 150 if quick else 300
    a, b = rng.random((size, size)), rng.random((size, size))
    return [
        ("sum_of_squares", (rng.random(n),), numpy_sum_of_squares),
        ("jacobi", (grid, 10), numpy_jacobi),
        ("matmul", (a, b), numpy_matmul),
        ("histogram", (rng.random(n), 100), numpy_histogram),
    ]


KERNELS = {"sum_of_squares": sum_of_squares, "jacobi": jacobi, "matmul": matmul,
           "histogram": histogram}  # fmt: skip


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    from ember import njit

    numba = import_numba()
    repeat = 3 if args.quick else 5
    rows, notes = [], []
    with tempfile.TemporaryDirectory(prefix="ember-bench-") as workdir:
        c_kernels, c_note = build_c(workdir)
        notes.append(c_note)
        for name, arguments, numpy_version in cases(args.quick):
            expected = numpy_version(*arguments)
            impls = {"ember": njit(KERNELS[name])}
            if numba is not None:
                impls["numba"] = numba.njit(KERNELS[name])
            impls["numpy"] = numpy_version
            if c_kernels is not None:
                impls["C"] = c_kernels[name]
            times = {}
            for impl, func in impls.items():
                try:
                    got = func(*arguments)  # compiles; also the correctness check
                except Exception as error:
                    times[impl] = None
                    notes.append(f"{impl} {name} raised {type(error).__name__}: {error}")
                    continue
                if not np.allclose(got, expected, rtol=1e-9):
                    times[impl] = None
                    notes.append(f"{impl} {name} disagrees with NumPy")
                    continue
                times[impl] = best_of(lambda func=func: func(*arguments), repeat)
            rows.append((name, times))
    print_table(rows)
    for note in notes:
        print(f"  * {note}")


def print_table(rows: list) -> None:
    columns = ["ember", "numba", "numpy", "C"]
    shown = [c for c in columns if any(c in times for _, times in rows)]
    ratios = [(f"ember/{c}", c) for c in shown if c != "ember"]
    header = ["case (ms)", *shown, *(label for label, _ in ratios)]
    lines = [header]
    for name, times in rows:
        cells = [name]
        for column in shown:
            value = times.get(column)
            cells.append("-" if column not in times else "n/a" if value is None
                         else f"{value * 1e3:.3g}")  # fmt: skip
        for _, column in ratios:
            top, bottom = times.get("ember"), times.get(column)
            cells.append(f"{top / bottom:.2f}x" if top and bottom else "-")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    print("== array kernels: time per call (best of repeats, compile excluded) ==")
    for index, line in enumerate(lines):
        print("  ".join(cell.rjust(w) if i else cell.ljust(w)
                        for i, (cell, w) in enumerate(zip(line, widths))))  # fmt: skip
        if index == 0:
            print("  ".join("-" * w for w in widths))
    print("  (ember/X below 1: ember is faster than X)")


if __name__ == "__main__":
    main()
