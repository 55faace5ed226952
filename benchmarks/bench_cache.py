"""Fresh-process cost of `import` + first calls with `cache=True`: cold and warm cache, ember
and Numba side by side.

    python benchmarks/bench_cache.py [--quick]

Each case runs a new `python` process that imports a generated module and calls each of its
functions once; the figure is the median of several processes of the time from before the
import to after the last call (so `import ember`/`import numba`, NumPy and the JIT's start-up
are included; the interpreter's own start-up is not). "cold": the cache folder is emptied
before each process (every function compiled and written); "warm": entries from a previous
process are loaded; "no cache": `cache=False`.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from _harness import Report, Row, import_numba, run_standalone

ROOT = Path(__file__).resolve().parents[1]

SMALL = """
@jit(cache=CACHE)
def add(a, b):
    return a + b

CALLS = [(add, (1, 2))]
"""

KERNELS = """
@jit(cache=CACHE)
def sum_squares(a):
    total = 0.0
    for x in a:
        total += x * x
    return total

@jit(cache=CACHE)
def axpy(alpha, x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = alpha * x[i] + y[i]
    return out

@jit(cache=CACHE)
def smooth(a):
    out = a.copy()
    for i in range(1, a.shape[0] - 1):
        out[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
    return out

@jit(cache=CACHE)
def running_max(a):
    best = a[0]
    for i in range(a.shape[0]):
        if a[i] > best:
            best = a[i]
    return best

@jit(cache=CACHE)
def cumulative(a):
    out = np.empty_like(a)
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i]
        out[i] = total
    return out

@jit(cache=CACHE)
def clip_count(a, low, high):
    count = 0
    for x in a:
        if x < low or x > high:
            count += 1
    return count

@jit(cache=CACHE)
def variance(a):
    mean = a.sum() / a.shape[0]
    total = 0.0
    for x in a:
        total += (x - mean) ** 2
    return total / a.shape[0]

@jit(cache=CACHE)
def histogram(a, bins):
    counts = np.zeros(bins, dtype=np.int64)
    for x in a:
        k = int(x * bins)
        if 0 <= k < bins:
            counts[k] += 1
    return counts

@jit(cache=CACHE)
def matvec(m, v):
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            out[i] += m[i, j] * v[j]
    return out

@jit(cache=CACHE)
def normalize(a):
    return (a - a.min()) / (a.max() - a.min())

_A = np.linspace(0.0, 1.0, 100)
_M = np.ones((10, 10))
CALLS = [
    (sum_squares, (_A,)), (axpy, (2.0, _A, _A)), (smooth, (_A,)), (running_max, (_A,)),
    (cumulative, (_A,)), (clip_count, (_A, 0.2, 0.8)), (variance, (_A,)),
    (histogram, (_A, 10)), (matvec, (_M, _A[:10])), (normalize, (_A,)),
]
"""

PARALLEL = """
@jit(cache=CACHE, parallel=True)
def scaled_total(a):
    total = 0.0
    for i in prange(a.shape[0]):
        total += 2.0 * a[i]
    return total

CALLS = [(scaled_total, (np.arange(1000.0),))]
"""

HEADERS = {
    "ember": "import numpy as np\nfrom ember import njit as jit, prange\n",
    "numba": "import numpy as np\nfrom numba import njit as jit, prange\n",
}

DRIVER = """
import time
started = time.perf_counter()
import {module}
for function, args in {module}.CALLS:
    function(*args)
print(time.perf_counter() - started)
"""


def _write(folder: Path, name: str, impl: str, body: str, cache: bool) -> None:
    source = HEADERS[impl] + f"CACHE = {cache}\n" + textwrap.dedent(body)
    (folder / f"{name}.py").write_text(source)
    (folder / f"run_{name}.py").write_text(DRIVER.format(module=name))


def _one_process(folder: Path, name: str, cache_dir: Path) -> float:
    # Byte-code caching on, as for users (a test environment may turn it off): otherwise every
    # process compiles the sources of ember (or Numba) first.
    skipped = ("EMBER_", "NUMBA_", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skipped)}
    env.update(
        PYTHONPATH=f"{ROOT}{os.pathsep}{folder}",
        EMBER_CACHE_DIR=str(cache_dir),
        NUMBA_CACHE_DIR=str(cache_dir),
    )
    out = subprocess.run(
        [sys.executable, f"run_{name}.py"], cwd=folder, env=env, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1])
    return float(out.stdout.strip().splitlines()[-1])


def _median_seconds(folder: Path, name: str, runs: int, warm: bool) -> float:
    cache_dir = folder / "cache"
    shutil.rmtree(cache_dir, ignore_errors=True)
    if warm:
        _one_process(folder, name, cache_dir)  # writes the entries
    times = []
    for _ in range(runs):
        if not warm:
            shutil.rmtree(cache_dir, ignore_errors=True)
        times.append(_one_process(folder, name, cache_dir))
    return statistics.median(times)


CASES = [  # (section, case, module body, cache=, warm cache)
    ("1 small function", "no cache", SMALL, False, False),
    ("1 small function", "cache=True, cold", SMALL, True, False),
    ("1 small function", "cache=True, warm", SMALL, True, True),
    ("10 array kernels", "cache=True, cold", KERNELS, True, False),
    ("10 array kernels", "cache=True, warm", KERNELS, True, True),
    ("1 parallel=True kernel", "cache=True, warm", PARALLEL, True, True),
]


def collect(quick: bool = False) -> Report:
    report = Report("fresh process: import + first call of each function (ms, median)")
    impls = ["ember"] + (["numba"] if import_numba() is not None else [])
    runs = 3 if quick else 7
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for number, (section, case, body, cache, warm) in enumerate(CASES):
            times = {}
            for impl in impls:
                name = f"{impl}_case{number}"
                _write(folder, name, impl, body, cache)
                try:
                    times[impl] = _median_seconds(folder, name, runs, warm)
                except RuntimeError as error:
                    times[impl] = None
                    report.notes.append(f"{impl} {section} {case}: {error}")
            report.rows.append(Row(section, case, times))
    report.notes.append(f"median of {runs} processes; the interpreter's start-up not included")
    report.notes.append(f"{sys.executable} {json.dumps(sys.version.split()[0])}")
    return report


if __name__ == "__main__":
    run_standalone(collect, __doc__)
