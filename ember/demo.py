"""`python -m ember.demo`: compile a scalar loop kernel and compare it with pure Python."""

from __future__ import annotations

import math
import time

from ember import njit


def leibniz_pi(terms: int) -> float:
    """Approximate pi with the Leibniz series: a loop pure Python runs slowly."""
    total = 0.0
    sign = 1.0
    for k in range(terms):
        total += sign / (2 * k + 1)
        sign = -sign
    return 4.0 * total


def _best_of(func, *args, repeat: int = 3) -> tuple[float, object]:
    best = math.inf
    result = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = func(*args)
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    terms = 2_000_000
    compiled = njit(leibniz_pi)
    started = time.perf_counter()
    compiled(10)
    compile_ms = (time.perf_counter() - started) * 1e3
    python_s, expected = _best_of(leibniz_pi, terms, repeat=1)
    ember_s, got = _best_of(compiled, terms)
    print(f"leibniz_pi({terms:,}) in pure Python: {python_s * 1e3:9.2f} ms -> {expected!r}")
    print(f"leibniz_pi({terms:,}) with ember:     {ember_s * 1e3:9.2f} ms -> {got!r}")
    print(f"first call (compile) took {compile_ms:.1f} ms; speed-up {python_s / ember_s:.0f}x")
    if got != expected:
        raise SystemExit("ember and Python disagree")


if __name__ == "__main__":
    main()
