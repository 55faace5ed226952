"""Object-mode ufunc kernels (`@vectorize(sigs, forceobj=True)`, likewise `@guvectorize`):
the Python kernel, run by the interpreter, wrapped in a nopython function that calls it through
an objmode block (ember/lowering/objmode.py), so the usual inner loops can drive it.

    @vectorize(['int32(float64)'], forceobj=True)        def kernel(a0):
    def f(a): ...                                  ->        (result,) = <block: f(a0) as int32>(a0)
                                                             return result
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from types import FunctionType
from typing import Any

import numpy as np

from ember import types
from ember.frontend.objmode_blocks import ObjModeBlock
from ember.ir.nodes import Loc
from ember.library.numpy.support import numpy_dtype
from ember.typing.signature import Signature

_serial = itertools.count()


def wants_object_mode(options: dict) -> bool:
    """Numba's rule: `forceobj=True` runs the kernel as Python (nopython=False alone does not:
    Numba 0.59+ compiles such kernels in nopython mode)."""
    if options.get("forceobj") and options.get("nopython"):
        raise ValueError("Only one of 'nopython' or 'forceobj' can be True.")
    return bool(options.get("forceobj"))


def object_mode_kernel(py_func: Callable, sig: Signature, elementwise: bool) -> FunctionType:
    """A nopython function of `sig.args` that calls `py_func` as Python: an elementwise kernel
    returns its result converted to `sig.return_type` (as NumPy's casts: 1.5 -> int 1), a
    gufunc kernel returns nothing (its sub-array arguments share memory with the operands)."""
    if elementwise and sig.return_type is None:
        raise TypeError("return type must be specified for object mode")
    params = [f"a{k}" for k in range(len(sig.args))]
    if elementwise:
        convert = _converter(sig.return_type)
        outputs = {"result": sig.return_type}
        passed = params

        def run(*args: Any) -> tuple:
            return (convert(py_func(*args)),)
    else:
        # sub-arrays cross as (address, shape, strides): views of the operands' memory that
        # live only during the call, which the objmode boxing (owned arrays only) cannot make
        outputs = {}
        is_array = [isinstance(t, types.Array) for t in sig.args]
        passed = [f"{p}.ctypes.data, {p}.shape, {p}.strides" if array else p
                  for p, array in zip(params, is_array)]  # fmt: skip
        views = [_view_maker(t) if array else None for t, array in zip(sig.args, is_array)]

        def run(*flat: Any) -> tuple:
            args, position = [], 0
            for make in views:
                if make is None:
                    args.append(flat[position])
                    position += 1
                else:
                    args.append(make(*flat[position : position + 3]))
                    position += 3
            py_func(*args)
            return ()

    code = py_func.__code__
    loc = Loc(code.co_filename, code.co_firstlineno)
    run.__qualname__ = f"{py_func.__qualname__}.<object-mode kernel>"
    count = len(params) + 2 * sum(isinstance(t, types.Array) for t in sig.args)
    block = ObjModeBlock(run, tuple(f"v{k}" for k in range(count)), outputs, loc)
    serial = next(_serial)
    block_name = f"__ember_object_kernel_{serial}"
    call = f"{block_name}({', '.join(passed)})"
    body = f"    (result,) = {call}\n    return result\n" if elementwise else f"    {call}\n"
    namespace: dict[str, Any] = {block_name: block}
    exec(f"def kernel({', '.join(params)}):\n{body}", namespace)  # noqa: S102
    kernel = namespace["kernel"]
    kernel.__name__ = py_func.__name__
    kernel.__qualname__ = f"<object-mode kernel {py_func.__qualname__} #{serial}>"
    kernel.__module__ = py_func.__module__
    _register(block, kernel)
    return kernel


def _converter(typ: types.Type) -> Callable[[Any], Any]:
    """The kernel's result as `typ` (NumPy's conversion: 1.5 -> int32 1); None, which NumPy
    would turn into NaN, is a TypeError as in Numba."""
    scalar_type = numpy_dtype(typ).type

    def convert(value: Any) -> Any:
        if value is None:
            raise TypeError(f"the object-mode kernel returned None where {typ} was declared")
        return scalar_type(value)

    return convert


def _view_maker(typ: types.Array) -> Callable[[int, tuple, tuple], np.ndarray]:
    """(address, shape, strides) -> a writable ndarray of `typ`'s dtype over that memory."""
    typestr = numpy_dtype(typ.dtype).str

    def make(address: int, shape: tuple, strides: tuple) -> np.ndarray:
        interface = {"version": 3, "typestr": typestr, "data": (address, False),
                     "shape": shape, "strides": strides}  # fmt: skip
        return np.asarray(_RawMemory(interface))

    return make


class _RawMemory:
    __slots__ = ("__array_interface__",)

    def __init__(self, interface: dict) -> None:
        self.__array_interface__ = interface


def _register(block: ObjModeBlock, owner: FunctionType) -> None:
    from ember.lowering.objmode import register_blocks

    register_blocks([block], owner)
