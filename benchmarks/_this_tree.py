"""Imported first by the benchmark scripts: `import ember` then loads the ember of the tree the
script is in, in the script and in the processes it starts, not an installed copy (run as
`python benchmarks/x.py`, Python puts benchmarks/ on the path, not the tree's root)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent)
if sys.path[:1] != [ROOT]:
    sys.path.insert(0, ROOT)
_inherited = os.environ.get("PYTHONPATH")
os.environ["PYTHONPATH"] = os.pathsep.join([ROOT, _inherited] if _inherited else [ROOT])
