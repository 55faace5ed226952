"""Generates a stencil function for one set of argument types: Python source holding the kernel
with every relative index made absolute (`a[i0 - 1, i1]`) and a loop nest over the interior
that stores the kernel's value in the output, compiled with ember's own njit."""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import itertools
import linecache
from collections.abc import Iterable
from dataclasses import dataclass
from types import FunctionType
from typing import Any

import numpy as np

from ember import config, types
from ember.errors import NumbaValueError, StencilError
from ember.library.numpy.support import numpy_dtype
from ember.stencils.kernel import (
    Kernel,
    Neighborhood,
    constant_integer,
    index_components,
    subscripted_name,
)

# Globals of the generated source; the underscore prefix keeps them apart from the kernel's.
_NUMPY, _CVAL, _DTYPE = "_stencil_np", "_stencil_cval", "_stencil_dtype"
_source_numbers = itertools.count()


@dataclass(frozen=True)
class StencilTypes:
    """The argument types a stencil function is generated for."""

    args: tuple[types.Type, ...]
    out: types.Array | None
    arrays: tuple[str, ...]  # the relatively indexed parameters that are arrays
    neighborhood: Neighborhood
    run_time_offsets: int = 0  # index offsets passed after the bounds (one per dimension)


@dataclass(frozen=True)
class GeneratedStencil:
    """One generated stencil function: its source, its Python function (which jitted callers
    compile as an overload implementation) and the element type of the output."""

    source: str
    function: FunctionType
    element: types.Type

    @functools.cached_property
    def dispatcher(self) -> Any:
        """The function compiled for calls from Python."""
        from ember.decorators import njit

        return njit(self.function)


def generate_stencil(kernel: Kernel, sig: StencilTypes, cval: Any | None) -> GeneratedStencil:
    """Generate and type the stencil function for `sig`; `cval` None (not given) fills the
    border with zeros of the output's type."""
    ndim = len(sig.neighborhood)
    kernel_name, function_name, *index_names = fresh_names(
        kernel.identifiers,
        [f"{kernel.name}_kernel", f"{kernel.name}_stencil"] + [f"i{dim}" for dim in range(ndim)],
    )
    title = f"<stencil {kernel.name}({', '.join(map(str, sig.args))})>"
    namespace = _kernel_namespace(kernel)
    kernel_source = absolute_kernel_source(kernel, sig.arrays, index_names, kernel_name)
    _execute(kernel_source, title, namespace)
    from ember.decorators import njit

    kernel_at = namespace[kernel_name] = njit(namespace[kernel_name])
    element = kernel_at.compile((*sig.args, *[types.int64] * ndim)).signature.return_type
    zero_dim = isinstance(element, types.Array) and element.ndim == 0
    element = element.dtype if zero_dim else element  # a 0-d array gives its one element
    _check_element(kernel, element)
    loop_source = loop_nest_source(
        kernel, sig, index_names, kernel_name, function_name, cval is not None, zero_dim
    )
    source = f"{kernel_source}\n\n{loop_source}"
    if config.DUMP_STENCIL:
        print(f"{title.center(80, '-')}\n{source}\n{'-' * 80}")
    _execute(loop_source, title, namespace)
    if sig.out is not None:
        check_out_type(kernel, sig.out, element, ndim)
    if cval is not None:
        check_cval(kernel, cval, element)
    fill = 0 if cval is None else cval
    from ember.parallel.api import stencil_prange

    namespace.update({_NUMPY: np, _CVAL: fill, _DTYPE: numpy_dtype(element)})
    # `range` in the generated source is a range that parallel=True callers run in parallel
    namespace["range"] = stencil_prange
    return GeneratedStencil(source, namespace[function_name], element)


# ------------------------------------------------------------------ names and source


def fresh_names(taken: Iterable[str], wanted: list[str]) -> list[str]:
    """`wanted`, each lengthened with underscores until it differs from every `taken` name."""
    taken = set(taken)
    chosen = []
    for name in wanted:
        while name in taken:
            name += "_"
        taken.add(name)
        chosen.append(name)
    return chosen


