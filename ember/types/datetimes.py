"""NumPy's datetime64 and timedelta64 scalar types: an int64 count of a unit named in the type
(`datetime64[D]`, `timedelta64[ns]`, or the generic `datetime64`); NaT is the int64 minimum."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type

# NumPy's units, coarsest first; "" is the generic unit (no unit yet).
UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "")
_PER_NEXT = {"W": 7, "D": 24, "h": 60, "m": 60, "s": 1000, "ms": 1000, "us": 1000,
             "ns": 1000, "ps": 1000, "fs": 1000}  # fmt: skip
NAT = -(1 << 63)


class _DatetimeLike(Type):
    """An int64 count of `unit`s (`unit` is one of UNITS)."""

    numpy_kind = ""
    bitwidth = 64  # as an array element: 8 bytes

    def __init__(self, unit: str) -> None:
        if unit not in UNITS:
            raise ValueError(f"{unit!r} is not a NumPy datetime unit (one of {UNITS[:-1]})")
        self.unit = unit
        base = "datetime64" if self.numpy_kind == "M" else "timedelta64"
        super().__init__(f"{base}[{unit}]" if unit else base)

    def _rebuild_args(self) -> tuple:
        return (self.unit,)

    @property
    def unit_code(self) -> int:
        """NumPy's number for the unit (its C enum: 'Y' 0 ... 'as' 13, generic 14; 3 was the
        business day), as Numba's attribute."""
        index = UNITS.index(self.unit)
        return index if index < UNITS.index("D") else index + 1

    def __call__(self, *args: Any) -> Any:
        """`NPDatetime('Y')('1900')` converts a value to this type's NumPy scalar, as in Numba;
        with types, a signature."""
        if len(args) == 1 and not isinstance(args[0], Type):
            import numpy as np

            make = np.datetime64 if self.numpy_kind == "M" else np.timedelta64
            return make(args[0], self.unit) if self.unit else make(args[0])
        return super().__call__(*args)


class NPDatetime(_DatetimeLike):
    """np.datetime64 of one unit: a count of units since 1970-01-01T00:00."""

    numpy_kind = "M"


class NPTimedelta(_DatetimeLike):
    """np.timedelta64 of one unit."""

    numpy_kind = "m"


def datetime_type_of_dtype(dtype: Any) -> Type | None:
    """The ember type of a 'M8[unit]' or 'm8[unit]' dtype (None for multiples such as 'M8[2D]')."""
    unit, count = _datetime_data(dtype)
    if count != 1 or unit not in UNITS:
        return None
    return NPDatetime(unit) if dtype.kind == "M" else NPTimedelta(unit)


def _datetime_data(dtype: Any) -> tuple[str, int]:
    import numpy as np

    unit, count = np.datetime_data(dtype)
    return ("" if unit == "generic" else unit), count


def linear_factor(from_unit: str, to_unit: str) -> int | None:
    """How many `to_unit`s one `from_unit` holds, when both are fixed lengths of time (or both
    calendar units: years and months) and `to_unit` is the finer; None otherwise."""
    if from_unit == to_unit or from_unit == "":
        return 1
    if (from_unit, to_unit) == ("Y", "M"):
        return 12
    if from_unit in ("Y", "M") or to_unit in ("Y", "M", ""):
        return None
    start, stop = UNITS.index(from_unit), UNITS.index(to_unit)
    if stop < start:
        return None
    factor = 1
    for unit in UNITS[start:stop]:
        factor *= _PER_NEXT[unit]
    return factor
