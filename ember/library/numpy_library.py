"""Arrays and NumPy in compiled code; importing this module registers all of it.

Loaded by the typing context as soon as NumPy itself is imported (ember/typing/context.py), so
that compiling scalar code never pays for importing NumPy.
"""

from ember.library import (  # noqa: F401
    arrays,
    arrays_index,
    arrays_methods,
    lists_numpy,
    numpy_calculus,
    numpy_creation,
    numpy_elementwise,
    numpy_functions,
    numpy_generator,
    numpy_iteration,
    numpy_linalg,
    numpy_linalg_decompositions,
    numpy_manipulation,
    numpy_products,
    numpy_random,
    numpy_random_distributions,
    numpy_reductions,
    numpy_sorting,
    numpy_statistics,
    numpy_ufuncs,
)