def absolute_kernel_source(
    kernel: Kernel, arrays: tuple[str, ...], index_names: list[str], name: str
) -> str:
    """The kernel as a function of the loop indices too, with `a[-1, 0]` read as
    `a[i0 - 1, i1]` for every relatively indexed array."""
    definition = copy.deepcopy(kernel.definition)
    definition.name = name
    definition.args.args += [ast.arg(index) for index in index_names]
    _AbsoluteIndices(set(arrays), index_names).visit(definition)
    return ast.unparse(ast.fix_missing_locations(definition))


class _AbsoluteIndices(ast.NodeTransformer):
    """Adds the loop index of each dimension to every component of a relative index."""

    def __init__(self, arrays: set[str], index_names: list[str]) -> None:
        self.arrays = arrays
        self.index_names = index_names

    def visit_Subscript(self, node: ast.Subscript) -> ast.Subscript:
        self.generic_visit(node)  # an index may itself read an array: b[a[0]]
        if subscripted_name(node) not in self.arrays:
            return node
        components = [
            _shifted(index_name, component)
            for index_name, component in zip(self.index_names, index_components(node))
        ]
        if len(components) == 1:
            node.slice = components[0]
        else:
            node.slice = ast.Tuple(components, ast.Load())
        return node


def _shifted(index_name: str, component: ast.expr) -> ast.expr:
    """`i0 + component`, written `i0`, `i0 + 1` or `i0 - 1` for constants; a relative slice
    `lo:hi` becomes `i0 + lo:i0 + hi`."""
    if isinstance(component, ast.Slice):
        return ast.Slice(
            _shifted(index_name, component.lower), _shifted(index_name, component.upper)
        )
    loop_index = ast.Name(index_name, ast.Load())
    offset = constant_integer(component)
    if offset == 0:
        return loop_index
    if offset is None:
        return ast.BinOp(loop_index, ast.Add(), component)
    operator = ast.Add() if offset > 0 else ast.Sub()
    return ast.BinOp(loop_index, operator, ast.Constant(abs(offset)))


def loop_nest_source(
    kernel: Kernel,
    sig: StencilTypes,
    index_names: list[str],
    kernel_name: str,
    name: str,
    has_cval: bool = False,
    zero_dim: bool = False,
) -> str:
    """The stencil function: shape checks, the output (new, filled with cval, or `out`, which
    is filled with cval too when one was given, as Numba does), then one loop per dimension
    over the points where the whole neighborhood is inside the input."""
    first = kernel.params[0]
    bounds = run_time_bound_names(kernel, sig.neighborhood)
    offsets = fresh_names(
        kernel.identifiers, [f"_stencil_off{dim}" for dim in range(sig.run_time_offsets)]
    )
    params = [*kernel.params, *bounds, *offsets, *(["out"] if sig.out is not None else [])]
    lines = [f"def {name}({', '.join(params)}):"]
    for array in sig.arrays:
        if array != first:
            lines += _shape_check(array, first, f"stencil input '{array}'")
    if sig.out is not None:
        lines += _shape_check("out", first, "the out array")
        if has_cval:
            lines.append(f"    out[...] = {_CVAL}")
    else:
        lines.append(f"    out = {_NUMPY}.full({first}.shape, {_CVAL}, {_DTYPE})")
    lines += _offset_checks(kernel, sig, bounds, offsets)
    indent = "    "
    for dim, (index_name, (low, high)) in enumerate(zip(index_names, sig.neighborhood)):
        if low is None:  # bounds given when the stencil runs
            low_name, high_name = bounds[2 * dim : 2 * dim + 2]
            start, stop = f"max(0, -{low_name})", f"{first}.shape[{dim}] - max({high_name}, 0)"
        else:
            start, stop = max(0, -low), f"{first}.shape[{dim}]" + (f" - {high}" if high > 0 else "")
        lines.append(f"{indent}for {index_name} in range({start}, {stop}):")
        indent += "    "
    point = ", ".join(index_names)
    # run-time index offsets move the point the kernel reads around, not the one written
    read_at = [f"{index} + {offset}" for index, offset in zip(index_names, offsets)] or index_names
    call = f"{kernel_name}({', '.join([*kernel.params, *read_at])})" + ("[()]" if zero_dim else "")
    lines.append(f"{indent}out[{point}] = {call}")
    lines.append("    return out")
    return "\n".join(lines)


