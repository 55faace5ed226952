"""parallel=True: prange kernels, serial ember vs parallel ember vs Numba parallel vs C OpenMP.

python benchmarks/bench_parallel.py [--quick]

Kernels: a prange sum over 50M float64, an elementwise kernel (10M), a 5-point Jacobi sweep
(2000x2000), a k-means assignment step (1M points, 3-d, 8 centroids), writes the legality
analysis cannot tie to one iteration (a scatter through a permutation of 10M, a symmetric
2000x2000 distance matrix filled at [i, j] and [j, i]: run in parallel as Numba does), NumPy
reductions
(sum, min, max, mean of 50M float64: one fused parallel loop) and a fused kernel (np.zeros, a
prange loop, np.sum and np.max over 10M: one parallel loop; also timed with fusion off); then
NumPy calls made parallel: np.random.standard_normal(10M), argmin and argmax of 50M, sums of
a 4000x2500 matrix along each axis, a chain of array expressions and reductions (10M, fused),
and a[mask] = b (10M).
C is compiled with `gcc -O3 -march=native -fopenmp` when gcc is found. Figures are ms per
call, best of repeats.
The machine is shared: the load average at the start and end is printed with the table.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import tempfile
import time
import types

import numpy as np
from _harness import best_seconds_per_call, import_numba, parse_args

from ember import prange


def prange_sum(a):
    s = 0.0
    for i in prange(len(a)):
        s += a[i]
    return s


def elementwise(a, b, c, out):
    for i in prange(len(a)):
        out[i] = 2.0 * a[i] * b[i] + c[i] * c[i]
    return out


def jacobi(grid, out):
    n, m = grid.shape
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            out[i, j] = 0.25 * (grid[i - 1, j] + grid[i + 1, j] + grid[i, j - 1] + grid[i, j + 1])
    return out


def kmeans_assign(points, centroids, labels):
    inertia = 0.0
    for i in prange(points.shape[0]):
        best, best_k = np.inf, 0
        for k in range(centroids.shape[0]):
            d = 0.0
            for j in range(points.shape[1]):
                diff = points[i, j] - centroids[k, j]
                d += diff * diff
            if d < best:
                best, best_k = d, k
        labels[i] = best_k
        inertia += best
    return inertia


def scatter(order, a, out):
    for i in prange(len(order)):
        out[order[i]] = 2.0 * a[i] + 1.0  # a computed index: run in parallel on trust
    return out


def symmetric_distances(points, out):
    n = points.shape[0]
    for i in prange(n):
        for j in range(i + 1, n):
            d = 0.0
            for k in range(points.shape[1]):
                t = points[i, k] - points[j, k]
                d += t * t
            out[i, j] = d
            out[j, i] = d  # the loop index at another position: run in parallel on trust
    return out


def numpy_reductions(a):
    return np.sum(a), np.min(a), np.max(a), np.mean(a)


def fused_kernel(a, b):
    n = len(a)
    out = np.zeros(n)
    for i in prange(n):
        out[i] = a[i] * b[i] + 1.0
    return np.sum(out), np.max(out)


def random_normal(n):
    return np.random.standard_normal(n)


def arg_extremes(a):
    return np.argmin(a), np.argmax(a)


def axis_sums(m):
    return m.sum(axis=0), m.sum(axis=1)


def expression_chain(a, b):
    centred = a - b.mean()
    return np.sum(centred * centred), np.sqrt(np.abs(centred)) * 2.0 - 1.0


def mask_assign(a, mask, b):
    a[mask] = b
    return a


_FUSION_ROWS = ("numpy reductions", "fused kernel", "array expressions")

_C_SOURCE = r"""
#include <math.h>
double prange_sum(const double *a, long n) {
    double s = 0.0;
    #pragma omp parallel for reduction(+:s) schedule(static)
    for (long i = 0; i < n; i++) s += a[i];
    return s;
}
void elementwise(const double *a, const double *b, const double *c, double *out, long n) {
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) out[i] = 2.0 * a[i] * b[i] + c[i] * c[i];
}
void jacobi(const double *g, double *out, long n, long m) {
    #pragma omp parallel for schedule(static)
    for (long i = 1; i < n - 1; i++)
        for (long j = 1; j < m - 1; j++)
            out[i*m+j] = 0.25 * (g[(i-1)*m+j] + g[(i+1)*m+j] + g[i*m+j-1] + g[i*m+j+1]);
}
double kmeans_assign(const double *p, const double *c, long *labels, long n, long k, long d) {
    double inertia = 0.0;
    #pragma omp parallel for reduction(+:inertia) schedule(static)
    for (long i = 0; i < n; i++) {
        double best = INFINITY; long best_k = 0;
        for (long q = 0; q < k; q++) {
            double dist = 0.0;
            for (long j = 0; j < d; j++) { double t = p[i*d+j] - c[q*d+j]; dist += t * t; }
            if (dist < best) { best = dist; best_k = q; }
        }
        labels[i] = best_k; inertia += best;
    }
    return inertia;
}
"""


def _c_library():
    """The C kernels built with OpenMP, or None without gcc."""
    folder = tempfile.mkdtemp(prefix="ember_bench_parallel_")
    source, library = os.path.join(folder, "k.c"), os.path.join(folder, "k.so")
    with open(source, "w") as handle:
        handle.write(_C_SOURCE)
    flags = ["-O3", "-march=native", "-fopenmp", "-shared", "-fPIC"]
    try:
        subprocess.run(["gcc", *flags, source, "-o", library, "-lm"], check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    lib = ctypes.CDLL(library)
    lib.prange_sum.restype = ctypes.c_double
    lib.kmeans_assign.restype = ctypes.c_double
    return lib


def _ptr(array: np.ndarray):
    return array.ctypes.data_as(ctypes.c_void_p)


def _c_calls(lib, data: dict) -> dict:
    a, b, c, out = data["vectors"]
    grid, grid_out = data["grid"]
    points, centroids, labels = data["kmeans"]
    big = data["big"]
    return {
        "prange sum": lambda: lib.prange_sum(_ptr(big), ctypes.c_long(len(big))),
        "elementwise": lambda: lib.elementwise(
            _ptr(a), _ptr(b), _ptr(c), _ptr(out), ctypes.c_long(len(a))
        ),
        "jacobi": lambda: lib.jacobi(_ptr(grid), _ptr(grid_out), *map(ctypes.c_long, grid.shape)),
        "k-means step": lambda: lib.kmeans_assign(
            _ptr(points),
            _ptr(centroids),
            _ptr(labels),
            *map(
                ctypes.c_long, (*points.shape[:1], centroids.shape[0], points.shape[1])
            ),  # fmt: skip
        ),
    }


def _data(quick: bool) -> dict:
    rng = np.random.default_rng(0)
    n = 10_000_000
    points = rng.random((1_000_000, 3))
    mask = rng.random(n) < 0.5
    return {
        "matrix": rng.random((4000, 2500)),
        "mask": (np.zeros(n), mask, rng.random(int(mask.sum()))),
        "big": rng.random(50_000_000 if not quick else 10_000_000),
        "vectors": (rng.random(n), rng.random(n), rng.random(n), np.empty(n)),
        "grid": (rng.random((2000, 2000)), np.zeros((2000, 2000))),
        "kmeans": (points, rng.random((8, 3)), np.zeros(len(points), dtype=np.int64)),
        "scatter": (rng.permutation(n), rng.random(n), np.empty(n)),
        "distances": (rng.random((2000, 8)), np.zeros((2000, 2000))),
    }


def _cases(data: dict) -> dict:
    return {
        "prange sum": (prange_sum, (data["big"],)),
        "elementwise": (elementwise, data["vectors"]),
        "jacobi": (jacobi, data["grid"]),
        "k-means step": (kmeans_assign, data["kmeans"]),
        "scatter (permutation)": (scatter, data["scatter"]),
        "symmetric distances": (symmetric_distances, data["distances"]),
        "numpy reductions": (numpy_reductions, (data["big"],)),
        "fused kernel": (fused_kernel, data["vectors"][:2]),
        "np.random normal": (random_normal, (len(data["vectors"][0]),)),
        "argmin + argmax": (arg_extremes, (data["big"],)),
        "axis sums": (axis_sums, (data["matrix"],)),
        "array expressions": (expression_chain, data["vectors"][:2]),
        "a[mask] = b": (mask_assign, data["mask"]),
    }


def _with_prange_of(module, func):
    """`func` whose global `prange` is `module.prange` (Numba types only its own)."""
    namespace = {**func.__globals__, "prange": module.prange}
    return types.FunctionType(func.__code__, namespace, func.__name__)


def _first_call_ms(dispatcher, args) -> float:
    started = time.perf_counter()
    dispatcher(*args)
    return 1e3 * (time.perf_counter() - started)


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    import ember

    data = _data(args.quick)
    repeat = 3 if args.quick else 7
    numba = import_numba()
    lib = _c_library()
    c_calls = _c_calls(lib, data) if lib is not None else {}
    print(f"== {__doc__.splitlines()[0]} ==")
    print(f"threads: {ember.get_num_threads()}, layer: {ember.threading_layer()}, "
          f"load average at start: {os.getloadavg()[0]:.2f}")  # fmt: skip
    header = ["case", "ember serial", "ember parallel", "numba parallel", "C OpenMP", "speed-up"]
    rows, notes = [header], []
    for name, (func, fargs) in _cases(data).items():
        impls = {"ember serial": ember.njit(func)}
        impls["ember parallel"] = ember.njit(parallel=True)(func)
        if numba is not None:
            impls["numba parallel"] = numba.njit(parallel=True)(_with_prange_of(numba, func))
        times = {}
        for label, impl in impls.items():
            first = _first_call_ms(impl, fargs)
            if label != "ember serial":
                notes.append(f"{name}: {label} first call (compiles) {first:.0f} ms")
            times[label] = best_seconds_per_call(lambda impl=impl: impl(*fargs), repeat, 0.2)
        if name in _FUSION_ROWS:
            unfused = ember.njit(parallel={"fusion": False})(func)
            unfused(*fargs)
            seconds = best_seconds_per_call(lambda: unfused(*fargs), repeat, 0.2)
            notes.append(f"{name}: ember parallel without fusion {1e3 * seconds:.2f} ms")
        if name in c_calls:
            times["C OpenMP"] = best_seconds_per_call(c_calls[name], repeat, 0.2)
        speedup = times["ember serial"] / times["ember parallel"]
        cells = [f"{1e3 * times[h]:.2f}" if h in times else "-" for h in header[1:-1]]
        rows.append([name, *cells, f"{speedup:.2f}x"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for n, row in enumerate(rows):
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in
                        enumerate(zip(row, widths))))  # fmt: skip
        if n == 0:
            print("  ".join("-" * w for w in widths))
    for note in notes:
        print(f"  * {note}")
    print(f"  * ms per call; load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
