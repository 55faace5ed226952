"""ember's own library: builtins, `math`, numbers' methods and ranges; importing it registers
everything."""

from ember.library import (  # noqa: F401
    boxing,
    builtins,
    cmathlib,
    functions,
    lists,
    math_exact,
    mathlib,
    numberlib,
    optional,
    printing,
    ranges,
    sequences,
    slices,
    typed_lists,
)
