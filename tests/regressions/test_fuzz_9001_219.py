"""Fuzzer reproducer (tools/fuzz.py --seed 9001, program 219).

Found: mismatch: CPython raised ValueError: integer ** negative integer; ember None
"""
# ruff: noqa: E501

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.fuzzing.pool import Worker  # noqa: E402

SOURCE = """\
import math
import numpy as np

def f(p0):
    v6, v7 = (2 % -3, max)
    v30 = np.arange(v6)
    v30[v6:v6] += v6 ** v6
"""

JOB = {
    "source": SOURCE,
    "inputs": [
        "(-11.0, )",
    ],
    "functions": ["h0", "f"],
    "boundscheck": False,
    "memory": 0,
}


def test_fuzz_9001_219():
    worker = Worker(timeout=120)
    try:
        result = worker.run(JOB)
    finally:
        worker.close()
    assert result["status"] == "ok", result["detail"]
