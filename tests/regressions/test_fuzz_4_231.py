"""Fuzzer reproducer (tools/fuzz.py --seed 4, program 231).

Found: crash: worker died (exit status -11): a method taken in one block and copied to another
(xs.append(a if c else b)) was lent its list without a reference; the copy released it,
freeing the caller's list
"""
# ruff: noqa: E501

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.fuzzing.pool import Worker  # noqa: E402

SOURCE = """\
def f(p1):
    v3 = 0
    p1.append(v3 if v3 else v3)
    t = (p1, 1)
    return 0
"""

JOB = {
    "source": SOURCE,
    "inputs": [
        "([0, 1, -18, 12, 0],)",
    ],
    "functions": ["f"],
    "boundscheck": False,
    "memory": 50,
}


def test_fuzz_4_231():
    worker = Worker(timeout=120)
    try:
        result = worker.run(JOB)
    finally:
        worker.close()
    assert result["status"] == "ok", result["detail"]
