"""Containers and strings: ember vs Numba vs CPython on the same kernels.

python benchmarks/bench_containers.py [--quick]

Each case is one row of `CASES`: (section, kernel, argument maker, label). The kernel runs as
CPython, under ember and under Numba (when installed); every result is checked against
CPython's first. Figures are ms per call (best of repeats, compile excluded), the harness adds
the ratios.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from _harness import Report, Row, best_seconds_per_call, import_numba, run_standalone


def split_join(text):
    return "-".join(text.split())


def _text(megabytes: float) -> tuple:
    """Words of 1-12 letters (some non-ASCII) separated by spaces and newlines."""
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyzé"
    words, size = [], 0
    while size < megabytes * 1e6:
        word = "".join(rng.choices(letters, k=rng.randint(1, 12)))
        words.append(word)
        size += len(word) + 1
    return ("".join(w + ("\n" if k % 13 == 12 else " ") for k, w in enumerate(words)),)


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


def list_append_iterate(n):
    """Append n floats to a list made in compiled code (ember: what `typed.List()` is there),
    then sum them by iterating."""
    xs = []
    for i in range(n):
        xs.append(i * 0.5)
    total = 0.0
    for x in xs:
        total += x
    return total


def _ints(quick: bool) -> tuple:
    import numpy as np

    return (np.random.default_rng(0).integers(0, 100_000, 1_000_000),)


# (section, kernel, make_args(quick) -> args, label): later rows go at the end of the list.
CASES: list[tuple[str, Callable, Callable[[bool], tuple], str]] = [
    ("strings", split_join, lambda quick: _text(2 if quick else 10), "split + join, 10 MB"),
    ("dicts", dict_insert_lookup, lambda quick: (1_000_000,), "insert + lookup, 1M int keys"),
    ("dicts", dict_count_words, _ints, "counts of 1M ints, 100k distinct"),
    ("sets", set_unique, _ints, "add 1M ints, 100k distinct"),
    ("lists", list_append_iterate, lambda quick: (1_000_000,), "append + iterate 1M floats"),
]


def _variants(func) -> dict:
    import ember

    impls = {"python": func, "ember": ember.njit(func)}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = numba.njit(func)
    return impls


def measure(section: str, func, args: tuple, label: str, quick: bool) -> Row:
    expected = func(*args)
    times: dict[str, float | None] = {}
    for name, impl in _variants(func).items():
        try:
            got = impl(*args)
        except Exception:  # noqa: BLE001 - reported as n/a
            times[name] = None
            continue
        if got != expected:
            times[name] = None
            continue
        times[name] = best_seconds_per_call(lambda: impl(*args), 3 if quick else 5, 0.05)
    return Row(section, f"{func.__name__} ({label})", times, unit="ms")


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


def _typed_list_rows(quick: bool) -> list[Row]:
    """Building a typed List from a Python list of 1M floats, next to `np.array` of it."""
    import numpy as np

    from ember import typed

    floats = [i * 0.5 for i in range(1_000_000)]
    makers = {"ember": typed.List, "python": np.array}
    numba = import_numba()
    if numba is not None:
        makers["numba"] = numba.typed.List
    times = {}
    for name, make in makers.items():
        repeat = 1 if name == "numba" or quick else 3
        times[name] = best_seconds_per_call(lambda: make(floats), repeat, 0.05)
    return [Row("typed.List from Python", "List(1M floats) (python: np.array of them)", times)]


def _argument_rows(quick: bool) -> list[Row]:
    """One call of `len(x)` passing a typed.Dict (1000 int -> float items) or a typed.List
    (1000 floats) made in Python: the cost of handing the container to compiled code."""
    import ember
    from ember import typed, types

    def size(x):
        return len(x)

    def containers(module):
        d = module.typed.Dict.empty(module.types.int64, module.types.float64)
        xs = module.typed.List()
        for i in range(1000):
            d[i] = 0.5
            xs.append(0.5)
        return d, xs

    impls = {"ember": (ember.njit(size), containers(ember))}
    numba = import_numba()
    if numba is not None:
        impls["numba"] = (numba.njit(size), containers(numba))
    assert typed and types  # the ember modules `containers` reads through `module`
    rows = []
    for label, index in (("typed.Dict", 0), ("typed.List", 1)):
        times = {}
        for name, (func, made) in impls.items():
            arg = made[index]
            func(arg)
            times[name] = best_seconds_per_call(lambda: func(arg), 1 if quick else 3, 0.05)
        rows.append(Row("call with", f"f({label} of 1000 items)", times, unit="us"))
    return rows + _python_list_argument_rows(quick, impls)


def _python_list_argument_rows(quick: bool, impls: dict) -> list[Row]:
    """One call of `len(xs)` passing a Python list of 1000 items (Numba's reflected lists:
    copied in, compared for the write-back)."""
    import warnings

    import numpy as np

    lists = {
        "floats": [0.5 * i for i in range(1000)],
        "strs": [f"w{i}" for i in range(1000)],
        "arrays": [np.ones(3) for _ in range(1000)],
        "(float, int) tuples": [(0.5 * i, i) for i in range(1000)],
    }
    rows = []
    for label, items in lists.items():
        times = {}
        for name, (func, _) in impls.items():
            with warnings.catch_warnings():  # Numba's reflected-list deprecation notice
                warnings.simplefilter("ignore")
                func(items)
                times[name] = best_seconds_per_call(lambda: func(items), 1 if quick else 3, 0.05)
        rows.append(Row("call with", f"f(Python list of 1000 {label})", times, unit="us"))
    return rows


def collect(quick: bool = False) -> Report:
    report = Report("containers and strings: ms per call")
    for section, func, make_args, label in CASES:
        report.rows.append(measure(section, func, make_args(quick), label, quick))
    report.rows.extend(_python_side_rows(quick))
    report.rows.extend(_typed_list_rows(quick))
    report.rows.extend(_argument_rows(quick))
    report.notes.append("python = the same kernel run by CPython")
    report.notes.append("string rows include passing the text in and boxing the result")
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
