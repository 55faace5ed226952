"""`cache=True` across fresh processes: hits that compile nothing, invalidation by edits to the
function, to a callee in another module and to a frozen global; no invalidation by edits
elsewhere; corrupt and truncated entries; a read-only source folder; concurrent writers.

Each scenario runs a small project (tmp folder) in `python driver.py` subprocesses; the driver
prints, as JSON, each jitted result next to CPython's (`py_func`) and the cache counters.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

HELPER = """\
import ember

@ember.njit(cache=True)
def scale(x):
    return x * 3
"""

KERNELS = """\
import numpy as np
import ember
from helper import scale

WEIGHTS = np.array([1.0, 2.0, 3.0])


@ember.njit(cache=True)
def add(a, b):
    return a + b


@ember.njit(cache=True)
def weighted(x):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i] * WEIGHTS[i % 3]
    if total < 0:
        raise ValueError("negative total", total)
    return total


@ember.njit(cache=True)
def scaled(x):
    return scale(x) + 1


@ember.njit(cache=True)
def text_hash(s):
    return hash(s + "!")


@ember.njit(cache=True, parallel=True)
def doubled_sum(x):
    total = 0.0
    for i in ember.prange(x.shape[0]):
        total += 2 * x[i]
    return total


@ember.njit(cache=True)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def unrelated():
    return 1
"""

DRIVER = """\
import json, sys
import numpy as np
from ember.codegen import jit

optimized = []  # every LLVM optimization of a module in this process
original = jit.JITEngine.optimize

def optimize(engine, module, *args):
    names = {function.name for function in module.functions}
    optimized.append("threading layer" if "ember_parallel_launch" in names else "other")
    return original(engine, module, *args)

jit.JITEngine.optimize = optimize

import kernels

calls = {
    "add": [(1, 2), (1.5, 2.25)],
    "weighted": [(np.arange(7.0),)],
    "scaled": [(5,)],
    "text_hash": [("abc",)],
    "doubled_sum": [(np.arange(1000.0),)],
    "fib": [(15,)],
}
out = {"values": [], "hits": {}, "misses": {}, "reasons": {}}
for name, argsets in calls.items():
    f = getattr(kernels, name)
    for args in argsets:
        for _ in range(2):  # the second call goes through the native entry
            jitted, python = f(*args), f.py_func(*args)
            out["values"].append([name, repr(jitted), bool(jitted == python)])
    stats = f.stats
    out["hits"][name] = sum(stats.cache_hits.values())
    out["misses"][name] = sum(stats.cache_misses.values())
    out["reasons"][name] = sorted(set(stats.cache_miss_reasons.values()))
try:
    kernels.weighted(-np.ones(3))
except ValueError as error:
    out["error"] = [type(error).__name__, error.args[0]]
out["llvm optimizations"] = optimized
from ember.compiler import compile_log

