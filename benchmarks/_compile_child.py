"""Child process of `bench_compile.py`: import one JIT, compile two functions, print timings.

    python benchmarks/_compile_child.py {ember|numba} FIRST SECOND
    python benchmarks/_compile_child.py {ember|numba} blocks N

FIRST is compiled "cold" (the first compilation in this fresh process, after the import: it pays
for initializing LLVM and the JIT's lazy registries); SECOND is compiled "warm" (a distinct
function, compiled after FIRST in the same process). Each time is one `jit(func)` plus the first
call, i.e. what a user waits for; the second call is timed too, since a JIT may defer
one-time work to it. Prints one JSON line. Only `sys`, `time` and `math` are
imported before the JIT, so the import time is the JIT's own.

`blocks N` times instead `jit(f)` plus the first call of a generated function of N `if/else`
blocks (generated_blocks.py), after a small warm-up compilation.
"""

import math
import sys
import time


def add(a, b):
    return a + b


def kernel(n, scale):
    """~30 lines of scalar code: branches, nested loops, math calls and tuples."""
    total = 0.0
    best = (0, -1.0)
    low, high = 0.0, 0.0
    for i in range(n):
        x = scale * (i + 1)
        if x > 10.0:
            y = math.sqrt(x) * math.sin(x)
        elif x > 2.0:
            y = math.log(x) - math.cos(x)
        else:
            y = math.exp(-x)
        for j in range(i % 4):
            y += 0.25 * j
            if y > 100.0:
                break
        low, high = min(low, y), max(high, y)
        if y > best[1]:
            best = (i, y)
        if i % 2 == 0:
            total += abs(y)
        else:
            total -= y / 2.0
    k = 0
    while k < 3 and total > 1.0:
        total = total * 0.5 + math.floor(high - low)
        k += 1
    return total + best[0] + best[1]


CALLS = {"add": (add, (1, 2)), "kernel": (kernel, (100, 0.37))}


def main() -> None:
    jit_name, first, second = sys.argv[1:4]
    if first == "blocks":
        return time_generated(jit_name, int(second))
    started = time.perf_counter()
    if jit_name == "ember":
        from ember import njit
    else:
        from numba import njit
    import_s = time.perf_counter() - started
    timings = {"import": import_s}
    for label, name in (("cold", first), ("warm", second)):
        func, args = CALLS[name]
        started = time.perf_counter()
        dispatcher = njit(func)
        result = dispatcher(*args)
        timings[label] = time.perf_counter() - started
        started = time.perf_counter()
        dispatcher(*args)  # may still do one-time work (ember builds its native entry here)
        timings[f"{label}_call2"] = time.perf_counter() - started
        if result != func(*args):
            raise SystemExit(f"{jit_name} {name}{args} gave {result!r}, Python {func(*args)!r}")
        timings[f"{label}_passes"] = _pass_seconds(dispatcher)
    import json

    print(json.dumps(timings))


def time_generated(jit_name: str, blocks: int) -> None:
    """Print {"total": seconds of jit + first call, "passes": ember's per-pass seconds}."""
    import json

    import numpy as np
    from generated_blocks import ARRAY_LENGTH, block_function

    if jit_name == "ember":
        from ember import njit
    else:
        from numba import njit
    a, x = np.linspace(-1.0, 1.0, ARRAY_LENGTH), 0.3
    njit(block_function(3, "warm_up"))(a, x)  # LLVM and the JIT's lazy state are ready
    func = block_function(blocks)
    started = time.perf_counter()
    dispatcher = njit(func)
    result = dispatcher(a, x)
    total = time.perf_counter() - started
    if result != func(a, x):
        raise SystemExit(f"{jit_name} gave {result!r} for {blocks} blocks, Python {func(a, x)!r}")
    print(json.dumps({"total": total, "passes": _pass_seconds(dispatcher)}))


def _pass_seconds(dispatcher) -> dict:
    """ember's per-pass seconds (`Dispatcher.stats`) of the one compiled signature, else {}."""
    stats = getattr(dispatcher, "stats", None)
    if not isinstance(stats, dict) or not stats:
        return {}
    return next(iter(stats.values()))


if __name__ == "__main__":
    main()
