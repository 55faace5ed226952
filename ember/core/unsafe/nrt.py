"""Numba's `numba.core.unsafe.nrt.NRT_get_api()`: the address of Numba's C table of runtime
functions, for C code that allocates runtime memory. ember's runtime has no such C table, so
the intrinsic is a clear UnsupportedError when compiled."""

from __future__ import annotations

from typing import Any

from ember.errors import UnsupportedError
from ember.typing.intrinsics import intrinsic

NO_C_API = (
    "ember's runtime has no C API table (Numba's NRT_api_functions): C code cannot allocate "
    "ember arrays; allocate them in compiled code (np.empty) and pass their data pointer"
)


@intrinsic
def NRT_get_api(typingctx: Any) -> Any:  # noqa: N802 - Numba's name
    """Not available in ember (see the module docstring)."""
    raise UnsupportedError(NO_C_API)
