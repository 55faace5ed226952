"""Arrays and NumPy in compiled code; importing this module registers all of it.

Loaded by the typing context as soon as NumPy itself is imported (ember/typing/context.py), so
that compiling scalar code never pays for importing NumPy.
"""

# ruff: noqa: I001, F401 - the order of registration is kept; importing registers
import ember.library.numpy.records
import ember.library.numpy.arrays
import ember.library.numpy.indexing
import ember.library.numpy.array_methods
import ember.library.numpy.from_lists
import ember.library.numpy.calculus
import ember.library.numpy.creation
import ember.library.numpy.elementwise
import ember.library.numpy.clipping
import ember.library.numpy.joining
import ember.library.numpy.nonzeros
import ember.library.numpy.closeness
import ember.library.numpy.set_routines
import ember.library.numpy.searching
import ember.library.numpy.binning
import ember.library.numpy.interpolation
import ember.library.numpy.rounding
import ember.library.numpy.random.generator
import ember.library.numpy.random.generator_distributions
import ember.library.numpy.random.generator_permutations
import ember.library.numpy.random.bit_generators
import ember.library.numpy.flat
import ember.library.numpy.iteration
import ember.library.numpy.linalg.products
import ember.library.numpy.linalg.decompositions
import ember.library.numpy.linalg.vector_products
import ember.library.numpy.linalg.array_api
import ember.library.numpy.manipulation
import ember.library.numpy.editing
import ember.library.numpy.partitions
import ember.library.numpy.products
import ember.library.numpy.random.legacy
import ember.library.numpy.random.distributions
import ember.library.numpy.random.distributions_continuous
import ember.library.numpy.random.distributions_discrete
import ember.library.numpy.random.distributions_multivariate
import ember.library.numpy.random.generator_multivariate
import ember.library.numpy.reductions
import ember.library.numpy.arg_extremes
import ember.library.numpy.sorting
import ember.library.numpy.statistics
import ember.library.numpy.ufuncs
import ember.library.numpy.windows
import ember.library.numpy.queries
import ember.library.numpy.index_grids
import ember.library.numpy.stride_views
import ember.library.numpy.differences
import ember.library.numpy.splitting
import ember.library.numpy.rearranging
import ember.library.numpy.two_output_ufuncs
import ember.library.numpy.buffers
import ember.library.numpy.datetimes
import ember.library.numpy.polynomial
import ember.library.numpy.axis_forms
import ember.library.numpy.axis_forms2
import ember.library.numpy.axis_forms3
import ember.library.numpy.axis_tuples
import ember.library.numpy.axis_gather
import ember.library.numpy.keyword_forms
import ember.library.numpy.more_functions
import ember.library.numpy.contractions
import ember.library.numpy.padding
import ember.library.numpy.multi_index
