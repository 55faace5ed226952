"""`@vectorize` and `@guvectorize`: ember vs Numba vs the NumPy expression.

python benchmarks/bench_ufuncs.py [--quick]

Rows: two 3-operand `@vectorize` kernels on 10M float64 (serial and target='parallel', writing
into a preallocated `out=`): one memory-bound (a few flops per 32 bytes moved, so its parallel
speed-up is capped by memory bandwidth) and one compute-bound (three C math calls per element,
where the threads show); the call of that ufunc on 1-element arrays (call overhead), and a
moving average `@guvectorize` over the rows of a 2-D array (serial and parallel) and on one
1-element row (call overhead). The "python"
column is the same computation written with NumPy operations. The machine's other load skews
the parallel rows: the notes give the parallel speed-up each library measured.
"""

from __future__ import annotations

import math

import numpy as np
from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone

SIZE = 10_000_000
ROWS, COLUMNS, WINDOW = 2000, 5000, 20
SIGNATURE = ["float64(float64, float64, float64)"]
GU_SIGNATURE = ["void(float64[:], int64, float64[:])"]


def hypot_scale(a, b, c):
    return math.sqrt(a * a + b * b) * c


def hypot_scale_numpy(a, b, c, out):
    return np.multiply(np.sqrt(a * a + b * b), c, out=out)


def damped_wave(a, b, c):
    return math.exp(-a * c) * math.sin(6.0 * b) + math.log1p(a * b)


def damped_wave_numpy(a, b, c, out):
    return np.add(np.exp(-a * c) * np.sin(6.0 * b), np.log1p(a * b), out=out)


def moving_average(x, window, out):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        if i >= window:
            acc -= x[i - window]
        out[i] = acc / min(i + 1, window)


def moving_average_numpy(x, window, out):
    sums = np.cumsum(x, axis=1)
    sums[:, window:] = sums[:, window:] - sums[:, :-window]
    counts = np.minimum(np.arange(1, x.shape[1] + 1), window)
    return np.divide(sums, counts, out=out)


def build(module) -> dict:
    return {
        "serial": module.vectorize(SIGNATURE)(hypot_scale),
        "parallel": module.vectorize(SIGNATURE, target="parallel")(hypot_scale),
        "compute serial": module.vectorize(SIGNATURE)(damped_wave),
        "compute parallel": module.vectorize(SIGNATURE, target="parallel")(damped_wave),
        "gu serial": module.guvectorize(GU_SIGNATURE, "(n),()->(n)")(moving_average),
        "gu parallel": module.guvectorize(GU_SIGNATURE, "(n),()->(n)", target="parallel")(
            moving_average
        ),
    }


def collect(quick: bool = False) -> Report:
    import ember

    report = Report("ufuncs: @vectorize / @guvectorize ('python' = the NumPy expression)")
    rng = np.random.default_rng(0)
    a, b, c = (rng.random(SIZE) for _ in range(3))
    out = np.empty(SIZE)
    rows = rng.random((ROWS, COLUMNS))
    gu_out = np.empty_like(rows)
    contenders = {"ember": build(ember)}
    numba = import_numba()
    if numba is not None:
        contenders["numba"] = build(numba)
    repeat = 3 if quick else 7
    expected = hypot_scale_numpy(a, b, c, np.empty(SIZE))
    gu_expected = moving_average_numpy(rows, WINDOW, np.empty_like(rows))

    def measure(case, kernel, args, expect, python, unit="ms"):
        times: dict[str, float | None] = {"python": best_seconds_per_call(python, repeat, 0.2)}
        for name, impls in contenders.items():
            fn = impls[kernel]
            result = fn(*args)
            good = np.allclose(result, expect, rtol=1e-12)
            times[name] = best_seconds_per_call(lambda: fn(*args), repeat, 0.2) if good else None
        report.rows.append(Row("ufunc", case, times, unit=unit))
        return times

    serial = measure("vectorize 3 operands, 10M (out=)", "serial", (a, b, c, out), expected,
                     lambda: hypot_scale_numpy(a, b, c, out))  # fmt: skip
    parallel = measure("  target='parallel'", "parallel", (a, b, c, out), expected,
                       lambda: hypot_scale_numpy(a, b, c, out))  # fmt: skip
    wave_expected = damped_wave_numpy(a, b, c, np.empty(SIZE))
    wave_serial = measure("vectorize 3 operands, compute-bound, 10M", "compute serial",
                          (a, b, c, out), wave_expected,
                          lambda: damped_wave_numpy(a, b, c, out))  # fmt: skip
    wave_parallel = measure("  target='parallel'", "compute parallel", (a, b, c, out),
                            wave_expected, lambda: damped_wave_numpy(a, b, c, out))  # fmt: skip
    one = [np.ones(1)] * 3
    measure("vectorize on 1-element arrays", "serial", one, hypot_scale(1.0, 1.0, 1.0),
            lambda: hypot_scale_numpy(*one, None), unit="ns")  # fmt: skip
    gu_serial = measure(f"guvectorize moving average {ROWS}x{COLUMNS}", "gu serial",
                        (rows, WINDOW, gu_out), gu_expected,
                        lambda: moving_average_numpy(rows, WINDOW, gu_out))  # fmt: skip
    gu_args = (rows, WINDOW, gu_out)
    gu_parallel = measure("  target='parallel'", "gu parallel", gu_args, gu_expected,
                          lambda: moving_average_numpy(*gu_args))  # fmt: skip
    one_row, one_out = np.ones(1), np.empty(1)
    measure("guvectorize on a 1-element input", "gu serial", (one_row, WINDOW, one_out),
            np.ones(1), lambda: moving_average_numpy(one_row[None], WINDOW, one_out[None]),
            unit="ns")  # fmt: skip
    for name in contenders:
        for label, one_thread, threads in (("vectorize memory-bound", serial, parallel),
                                           ("vectorize compute-bound", wave_serial, wave_parallel),
                                           ("guvectorize", gu_serial, gu_parallel)):  # fmt: skip
            if one_thread.get(name) and threads.get(name):
                speedup = one_thread[name] / threads[name]
                report.notes.append(f"{name} {label} parallel speed-up: {speedup:.2f}x")
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
