"""`ember.cuda` (Numba's `numba.cuda`): ember compiles for the CPU only. Programs that choose
their target with `cuda.is_available()` take their CPU path; using the GPU API raises a clear
error instead of an AttributeError deep inside the program."""

from __future__ import annotations

from typing import Any

from ember.errors import UnsupportedError


def is_available() -> bool:
    """Whether a CUDA GPU can run ember's code: never (ember has no GPU target)."""
    return False


def detect() -> bool:
    """Numba prints the GPUs it finds; ember finds none."""
    print("ember has no CUDA target: no CUDA devices are used")
    return False


class NoCudaTarget(UnsupportedError, AttributeError):
    """A part of Numba's CUDA API was used (an AttributeError too, so `hasattr` probes work)."""


def __getattr__(name: str) -> Any:
    raise NoCudaTarget(
        f"ember.cuda.{name}: ember compiles for the CPU only (no CUDA target); use @njit, "
        "parallel=True or @vectorize(target='parallel') for this code"
    )
