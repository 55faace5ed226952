"""The type of a NumPy `np.random.Generator` in compiled code (Numba's spelling)."""

from __future__ import annotations

from ember.types.abstract import Type


class NumPyRandomGeneratorType(Type):
    """A `numpy.random.Generator`: its bit generator's state, drawn from by NumPy's own C
    distribution functions (ember/library/numpy/random/generator.py)."""

    def __init__(self, name: str = "NumPyRandomGeneratorType") -> None:
        super().__init__(name)


npy_rng = NumPyRandomGeneratorType()


class NumPyRandomBitGeneratorType(Type):
    """A `numpy.random.BitGenerator` (PCG64, MT19937...) as a value: Numba's typeof names it;
    compiled code draws through a `Generator` (`npy_rng`)."""

    def __init__(self, name: str = "NumPyRandomBitGeneratorType") -> None:
        super().__init__(name)


npy_bitgen = NumPyRandomBitGeneratorType()
