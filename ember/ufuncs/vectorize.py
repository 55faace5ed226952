"""`@vectorize` (Numba's): a scalar kernel becomes a genuine `np.ufunc` with signatures, or a
DUFunc without them, which compiles a loop for each new combination of input dtypes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ember import types
from ember.errors import EmberError, TypingError
from ember.library.numpy.support import from_numpy_dtype
from ember.typing.signature import Signature
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


def vectorize(ftylist_or_function: Any = (), **options: Any) -> Any:
    """`@vectorize(['float64(float64, float64)', ...], identity=0, target='parallel')` builds
    an `np.ufunc`; `@vectorize` or `@vectorize()` builds a DUFunc that compiles on demand."""
    check_options(options, "@vectorize")
    ftylist_or_function = getattr(ftylist_or_function, "py_func", ftylist_or_function)
    if "writable_args" in options:
        raise TypeError("writable_args is an option of @guvectorize, not @vectorize")
    if callable(ftylist_or_function) and not isinstance(ftylist_or_function, (str, list, tuple)):
        return DUFunc(ftylist_or_function, **options)
    signatures = parse_signatures(ftylist_or_function) if ftylist_or_function else []

    def decorate(py_func: Callable) -> Any:
        py_func = getattr(py_func, "py_func", py_func)  # a jitted function: its Python one
        if not signatures:
            return DUFunc(py_func, **options)
        return build_ufunc(py_func, signatures, options)

    return decorate


class ElementwiseLoops(LoopTable):
    """The loops of a `@vectorize` ufunc: one kernel call per element."""

    def __init__(self, py_func: Callable, options: dict, parallel: bool) -> None:
        super().__init__(py_func, options, parallel)
        self.nin = len(positional_parameters(py_func))

    def compile(self, sig: Signature) -> tuple[np.dtype, ...]:
        """Compile the kernel and its loop for `sig` (return type inferred when omitted)."""
        check_arity(self.py_func, sig)
        for typ in sig.args:
            if not _kernel_scalar(typ):
                raise TypeError(f"@vectorize kernels take numbers, not {typ} ({sig})")
        variant = f"ufunc loop, parallel={self.parallel}"
        cached = self.cached_loop(sig.args, sig.return_type, variant)
        if cached is not None:
            loop, kernel_sig = cached
            return_type = _element_type(kernel_sig.return_type)
            operands = [Operand(t) for t in (*sig.args, return_type)]
            dtypes = tuple(dtype_of(op.typ) for op in operands)
            self.add_loop(loop, dtypes, Signature(return_type, sig.args))
            return dtypes
        result = self.compile_kernel(sig, elementwise=True)
        return_type = result.signature.return_type
        return_type = _element_type(result.signature.return_type)
        if not _kernel_scalar(return_type):
            raise TypingError(
                f"@vectorize kernel {self.py_func.__name__}{tuple(map(str, sig.args))} returns "
                f"{return_type}; a ufunc kernel must return one number or boolean"
            )
        operands = [Operand(t) for t in (*sig.args, return_type)]

        def build(name: str | None):
            return build_inner_loop(result, operands, self.nin, True, self.parallel, name=name)

        loop = self.new_loop(result, sig.args, sig.return_type, variant, build)
        dtypes = tuple(dtype_of(op.typ) for op in operands)
        self.add_loop(loop, dtypes, Signature(return_type, sig.args))
        return dtypes


def _kernel_scalar(typ: types.Type) -> bool:
    """A type a @vectorize signature may name: a number, or (as in Numba) a datetime64 or
    timedelta64 one, whose loop NumPy registers for the unitless dtype ('m8', 'M8': NumPy
    keeps no unit in a loop), so it runs for unitless operands only."""
    return is_scalar(typ) or isinstance(typ, (types.NPDatetime, types.NPTimedelta))


def _element_type(return_type: types.Type) -> types.Type:
    """The output element a kernel's result is stored as: an enum member (IntEnum's) as its
    value (held alike, so the kernel's result is stored unchanged)."""
    if isinstance(return_type, types.EnumMember) and is_scalar(return_type.dtype):
        return return_type.dtype
    return return_type


def build_ufunc(py_func: Callable, signatures: list[Signature], options: dict) -> np.ufunc:
    parallel = check_options(options, "@vectorize")
    loops = ElementwiseLoops(py_func, options, parallel)
    for sig in signatures:
        loops.compile(sig)
    ufunc = loops.make_ufunc(loops.nin, 1, options.get("identity"), None)
    ufunc.__dict__["_ember_reduce"] = functools.partial(_reduce_ufunc, loops)
    from ember.ufuncs.jitcall import register_ufunc

    register_ufunc(ufunc, loops)
    return ufunc


def _reduce_ufunc(loops: ElementwiseLoops, ufunc: np.ufunc) -> tuple:
    from ember.ufuncs.pickling import function_state

    state = function_state(loops.py_func, ufunc)
    return (_rebuild_ufunc, (state, loops.signatures, loops.options))


def _rebuild_ufunc(state: tuple, signatures: list, options: dict) -> np.ufunc:
    from ember.ufuncs.pickling import bind_self, rebuild_function

    py_func, self_names = rebuild_function(state)
    return bind_self(py_func, self_names, build_ufunc(py_func, signatures, options))


class DUFunc(GrowingUFunc):
    """A dynamic ufunc (Numba's DUFunc): calls go to `.ufunc`; when NumPy finds no loop for
    the input dtypes, a loop for exactly those dtypes is compiled and the ufunc rebuilt with it
    appended to `types` (unless `disable_compile()` froze it)."""

    _ember_elementwise = True  # array expressions may fuse calls to it

    def __init__(self, py_func: Callable, identity: Any = None, **options: Any) -> None:
        parallel = check_options(options, "@vectorize")
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self._options = {**options, "identity": identity}
        self._identity = identity
        self._loops = ElementwiseLoops(py_func, options, parallel)
        self._frozen = False
        self._ufunc = self._loops.make_ufunc(self._loops.nin, 1, identity, None)
        from ember.ufuncs.jitcall import register_ufunc

        register_ufunc(self, self._loops)

    # ------------------------------------------------------------------ ufunc attributes

    ufunc = property(lambda self: self._ufunc, doc="The current np.ufunc.")
    nin = property(lambda self: self._ufunc.nin)
    nout = property(lambda self: self._ufunc.nout)
    nargs = property(lambda self: self._ufunc.nargs)
    ntypes = property(lambda self: self._ufunc.ntypes)
    types = property(lambda self: self._ufunc.types)
    identity = property(lambda self: self._ufunc.identity)
    signature = property(lambda self: self._ufunc.signature)

    def __repr__(self) -> str:
        return f"<ember.DUFunc '{self.__name__}'>"

    def __reduce__(self) -> tuple:
        from ember.ufuncs.pickling import function_state

        state = function_state(self.py_func, self)
        return (_rebuild_dufunc, (state, self._options, self._loops.signatures, self._frozen))

    # ------------------------------------------------------------------ compilation

    def _remake(self) -> Any:
        return self._loops.make_ufunc(self._loops.nin, 1, self._identity, None)

    def _compile_for(self, dtypes: list, same_output: bool = False) -> bool:
        """Compile the loop for these input dtypes (returning the first one's dtype when
        `same_output`, as reductions need); False when there is nothing to compile (frozen,
        dtypes ember cannot compile, or that loop exists: the error was another)."""
        if self._frozen or len(dtypes) != self.nin:
            return False
        try:
            arg_types = tuple(from_numpy_dtype(np.dtype(d)) for d in dtypes)
        except (TypeError, ValueError):
            return False
        if not all(map(is_scalar, arg_types)):  # strings, records: NumPy's error stands
            return False
        wanted = tuple(map(np.dtype, dtypes))
        for found in self._loops.dtype_tuples:
            if found[: self.nin] == wanted and (not same_output or found[-1] == wanted[0]):
                return False
        return_type = arg_types[0] if same_output else None
        try:
            self._add_loop(Signature(return_type, arg_types))
        except EmberError as error:
            raise error.with_traceback(None) from None
        return True

    def _compile_for_argtys(self, argtys: tuple, return_type: Any = None) -> Signature:
        """Numba's method: compile the loop for these argument types now (the result type
        inferred unless given) and return its signature; an existing loop is kept."""
        if self._frozen:
            raise RuntimeError(f"compilation disabled for {self.__name__}")
        wanted = tuple(argtys)
        for sig in self._loops.signatures:
            if tuple(sig.args) == wanted and return_type in (None, sig.return_type):
                return sig
        self._add_loop(Signature(return_type, wanted))
        return self._loops.signatures[-1]

    def _retry(self, method: Callable, dtypes: Callable, args: tuple, kws: dict,
               same_output: bool = False) -> Any:  # fmt: skip
        """Run `method` (on the current ufunc); on NumPy's TypeError compile for the dtypes
        and run it again."""
        try:
            return method(self._ufunc)(*args, **kws)
        except TypeError:
            try:
                wanted = dtypes(args, kws)
            except (TypeError, ValueError, IndexError):
                wanted = []
            if not self._compile_for(wanted, same_output):
                raise
        return method(self._ufunc)(*args, **kws)

    # ------------------------------------------------------------------ calls

    def __call__(self, *args: Any, **kws: Any) -> Any:
        return self._retry(lambda u: u, self._call_dtypes, args, kws)

    def _call_dtypes(self, args: tuple, kws: dict) -> list:
        if kws.get("dtype") is not None:
            return [np.dtype(kws["dtype"])] * self.nin
        return [_value_dtype(a) for a in args[: self.nin]]

    def _reduce_dtypes(self, args: tuple, kws: dict) -> list:
        dtype = kws.get("dtype")
        if dtype is None and len(args) > 2:
            dtype = args[2]
        return [np.dtype(dtype) if dtype is not None else _value_dtype(args[0])] * self.nin

    def reduce(self, *args: Any, **kws: Any) -> Any:
        return self._retry(lambda u: u.reduce, self._reduce_dtypes, args, kws, True)

    def accumulate(self, *args: Any, **kws: Any) -> Any:
        return self._retry(lambda u: u.accumulate, self._reduce_dtypes, args, kws, True)

    def reduceat(self, *args: Any, **kws: Any) -> Any:
        def dtypes(args, kws):
            dtype = kws.get("dtype", args[3] if len(args) > 3 else None)
            return [np.dtype(dtype) if dtype is not None else _value_dtype(args[0])] * self.nin

        return self._retry(lambda u: u.reduceat, dtypes, args, kws, True)

    def outer(self, *args: Any, **kws: Any) -> Any:
        return self._retry(lambda u: u.outer, self._call_dtypes, args, kws)

    def at(self, *args: Any, **kws: Any) -> Any:
        def dtypes(args, kws):
            operands = [args[0], *args[2:3]] if self.nin > 1 else [args[0]]
            return [_value_dtype(a) for a in operands]

        return self._retry(lambda u: u.at, dtypes, args, kws)

    def resolve_dtypes(self, dtypes: tuple, **kws: Any) -> tuple:
        """NumPy's `resolve_dtypes` (used by typing in jitted code; Python scalar types
        stand for int64, float64, complex128). As Numba's DUFunc in compiled code, a loop
        for exactly the input dtypes is compiled first when there is none (so int64 inputs
        do not borrow a float64 loop)."""
        try:
            concrete = [np.dtype(_PYTHON_SCALARS.get(d, d)) for d in dtypes[: self.nin]]
        except TypeError:
            concrete = []
        self._compile_for(concrete)
        wanted = tuple(concrete)
        for found in self._loops.dtype_tuples:  # NumPy's search may take an earlier loop
            if found[: self.nin] == wanted and all(d is None for d in dtypes[self.nin :]):
                return found
        return self._ufunc.resolve_dtypes(dtypes, **kws)


_PYTHON_SCALARS = {int: np.int64, float: np.float64, complex: np.complex128, bool: np.bool_}


def _value_dtype(value: Any) -> np.dtype:
    """The dtype NumPy sees for an operand (Python int -> int64, as Numba compiles it)."""
    dtype = getattr(value, "dtype", None)
    if isinstance(dtype, np.dtype):
        return dtype
    return np.asarray(value).dtype


def _rebuild_dufunc(state: tuple, options: dict, signatures: list, frozen: bool) -> DUFunc:
    from ember.ufuncs.pickling import bind_self, rebuild_function

    options = dict(options)
    identity = options.pop("identity", None)
    py_func, self_names = rebuild_function(state)
    dufunc = bind_self(py_func, self_names, DUFunc(py_func, identity, **options))
    for sig in signatures:
        dufunc._add_loop(sig)
    if frozen:
        dufunc.disable_compile()
    return dufunc
