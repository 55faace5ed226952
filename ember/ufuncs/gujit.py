"""Calls of `@guvectorize` gufuncs from jitted code: an `@overload` whose implementation is
Python source generated for the call's argument types (loops over the broadcast loop
dimensions, sub-array views, the kernel called on them), compiled by ember like any function.

For `f(x, y)` with layout '(n),()->(n)', x a 2-d float64 array and y a float:

    def gufunc_call(a0, a1):
        d0 = 1
        if a0.shape[0] != 1:
            d0 = broadcast(d0, a0.shape[0])
        c_n = a0.shape[1]
        a2 = np.empty((d0, c_n), np.float64)
        for i0 in range(d0):
            kernel(a0[i0 if a0.shape[0] != 1 else 0], a1, a2[i0])
        return a2
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember import types
from ember.decorators import njit
from ember.errors import TypingError, UnsupportedError
from ember.extending import overload
from ember.library.numpy.support import numpy_dtype
from ember.typing.signature import Signature
from ember.ufuncs.gufunc import GeneralizedLoops


@njit
def broadcast_dimension(current, size):
    if current != 1 and current != size:
        raise ValueError(
            "Loop and array shapes are incompatible: gufunc operands could not be broadcast "
            "together (loop dimensions)"
        )
    return size


def register_gufunc_call(key: Any, loops: GeneralizedLoops, choose_loop) -> None:
    """Make `key` (a gufunc or GUFunc) callable in jitted code; `choose_loop(arg dtypes)`
    returns the index in `loops` of the loop NumPy would use (compiling it for a lazy GUFunc;
    the dtypes of outputs not passed are None)."""
    cache: dict[tuple, Any] = {}

    @overload(key)
    def call_gufunc(*args):
        arg_types = tuple(types.unliteral(a) for a in args)
        found = cache.get(arg_types)
        if found is None:
            found = cache[arg_types] = _generate(loops, choose_loop, arg_types)
        return found


def _operand_dtype(typ: types.Type) -> np.dtype:
    if isinstance(typ, types.Array):
        return numpy_dtype(typ.dtype)
    if isinstance(typ, (types.Boolean, types.Integer, types.Float, types.Complex)):
        return numpy_dtype(typ)
    raise TypingError(f"gufunc operands are arrays or numbers, not {typ}")


def _generate(loops: GeneralizedLoops, choose_loop, arg_types: tuple):
    layout = loops.layout
    nin, nargs = loops.nin, len(layout.operands)
    name = loops.py_func.__name__
    if len(arg_types) not in (nin, nargs):
        raise TypingError(
            f"gufunc {name} takes {nin} inputs (and optionally its {nargs - nin} outputs), "
            f"not {len(arg_types)} arguments"
        )
    dtypes = [_operand_dtype(t) for t in arg_types] + [None] * (nargs - len(arg_types))
    index = choose_loop(tuple(dtypes))
    if index is None:
        listing = ", ".join(str(t) for t in arg_types)
        raise TypingError(f"gufunc {name} has no loop for ({listing}): its loops are "
                          f"{loops.dtype_tuples}")  # fmt: skip
    loop_dtypes = loops.dtype_tuples[index]
    kernel_types = loops.signatures[index].args
    loop_ndims = []
    for k, typ in enumerate(arg_types):
        ndim = typ.ndim if isinstance(typ, types.Array) else 0
        if ndim < len(layout.operands[k]):
            role, position = ("Input", k) if k < nin else ("Output", k - nin)
            raise TypingError(  # NumPy's message (Numba's tests compare it)
                f"{name}: {role} operand {position} does not have enough dimensions (has "
                f"{ndim}, gufunc core with signature {layout.text} requires "
                f"{len(layout.operands[k])})"
            )
        if k >= nin and (not isinstance(typ, types.Array) or numpy_dtype(typ.dtype)
                         != loop_dtypes[k]):  # fmt: skip
            raise TypingError(
                f"gufunc {name}: output {k - nin + 1} must be an array of {loop_dtypes[k]}, "
                f"not {typ}"
            )
        loop_ndims.append(ndim - len(layout.operands[k]))
    source = _Source(layout, nin, arg_types, loop_ndims, loop_dtypes, kernel_types).build()
    kernel = loops.kernel_for(Signature(types.none, tuple(kernel_types)), elementwise=False)
    namespace = {"np": np, "kernel": kernel, "broadcast": broadcast_dimension}
    exec(compile(source, f"<gufunc {name}>", "exec"), namespace)  # noqa: S102 - generated
    return namespace["gufunc_call"]


class _Source:
    """The generated implementation, line by line."""

    def __init__(self, layout, nin, arg_types, loop_ndims, loop_dtypes, kernel_types):
        self.layout = layout
        self.nin, self.nargs = nin, len(layout.operands)
        self.given = len(arg_types)
        self.arg_types = arg_types
        self.loop_ndim = max(loop_ndims)
        self.loop_ndims = loop_ndims + [self.loop_ndim] * (self.nargs - len(arg_types))
        self.loop_dtypes = loop_dtypes
        self.kernel_types = kernel_types
        self.renamed: set[int] = set()  # inputs converted to the loop's dtype
        self.lines: list[str] = []

    def emit(self, line: str, depth: int = 1) -> None:
        self.lines.append("    " * depth + line)

    def axis(self, k: int, j: int) -> int | None:
        """Operand k's axis for loop dimension j (aligned to the right), if it has one."""
        axis = j - (self.loop_ndim - self.loop_ndims[k])
        return axis if axis >= 0 else None

    def build(self) -> str:
        self.lines = []
        for k in range(self.nin):
            self.cast_input(k)
        params = ", ".join(f"a{k}_given" if k in self.renamed else f"a{k}"
                           for k in range(self.given))  # fmt: skip
        self.lines.insert(0, f"def gufunc_call({params}):")
        self.core_sizes()  # first: a core mismatch is reported as such (NumPy's order)
        for j in range(self.loop_ndim):
            self.emit(f"d{j} = 1")
            for k in range(self.given):
                axis = self.axis(k, j)
                if axis is not None:
                    self.emit(f"if a{k}.shape[{axis}] != 1:")
                    self.emit(f"d{j} = broadcast(d{j}, a{k}.shape[{axis}])", 2)
        for k in range(self.nin, self.given):
            self.check_output_loop_shape(k)
        for k in range(self.given, self.nargs):
            self.allocate_output(k)
        depth = 1
        for j in range(self.loop_ndim):
            self.emit(f"for i{j} in range(d{j}):", depth)
            depth += 1
        views = ", ".join(self.view(k) for k in range(self.nargs))
        self.emit(f"kernel({views})", depth)
        outputs = [f"a{k}" for k in range(self.nin, self.nargs)]
        self.emit(f"return {outputs[0] if len(outputs) == 1 else '(' + ', '.join(outputs) + ',)'}")
        return "\n".join(self.lines) + "\n"

    def cast_input(self, k: int) -> None:
        typ, wanted = self.arg_types[k], self.loop_dtypes[k]
        if _operand_dtype(typ) == wanted:
            return
        if isinstance(typ, types.Array):
            self.emit(f"a{k} = a{k}_given.astype(np.{wanted.name})")
        else:
            self.emit(f"a{k} = np.{wanted.name}(a{k}_given)")
        self.renamed.add(k)

    def core_sizes(self) -> None:
        seen = set()
        for k in range(self.given):
            for position, name in enumerate(self.layout.operands[k]):
                axis = self.loop_ndims[k] + position
                if name not in seen:
                    seen.add(name)
                    self.emit(f"c_{name} = a{k}.shape[{axis}]")
                else:
                    self.emit(f"if a{k}.shape[{axis}] != c_{name}:")
                    message = (
                        "Operand has a mismatch in one of its core dimensions (gufunc core "
                        f"dimension '{name}' of operand {k})"
                    )
                    self.emit(f"raise ValueError({message!r})", 2)
        for k in range(self.given, self.nargs):
            missing = [n for n in self.layout.operands[k] if n not in seen]
            if missing:
                raise TypingError(
                    f"gufunc output dimension {missing[0]!r} is not set by any input: pass the "
                    "output arrays"
                )

    def check_output_loop_shape(self, k: int) -> None:
        """An output passed in is not broadcast: its loop dimensions are the loop's."""
        message = f"Loop and array shapes are incompatible (output operand {k - self.nin})"
        if self.loop_ndims[k] != self.loop_ndim:
            self.emit(f"raise ValueError({message!r})")
            return
        for j in range(self.loop_ndim):
            self.emit(f"if a{k}.shape[{self.axis(k, j)}] != d{j}:")
            self.emit(f"raise ValueError({message!r})", 2)

    def allocate_output(self, k: int) -> None:
        dims = [f"d{j}" for j in range(self.loop_ndim)]
        dims += [f"c_{n}" for n in self.layout.operands[k]]
        if not dims:
            raise UnsupportedError(
                "a gufunc call in jitted code with no loop dimensions and a '()' output: "
                "pass the output array"
            )
        shape = "(" + ", ".join(dims) + ",)"
        self.emit(f"a{k} = np.empty({shape}, np.{self.loop_dtypes[k].name})")

    def view(self, k: int) -> str:
        """Operand k at the current loop index: a sub-array view, a 1-element view for a
        '()' output, or the scalar of a '()' input."""
        indices = []
        for j in range(self.loop_ndim):
            axis = self.axis(k, j)
            if axis is not None:
                indices.append(f"i{j} if a{k}.shape[{axis}] != 1 else 0")
        scalar_core = not self.layout.operands[k]
        wants_array = isinstance(self.kernel_types[k], types.Array)
        if scalar_core and wants_array:
            if not indices:
                raise UnsupportedError(
                    "a gufunc '()' operand without loop dimensions in jitted code"
                )
            last = indices.pop()
            indices.append(f"({last}):({last}) + 1")
        if not indices:
            return f"a{k}"
        return f"a{k}[{', '.join(indices)}]"
