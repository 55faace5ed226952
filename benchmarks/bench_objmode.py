"""Object mode: the cost of entering a `with objmode(...)` block from compiled code, and a
`@jit(forceobj=True)` function doing Python-object work around a numeric loop (lifted into
nopython mode): ember vs Numba vs CPython.

python benchmarks/bench_objmode.py [--quick]

Each block kernel enters a block `n` times in a compiled loop; the figure is ns per entry (the whole
call divided by `n`), so it holds the GIL round trip, boxing the inputs, the Python call, and
checking and unboxing the outputs. "python" runs the same kernel in CPython (the block is then
a plain `with` of a no-op context manager). Every result is checked against Python's first.
"""

from __future__ import annotations

import types

import numpy as np
from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone


def objmode(**outputs):  # replaced by each JIT's own in `_variants`
    raise NotImplementedError


def scalar_block(n):
    total = 0
    for i in range(n):
        with objmode(t="int64"):
            t = i + 1
        total += t
    return total


def array_block(a, n):
    total = 0.0
    for _ in range(n):
        with objmode(b="float64[:]"):
            b = a
        total += b[0]
    return total


def empty_block(n):
    for _ in range(n):
        with objmode():
            pass
    return n


def objects_around_a_loop(values, n):
    meta = {"n": n, "label": "run-" + str(n)}
    total = 0.0
    for i in range(n):
        total += values[i % values.shape[0]] * 0.5
    return meta["label"] + ": " + str(round(total, 3))


def _forceobj_variants(func) -> dict:
    import ember

    impls = {"python": func, "ember": ember.jit(forceobj=True)(func)}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = numba.jit(forceobj=True)(func)
    return impls


def _variants(func) -> dict:
    import ember

    impls = {"python": _with_objmode(func, ember.objmode), "ember": None, "numba": None}
    impls["ember"] = ember.njit(_with_objmode(func, ember.objmode))
    numba = import_numba()
    if numba is not None:
        impls["numba"] = numba.njit(_with_objmode(func, numba.objmode))
    return {name: impl for name, impl in impls.items() if impl is not None}


def _with_objmode(func, objmode_context):
    namespace = {**func.__globals__, "objmode": objmode_context}
    return types.FunctionType(func.__code__, namespace, func.__name__, func.__defaults__)


def measure(func, args: tuple, entries: int, quick: bool, variants=None) -> Row:
    variants = variants or _variants(func)
    expected = variants["python"](*args)
    times: dict[str, float | None] = {}
    for name, impl in variants.items():
        try:
            got = impl(*args)
        except Exception:  # noqa: BLE001 - reported as n/a
            times[name] = None
            continue
        if got != expected:
            times[name] = None
            continue
        seconds = best_seconds_per_call(lambda: impl(*args), 3 if quick else 7, 0.05)
        times[name] = seconds / entries
    return Row("objmode", f"{func.__name__} (per entry)", times, unit="ns")


def collect(quick: bool = False) -> Report:
    report = Report("entering a `with objmode(...)` block: ns per entry")
    n = 2_000 if quick else 20_000
    a = np.arange(4.0) + 1
    report.rows.append(measure(empty_block, (n,), n, quick))
    report.rows.append(measure(scalar_block, (n,), n, quick))
    report.rows.append(measure(array_block, (a, n), n, quick))
    report.notes.append(
        "empty: no inputs or outputs; scalar: one int64 output; array: an ndarray in and out"
    )
    loop = 100_000 if quick else 1_000_000
    row = measure(
        objects_around_a_loop,
        (np.arange(7.0), loop),
        1,
        quick,
        _forceobj_variants(objects_around_a_loop),
    )
    row.case, row.unit = f"forceobj, lifted loop of {loop:,} (per call)", "ms"
    report.rows.append(row)
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
