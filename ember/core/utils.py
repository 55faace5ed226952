"""Numba's `numba.core.utils` names that user and test code reads: the running Python's version
as a (major, minor) pair and the two's-complement bit length of an integer."""

import sys

PYVERSION = sys.version_info[:2]


def bit_length(value: int) -> int:
    """The bits `value` needs in two's complement, sign bit excluded: 127 and -128 need 7
    (Python's int.bit_length counts -128 as 8: it measures the magnitude)."""
    value = int(value)
    return (value if value >= 0 else ~value).bit_length()
