"""`@guvectorize` (Numba's): a kernel over sub-arrays, described by a layout such as
'(n),()->(n)', becomes a genuine generalized `np.ufunc`; without signatures, a GUFunc that
compiles a loop for each new combination of dtypes (outputs must then be passed in).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ember import types
from ember.errors import EmberError
from ember.library.numpy.support import from_numpy_dtype
from ember.typing.signature import Signature
from ember.ufuncs.capi import identity_code, set_writable_inputs
from ember.ufuncs.kernels import (
    GrowingUFunc,
    LoopTable,
    check_arity,
    check_options,
    dtype_of,
    is_scalar,
    parse_signatures,
    positional_parameters,
)
from ember.ufuncs.loops import Operand, build_inner_loop

_DIMENSION = r"\s*\w+\s*\??\s*"
_GROUP = rf"\(\s*(?:{_DIMENSION}(?:,{_DIMENSION})*)?\)"
_GROUPS = rf"\s*{_GROUP}\s*(?:,\s*{_GROUP}\s*)*"
# no '->': every operand is an input (the kernel writes into some of them: writable_args=)
_LAYOUT = re.compile(rf"^(?P<inputs>{_GROUPS})(?:->(?P<outputs>{_GROUPS}))?$")


@dataclass(frozen=True)
class Layout:
    """A parsed gufunc layout: the core dimension names of each input and output."""

    text: str
    inputs: tuple[tuple[str, ...], ...]
    outputs: tuple[tuple[str, ...], ...]

    @property
    def operands(self) -> tuple[tuple[str, ...], ...]:
        return self.inputs + self.outputs

    @property
    def dimension_names(self) -> list[str]:
        """Distinct core dimension names in order of first appearance (NumPy's numbering)."""
        return list(dict.fromkeys(name for dims in self.operands for name in dims))

    def operand_layouts(self, arg_types: tuple) -> list[Operand]:
        index = {name: k for k, name in enumerate(self.dimension_names)}
        step_base = len(self.operands)
        operands = []
        for typ, dims in zip(arg_types, self.operands):
            operands.append(Operand(typ, tuple(index[d] for d in dims), step_base))
            step_base += len(dims)
        return operands


def parse_layout(text: str) -> Layout:
    """Parse '(m,n),(n)->(m)'; ValueError naming the problem when it does not parse."""
    if not isinstance(text, str):
        raise TypeError(f"a gufunc layout is a string such as '(n),()->(n)', not {text!r}")
    match = _LAYOUT.match(text)
    if match is None:
        raise ValueError(
            f"invalid gufunc layout {text!r} (bad token in signature): write the core "
            "dimensions of each input, then '->' and those of each output, e.g. "
            "'(m,n),(n)->(m)' or '(n),()->()' (or only inputs, written in place: '(n),()')"
        )

    def groups(part: str) -> tuple[tuple[str, ...], ...]:
        return tuple(
            tuple(name.strip().rstrip("?").strip() for name in group.split(",") if name.strip())
            for group in re.findall(r"\(([^)]*)\)", part)
        )

    outputs = groups(match["outputs"]) if match["outputs"] is not None else ()
    # kept as written: the ufunc's signature, which NumPy's messages quote
    return Layout(text.strip(), groups(match["inputs"]), outputs)


def guvectorize(*args: Any, **options: Any) -> Callable:
    """`@guvectorize(['void(float64[:], float64, float64[:])'], '(n),()->(n)')` builds a
    generalized np.ufunc; `@guvectorize('(n)->()')` a GUFunc compiling per dtypes."""
    if len(args) == 1:
        signatures, layout_text = [], args[0]
    elif len(args) == 2:
        signatures, layout_text = args
        signatures = parse_signatures(signatures) if signatures else []
    else:
        raise TypeError("guvectorize takes ([signatures,] layout, **options)")
    layout = parse_layout(layout_text)
    check_options(options, "@guvectorize")
    _check_output_symbols(layout)
    identity_code(options.get("identity"))  # a bad identity is refused first (Numba)

    def decorate(py_func: Callable) -> Any:
        py_func = getattr(py_func, "py_func", py_func)  # a jitted function: its Python one
        _check_layout_arity(py_func, layout)
        if not signatures:
            return GUFunc(py_func, layout, options)
        loops = GeneralizedLoops(py_func, layout, options)
        for sig in signatures:
            loops.compile(sig)
        ufunc = loops.make()
        _register_jit_call(ufunc, loops, loops.select_loop)
        return ufunc

    return decorate


def _register_jit_call(key: Any, loops: GeneralizedLoops, choose_loop: Callable) -> None:
    from ember.ufuncs.gujit import register_gufunc_call
    from ember.ufuncs.jitcall import declare_function_type

    declare_function_type(key)
    register_gufunc_call(key, loops, choose_loop)


def _check_output_symbols(layout: Layout) -> None:
    """Every core dimension of an output is one of an input's (Numba's rule and message)."""
    known = {name for dims in layout.inputs for name in dims}
    missing = sorted({name for dims in layout.outputs for name in dims} - known)
    if missing:
        raise NameError(f"undefined output symbols: {','.join(missing)}")


def _check_layout_arity(py_func: Callable, layout: Layout) -> None:
    count = len(positional_parameters(py_func))
    if count != len(layout.operands):
        raise TypeError(
            f"layout {layout.text!r} has {len(layout.operands)} operands but function "
            f"{py_func.__name__} takes {count} arguments"
        )


class GeneralizedLoops(LoopTable):
    """The loops of a gufunc: one kernel call per outer index, sub-arrays as array views."""

    def __init__(self, py_func: Callable, layout: Layout, options: dict) -> None:
        parallel = check_options(options, "@guvectorize")
        super().__init__(py_func, options, parallel)
        self.layout = layout
        self.nin = len(layout.inputs)
        self.writable = _writable_indices(py_func, options.get("writable_args", ()), self.nin)

    def compile(self, sig: Signature) -> tuple[np.dtype, ...]:
        check_arity(self.py_func, sig)
        arg_types = tuple(self._kernel_type(k, t) for k, t in enumerate(sig.args))
        if sig.return_type not in (None, types.none):
            raise TypeError(f"@guvectorize kernels return nothing: write void(...), not {sig}")
        operands = self.layout.operand_layouts(arg_types)
        variant = f"gufunc loop {self.layout.text}, parallel={self.parallel}"
        cached = self.cached_loop(arg_types, types.none, variant)
        if cached is not None:
            loop = cached[0]
        else:
            result = self.compile_kernel(Signature(types.none, arg_types), elementwise=False)
            cores = len(self.layout.dimension_names)

            def build(name: str | None):
                return build_inner_loop(
                    result, operands, self.nin, False, self.parallel, cores, name=name
                )

            loop = self.new_loop(result, arg_types, types.none, variant, build)
        dtypes = tuple(dtype_of(t) for t in arg_types)
        self.add_loop(loop, dtypes, Signature(types.none, arg_types))
        return dtypes

    def _kernel_type(self, index: int, typ: types.Type) -> types.Type:
        """The type the kernel sees for operand `index`: an array of its core ndim (any
        strides), or a scalar for a `()` input."""
        dims = self.layout.operands[index]
        where = f"argument {index + 1} ({typ}) of layout {self.layout.text!r}"
        # Numba's exact messages for the two common mistakes (its tests compare them)
        if is_scalar(typ):
            if dims or index >= self.nin:
                raise TypeError(f"scalar type {typ} given for non scalar argument #{index + 1}")
            return typ
        if not isinstance(typ, types.Array):
            raise TypeError(f"{where}: expected an array or scalar type")
        if typ.ndim != len(dims) and not (typ.ndim == 1 and not dims):
            raise TypeError(f"type and shape signature mismatch for arg #{index + 1}")
        return typ.copy(layout="A", readonly=False)

    def select_loop(self, dtypes: tuple) -> int | None:
        """The first loop NumPy's search would take: inputs cast safely, outputs (None when
        not given) of exactly its dtypes."""
        for index, found in enumerate(self.dtype_tuples):
            inputs_fit = all(np.can_cast(d, f, "safe") for d, f in zip(dtypes, found[: self.nin]))
            outputs_fit = all(d is None or d == f for d, f in zip(dtypes[self.nin :],
                                                                    found[self.nin :]))  # fmt: skip
            if inputs_fit and outputs_fit:
                return index
        return None

    def make(self) -> np.ufunc:
        identity = self.options.get("identity")
        ufunc = self.make_ufunc(self.nin, len(self.layout.outputs), identity, self.layout.text)
        if self.writable:
            set_writable_inputs(ufunc, self.writable)
        if self.py_func.__doc__:  # the kernel's own words, as Numba's GUFunc shows them
            ufunc.__dict__["__doc__"] = self.py_func.__doc__
        ufunc.__dict__["_ember_reduce"] = functools.partial(_reduce_gufunc, self)
        return ufunc


class UnknownWritableArgument(ValueError, RuntimeError):
    """`writable_args=` names no parameter: a ValueError that is also the RuntimeError Numba
    raises for it."""


def _writable_indices(py_func: Callable, spec: Any, nin: int) -> tuple[int, ...]:
    """`writable_args=` as input indices: names of parameters or their positions."""
    names = positional_parameters(py_func)
    indices = []
    for item in spec if isinstance(spec, (tuple, list)) else (spec,):
        if isinstance(item, str) and item not in names:
            raise UnknownWritableArgument(
                f"writable_args: {py_func.__name__} has no parameter named {item!r}"
            )
        index = names.index(item) if isinstance(item, str) else item
        if not isinstance(index, int) or not 0 <= index < nin:
            raise ValueError(f"writable_args: {item!r} is not an input of {py_func.__name__}")
        indices.append(index)
    return tuple(indices)


def _reduce_gufunc(loops: GeneralizedLoops, ufunc: np.ufunc) -> tuple:
    from ember.ufuncs.pickling import function_state

    state = function_state(loops.py_func, ufunc)
    return (_rebuild_gufunc, (state, loops.signatures, loops.layout.text, loops.options))


def _rebuild_gufunc(state: tuple, signatures: list, layout: str, options: dict) -> np.ufunc:
    from ember.ufuncs.pickling import bind_self, rebuild_function

    py_func, self_names = rebuild_function(state)
    return bind_self(py_func, self_names, guvectorize(signatures, layout, **options)(py_func))


class GUFunc(GrowingUFunc):
    """A lazy gufunc (Numba's dynamic GUFunc): each call with new dtypes compiles a loop (the
    kernel typed for those dtypes) into `.ufunc`; outputs must be passed in."""

    def __init__(self, py_func: Callable, layout: Layout, options: dict) -> None:
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self._loops = GeneralizedLoops(py_func, layout, options)
        self._ufunc = self._loops.make()
        self._frozen = False
        _register_jit_call(self, self._loops, self._jit_loop)

    ufunc = property(lambda self: self._ufunc, doc="The current generalized np.ufunc.")
    nin = property(lambda self: self._ufunc.nin)
    nout = property(lambda self: self._ufunc.nout)
    nargs = property(lambda self: self._ufunc.nargs)
    ntypes = property(lambda self: self._ufunc.ntypes)
    types = property(lambda self: self._ufunc.types)
    signature = property(lambda self: self._ufunc.signature)
    identity = property(lambda self: self._ufunc.identity)
    is_dynamic = True

    # NumPy's methods, on the loops compiled so far (NumPy raises RuntimeError for a
    # signature with core dimensions)
    def reduce(self, *args: Any, **kws: Any) -> Any:
        return self._ufunc.reduce(*args, **kws)

    def accumulate(self, *args: Any, **kws: Any) -> Any:
        return self._ufunc.accumulate(*args, **kws)

    def reduceat(self, *args: Any, **kws: Any) -> Any:
        return self._ufunc.reduceat(*args, **kws)

    def outer(self, *args: Any, **kws: Any) -> Any:
        return self._ufunc.outer(*args, **kws)

    def at(self, *args: Any, **kws: Any) -> Any:
        return self._ufunc.at(*args, **kws)

    def __repr__(self) -> str:
        return f"<ember.GUFunc '{self.__name__}' {self.signature}>"

    def __reduce__(self) -> tuple:
        from ember.ufuncs.pickling import function_state

        state = function_state(self.py_func, self)
        loops = self._loops
        return (_rebuild_lazy, (state, loops.layout.text, loops.options, loops.signatures))

    def _remake(self) -> Any:
        return self._loops.make()

    def __call__(self, *args: Any, **kws: Any) -> Any:
        given = len(args) + (_count_outputs(kws.get("out")))
        if given < self.nargs:
            raise TypeError(
                f"Too few arguments for function '{self.__name__}'. Note that the pattern "
                "`out = gufunc(Arg1, Arg2, ..., ArgN)` is not allowed. Use "
                "`gufunc(Arg1, Arg2, ..., ArgN, out) instead."
            )
        try:
            return self._ufunc(*args, **kws)
        except TypeError:
            operands = [*args, *_outputs_of(kws.get("out"))]
            if self._frozen or not self._compile_for(operands):
                raise
        return self._ufunc(*args, **kws)

    def _jit_loop(self, dtypes: tuple) -> int | None:
        """The loop for a call from jitted code, compiled for exactly these dtypes when none
        fits (outputs must then be passed)."""
        index = self._loops.select_loop(dtypes)
        if index is None and not self._frozen and all(d is not None for d in dtypes):
            self._compile_dtypes(dtypes)
            index = self._loops.select_loop(dtypes)
        return index

    def _compile_for(self, operands: list) -> bool:
        """Compile for the operands' dtypes (arrays of each operand's core ndim)."""
        try:
            dtypes = [_operand_dtype(value) for value in operands]
        except (TypeError, ValueError):
            return False
        return self._compile_dtypes(dtypes)

    def _compile_dtypes(self, dtypes: list) -> bool:
        try:
            scalars = [from_numpy_dtype(np.dtype(d)) for d in dtypes]
        except (TypeError, ValueError):
            return False
        if tuple(dtypes) in self._loops.dtype_tuples:
            return False
        arg_types = []
        for index, (scalar, dims) in enumerate(zip(scalars, self._loops.layout.operands)):
            is_input = index < self._loops.nin
            if not dims and is_input:
                arg_types.append(scalar)
            else:
                arg_types.append(types.Array(scalar, max(len(dims), 1), "A"))
        try:
            self._add_loop(Signature(types.none, tuple(arg_types)))
        except EmberError as error:
            raise error.with_traceback(None) from None
        return True


def _count_outputs(out: Any) -> int:
    return len(_outputs_of(out))


def _outputs_of(out: Any) -> list:
    if out is None:
        return []
    return list(out) if isinstance(out, tuple) else [out]


def _operand_dtype(value: Any) -> np.dtype:
    dtype = getattr(value, "dtype", None)
    return dtype if isinstance(dtype, np.dtype) else np.asarray(value).dtype


def _rebuild_lazy(state: tuple, layout: str, options: dict, signatures: list) -> GUFunc:
    from ember.ufuncs.pickling import bind_self, rebuild_function

    py_func, self_names = rebuild_function(state)
    gufunc = bind_self(py_func, self_names, GUFunc(py_func, parse_layout(layout), options))
    for sig in signatures:
        gufunc._add_loop(sig)
    return gufunc
