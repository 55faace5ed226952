"""NumPy array types: dtype, number of dimensions, layout ('C', 'F', 'A') and writability."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type


class Array(Type):
    """`Array(float64, 2, 'C')`: the type of a NumPy array as compiled code sees it."""

    def __init__(self, dtype: Type, ndim: int, layout: str, readonly: bool = False) -> None:
        if layout not in ("C", "F", "A"):
            raise ValueError(f"array layout must be 'C', 'F' or 'A', not {layout!r}")
        self.dtype = dtype
        self.ndim = ndim
        self.layout = layout
        self.readonly = readonly
        prefix = "readonly array" if readonly else "array"
        super().__init__(f"{prefix}({dtype}, {ndim}d, {layout})")

    @property
    def key(self) -> Any:
        return (self.dtype, self.ndim, self.layout, self.readonly)

    def _rebuild_args(self) -> tuple:
        return (self.dtype, self.ndim, self.layout, self.readonly)


def array_from_slices(dtype: Type, spec: Any) -> Array:
    """Numba's spelling `float64[:, ::1]`: the unit step marks the contiguous dimension."""
    slices = spec if isinstance(spec, tuple) else (spec,)
    if not all(isinstance(s, slice) and s.start is None and s.stop is None for s in slices):
        raise TypeError(f"array type spelling needs ':' or '::1' slices, got {spec!r}")
    steps = [s.step for s in slices]
    if any(step not in (None, 1) for step in steps):
        raise TypeError(f"only a step of 1 marks a contiguous dimension, got {spec!r}")
    layout = "A"
    if steps[-1] == 1 and all(step is None for step in steps[:-1]):
        layout = "C"
    elif steps[0] == 1 and all(step is None for step in steps[1:]):
        layout = "F"
    return Array(dtype, len(slices), "C" if len(slices) == 1 and layout == "F" else layout)
