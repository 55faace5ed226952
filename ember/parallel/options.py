"""The `parallel=` option of `@jit`: `True`, `False` or Numba's dict of sub-pass switches,
validated once and carried as a frozen `ParallelOptions` in the target options."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class ParallelOptions:
    """Which parallel sub-passes run (all by default, as in Numba)."""

    comprehension: bool = True
    prange: bool = True
    numpy: bool = True
    reduction: bool = True
    setitem: bool = True
    stencil: bool = True
    fusion: bool = True

    def describe(self) -> str:
        off = [f.name for f in fields(self) if not getattr(self, f.name)]
        return "parallel=True" if not off else f"parallel=True except {', '.join(off)}"


_SWITCHES = tuple(f.name for f in fields(ParallelOptions))


def parse_parallel_option(value: Any) -> ParallelOptions | None:
    """`parallel=` as given to `@jit` -> ParallelOptions, or None when parallel is off."""
    if value is None or value is False:
        return None
    if value is True:
        return ParallelOptions()
    if isinstance(value, ParallelOptions):
        return value
    if not isinstance(value, dict):
        raise TypeError(f"parallel must be True, False or a dict of {{name: bool}}, not {value!r}")
    unknown = sorted(set(value) - set(_SWITCHES))
    if unknown:
        raise ValueError(
            f"unknown parallel option(s) {', '.join(map(repr, unknown))}; "
            f"known: {', '.join(_SWITCHES)}"
        )
    for name, switch in value.items():
        if not isinstance(switch, bool):
            raise TypeError(f"parallel option {name!r} must be True or False, not {switch!r}")
    return ParallelOptions(**value)
