"""Numba's ufunc builder classes: `Vectorize(func, identity=..., target=...)` and
`GUVectorize(func, layout, ...)` collect signatures with `.add(sig)`; `.build_ufunc()`
returns what `@vectorize(sigs)` / `@guvectorize(sigs, layout)` would (a dynamic DUFunc or
GUFunc when no signature was added, or with `is_dynamic=True`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember.ufuncs.gufunc import GUFunc, guvectorize, parse_layout
from ember.ufuncs.vectorize import DUFunc, vectorize


class Vectorize:
    """Builds a `@vectorize` ufunc from the signatures added."""

    def __init__(self, func: Callable, **options: Any) -> None:
        self.py_func = getattr(func, "py_func", func)
        self.options = {k: v for k, v in options.items() if v is not None or k == "identity"}
        self.is_dynamic = bool(self.options.pop("is_dynamic", False))
        self.signatures: list = []

    def add(self, sig: Any = None) -> None:
        if sig is not None:
            self.signatures.append(sig)

    def build_ufunc(self) -> Any:
        if self.is_dynamic or not self.signatures:
            return DUFunc(self.py_func, **self.options)
        return vectorize(self.signatures, **self.options)(self.py_func)


class GUVectorize:
    """Builds a `@guvectorize` gufunc for `layout` from the signatures added; with
    `is_dynamic=True` the constructor itself returns the dynamic GUFunc."""

    def __new__(cls, func: Callable, layout: str, **options: Any) -> Any:
        if options.pop("is_dynamic", False):
            py_func = getattr(func, "py_func", func)
            return GUFunc(py_func, parse_layout(layout), _present(options))
        return super().__new__(cls)

    def __init__(self, func: Callable, layout: str, **options: Any) -> None:
        self.py_func = getattr(func, "py_func", func)
        self.layout = layout
        self.options = _present(options)
        self.signatures: list = []

    def add(self, sig: Any = None) -> None:
        if sig is not None:
            self.signatures.append(sig)

    def build_ufunc(self) -> Any:
        return guvectorize(self.signatures, self.layout, **self.options)(self.py_func)


def _present(options: dict) -> dict:
    return {k: v for k, v in options.items() if v is not None or k == "identity"}
