"""Numba's `numba.core.types.misc` path for code that imports type classes from it (for example
`from numba.core.types.misc import NoneType`): the names of `ember.types`, not copies."""

from ember.types import *  # noqa: F403
