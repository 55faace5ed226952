"""Generator-driven loops: ember vs Numba vs pure Python.

python benchmarks/bench_generators.py [--quick]

Each jitted consumer loops over a jitted generator (the generator is inlined into the loop);
the "python" column runs the same source as plain Python. The last row iterates a jitted
generator from Python (`sum(gen(n))`), item by item. Figures are ms per call, best of repeats,
compile excluded; every result is checked against Python's first.
"""

from __future__ import annotations

import numpy as np
from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone, same_result


def build(jit):
    """The benchmark's generators and consumers, compiled by `jit` (identity: plain Python)."""

    @jit
    def squares(n):
        for i in range(n):
            yield i * i

    @jit
    def sum_squares(n):
        total = 0
        for v in squares(n):
            total += v
        return total

    @jit
    def clipped(a, low, high):
        for x in a:
            if x < low:
                yield low
            elif x > high:
                yield high
            else:
                yield x

    @jit
    def sum_clipped(a):
        total = 0.0
        for v in clipped(a, -0.25, 0.25):
            total += v * v
        return total

    @jit
    def pairs(n):
        for i in range(n):
            for j in range(i):
                yield i, j

    @jit
    def pair_distances(n):
        total = 0
        for i, j in pairs(n):
            total += (i - j) % 7
        return total

    @jit
    def fibonacci(count):
        a, b = 0, 1
        for _ in range(count):
            yield a
            a, b = b, (a + b) % 1_000_003

    @jit
    def fibonacci_total(count):
        total = 0
        for v in fibonacci(count):
            total += v
        return total

    def from_python(n):
        return sum(squares(n))

    return {
        "sum_squares": sum_squares,
        "sum_clipped": sum_clipped,
        "pair_distances": pair_distances,
        "fibonacci_total": fibonacci_total,
        "from_python": from_python,
    }


def cases(quick: bool) -> list[tuple]:
    rng = np.random.default_rng(0)
    size = 200_000 if quick else 1_000_000
    return [
        ("sum_squares", f"sum of squares from a generator ({size:,})", (size,)),
        ("sum_clipped", f"clipping generator over an array ({size:,})", (rng.random(size) - 0.5,)),
        ("pair_distances", "nested loops in a generator (500k pairs)", (1000,)),
        ("fibonacci_total", f"Fibonacci generator ({size:,})", (size,)),
        ("from_python", "sum(gen(10,000)) from Python", (10_000,)),
    ]


def collect(quick: bool = False) -> Report:
    from ember import njit

    report = Report("generator-driven loops: ms per call")
    impls = {"ember": build(njit), "python": build(lambda f: f)}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = build(numba.njit)
    for name, case, args in cases(quick):
        expected = impls["python"][name](*args)
        times: dict[str, float | None] = {}
        for impl_name, funcs in impls.items():
            func = funcs[name]
            got = func(*args)
            if not same_result(expected, got):
                times[impl_name] = None
                continue
            times[impl_name] = best_seconds_per_call(lambda: func(*args), 3 if quick else 7, 0.05)
        report.rows.append(Row("generators", case, times, unit="ms"))
    report.notes.append(
        "ember keeps a generator's state in a runtime block and inlines its resume function "
        "into the consuming loop, where LLVM keeps the state in registers; from Python, the "
        "generator object's next() slot is generated code (no Python frame per item)"
    )
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
