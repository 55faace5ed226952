"""Fuzzer reproducer (tools/fuzz.py --seed 9001, program 128).

Found: mismatch: CPython raised OverflowError: complex exponentiation; ember raised ValueError: negative
number cannot be raised to a fractional power
"""
# ruff: noqa: E501

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.fuzzing.pool import Worker  # noqa: E402

SOURCE = """\
import math
import numpy as np

def f(p0, p1):
    c6 = 0
    while c6 < 5:
        c6 += 1
        for i8 in p1:
            if i8 ** 9.44:
                pass
            else:
                pass
"""

JOB = {
    "source": SOURCE,
    "inputs": [
        "(-4, np.array([float('inf'), -1e308, 17.0, -0.0, float('-inf'), 8.54], dtype=np.float64), )",
    ],
    "functions": ["h0", "h1", "f"],
    "boundscheck": True,
    "memory": 0,
}


def test_fuzz_9001_128():
    worker = Worker(timeout=120)
    try:
        result = worker.run(JOB)
    finally:
        worker.close()
    assert result["status"] == "ok", result["detail"]
