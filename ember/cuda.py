"""`ember.cuda` (Numba's `numba.cuda`): ember compiles for the CPU only. Programs that choose
their target with `cuda.is_available()` take their CPU path; using the GPU API raises a clear
error instead of an AttributeError deep inside the program."""

from __future__ import annotations

from collections.abc import Callable
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


def _refusal(what: str) -> NoCudaTarget:
    return NoCudaTarget(
        f"{what}: ember compiles for the CPU only (no CUDA target); use @njit, "
        "parallel=True or @vectorize(target='parallel') for this code"
    )


class CudaKernel:
    """A function decorated with `@cuda.jit` and no signature. As in Numba on a machine
    without a GPU, decorating succeeds (a module defining GPU kernels imports); launching or
    calling the kernel raises `NoCudaTarget`."""

    def __init__(self, py_func: Callable, options: dict) -> None:
        self.py_func = py_func
        self.targetoptions = options
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__doc__ = py_func.__doc__

    def __getitem__(self, launch_configuration: Any) -> Any:
        raise _refusal(f"launching the CUDA kernel {self.__name__}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise _refusal(f"calling the CUDA function {self.__name__}")


def jit(func_or_signature: Any = None, **options: Any) -> Any:
    """Numba's `cuda.jit`: without a signature, a `CudaKernel` that refuses to run; with one
    (which Numba compiles at once), `NoCudaTarget` at decoration."""
    if callable(func_or_signature) and not isinstance(func_or_signature, type):
        return CudaKernel(func_or_signature, options)
    if func_or_signature is not None:
        raise _refusal("ember.cuda.jit with a signature")
    return lambda func: CudaKernel(func, options)


def __getattr__(name: str) -> Any:
    raise _refusal(f"ember.cuda.{name}")
