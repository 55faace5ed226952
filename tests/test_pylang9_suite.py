"""pylang9: language-core features found by Numba's test modules and realistic programs:
objmode blocks of local functions kept in the disk cache across processes, Numba's IR-utility
names over ember's IR (compute_cfg_from_blocks, flatten_labels)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ember.frontend.bytecode import ByteCode
from ember.frontend.interpreter import build_ir
from ember.ir import nodes
from ember.ir.numba_utils import compute_cfg_from_blocks, flatten_labels

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- objmode blocks in the cache

LOCAL_OBJMODE = """\
import json, warnings
import numpy as np
import ember

warnings.simplefilter("error")  # a refused cache entry warns


def make(k):
    def scaled(x):
        with ember.objmode(out="float64"):
            out = float(np.round(x / k, 3))
        return out + 1.0

    return scaled


results, hits = [], []
for k, x in [(7.0, 10.0), (3.0, 20.0), (7.0, -4.5)]:
    f = ember.njit(cache=True)(make(k))
    results.append([f(x), f.py_func(x)])
    hits.append(sum(f.stats.cache_hits.values()))
print(json.dumps({"results": results, "hits": hits}))
"""


def _run_twice(folder: Path, source: str) -> list[dict]:
    (folder / "driver.py").write_text(source)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("EMBER_")}
    environ.update(
        PYTHONPATH=str(ROOT),
        EMBER_CACHE_DIR=str(folder / "cache"),
        XDG_CACHE_HOME=str(folder / "user-cache"),
    )
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "driver.py"],
            cwd=folder,
            env=environ,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def test_objmode_blocks_of_local_functions_are_cached_across_processes(tmp_path):
    cold, warm = _run_twice(tmp_path, LOCAL_OBJMODE)
    expected = [round(10.0 / 7.0, 3) + 1.0, round(20.0 / 3.0, 3) + 1.0, round(-4.5 / 7.0, 3) + 1.0]
    for run in (cold, warm):
        assert [jitted for jitted, _ in run["results"]] == expected
        assert all(jitted == python for jitted, python in run["results"])
    # the third function has the first one's closure value: the same entry (in memory)
    assert cold["hits"] == [0, 0, 1]
    assert warm["hits"] == [1, 1, 1]


# ---------------------------------------------------------------- Numba's ir_utils names


def _branchy(n):
    total = 0
    for i in range(n):
        if i % 3:
            total += i
        else:
            total -= 1
    return total


def test_flatten_labels_and_the_cfg_of_blocks():
    code = ByteCode(_branchy)
    func_ir = build_ir(code, code.control_flow_graph())
    before = {label: block.successors() for label, block in func_ir.blocks.items()}
    order = sorted(func_ir.blocks)
    flat = flatten_labels(func_ir.blocks)
    assert sorted(flat) == list(range(len(order)))
    renamed = {old: new for new, old in enumerate(order)}
    for old, successors in before.items():
        block = flat[renamed[old]]
        assert block.label == renamed[old]
        assert block.successors() == [renamed[s] for s in successors]
    graph = compute_cfg_from_blocks(flat)
    (header,) = graph.loops()  # one loop: the for loop's header dominates its body
    loop = graph.loops()[header]
    assert all(header in graph.dominators()[node] for node in loop.body)
    returns = [label for label, block in flat.items() if isinstance(block.terminator, nodes.Return)]
    assert returns and all(not graph.successors(label) for label in returns)
