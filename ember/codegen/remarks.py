"""LLVM's loop-vectorizer remarks, collected while a compilation runs.

llvmlite 0.50 has no remarks API, but LLVM's `-pass-remarks*` options make its default
diagnostic handler print each remark to stderr (`remark: file.py:12:4: vectorized loop ...`);
`vectorizer_remarks()` turns them on, captures file descriptor 2 for the duration and parses
them (lines need debug locations: compile with `debug=True`). Consumed by ember/annotate/.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

_OPTIONS = ("-pass-remarks", "-pass-remarks-missed", "-pass-remarks-analysis")
_NOTHING = "^$"  # LLVM cannot unset a remark filter: one that matches no pass name turns it off
_REMARK = re.compile(r"^remark: (?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<message>.*)$")
_lock = threading.Lock()


@dataclass(frozen=True)
class Remark:
    """One remark: the source position LLVM gave (file base name, line) and its text."""

    filename: str
    line: int
    message: str

    @property
    def vectorized(self) -> bool:
        return self.message.startswith("vectorized loop")


@contextmanager
def vectorizer_remarks() -> Iterator[list[Remark]]:
    """Collect the loop vectorizer's remarks printed while the block runs (other stderr output
    of that time is passed on once it ends)."""
    import llvmlite.binding as llvm_binding

    remarks: list[Remark] = []
    with _lock, tempfile.TemporaryFile(mode="w+b") as captured:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(captured.fileno(), 2)
        try:
            for option in _OPTIONS:
                llvm_binding.set_option("ember", f"{option}=loop-vectorize")
            yield remarks
        finally:
            for option in _OPTIONS:
                llvm_binding.set_option("ember", f"{option}={_NOTHING}")
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            remarks += _parse(captured.read().decode("utf-8", "replace"))


def _parse(text: str) -> list[Remark]:
    found, others = [], []
    for line in text.splitlines():
        match = _REMARK.match(line)
        if match is None:
            others.append(line)
        elif match["file"] != "<unknown>":
            found.append(Remark(match["file"], int(match["line"]), match["message"]))
    if others:
        print("\n".join(others), file=sys.stderr)
    return found
