"""Extensions registered by installed packages through Numba's `numba_extensions` entry point
(as pydata/sparse does): their `init` runs the first time a compilation meets something ember
does not know, not at import, and runs once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

EXTENSION = """
from ember import types
from ember.extending import NativeValue, models, overload, register_model, typeof_impl, unbox

CALLS = []


class Celsius:
    pass


def to_kelvin(x):
    raise NotImplementedError


class CelsiusType(types.Type):
    def __init__(self):
        super().__init__(name="Celsius")


def init():
    CALLS.append(1)
    celsius = CelsiusType()
    typeof_impl.register(Celsius)(lambda value, context: celsius)
    register_model(CelsiusType)(models.OpaqueModel)
    unbox(CelsiusType)(lambda typ, obj, c: NativeValue(obj))

    @overload(to_kelvin)
    def _to_kelvin(x):
        if isinstance(x, types.Float):
            return lambda x: x + 273.15
"""

DRIVER = """
import ember
import tempext

@ember.njit
def kelvin(x):
    return tempext.to_kelvin(x)

print(len(tempext.CALLS))  # nothing compiled yet: init has not run
print(kelvin(1.0), len(tempext.CALLS))  # to_kelvin is typed once init ran
@ember.njit
def first(c):
    return 1.5
print(first(tempext.Celsius()), len(tempext.CALLS))  # runs once per process
"""


def test_numba_extensions_entry_point_runs_once_when_first_needed(tmp_path):
    (tmp_path / "tempext.py").write_text(EXTENSION)
    info = tmp_path / "tempext-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tempext\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[numba_extensions]\ninit = tempext:init\n")
    (tmp_path / "driver.py").write_text(DRIVER)
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{tmp_path}")
    done = subprocess.run(
        [sys.executable, str(tmp_path / "driver.py")], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "274.15", "1", "1.5", "1"]
