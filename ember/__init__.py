"""ember: a just-in-time compiler for numeric Python, with Numba's API.

from ember import njit

@njit
def f(x, y):
    return x + y
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from ember import errors, types
from ember.decorators import jit, jit_module, njit
from ember.errors import *  # noqa: F403 - Numba exports its exception classes at the top too
from ember.misc.carray import carray, farray
from ember.misc.literal import literal_unroll, literally
from ember.misc.objmode import objmode
from ember.parallel.api import (
    get_num_threads,
    get_parallel_chunksize,
    get_thread_id,
    parallel_chunksize,
    pndindex,
    prange,
    set_num_threads,
    set_parallel_chunksize,
    threading_layer,
)
from ember.stencils import stencil
from ember.types import deferred_type, optional
from ember.types.scalars import (  # the type names Numba exports at its top level
    b1,
    bool_,
    boolean,
    byte,
    c8,
    c16,
    char,
    complex64,
    complex128,
    double,
    f4,
    f8,
    float32,
    float64,
    i1,
    i2,
    i4,
    i8,
    int8,
    int16,
    int32,
    int64,
    int_,
    intc,
    intp,
    long_,
    longlong,
    none,
    short,
    size_t,
    ssize_t,
    u1,
    u2,
    u4,
    u8,
    uchar,
    uint,
    uint8,
    uint16,
    uint32,
    uint64,
    uintc,
    uintp,
    ulong,
    ulonglong,
    ushort,
    void,
)

# `__version__` is the Numba release whose public API ember implements: code written for Numba
# checks `numba.__version__` (awkward refuses a Numba older than 0.50, other packages skip
# features below some release), and `import ember as numba` must pass those checks. ember's own
# release, the package's version, is `ember_version`.
__version__ = "0.68.0"
ember_version = "0.1.0"
_VersionInfo = namedtuple(  # Numba's `version_info` fields
    "version_info", "major minor patch short full string tuple git_revision"
)
version_info = _VersionInfo(0, 68, 0, (0, 68), (0, 68, 0), __version__, ("0", "68", "0"), None)


def vectorize(*args, **kwargs):
    """`@vectorize`: a scalar kernel as a NumPy ufunc (see ember.ufuncs.vectorize)."""
    from ember.ufuncs.vectorize import vectorize as _vectorize

    return _vectorize(*args, **kwargs)


def guvectorize(*args, **kwargs):
    """`@guvectorize`: a kernel over sub-arrays as a generalized ufunc (ember.ufuncs)."""
    from ember.ufuncs.gufunc import guvectorize as _guvectorize

    return _guvectorize(*args, **kwargs)


_SUBMODULES = {"core", "cpython", "typed", "extending", "experimental", "np", "cuda"}


def __getattr__(name: str) -> Any:
    """`ember.core`, `ember.typed`, ... load on first use (import ember stays fast)."""
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"ember.{name}")
    if name == "bool":  # Numba's `numba.bool`; looked up here so this module keeps the builtin
        return types.boolean
    if name in ("gdb", "gdb_breakpoint", "gdb_init"):
        raise AttributeError(
            f"ember.{name} does not exist: ember has no gdb integration (set "
            "EMBER_DEBUGINFO / debug=True and attach a debugger to the process instead)"
        )
    raise AttributeError(f"module 'ember' has no attribute {name!r}")


def jitclass(*args: Any, **kwargs: Any) -> Any:
    """`@jitclass(spec)` (Numba's older `numba.jitclass`; see ember.experimental.jitclass)."""
    from ember.jitclasses import jitclass as _jitclass

    return _jitclass(*args, **kwargs)


def typeof(value: Any) -> types.Type:
    """The ember type of a Python value (as compiled code would see it)."""
    from ember.dispatcher.typeof import typeof as _typeof

    return _typeof(value)


def cfunc(sig: Any, **options: Any) -> Any:
    """`@cfunc("float64(float64)")`: a C function pointer (`.address`, `.ctypes`) to compiled
    code, for C libraries and SciPy's LowLevelCallable."""
    from ember.dispatcher.cfunc import cfunc as make_cfunc

    return make_cfunc(sig, **options)


def compile_report(html: bool = False) -> Any:
    """Per compiled function and signature: each compiler pass's time, the machine code size
    and whether it was cached, as a table (a bar chart with `html=True`); ember.annotate."""
    from ember.annotate.report import compile_report as _compile_report

    return _compile_report(html)


def from_dtype(dtype: Any) -> types.Type:
    """The ember scalar type of a NumPy dtype (`from_dtype(np.dtype('f4'))` is `float32`)."""
    import numpy as np

    from ember.library.numpy.support import from_numpy_dtype

    return from_numpy_dtype(np.dtype(dtype))


__all__ = [
    "carray",
    "cfunc",
    "compile_report",
    "farray",
    "from_dtype",
    "jit",
    "jit_module",
    "jitclass",
    "deferred_type",
    "optional",
    "literal_unroll",
    "literally",
    "njit",
    "objmode",
    "stencil",
    "prange",
    "set_num_threads",
    "get_num_threads",
    "get_thread_id",
    "threading_layer",
    "get_parallel_chunksize",
    "set_parallel_chunksize",
    "parallel_chunksize",
    "pndindex",
    "typeof",
    "vectorize",
    "guvectorize",
    "types",
    "__version__",
    "ember_version",
    "version_info",
]
__all__ += errors.__all__
__all__ += [  # the type names, as `from numba import float64` finds them

    "b1", "bool_", "boolean", "byte", "c8", "c16", "char", "complex64", "complex128", "double",
    "f4", "f8", "float32", "float64", "i1", "i2", "i4", "i8", "int8", "int16", "int32", "int64",
    "int_", "intc", "intp", "long_", "longlong", "none", "short", "size_t", "ssize_t", "u1", "u2",
    "u4", "u8", "uchar", "uint", "uint8", "uint16", "uint32", "uint64", "uintc", "uintp", "ulong",
    "ulonglong", "ushort", "void",
]  # fmt: skip
