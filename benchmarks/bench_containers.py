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


# (section, kernel, make_args(quick) -> args, label): later rows go at the end of the list.
CASES: list[tuple[str, Callable, Callable[[bool], tuple], str]] = [
    ("strings", split_join, lambda quick: _text(2 if quick else 10), "split + join, 10 MB"),
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


def collect(quick: bool = False) -> Report:
    report = Report("containers and strings: ms per call")
    for section, func, make_args, label in CASES:
        report.rows.append(measure(section, func, make_args(quick), label, quick))
    report.notes.append("python = the same kernel run by CPython")
    report.notes.append("string rows include passing the text in and boxing the result")
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
