"""Writes a shrunk failing program as a pytest file under tests/regressions/ that fails until
the bug is fixed (it runs the program in a subprocess, so a crash fails the test only)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tools.fuzzing.pool import ROOT

TEMPLATE = '''"""Fuzzer reproducer (tools/fuzz.py --seed {seed}, program {index}).

Found: {status}: {detail}
"""
# ruff: noqa: E501

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.fuzzing.pool import Worker  # noqa: E402

SOURCE = """\\
{source}"""

JOB = {{
    "source": SOURCE,
    "inputs": [
{inputs}
    ],
    "functions": {functions},
    "boundscheck": {boundscheck!r},
    "memory": {memory!r},
}}


def test_fuzz_{seed}_{index}():
    worker = Worker(timeout=120)
    try:
        result = worker.run(JOB)
    finally:
        worker.close()
    assert result["status"] == "ok", result["detail"]
'''


def write_regression(
    seed: int, index: int, job: dict, result: dict, folder: Path = ROOT / "tests" / "regressions"
) -> Path:
    """tests/regressions/test_fuzz_<seed>_<index>.py for `job`, which fails with `result`."""
    folder.mkdir(parents=True, exist_ok=True)
    detail = " ".join(result["detail"].split())[:600].replace('"""', "'''").replace("\\", "/")
    text = TEMPLATE.format(
        seed=seed,
        index=index,
        status=result["status"],
        detail="\n".join(textwrap.wrap(detail, 90)),
        source=job["source"].replace("\\", "\\\\").replace('"""', '\\"\\"\\"'),
        inputs="\n".join(f"        {json.dumps(item)}," for item in job["inputs"]),
        functions=json.dumps(job["functions"]),
        boundscheck=job["boundscheck"],
        memory=job.get("memory", 0),
    )
    path = folder / f"test_fuzz_{seed}_{index}.py"
    path.write_text(text)
    return path
