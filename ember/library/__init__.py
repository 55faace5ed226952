"""ember's own library: builtins, `math`, numbers' methods and ranges; importing it registers
everything."""

from ember.library import boxing, builtins, lists, mathlib, numberlib, ranges, slices  # noqa: F401
from ember.library import hashing, namedtuples, tuples  # noqa: F401
