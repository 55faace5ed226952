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
from ember.stencils import stencil

__version__ = "0.1.0"


def vectorize(*args, **kwargs):
    """`@vectorize`: a scalar kernel as a NumPy ufunc (see ember.ufuncs.vectorize)."""
    from ember.ufuncs import vectorize as _vectorize

    return _vectorize(*args, **kwargs)


def guvectorize(*args, **kwargs):
    """`@guvectorize`: a kernel over sub-arrays as a generalized ufunc (ember.ufuncs)."""
    from ember.ufuncs import guvectorize as _guvectorize

    return _guvectorize(*args, **kwargs)


def typeof(value):
    """The ember type of a Python value (as compiled code would see it)."""
    from ember.dispatcher.typeof import typeof as _typeof

    return _typeof(value)


__all__ = [
    "jit",
    "njit",
    "stencil",
    "typeof",
    "vectorize",
    "guvectorize",
    "types",
    "TypingError",
    "UnsupportedError",
    "__version__",
]
