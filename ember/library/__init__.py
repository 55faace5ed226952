"""ember's own library: builtins, `math`, numbers' methods and ranges; importing it registers
everything."""

from ember.library import (  # noqa: F401
    boxing,
    builtins,
    functions,
    generators,
    lists,
    math_exact,
    mathlib,
    numberlib,
    printing,
    ranges,
    sequences,
    slices,
    typed_lists,
)
