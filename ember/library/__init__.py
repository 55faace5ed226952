"""ember's own library: builtins, `math`, numbers' methods and ranges; importing it registers
everything."""

from ember.library import (  # noqa: F401
    boxing,
    builtins,
    generators,
    lists,
    math_exact,
    mathlib,
    numberlib,
    printing,
    ranges,
    slices,
)
