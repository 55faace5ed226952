"""`@stencil` (Numba's `numba.stencil`): kernels written with relative indexing, run over every
point of an array whose neighborhood fits, from Python and from jitted code."""

from ember.stencils.stencilfunc import StencilFunc, stencil

__all__ = ["StencilFunc", "stencil"]
