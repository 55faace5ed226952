"""`arrays_may_overlap(a, b)`: True when two arrays' memory extents intersect (jitted code
only; the parallel slice-assignment template uses it to keep overlapping copies serial)."""

from __future__ import annotations

from llvmlite import ir as llvm

from ember import types
from ember.lowering import arrays as arr
from ember.lowering import arrays_kernels as kernels
from ember.lowering.registry import lower_builtin
from ember.typing.signature import signature
from ember.typing.templates import registry


def arrays_may_overlap(a, b) -> bool:
    """Python fallback: NumPy's own bound check."""
    import numpy as np

    return bool(np.may_share_memory(a, b))


@registry.typer(arrays_may_overlap)
def _type_may_overlap(args, kws):
    if len(args) == 2 and not kws and all(isinstance(a, types.Array) for a in args):
        return signature(types.boolean, *args)
    return None


@lower_builtin(arrays_may_overlap, types.Array, types.Array)
def _lower_may_overlap(context, builder, sig, args) -> llvm.Value:
    fields = [arr.unpack(builder, typ, value) for typ, value in zip(sig.args, args)]
    return kernels.may_overlap(builder, *fields)
