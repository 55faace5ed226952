"""Tuple-heavy kernels: ember vs Numba vs pure Python (with NumPy arrays).

python benchmarks/bench_tuples.py [--quick]

Loops over constant tuples of offsets (`for di in (-1, 0, 1)`), `a.shape[:2]`, unpacking of
array rows and of tuples (`x, y = y, x`), lexicographic comparison, `hash()` of tuples and a
`literal_unroll` loop over a tuple of arrays of three dtypes. Figures are ms per call, best of
repeats, compile excluded; every result is checked against Python's first.
"""

from __future__ import annotations

import math
import types

import numpy as np
from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone


def literal_unroll(container):  # replaced by each JIT's own in `_variants`
    return container


def neighbour_counts(grid):
    n, m = grid.shape[:2]
    counts = np.zeros((n, m), dtype=np.int64)
    for i in range(1, n - 1):
        for j in range(1, m - 1):
            c = 0
            for di in (-1, 0, 1):
                for dj in (-1, 0, 1):
                    if di != 0 or dj != 0:
                        c += grid[i + di, j + dj]
            counts[i, j] = c
    return counts


def rotate_rows(points, turns):
    c, s = math.cos(0.1), math.sin(0.1)
    total = 0.0
    for k in range(points.shape[0]):
        x, y = points[k]
        for _ in range(turns):
            x, y = x * c - y * s, x * s + y * c
        p = (x, y)
        total += p[0] * p[1]
    return total


def lexicographic_max(a, b):
    best = (a[0], b[0])
    for k in range(a.shape[0]):
        candidate = (a[k], b[k])
        if candidate > best:
            best = candidate
    return best


def hash_of_pairs(n):
    h = 0
    for i in range(n):
        h ^= hash((i, i * 0.5))
    return h


def unrolled_sums(arrays):
    total = 0.0
    for a in literal_unroll(arrays):
        for k in range(a.shape[0]):
            total += a[k]
    return total


def cases(quick: bool) -> list[tuple]:
    rng = np.random.default_rng(0)
    side = 200 if quick else 400
    grid = (rng.random((side, side)) < 0.3).astype(np.int64)
    rows = rng.random((20_000 if quick else 100_000, 2))
    a = rng.integers(0, 50, 200_000)
    b = rng.random(200_000)
    size = 100_000 if quick else 300_000
    arrays = (rng.random(size), rng.integers(0, 9, size), rng.random(size).astype(np.float32))
    return [
        (neighbour_counts, (grid,), f"{side}x{side}"),
        (rotate_rows, (rows, 8), f"{rows.shape[0]:,} rows"),
        (lexicographic_max, (a, b), "200,000 pairs"),
        (hash_of_pairs, (200_000,), "200,000 tuples"),
        (unrolled_sums, (arrays,), f"3 x {size:,}"),
    ]


def _variants(func) -> dict:
    """The kernel as Python, under ember and under Numba, each seeing its own literal_unroll."""
    import ember

    impls = {"python": func, "ember": ember.njit(_with_unroll(func, ember.literal_unroll))}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = numba.njit(_with_unroll(func, numba.literal_unroll))
    return impls


def _with_unroll(func, unroll):
    namespace = {**func.__globals__, "literal_unroll": unroll}
    return types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__)


def _same(expected, got) -> bool:
    if isinstance(expected, tuple):
        return len(expected) == len(got) and all(map(_same, expected, got))
    return bool(np.allclose(got, expected, rtol=1e-9))


def measure(func, args: tuple, label: str, quick: bool) -> Row:
    expected = func(*args)
    times: dict[str, float | None] = {}
    for name, impl in _variants(func).items():
        try:
            got = impl(*args)
        except Exception:  # noqa: BLE001 - reported as n/a
            times[name] = None
            continue
        if not _same(expected, got):
            times[name] = None
            continue
        times[name] = best_seconds_per_call(lambda: impl(*args), 3 if quick else 7, 0.05)
    return Row("tuples", f"{func.__name__} ({label})", times, unit="ms")


def collect(quick: bool = False) -> Report:
    report = Report("tuple-heavy kernels: ms per call")
    for func, args, label in cases(quick):
        report.rows.append(measure(func, args, label, quick))
    report.notes.append("python = the same kernel run by CPython on NumPy arrays")
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
