"""Calls of `@vectorize` ufuncs and DUFuncs from jitted code: registered with ember's NumPy
ufunc machinery (ember/library/numpy/ufuncs.py), so they broadcast, take `out=`, pick NumPy's
loop and fuse into array expressions; each element runs the kernel, inlined.
"""

from __future__ import annotations

from typing import Any

from ember import types
from ember.library.numpy import ufuncs as numpy_ufuncs
from ember.typing.signature import Signature
from ember.ufuncs.kernels import LoopTable


def declare_function_type(key: Any) -> None:
    """`ember.typeof(key)` (and compiled code seeing it as a global) gives Function(key)."""
    key.__dict__["_ember_type_"] = types.Function(key)


def register_ufunc(key: Any, loops: LoopTable) -> None:
    """Make `key` (an np.ufunc or a DUFunc) typable and callable in jitted code."""
    declare_function_type(key)

    def kernel(context, builder, loop, args):
        if loops.object_mode:  # the Python kernel, declared to return the loop's type
            sig = Signature(loop.out_type, tuple(loop.in_types))
            result = loops.compile_kernel(sig, elementwise=True)
        else:
            result = loops.dispatcher.compile(tuple(loop.in_types))
        value = context.call_compiled(builder, result, args)
        return context.cast(builder, value, result.signature.return_type, loop.out_type)

    numpy_ufuncs.kernel(key)(kernel)
    numpy_ufuncs.register_ufunc_call(key)
    numpy_ufuncs.declare_loops(key, lambda operand_types: _datetime_loop(loops, operand_types))


def _datetime_loop(loops: LoopTable, operand_types: tuple) -> tuple | None:
    """(input types, output type) of the first signature naming the units of the operands'
    datetime64 / timedelta64 types (NumPy's loop has no unit: it cannot choose), the other
    operands converting to its numbers safely; None without datetime operands."""
    elements = [
        types.unliteral(t.dtype if isinstance(t, types.Array) else t) for t in operand_types
    ]
    datetimes = numpy_ufuncs.DATETIME_TYPES
    if not any(isinstance(t, datetimes) for t in elements):
        return None
    for sig in loops.signatures:
        if len(sig.args) == len(elements) and all(
            given == wanted
            if isinstance(given, datetimes) or isinstance(wanted, datetimes)
            else _safely(given, wanted)
            for given, wanted in zip(elements, sig.args)
        ):
            return tuple(sig.args), sig.return_type
    return None


def _safely(given: types.Type, wanted: types.Type) -> bool:
    import numpy as np

    from ember.library.numpy.support import numpy_dtype

    try:
        return np.can_cast(numpy_dtype(given), numpy_dtype(wanted), "safe")
    except (TypeError, ValueError, NotImplementedError):
        return False
