"""ember's own library: builtins, `math`, numbers' methods and ranges; importing it registers
everything."""

from ember.library import boxing, builtins, lists, mathlib, numberlib, ranges, slices  # noqa: F401

import ember.parallel.library  # noqa: E402,F401 - prange and the thread functions
