"""parallel=True: allocations inside prange bodies and NumPy producers feeding a reduction or a
slice assignment, ember vs Numba (both parallel=True) and NumPy ("python": the function run
as plain Python, prange being range).

python benchmarks/bench_parfor_alloc.py [--quick]

Kernels: a prange loop allocating a small scratch array each iteration (np.zeros(8), 1M
iterations; np.empty((4, 4)) for a row of a matrix), nested prange loops (2000x2000), np.ones
then np.argmin (10M), `a = np.ones(n); a[:] = 7` (10M). Figures are ms per call, best of
repeats; the machine is shared, so read ratios, not absolute times.
"""

from __future__ import annotations

import numpy as np
from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone
from bench_parallel import _with_prange_of

from ember import prange


def scratch_zeros(n):
    acc = 0.0
    for i in prange(n):
        temp = np.zeros(8)
        for j in range(8):
            temp[j] = i * j
        acc += temp[-1]
    return acc


def scratch_rows(m):
    out = np.empty(m.shape[0])
    for i in prange(m.shape[0]):
        block = np.empty((4, 4))
        for j in range(4):
            for k in range(4):
                block[j, k] = m[i, j] * m[i, k]
        out[i] = block.sum()
    return out


def nested_prange(n):
    a = np.empty((n, n))
    for i in prange(n):
        for j in prange(n):
            a[i, j] = i * 10 + j
    return a


def ones_argmin(n):
    a = np.ones(n)
    return np.argmin(a)


def ones_then_fill(n):
    a = np.ones(n)
    a[:] = 7
    return a


def cases(quick: bool) -> list[tuple]:
    scale = 10 if quick else 1
    rng = np.random.default_rng(0)
    return [
        (scratch_zeros, (1_000_000 // scale,)),
        (scratch_rows, (rng.random((1_000_000 // scale, 4)),)),
        (nested_prange, (2000 // (3 if quick else 1),)),
        (ones_argmin, (10_000_000 // scale,)),
        (ones_then_fill, (10_000_000 // scale,)),
    ]


def measure(func, args: tuple, quick: bool) -> Row:
    from ember import njit

    impls = {"ember": njit(parallel=True)(func), "python": func}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = numba.njit(parallel=True)(_with_prange_of(numba, func))
    expected = func(*args)
    times: dict[str, float | None] = {}
    for name, impl in impls.items():
        got = impl(*args)
        same = np.allclose(got, expected, rtol=1e-12)
        times[name] = best_seconds_per_call(lambda: impl(*args), 3 if quick else 7, 0.05)
        times[name] = times[name] if same else None
    size = np.shape(args[0]) or args[0]
    return Row("parfor", f"{func.__name__} ({size})", times, unit="ms")


def collect(quick: bool = False) -> Report:
    report = Report("prange allocations and NumPy producers: ms per call ('python' = NumPy)")
    for func, args in cases(quick):
        report.rows.append(measure(func, args, quick))
    report.notes.append(
        "ember hoists a prange body's np.empty/zeros/ones/full out of the loop (once per chunk, "
        "refilled each iteration) when its arguments do not change and the array stays in the "
        "iteration; a nested prange runs serially inside each chunk of the outer one"
    )
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
