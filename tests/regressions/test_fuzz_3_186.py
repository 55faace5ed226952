"""Fuzzer reproducer (tools/fuzz.py --seed 3, program 186).

Found: mismatch: ember raised ZeroDivisionError: integer modulo by zero (in the full program; SystemError:
a returned array refers to memory of an unknown owner here): the array-expression rewrite
moved the del of the old v1 after the fused expression that reads the new v1, freeing a
live array
"""
# ruff: noqa: E501

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.fuzzing.pool import Worker  # noqa: E402

SOURCE = """\
import numpy as np

def f(p1):
    v1 = np.zeros(3)
    if p1 > 0:
        v1 /= p1
        v6 = v1 * 2.0 - 1.0
    return v1
"""

JOB = {
    "source": SOURCE,
    "inputs": [
        "(2.0,)",
        "(-1.0,)",
    ],
    "functions": ["f"],
    "boundscheck": False,
}


def test_fuzz_3_186():
    worker = Worker(timeout=120)
    try:
        result = worker.run(JOB)
    finally:
        worker.close()
    assert result["status"] == "ok", result["detail"]
