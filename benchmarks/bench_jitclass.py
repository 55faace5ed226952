"""@jitclass: ember vs Numba vs the same class in CPython.

python benchmarks/bench_jitclass.py [--quick]

Rows: a method called in a hot compiled loop (instances built inside too), and the costs seen
from Python: a method call on an instance, a numeric attribute read and write, a construction.
Figures are best of repeats, compile excluded; each result is checked against CPython's.
"""

from __future__ import annotations

import types

import numpy as np
from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone


def make_accumulator():
    class Accumulator:
        def __init__(self, size):
            self.total = 0.0
            self.count = 0
            self.weights = np.ones(size)

        def add(self, value):
            self.total += value * self.weights[self.count % self.weights.shape[0]]
            self.count += 1

        def mean(self):
            return self.total / self.count

    return Accumulator


Accumulator = None  # each implementation's class, bound by `_kernel`


def hot_loop(n):
    acc = Accumulator(8)
    for i in range(n):
        acc.add(i * 0.5)
    return acc.mean()


def build_many(n):
    total = 0.0
    for i in range(n):
        acc = Accumulator(2)
        acc.add(float(i))
        total += acc.total
    return total


def _classes() -> dict:
    """The Accumulator class per implementation."""
    import ember
    from ember.experimental import jitclass

    spec = [("total", ember.float64), ("count", ember.int64), ("weights", ember.float64[:])]
    found = {"python": make_accumulator(), "ember": jitclass(spec)(make_accumulator())}
    numba = import_numba()
    if numba is not None:
        from numba.experimental import jitclass as numba_jitclass

        numba_spec = [("total", numba.float64), ("count", numba.int64)]
        numba_spec.append(("weights", numba.float64[:]))
        found["numba"] = numba_jitclass(numba_spec)(make_accumulator())
    return found


def _kernel(func, cls, jit):
    namespace = {**func.__globals__, "Accumulator": cls}
    kernel = types.FunctionType(func.__code__, namespace, func.__name__)
    return kernel if jit is None else jit(kernel)


def _jits() -> dict:
    import ember

    jits = {"python": None, "ember": ember.njit}
    numba = import_numba()
    if numba is not None:
        jits["numba"] = numba.njit
    return jits


def measure_kernel(func, n: int, classes: dict, quick: bool) -> Row:
    expected = _kernel(func, classes["python"], None)(n)
    times: dict[str, float | None] = {}
    for name, jit in _jits().items():
        kernel = _kernel(func, classes[name], jit)
        got = kernel(n)
        if not np.isclose(got, expected, rtol=1e-12):
            times[name] = None
            continue
        times[name] = best_seconds_per_call(lambda: kernel(n), 3 if quick else 7, 0.05)
    return Row("jitclass", f"{func.__name__} (n={n:,})", times, unit="ms")


def measure_from_python(classes: dict, quick: bool) -> list[Row]:
    rows = {"method call": {}, "attribute read": {}, "attribute write": {}, "construction": {}}
    repeats = 3 if quick else 7
    for name, cls in classes.items():
        acc = cls(4)
        acc.add(1.0)
        assert acc.mean() == 1.0 and acc.total == 1.0
        rows["method call"][name] = best_seconds_per_call(acc.mean, repeats, 0.05)
        rows["attribute read"][name] = best_seconds_per_call(lambda: acc.total, repeats, 0.05)

        def write(acc=acc):
            acc.total = 2.0

        rows["attribute write"][name] = best_seconds_per_call(write, repeats, 0.05)
        rows["construction"][name] = best_seconds_per_call(lambda: cls(4), repeats, 0.05)
    return [Row("from Python", case, times, unit="us") for case, times in rows.items()]


def collect(quick: bool = False) -> Report:
    report = Report("jitclass: compiled loops (ms per call) and calls from Python (us)")
    classes = _classes()
    n = 200_000 if quick else 1_000_000
    report.rows.append(measure_kernel(hot_loop, n, classes, quick))
    report.rows.append(measure_kernel(build_many, n // 10, classes, quick))
    report.rows.extend(measure_from_python(classes, quick))
    report.notes.append("python = the same class undecorated, run by CPython")
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
