"""`@vectorize`, `@guvectorize` and DUFunc (Numba's): kernels compiled by ember inside genuine
NumPy ufuncs, built through NumPy's C API without a C compiler.

Importing the package registers only the ufunc methods of jitted code (`np.add.reduce`,
`f.accumulate`, ...: light modules, loaded with NumPy's library); the builders load on first use.
"""

import importlib
from typing import Any

from ember.ufuncs import (
    jit_accumulate,  # noqa: F401 - ufunc.accumulate and .outer in jitted code
    jit_at,  # noqa: F401 - ufunc.at in jitted code
    jit_attributes,  # noqa: F401 - ufunc.nin, .identity, ... in jitted code
    jit_reduce,  # noqa: F401 - ufunc.reduce in jitted code
    jit_reduceat,  # noqa: F401 - ufunc.reduceat in jitted code
)

# `vectorize` is not among them: it names the submodule (ember.ufuncs.vectorize.vectorize).
_BUILDERS = {
    "DUFunc": "ember.ufuncs.vectorize",
    "GUFunc": "ember.ufuncs.gufunc",
    "guvectorize": "ember.ufuncs.gufunc",
}


def __getattr__(name: str) -> Any:
    if name in _BUILDERS:
        return getattr(importlib.import_module(_BUILDERS[name]), name)
    raise AttributeError(f"module 'ember.ufuncs' has no attribute {name!r}")


__all__ = ["DUFunc", "GUFunc", "guvectorize"]
