"""Functions as values: closures, jitted functions passed as arguments and chosen at run time.

python benchmarks/bench_functions.py [--quick]

- compile: warm compile time (jit plus first call, in a process that has compiled before) of a
  loop kernel whose body calls an inner function reading an enclosing variable, and of the same
  kernel written without the inner function; the median of fresh function objects.
- run: steady-state time of one call of each kernel (inner functions are inlined: no cost).
- call: one call `apply(g, 1)` from Python, passing a jitted function as an argument.
- choice: a loop calling `(inc, dbl)[i % 2](i)`, the function chosen at run time.
"""

from __future__ import annotations

import statistics
import time
import types

from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone


def with_closure(n, scale):
    offset = scale * 0.5

    def term(i):
        return (i * scale + offset) / (i + 1.0)

    total = 0.0
    for i in range(n):
        total += term(i)
    return total


def without_closure(n, scale):
    offset = scale * 0.5
    total = 0.0
    for i in range(n):
        total += (i * scale + offset) / (i + 1.0)
    return total


def warm_up(x):
    return x + 1


def compile_ms(njit, func, args, runs: int) -> float:
    """Median seconds of `njit(copy of func)(*args)` over fresh function objects."""
    samples = []
    for _ in range(runs):
        fresh = types.FunctionType(func.__code__, func.__globals__, func.__name__)
        started = time.perf_counter()
        njit(fresh)(*args)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def make_first_class(njit):
    inc = njit("int64(int64)")(lambda x: x + 1)  # signatures: Numba needs them to choose
    dbl = njit("int64(int64)")(lambda x: x * 2)

    @njit
    def apply(f, x):
        return f(x)

    @njit
    def choose_in_loop(n):
        fs = (inc, dbl)
        total = 0
        for i in range(n):
            total += fs[i % 2](i)
        return total

    return inc, apply, choose_in_loop


def collect(quick: bool = False) -> Report:
    report = Report("functions: closures and first-class jitted functions")
    jits = {"ember": __import__("ember").njit}
    numba = import_numba()
    if numba is not None:
        jits["numba"] = numba.njit
    runs = 3 if quick else 9
    repeat = 3 if quick else 7
    min_seconds = 0.02 if quick else 0.1
    compile_times = {name: {} for name in ("with closure", "without closure")}
    run_times = {name: {} for name in ("with closure", "without closure")}
    call_times, choice_times = {}, {}
    args = (10_000, 1.25)
    for jit_name, njit in jits.items():
        njit(warm_up)(1)
        for label, func in (("with closure", with_closure), ("without closure", without_closure)):
            compile_times[label][jit_name] = compile_ms(njit, func, args, runs)
            jitted = njit(func)
            assert jitted(*args) == func(*args)
            run_times[label][jit_name] = best_seconds_per_call(
                lambda j=jitted: j(*args), repeat, min_seconds
            )
        inc, apply, choose_in_loop = make_first_class(njit)
        assert apply(inc, 1) == 2
        call_times[jit_name] = best_seconds_per_call(lambda: apply(inc, 1), repeat, min_seconds)
        try:
            choose_in_loop(10)
        except Exception as error:  # noqa: BLE001 - a JIT that cannot compile it: no figure
            choice_times[jit_name] = None
            report.notes.append(f"{jit_name} choice: {str(error).splitlines()[0][:100]}")
            continue
        choice_times[jit_name] = best_seconds_per_call(
            lambda: choose_in_loop(100_000), repeat, min_seconds
        )
    for label in compile_times:
        report.rows.append(Row("compile", f"loop kernel {label}", compile_times[label]))
    for label in run_times:
        report.rows.append(Row("run", f"loop kernel {label}, n=10000", run_times[label]))
    report.rows.append(Row("call", "apply(g, 1) from Python", call_times, unit="ns"))
    report.rows.append(Row("choice", "(inc, dbl)[i % 2](i), n=100000", choice_times))
    report.notes.append(f"compile: median of {runs} fresh functions; others best of {repeat}")
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