def _offset_checks(kernel: Kernel, sig: StencilTypes, bounds: list, offsets: list) -> list:
    """Lines refusing run-time index offsets that move the kernel's constant indices out of
    the neighborhood (the loops keep only the neighborhood inside the input)."""
    lines = []
    indices = [index for index in kernel.indices if index.array in sig.arrays]
    for dim, offset in enumerate(offsets):
        known = [index.offsets[dim] for index in indices if index.offsets[dim] is not None]
        if not known:
            continue
        low, high = sig.neighborhood[dim]
        if low is None:
            low, high = bounds[2 * dim : 2 * dim + 2]
        message = (
            f"index_offsets move the indices of stencil kernel {kernel.name} out of its "
            f"neighborhood in dimension {dim}: pass offsets that keep every index inside it"
        )
        lines.append(f"    if {offset} + {min(known)} < {low} or {offset} + {max(known)} > {high}:")
        lines.append(f"        raise ValueError({message!r})")
    return lines


def run_time_bound_names(kernel: Kernel, neighborhood) -> list[str]:
    """The extra parameters (low, high per dimension) of a stencil function whose
    neighborhood is given when it runs; [] for a constant neighborhood."""
    if not neighborhood or neighborhood[0][0] is not None:
        return []
    wanted = [f"_stencil_{end}{dim}" for dim in range(len(neighborhood)) for end in ("lo", "hi")]
    return fresh_names(kernel.identifiers, wanted)


def _shape_check(array: str, first: str, what: str) -> list[str]:
    message = f"{what} has a different shape from '{first}': pass arrays of the same shape"
    return [f"    if {array}.shape != {first}.shape:", f"        raise ValueError({message!r})"]


def _kernel_namespace(kernel: Kernel) -> dict[str, Any]:
    """The kernel's globals and closure variables: what its names refer to."""
    namespace = dict(kernel.func.__globals__)
    namespace.update(inspect.getclosurevars(kernel.func).nonlocals)
    return namespace


def _execute(source: str, filename: str, namespace: dict[str, Any]) -> None:
    """Run the generated source; linecache keeps it so that errors can quote its lines."""
    filename = f"{filename[:-1]} #{next(_source_numbers)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - source generated here


# ------------------------------------------------------------------ type checks


def _check_element(kernel: Kernel, element: types.Type) -> None:
    if not isinstance(element, types.Number):
        raise StencilError(
            f"stencil kernel {kernel.name} returns {element}, but a stencil kernel must "
            "return a scalar number (the value of the output at the current point)"
        )


class CvalTypeError(StencilError, NumbaValueError):
    """A cval that cannot convert to the kernel's return type: a StencilError (a ValueError)
    that is also Numba's NumbaValueError for it."""


def check_cval(kernel: Kernel, cval: Any, element: types.Type) -> None:
    """cval fills the border of an output of the kernel's return type: it must convert to
    that type (as Numba, a float cval converts to an integer output; a complex one only to a
    complex output)."""
    complex_into_real = isinstance(cval, complex) and not isinstance(element, types.Complex)
    if complex_into_real or not isinstance(cval, (int, float, complex, np.number)):
        raise CvalTypeError(
            f"cval type does not match stencil return type. cval={cval!r} does not match the "
            f"return type {element} of stencil kernel {kernel.name}: pass a cval of that kind "
            f"(e.g. cval={_example(element)})"
        )


def check_out_type(kernel: Kernel, out: types.Type, element: types.Type, ndim: int) -> None:
    if not isinstance(out, types.Array) or out.ndim != ndim:
        raise StencilError(
            f"out must be a {ndim}-d array like the input of stencil {kernel.name}, not {out}"
        )
    if not np.can_cast(numpy_dtype(element), numpy_dtype(out.dtype), "same_kind"):
        raise StencilError(
            f"out has dtype {out.dtype} but stencil kernel {kernel.name} returns {element}: "
            f"pass an out array of dtype {numpy_dtype(element)}"
        )


def _example(element: types.Type) -> str:
    return repr(numpy_dtype(element).type(0).item())