out["reported cached"] = sorted({r.qualname for r in compile_log if r.cached})
out["typing loaded"] = "ember.typing.infer" in sys.modules
out["lowering loaded"] = "ember.lowering.lower" in sys.modules
print(json.dumps(out))
"""


def _write_project(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "helper.py").write_text(HELPER)
    (folder / "kernels.py").write_text(KERNELS)
    (folder / "driver.py").write_text(DRIVER)


def _start(folder: Path, **env: str) -> subprocess.Popen:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("EMBER_")}
    environ.update(
        {
            "PYTHONPATH": f"{ROOT}{os.pathsep}{folder}",
            "PYTHONHASHSEED": "1",
            "XDG_CACHE_HOME": str(folder / "user-cache"),  # the runtime's entry: not in ~/.cache
            **env,
        }
    )
    return subprocess.Popen(
        [sys.executable, "driver.py"],
        cwd=folder,
        env=environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen) -> dict:
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    result = json.loads(stdout.strip().splitlines()[-1])
    result["stderr"] = stderr
    for name, jitted, same_as_python in result["values"]:
        assert same_as_python, (name, jitted)
    assert result["error"] == ["ValueError", "negative total"]
    return result


def _run(folder: Path, **env: str) -> dict:
    return _finish(_start(folder, **env))


def _entries(folder: Path) -> list[Path]:
    """The entries of compiled functions (not the runtime's own entry)."""
    return sorted(p for p in folder.glob("**/*.emberc") if "ember-runtime" not in p.parts)


def _all_hits(result: dict) -> bool:
    return result["hits"] == ALL_ONCE and not any(result["misses"].values())


ALL_ONCE = {"add": 2, "weighted": 1, "scaled": 1, "text_hash": 1, "doubled_sum": 1, "fib": 1}


@pytest.fixture(scope="module")
def warm_project(tmp_path_factory):
    """A project run once (every entry written) and then again in a fresh process."""
    folder = tmp_path_factory.mktemp("project")
    _write_project(folder)
    cold = _run(folder)
    warm = _run(folder, PYTHONHASHSEED="7")  # cached string hashing follows the new seed
    return folder, cold, warm


def _copy(warm_project, tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(warm_project[0], copy)
    return copy


def test_a_fresh_process_loads_every_entry_and_compiles_nothing(warm_project):
    folder, cold, warm = warm_project
    assert cold["misses"] == ALL_ONCE
    assert cold["reasons"]["add"] == ["no cache entry yet"]
    assert _all_hits(warm), warm
    assert not warm["typing loaded"] and not warm["lowering loaded"]
    assert set(ALL_ONCE) <= set(warm["reported cached"]) and cold["reported cached"] == []
    # Nothing is optimized: parallel=True's threading layer is loaded from the cache too.
    assert warm["llvm optimizations"] == []
    assert "threading layer" in cold["llvm optimizations"]
    assert len(cold["llvm optimizations"]) > 5
    assert (folder / "__pycache__").is_dir()


def test_each_argument_type_gets_its_own_entry(warm_project):
    folder = warm_project[0]
    names = [path.name for path in _entries(folder)]
    assert len([n for n in names if n.startswith("kernels.add.")]) == 2
    assert len(names) == 8  # add x2, weighted, scaled, text_hash, doubled_sum, fib, scale


def test_editing_elsewhere_in_the_file_keeps_the_entries(warm_project, tmp_path):
    folder = _copy(warm_project, tmp_path)
    source = (folder / "kernels.py").read_text()
    source = "# a comment that moves every line\n\n" + source.replace("return 1", "return 2")
    (folder / "kernels.py").write_text(source)
    assert _all_hits(_run(folder))


def test_edits_to_the_function_a_callee_or_a_frozen_global_invalidate(warm_project, tmp_path):
    folder = _copy(warm_project, tmp_path)
    kernels = (folder / "kernels.py").read_text()
    kernels = kernels.replace("return a + b", "return a * 2 + b")
    kernels = kernels.replace("[1.0, 2.0, 3.0]", "[1.0, 2.0, 4.0]")
    (folder / "kernels.py").write_text(kernels)
    helper = (folder / "helper.py").read_text().replace("x * 3", "x * 4")
    (folder / "helper.py").write_text(helper)
    result = _run(folder)
    assert result["misses"] == {
        "add": 2,
        "weighted": 1,
        "scaled": 1,
        "text_hash": 0,
        "doubled_sum": 0,
        "fib": 0,
    }
    assert result["reasons"]["add"] == ["changed: code"]
    assert result["reasons"]["weighted"] == ["changed: global WEIGHTS"]
    assert result["reasons"]["scaled"] == ["changed: global scale"]
    assert _all_hits(_run(folder))  # the new entries replaced the old ones


def test_corrupt_and_truncated_entries_are_compiled_again(warm_project, tmp_path):
    folder = _copy(warm_project, tmp_path)
    add_entry = next(p for p in _entries(folder) if p.name.startswith("kernels.add."))
    data = bytearray(add_entry.read_bytes())
    data[-10] ^= 0xFF
    add_entry.write_bytes(bytes(data))
    weighted_entry = next(p for p in _entries(folder) if p.name.startswith("kernels.weighted."))
    weighted_entry.write_bytes(weighted_entry.read_bytes()[:100])
    result = _run(folder)
    assert result["misses"]["add"] == 1 and result["misses"]["weighted"] == 1
    assert "checksum mismatch" in result["stderr"] and "is truncated" in result["stderr"]
    assert _all_hits(_run(folder))


def test_a_read_only_source_folder_falls_back_to_the_user_cache(tmp_path):
    folder = tmp_path / "project"
    _write_project(folder)
    (folder / "__pycache__").write_text("not a folder: entries cannot go here")
    user_cache = tmp_path / "user-cache"
    first = _run(folder, XDG_CACHE_HOME=str(user_cache))
    assert first["hits"]["add"] == 0
    assert len(_entries(user_cache / "ember")) == 8
    assert _all_hits(_run(folder, XDG_CACHE_HOME=str(user_cache)))


def test_two_processes_writing_the_same_entries_at_once(tmp_path):
    folder = tmp_path / "project"
    _write_project(folder)
    cache = str(tmp_path / "shared-cache")
    first, second = _start(folder, EMBER_CACHE_DIR=cache), _start(folder, EMBER_CACHE_DIR=cache)
    _finish(first), _finish(second)
    assert not list(Path(cache).glob("**/*.tmp"))
    assert _all_hits(_run(folder, EMBER_CACHE_DIR=cache))


UFUNCS = """\
import numpy as np
import ember


@ember.vectorize(["int64(int64, int64)", "float64(float64, float64)"], cache=True)
def scaled_add(a, b):
    return a * 2 + b


@ember.vectorize(cache=True)
def square_plus_one(x):
    return x * x + 1


@ember.guvectorize(["void(float64[:], float64[:])"], "(n)->()", cache=True)
def row_sum(x, out):
    total = 0.0
    for v in x:
        total += v
    out[0] = total
"""

UFUNC_DRIVER = """\
import json
import numpy as np
from ember.codegen import jit

optimized = []
original = jit.JITEngine.optimize
jit.JITEngine.optimize = lambda engine, module, *args: (
    optimized.append(1),
    original(engine, module, *args),
)

import ufuncs

a, m = np.arange(6.0), np.arange(12.0).reshape(3, 4)
checks = [
    (ufuncs.scaled_add(a, a), a * 2 + a),
    (ufuncs.scaled_add(np.arange(4), 3), np.arange(4) * 2 + 3),
    (ufuncs.square_plus_one(a), a * a + 1),
    (ufuncs.row_sum(m), m.sum(axis=1)),
]
same = [bool(np.array_equal(got, want) and got.dtype == want.dtype) for got, want in checks]
print(json.dumps({"same": same, "optimized": len(optimized)}))
"""


def test_vectorize_and_guvectorize_loops_are_cached(tmp_path):
    (tmp_path / "ufuncs.py").write_text(UFUNCS)
    (tmp_path / "driver.py").write_text(UFUNC_DRIVER)
    runs = []
    for _ in range(2):
        process = _start(tmp_path, EMBER_DEBUG_CACHE="1")
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        runs.append((json.loads(stdout.strip().splitlines()[-1]), stdout))
    (cold, cold_log), (warm, warm_log) = runs
    assert all(cold["same"]) and all(warm["same"])
    assert cold["optimized"] > 0 and warm["optimized"] == 0
    for signature in ("scaled_add(float64, float64)", "scaled_add(int64, int64)",
                      "square_plus_one(float64)", "row_sum(array(float64, 1d, A)"):  # fmt: skip
        assert f"miss {signature}" in cold_log and f"hit {signature}" in warm_log


OBJMODE_KERNELS = """\
import numpy as np
import ember
from ember import objmode  # a global the key covers, as `ember.objmode` is


@ember.njit(cache=True)
def sorted_total(x):
    doubled = x * 2
    with ember.objmode(top="float64", ordered="float64[:]"):
        ordered = np.sort(doubled)[::-1].copy()
        top = float(ordered[0])
    return top + ordered.sum()


@ember.njit(cache=True)
def checked(n):
    with objmode():
        if n < 0:
            raise ValueError("negative", n)
    return n + 1
"""

OBJMODE_DRIVER = """\
import json
import numpy as np
from ember.codegen import jit

optimized = []
original = jit.JITEngine.optimize
jit.JITEngine.optimize = lambda engine, module, *args: (
    optimized.append(1),
    original(engine, module, *args),
)

import objmode_kernels as k

x = np.array([0.5, 3.0, -1.0])
values = [[k.sorted_total(x), k.sorted_total.py_func(x)], [k.checked(4), k.checked.py_func(4)]]
try:
    k.checked(-2)
except ValueError as error:
    values.append(list(error.args))
hits = {f.__name__: sum(f.stats.cache_hits.values()) for f in (k.sorted_total, k.checked)}
print(json.dumps({"values": values, "hits": hits, "optimized": len(optimized)}))
"""


def test_functions_with_objmode_blocks_are_cached(tmp_path):
    (tmp_path / "objmode_kernels.py").write_text(OBJMODE_KERNELS)
    (tmp_path / "driver.py").write_text(OBJMODE_DRIVER)
    runs = []
    for _ in range(2):
        process = _start(tmp_path)
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        assert "Cannot cache" not in stderr
        runs.append(json.loads(stdout.strip().splitlines()[-1]))
    cold, warm = runs
    for run in runs:
        (jitted, python), (checked, checked_python), error = run["values"]
        assert jitted == python == 6.0 + 5.0 and checked == checked_python == 5
        assert error == ["negative", -2]
    assert cold["hits"] == {"sorted_total": 0, "checked": 0} and cold["optimized"] > 0
    assert warm["hits"] == {"sorted_total": 1, "checked": 1} and warm["optimized"] == 0


STENCILS = """\
import ember


@ember.stencil(cache=True)
def blur(a):
    return (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1]) * 0.25


@ember.stencil(neighborhood=((-1, 1),), cval=-1.0, cache=True)
def shifted_difference(a, b):
    return a[1] - b[-1]
"""

STENCIL_DRIVER = """\
import json
import numpy as np
from ember.codegen import jit

optimized = []
original = jit.JITEngine.optimize
jit.JITEngine.optimize = lambda engine, module, *args: (
    optimized.append(1),
    original(engine, module, *args),
)

import stencils

a, v = np.arange(20.0).reshape(4, 5), np.arange(6.0)
into = np.zeros_like(a)
stencils.blur(a, out=into)
results = [stencils.blur(a).tolist(), into.tolist(), stencils.shifted_difference(v, 2 * v).tolist()]
hits = [sum(f.stats.cache_hits.values()) for f in (stencils.blur, stencils.shifted_difference)]
reasons = sorted(set(stencils.blur.stats.cache_miss_reasons.values()))
out = {"results": results, "hits": hits, "reasons": reasons, "optimized": len(optimized)}
print(json.dumps(out))
"""


def _stencil_expectations(weight: float) -> list:
    a, v = np.arange(20.0).reshape(4, 5), np.arange(6.0)
    blurred = np.zeros_like(a)
    blurred[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) * weight
    difference = np.full_like(v, -1.0)
    difference[1:-1] = v[2:] - 2 * v[:-2]
    return [blurred.tolist(), blurred.tolist(), difference.tolist()]


def test_stencils_called_from_python_are_cached(tmp_path):
    (tmp_path / "stencils.py").write_text(STENCILS)
    (tmp_path / "driver.py").write_text(STENCIL_DRIVER)

    def run() -> dict:
        process = _start(tmp_path)
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        return json.loads(stdout.strip().splitlines()[-1])

    cold, warm = run(), run()
    assert cold["results"] == warm["results"] == _stencil_expectations(0.25)
    assert cold["hits"] == [0, 0] and cold["optimized"] > 0
    assert warm["hits"] == [2, 1] and warm["optimized"] == 0  # blur: with and without out=
    source = (tmp_path / "stencils.py").read_text().replace("* 0.25", "* 0.5")
    (tmp_path / "stencils.py").write_text(source)
    edited = run()
    assert edited["results"] == _stencil_expectations(0.5)
    assert edited["hits"] == [0, 1] and edited["reasons"] == ["changed: code"]
