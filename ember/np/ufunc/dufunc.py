"""Numba's `numba.np.ufunc.dufunc.DUFunc` constructor: `DUFunc(py_func, identity=None,
cache=False, targetoptions={...})`, an ember DUFunc (ember/ufuncs/vectorize.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.ufuncs.vectorize import DUFunc as _EmberDUFunc


class DUFunc(_EmberDUFunc):
    """A dynamic ufunc built with Numba's constructor arguments."""

    def __init__(
        self,
        py_func: Callable,
        identity: Any = None,
        cache: bool = False,
        targetoptions: dict | None = None,
    ) -> None:
        options = dict(targetoptions or {})
        if cache:
            options["cache"] = True
        super().__init__(getattr(py_func, "py_func", py_func), identity, **options)
