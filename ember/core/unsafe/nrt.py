"""Numba's `numba.core.unsafe.nrt.NRT_get_api()`: the address of the runtime's C API table
(laid out as Numba's `NRT_api_functions`, see ember/runtime/nrt.py), for C code that makes or
manages runtime memory blocks (meminfos) that compiled code then owns."""

from __future__ import annotations

from typing import Any

from ember import types
from ember.typing.intrinsics import intrinsic

NO_C_API = (
    "ember ships no C headers for its runtime: declare Numba's NRT_api_functions table "
    "yourself (NRT_get_api() returns its address) or pass data pointers of arrays"
)


@intrinsic
def NRT_get_api(typingctx: Any) -> Any:  # noqa: N802 - Numba's name
    """The address of the runtime's C API table, as a `void *`."""

    def codegen(context, builder, signature, args):
        from ember.runtime import nrt

        return nrt.emit_api_table(builder)

    return types.voidptr(), codegen
