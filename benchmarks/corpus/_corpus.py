"""The corpus registry and loader: each kernels_*.py module lists `Case`s (a plain kernel
function, an input builder and two sizes); `load(backend)` loads every module once per backend
(its helpers decorated with that backend's `njit`) and `agree` compares two results.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import _backend
import numpy as np

HERE = Path(__file__).resolve().parent
MODULES = (
    "kernels_math",
    "kernels_control",
    "kernels_loops",
    "kernels_numpy",
    "kernels_sim",
    "kernels_wild",
    "kernels_wild2",
    "kernels_wild3",
    "kernels_wild4",
    "kernels_wild5",
    "kernels_wild6",
    "kernels_wild7",
    "kernels_wild8",
)


@dataclass
class Case:
    """One kernel: `build(n)` returns its argument tuple; `small` is the size the tests run,
    `size` the size run.py times. `rtol` loosens the comparison where compiled code may
    round differently (float32 sums); `options` are passed to `njit`."""

    func: Callable
    build: Callable[[int], tuple]
    small: int
    size: int
    topic: str
    rtol: float = 1e-9
    options: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.func.__name__


def backend_njit(backend: str) -> Callable:
    """The `njit` of 'ember', 'numba' or 'python' (the identity decorator)."""
    if backend == "ember":
        from ember import njit
    elif backend == "numba":
        from numba import njit
    else:
        njit = _backend.identity
    return njit


def backend_containers(backend: str) -> tuple:
    """The typed Dict, List and the types module of 'numba', else ember's (the interpreter
    runs ember's containers too)."""
    if backend == "numba":
        from numba.core import types
        from numba.typed import Dict, List
    else:
        from ember import types
        from ember.typed import Dict, List
    return Dict, List, types


def load(backend: str) -> dict[str, Case]:
    """Every corpus case by name, from a fresh copy of each module whose helpers are jitted by
    `backend`; kernels are returned plain (the caller jits them with `case.options`)."""
    _backend.njit = backend_njit(backend)
    _backend.Dict, _backend.List, _backend.types = backend_containers(backend)
    cases: dict[str, Case] = {}
    for module_name in MODULES:
        spec = importlib.util.spec_from_file_location(
            f"corpus_{backend}_{module_name}", HERE / f"{module_name}.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # Numba finds a recursive helper through its module
        spec.loader.exec_module(module)
        for case in module.CASES:
            if case.name in cases:
                raise ValueError(f"two corpus kernels are named {case.name}")
            cases[case.name] = case
    return cases


def jitted(case: Case, backend: str) -> Callable:
    if backend == "python":
        return case.func
    return backend_njit(backend)(**case.options)(case.func)


def agree(expected, got, rtol: float) -> bool:
    """Equal results: numbers and arrays to `rtol` (NaNs equal), sequences item by item."""
    if isinstance(expected, (tuple, list)):
        return (
            isinstance(got, (tuple, list))
            and len(got) == len(expected)
            and all(agree(e, g, rtol) for e, g in zip(expected, got))
        )
    if isinstance(expected, np.ndarray):
        got = np.asarray(got)
        if got.shape != expected.shape:
            return False
        if expected.dtype.kind in "biu" and got.dtype.kind in "biu":
            return bool(np.array_equal(expected, got))
    elif isinstance(expected, (bool, int, np.integer)) and not isinstance(got, float):
        return expected == got
    elif isinstance(expected, complex):
        return cmath_close(expected, got, rtol)
    return bool(np.allclose(got, expected, rtol=rtol, atol=1e-12, equal_nan=True))


def cmath_close(expected: complex, got, rtol: float) -> bool:
    got = complex(got)
    return math.isclose(expected.real, got.real, rel_tol=rtol, abs_tol=1e-12) and math.isclose(
        expected.imag, got.imag, rel_tol=rtol, abs_tol=1e-12
    )
