"""The implicit conversion kind between every pair of numeric types equals Numba's typeconv
table (x exact, p promote, s safe, u unsafe, - none), and the ranking that follows from it
picks Numba's overload: float64(float64, float64) for add(1, 2.5)."""

import pytest

from ember import njit, types
from ember.typing.conversions import Conversion, can_convert

NAMES = ["boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "complex64", "complex128"]  # fmt: skip
NUMBA_TABLE = [  # rows convert from, columns to, in the order of NAMES
    "boolean    x s s s s s s s s s s s s",
    "int8       u x p p p u u u u s s s s",
    "int16      u u x p p u u u u s s s s",
    "int32      u u u x p u u u u u s u s",
    "int64      u u u u x u u u u u s u s",
    "uint8      u u s s s x p p p s s s s",
    "uint16     u u u s s u x p p u s u s",
    "uint32     u u u u s u u x p u s u s",
    "uint64     u u u u u u u u x u s u s",
    "float32    u u u u u u u u u x p s s",
    "float64    u u u u u u u u u u x u s",
    "complex64  - - - - - - - - - - - x p",
    "complex128 - - - - - - - - - - - u x",
]
KINDS = {"x": Conversion.exact, "p": Conversion.promote, "s": Conversion.safe,
         "u": Conversion.unsafe, "-": None}  # fmt: skip


@pytest.mark.parametrize("row", NUMBA_TABLE)
def test_conversion_kinds_equal_numbas(row):
    source, *kinds = row.split()
    for target, letter in zip(NAMES, kinds):
        assert can_convert(getattr(types, source), getattr(types, target)) == KINDS[letter], (
            source,
            target,
        )


def test_mixed_call_picks_the_float_overload_as_numba():
    add = njit(["int64(int64, int64)", "float64(float64, float64)"])(lambda a, b: a + b)
    assert add(1, 2) == 3 and isinstance(add(1, 2), int)
    assert add(1, 2.5) == 3.5 and add(2.5, 1) == 3.5
