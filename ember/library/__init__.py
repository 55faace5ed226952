"""ember's own library: builtins, `math`, numbers' methods and ranges; importing it registers
everything."""

from ember.library import boxing, builtins, mathlib, numberlib, ranges  # noqa: F401
