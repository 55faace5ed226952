"""ember's own library, one sub-package per domain: `builtins/` (builtins, `math`, `cmath`,
numbers), `containers/`, `strings/`, `objects/` (jitclasses, generators, Optional...), `interop/`
(boxing, ctypes, C pointers) and `numpy/`. Importing a module registers its typings and
implementations; ember/library_domains.py decides when each domain is imported."""

from ember.library_domains import load_core

# A module imported directly (a jitclass's protocols, NumPy's ufuncs) registers after the core,
# as when the whole library was imported here: its registrations refine the core's.
load_core()
