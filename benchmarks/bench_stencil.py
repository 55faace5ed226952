"""A 5-point Laplacian `@stencil` on a 2000x2000 float64 array: ember vs Numba vs NumPy slicing.

python benchmarks/bench_stencil.py [--quick]

The "python" column is NumPy slicing (one temporary per operation). ember and Numba run the same
kernel through their own `@stencil`, called from Python and from inside an `njit` function.
Figures are ms per call, best of repeats, compile excluded (the first-call time is a note).
"""

from __future__ import annotations

import time

import numpy as np
from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone

SIDE = 2000


def laplacian_kernel(a):
    return a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1] - 4 * a[0, 0]


def laplacian_by_slicing(a):
    result = np.zeros_like(a)
    result[1:-1, 1:-1] = a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] - 4 * a[1:-1, 1:-1]
    return result


def implementations(module) -> dict:
    """The stencil called from Python and from an njit function, for ember or numba."""
    laplacian = module.stencil(laplacian_kernel)

    def call_inside(a):
        return laplacian(a)

    return {"from Python": laplacian, "inside njit": module.njit(call_inside)}


def collect(quick: bool = False) -> Report:
    import ember

    report = Report(f"@stencil: 5-point Laplacian, {SIDE}x{SIDE} float64 ('python' = NumPy)")
    a = np.random.default_rng(0).random((SIDE, SIDE))
    expected = laplacian_by_slicing(a)
    contenders = {"ember": implementations(ember)}
    numba = import_numba()
    if numba is not None:
        contenders["numba"] = implementations(numba)
    repeat = 3 if quick else 7
    numpy_time = best_seconds_per_call(lambda: laplacian_by_slicing(a), repeat, 0.2)
    for case in ("from Python", "inside njit"):
        times: dict[str, float | None] = {"python": numpy_time}
        for name, impls in contenders.items():
            call = impls[case]
            started = time.perf_counter()
            correct = np.allclose(call(a), expected, rtol=1e-12)
            first_ms = 1e3 * (time.perf_counter() - started)
            report.notes.append(f"{name} {case}: first call (compiles) {first_ms:.0f} ms")
            times[name] = best_seconds_per_call(lambda: call(a), repeat, 0.2) if correct else None
        report.rows.append(Row("stencil", f"laplacian {case}", times, unit="ms"))
    report.notes.append(
        "each call returns a new 32 MB array (ember: np.full of cval, then the interior loop)"
    )
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
