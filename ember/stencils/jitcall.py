"""Makes a StencilFunc callable from jitted code: an `@overload` of the StencilFunc object whose
implementation is the stencil function generated for the call's argument types."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ember.extending import overload

if TYPE_CHECKING:
    from ember.stencils.stencilfunc import StencilFunc


def register_jit_call(stencil_func: StencilFunc) -> None:
    """Type `stencil_func(*arrays, out=...)` in jitted code by compiling the generated stencil
    function with the caller's options: under parallel=True its outer loop runs in parallel."""

    @overload(stencil_func)
    def call_stencil(*args, out=None):
        return stencil_func.generated(args, out).function
