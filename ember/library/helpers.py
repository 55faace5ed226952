"""Library code written in Python and compiled by ember itself, called from lowering.

Where an operation is clearer as Python than as LLVM instructions (CPython's complex power,
correctly rounded `round(x, ndigits)`), the library writes it as a plain function and lowers the
operation to a call of that function, compiled for the operand types.
"""

from __future__ import annotations

from collections.abc import Callable

from ember.typing.signature import Signature

_dispatchers: dict[Callable, object] = {}


def call_helper(context, builder, py_func: Callable, sig: Signature, args: list):
    """Call `py_func`, compiled by ember for `sig.args`, from the function being lowered.

    Helpers compile with error_model='numpy' so that their float operations are the plain IEEE
    ones; a helper raises Python's exceptions itself, where CPython raises them.
    """
    from ember.decorators import njit

    dispatcher = _dispatchers.get(py_func)
    if dispatcher is None:
        dispatcher = _dispatchers[py_func] = njit(error_model="numpy")(py_func)
    compiled = dispatcher.compile(sig.args)
    result = context.call_compiled(builder, compiled, args)
    return context.cast(builder, result, compiled.signature.return_type, sig.return_type)
