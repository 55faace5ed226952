"""ember's own library: builtins, `math`, numbers' methods and ranges; importing it registers
everything."""

from ember.library import (  # noqa: F401
    boxing,
    boxing_arrays,
    builtins,
    cmathlib,
    functions,
    generators,
    hashing,
    lists,
    math_exact,
    mathlib,
    namedtuples,
    numberlib,
    optional,
    pointers,
    printing,
    ranges,
    sequences,
    slices,
    strings,
    strings_case,
    strings_convert,
    strings_methods,
    strings_more,
    tuples,
    typed_lists,
)
from ember.parallel import library as parallel_library  # noqa: F401 - prange, thread functions
