"""ember's own library: builtins, `math` and ranges; importing it registers everything."""

from ember.library import builtins, mathlib, ranges  # noqa: F401
