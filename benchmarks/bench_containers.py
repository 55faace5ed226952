"""Containers: dicts and sets in compiled code and `ember.typed.Dict` from Python; ember vs
Numba (when installed) vs CPython.

python benchmarks/bench_containers.py [--quick]

Each case is a function run by each implementation on the same arguments; figures are ms per
call (us for the Python-side rows), best of repeats, compile excluded; every result is checked
against CPython's first. Add a row by appending to `CASES` (compiled kernels) or to
`_python_side_rows`.
"""

from __future__ import annotations

import numpy as np
from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone, same_result


def dict_insert_lookup(n):
    """Insert n int keys, then look every one up."""
    d = {}
    for i in range(n):
        d[i * 7] = i
    total = 0
    for i in range(n):
        total += d[i * 7]
    return total


def dict_count_words(values):
    """Histogram of an int array in a dict (a get-or-default update per item)."""
    counts = {values[0]: 0}  # typed by its first item (an empty {} is typed by later stores)
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return len(counts)


def set_unique(values):
    """The number of distinct items of an array through a set."""
    seen = set()
    for v in values:
        seen.add(v)
    return len(seen)


_rng = np.random.default_rng(0)
CASES = [  # (section, label, function, arguments)
    ("dicts", "insert + lookup, 1M int keys", dict_insert_lookup, (1_000_000,)),
    ("dicts", "counts of 1M ints (100k distinct)", dict_count_words,
     (_rng.integers(0, 100_000, 1_000_000),)),
    ("sets", "add 1M ints (100k distinct)", set_unique, (_rng.integers(0, 100_000, 1_000_000),)),
]  # fmt: skip


def _time_case(section: str, label: str, func, args: tuple, quick: bool) -> Row:
    from ember import njit

    impls = {"ember": njit(func), "python": func}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = numba.njit(func)
    expected = func(*args)
    times: dict[str, float | None] = {}
    for name, impl in impls.items():
        try:
            got = impl(*args)
        except Exception:  # noqa: BLE001 - reported as n/a
            times[name] = None
            continue
        if not same_result(expected, got):
            times[name] = None
            continue
        repeat = 1 if name == "python" or quick else 3
        times[name] = best_seconds_per_call(lambda: impl(*args), repeat, 0.2)
    return Row(section, label, times, unit="ms")


def _python_side_rows(quick: bool) -> list[Row]:
    """`typed.Dict` used from Python: d[k] = v then d[k] for 10k int keys, per operation."""
    from ember import typed, types

    n = 10_000
    makers = {"ember": lambda: typed.Dict.empty(types.int64, types.float64), "python": dict}
    numba = import_numba()
    if numba is not None:
        makers["numba"] = lambda: numba.typed.Dict.empty(numba.types.int64, numba.types.float64)

    def run(make):
        d = make()
        for i in range(n):
            d[i] = 0.5
        total = 0.0
        for i in range(n):
            total += d[i]
        return total

    times = {}
    for name, make in makers.items():
        run(make)  # compiles the accessors
        times[name] = best_seconds_per_call(lambda: run(make), 1 if quick else 3, 0.2) / (2 * n)
    return [Row("typed.Dict from Python", "d[k] = v and d[k], per operation", times, unit="us")]


def collect(quick: bool = False) -> Report:
    report = Report("containers: dicts and sets")
    for section, label, func, args in CASES:
        report.rows.append(_time_case(section, label, func, args, quick))
    report.rows.extend(_python_side_rows(quick))
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
