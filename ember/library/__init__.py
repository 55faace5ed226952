"""ember's own library: builtins, `math`, numbers' methods and ranges; importing it registers
everything."""

from ember.library import (  # noqa: F401
    boxing,
    builtins,
    cmathlib,
    lists,
    math_exact,
    mathlib,
    numberlib,
    optional,
    printing,
    ranges,
    slices,
)
