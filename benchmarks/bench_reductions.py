"""Array reductions and small allocations: ember vs Numba vs NumPy, called on NumPy arrays.

python benchmarks/bench_reductions.py [--quick]

Each case is one call of a jitted function (the "python" column calls NumPy directly), on 1M
float64 values or a 1000x1000 float64 matrix; `np.empty(3)` in a loop measures the runtime's
allocate/free pair. Figures are ms per call, best of repeats, compile excluded; every result is
checked against NumPy's first.
"""

from __future__ import annotations

import numpy as np
from _harness import Report, Row, run_standalone, time_ember_numba_numpy


def whole_max(a):
    return a.max()


def whole_argmax(a):
    return np.argmax(a)


def column_sums(m):
    return m.sum(axis=0)


def row_sums(m):
    return m.sum(axis=1)


def column_means(m):
    return m.mean(axis=0)


def column_argmin(m):
    return np.argmin(m, axis=0)


def small_arrays(n):
    total = 0.0
    for i in range(n):
        scratch = np.empty(3)
        scratch[0] = i
        total += scratch[0]
    return total


def cases(quick: bool) -> list[tuple]:
    rng = np.random.default_rng(0)
    vector = rng.random(1_000_000)
    matrix = rng.random((500, 500) if quick else (1000, 1000))
    count = 20_000 if quick else 100_000
    return [
        (whole_max, (vector,)),
        (whole_argmax, (vector,)),
        (column_sums, (matrix,)),
        (row_sums, (matrix,)),
        (column_means, (matrix,)),
        (column_argmin, (matrix,)),
        (small_arrays, (count,)),
    ]


def measure(func, args: tuple, quick: bool) -> Row:
    times = time_ember_numba_numpy(func, args, quick)
    size = "x".join(map(str, np.shape(args[0]))) or f"{args[0]:,} iterations"
    return Row("reduction", f"{func.__name__} ({size})", times, unit="ms")


def collect(quick: bool = False) -> Report:
    report = Report("reductions and small allocations: ms per call ('python' = NumPy)")
    for func, args in cases(quick):
        report.rows.append(measure(func, args, quick))
    report.notes.append(
        "n/a for Numba: it rejects the call (no axis= on these reductions) or disagrees with NumPy"
    )
    report.notes.append(
        "max folds with IEEE maximum (vectorized); argmax finds the maximum, then its first "
        "index; a reduction along a slow axis streams rows into a row of accumulators"
    )
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
