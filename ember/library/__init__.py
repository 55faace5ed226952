"""ember's own library, one sub-package per domain: `builtins/` (builtins, `math`, `cmath`,
numbers), `containers/`, `strings/`, `objects/` (jitclasses, generators, Optional...), `interop/`
(boxing, ctypes, C pointers) and `numpy/`. Importing it registers everything (in this order) but
most of `numpy/`, which `numpy/register.py` registers once NumPy itself is imported
(ember/typing/context.py)."""

# ruff: noqa: I001, F401 - the order of registration is kept; importing registers
import ember.library.interop.boxing
import ember.library.interop.carray
import ember.library.numpy.boxing
import ember.library.builtins.numeric
import ember.library.builtins.cmathlib
import ember.library.interop.ctypes_functions
import ember.library.containers.dicts
import ember.library.containers.typed_dicts
import ember.library.objects.function_tuples
import ember.library.objects.generators
import ember.library.objects.literals
import ember.library.builtins.hashing
import ember.library.containers.lists
import ember.library.builtins.math_exact
import ember.library.builtins.mathlib
import ember.library.containers.namedtuples
import ember.library.builtins.number_methods
import ember.library.objects.optional
import ember.library.interop.pointers
import ember.library.builtins.printing
import ember.library.builtins.ranges
import ember.library.builtins.sequences
import ember.library.containers.sets
import ember.library.builtins.slices
import ember.library.strings.core
import ember.library.strings.bytes
import ember.library.strings.case
import ember.library.strings.convert
import ember.library.strings.format
import ember.library.strings.methods
import ember.library.strings.more_methods
import ember.library.containers.tuples
import ember.library.containers.typed_lists
import ember.library.objects.typerefs
from ember.parallel import library as parallel_library  # noqa: F401 - prange, thread functions
