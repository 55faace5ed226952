"""Numba's `numba.core.utils` path for the names programs take from it: the running Python's
version (`PYVERSION`), `pysignature` (inspect.signature) and the two's-complement bit length of
an integer (`bit_length`)."""

from inspect import signature as pysignature

from ember.config import PYVERSION

__all__ = ["PYVERSION", "bit_length", "pysignature"]


def bit_length(value: int) -> int:
    """The bits `value` needs in two's complement, sign bit excluded: 127 and -128 need 7
    (Python's int.bit_length counts -128 as 8: it measures the magnitude)."""
    value = int(value)
    return (value if value >= 0 else ~value).bit_length()
