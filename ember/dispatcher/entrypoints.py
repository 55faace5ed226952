"""Extensions registered by installed packages (Numba's `numba_extensions` entry points, and
`ember_extensions`): each package's `init` function runs once, the first time a compilation
needs something ember does not know (an argument type, a function it cannot type)."""

from __future__ import annotations

import threading
import warnings

from ember.errors import EmberWarning

GROUPS = ("ember_extensions", "numba_extensions")
_lock = threading.Lock()
_loaded = False


def init_all() -> bool:
    """Run every installed extension's `init` entry point, once per process. True when this
    call ran at least one (so what failed before may now compile), else False."""
    global _loaded
    with _lock:
        if _loaded:
            return False
        _loaded = True
        from importlib.metadata import entry_points

        found = [point for group in GROUPS for point in entry_points(group=group)]
        ran = False
        for point in found:
            if point.name != "init":
                continue
            try:
                point.load()()
            except Exception as error:  # a broken extension must not break every compile
                warnings.warn(
                    f"Numba extension module {point.module!r} failed to load due to "
                    f"'{type(error).__name__}({error})'.",
                    EmberWarning,
                    stacklevel=2,
                )
            ran = True
        return ran
