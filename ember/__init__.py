"""ember: a just-in-time compiler for numeric Python, with Numba's API.

from ember import njit

@njit
def f(x, y):
    return x + y
"""

from __future__ import annotations

from ember import types
from ember.decorators import jit, njit
from ember.errors import TypingError, UnsupportedError
from ember.misc.literal import literal_unroll
from ember.stencils import stencil

__version__ = "0.1.0"


def typeof(value):
    """The ember type of a Python value (as compiled code would see it)."""
    from ember.dispatcher.typeof import typeof as _typeof

    return _typeof(value)


__all__ = [
    "jit",
    "literal_unroll",
    "njit",
    "stencil",
    "typeof",
    "types",
    "TypingError",
    "UnsupportedError",
    "__version__",
]
