"""What `@vectorize` and `@guvectorize` share: their options, the kernel's dispatcher (NumPy's
error model), and a table of compiled inner loops that becomes a genuine `np.ufunc`.
"""

from __future__ import annotations

import ctypes
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ember import types
from ember.decorators import _parse_signature
from ember.errors import UnsupportedError
from ember.library.numpy.support import numpy_dtype
from ember.typing.signature import Signature
from ember.ufuncs import pickling  # noqa: F401 - ember's ufuncs pickle by value
from ember.ufuncs.capi import identity_code, make_ufunc
from ember.ufuncs.loops import InnerLoop
from ember.ufuncs.object_kernels import object_mode_kernel, wants_object_mode
from ember.ufuncs.threads import default_settings

_ACCEPTED_OPTIONS = {"identity", "target", "cache", "nopython", "forceobj", "fastmath",
                     "boundscheck", "error_model", "nogil", "writable_args"}  # fmt: skip
TARGETS = ("cpu", "parallel")


class UnrecognizedOptions(TypeError, KeyError):
    """An option @vectorize / @guvectorize does not know: a TypeError (a bad keyword) that is
    also the KeyError Numba raises for it."""

    def __str__(self) -> str:  # KeyError's would quote the message
        return str(self.args[0])


class UnsupportedTarget(UnsupportedError, TypeError):
    """A `target=` other than 'cpu' and 'parallel' (Numba raises TypeError for CUDA-only
    combinations such as writable_args with target='cuda')."""


def check_options(options: dict, decorator: str) -> bool:
    """Validate the keyword options; True for `target='parallel'`."""
    unknown = set(options) - _ACCEPTED_OPTIONS
    if unknown:
        raise UnrecognizedOptions(
            f"unknown {decorator} option(s): {', '.join(sorted(unknown))} "
            f"(Unrecognized options: {sorted(unknown)})"
        )
    identity_code(options.get("identity"))  # a bad identity is refused at decoration
    target = options.get("target", "cpu")
    if target not in TARGETS:
        raise UnsupportedTarget(
            f"{decorator}: target={target!r} is not supported; use 'cpu' or 'parallel'"
        )
    return target == "parallel"


def kernel_dispatcher(py_func: Callable, options: dict, cache: bool = True):
    """The kernel's ember dispatcher: NumPy's error model (x/0 gives inf, as NumPy's own
    ufuncs), unless `error_model='python'` is asked for; `cache=False` overrides the option."""
    from ember.dispatcher.dispatcher import Dispatcher
    from ember.lowering.context import TargetOptions, fastmath_option

    target = TargetOptions(
        error_model=options.get("error_model", "numpy"),
        fastmath=fastmath_option(options.get("fastmath", False)),
        boundscheck=bool(options.get("boundscheck", False)),
        nogil=True,
    )
    return Dispatcher(py_func, target, cache=cache and bool(options.get("cache")))


def positional_parameters(py_func: Callable) -> list[str]:
    return [
        p.name
        for p in inspect.signature(py_func).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def parse_signatures(spec: Any) -> list[Signature]:
    """Signatures as strings, ember types or tuples of them, alone or in a list."""
    items = spec if isinstance(spec, (list, tuple)) and not _is_type_tuple(spec) else [spec]
    return [_parse_signature(item) for item in items]


def _is_type_tuple(spec: tuple) -> bool:
    return isinstance(spec, tuple) and all(isinstance(t, types.Type) for t in spec)


def check_arity(py_func: Callable, sig: Signature) -> None:
    """Numba's error for a signature whose argument count is not the function's."""
    count = len(positional_parameters(py_func))
    if len(sig.args) != count:
        raise TypeError(
            f"Signature mismatch: {len(sig.args)} argument types given, but function "
            f"{py_func.__name__} takes {count} arguments"
        )


def is_scalar(typ: types.Type) -> bool:
    return isinstance(typ, (types.Boolean, types.Integer, types.Float, types.Complex))


def dtype_of(typ: types.Type) -> np.dtype:
    return numpy_dtype(typ.dtype if isinstance(typ, types.Array) else typ)


class LoopTable:
    """The compiled loops of one ufunc, in NumPy's search order, and how to make the ufunc.

    Stored on every ufunc built from it: it owns the machine code and loop data NumPy calls.
    """

    def __init__(self, py_func: Callable, options: dict, parallel: bool) -> None:
        self.py_func = py_func
        self.options = dict(options)
        self.parallel = parallel
        self.object_mode = wants_object_mode(options)
        self.dispatcher = kernel_dispatcher(py_func, options, cache=not self.object_mode)
        self.object_kernels: dict[tuple, Any] = {}  # object mode: a wrapper per signature
        self.settings = default_settings() if parallel else None
        self.loops: list[tuple[InnerLoop, tuple[np.dtype, ...]]] = []
        self.signatures: list[Signature] = []

    @property
    def dtype_tuples(self) -> list[tuple[np.dtype, ...]]:
        return [dtypes for _, dtypes in self.loops]

    def compile_kernel(self, sig: Signature, elementwise: bool) -> Any:
        """The kernel compiled for `sig`: the Python function itself, or in object mode
        (`forceobj=True`) a nopython wrapper that calls it as Python."""
        if not self.object_mode:
            return self.dispatcher.compile(sig if sig.return_type is not None else sig.args)
        return self.kernel_for(sig, elementwise).compile(sig)

    def kernel_for(self, sig: Signature, elementwise: bool) -> Any:
        """The dispatcher that runs the kernel for `sig`: the kernel's own, or in object mode
        the wrapper made for this signature."""
        if not self.object_mode:
            return self.dispatcher
        key = (sig.return_type, tuple(sig.args))
        if key not in self.object_kernels:
            kernel = object_mode_kernel(self.py_func, sig, elementwise)
            self.object_kernels[key] = kernel_dispatcher(kernel, self.options, cache=False)
        return self.object_kernels[key]

    def cached_loop(self, arg_types: tuple, declared_return: Any, variant: str) -> Any:
        """(inner loop, kernel signature) from the disk cache (`cache=True`), or None: a hit
        compiles neither the kernel nor its loop."""
        cache = self.dispatcher._disk_cache
        found = cache.load(arg_types, declared_return, variant) if cache is not None else None
        if found is None:
            return None
        return InnerLoop(found.address, found.library), found.signature

    def new_loop(self, kernel: Any, arg_types: tuple, declared_return: Any, variant: str,
                 build: Callable) -> InnerLoop:  # fmt: skip
        """`build(name)` makes the inner loop of `kernel`; with `cache=True` it is written to
        the disk cache under a symbol unique to its key."""
        from ember.compiler import CompileResult

        cache = self.dispatcher._disk_cache
        name = cache.symbol(arg_types, declared_return, variant) if cache is not None else None
        loop = build(name)
        if name is not None:
            saved = CompileResult(kernel.signature, name, loop.library, None, None, {}, None)
            cache.save(arg_types, declared_return, saved, variant)
        return loop

    def add_loop(self, loop: InnerLoop, dtypes: tuple, sig: Signature) -> None:
        if dtypes not in self.dtype_tuples:
            self.loops.append((loop, dtypes))
            self.signatures.append(sig)

    def make_ufunc(self, nin: int, nout: int, identity: Any, layout: str | None) -> np.ufunc:
        data = ctypes.addressof(self.settings) if self.settings is not None else 0
        ufunc = make_ufunc(
            self.py_func.__name__,
            self.py_func.__doc__ or "",
            nin,
            nout,
            [(loop.address, dtypes, data) for loop, dtypes in self.loops],
            identity=identity,
            signature=layout,
            owners=[self],
            exact_match_first=self.parallel,
        )
        ufunc.__dict__["__module__"] = self.py_func.__module__
        ufunc.__dict__["__qualname__"] = self.py_func.__qualname__
        ufunc.__dict__["__wrapped__"] = self.py_func
        return ufunc


@dataclass(frozen=True)
class AddedLoop:
    """What `.add(sig)` compiled (Numba returns a compile result with these attributes)."""

    signature: Signature
    objectmode: bool


class GrowingUFunc:
    """What DUFunc and GUFunc share: a table of compiled loops that grows on demand (under the
    compile lock) until `disable_compile()`; `_remake()` builds the NumPy object anew."""

    _frozen_flag = False

    @property
    def _frozen(self) -> bool:
        """Whether compiling new loops is disabled (Numba's attribute: settable to True,
        never back to False)."""
        return self._frozen_flag

    @_frozen.setter
    def _frozen(self, frozen: bool) -> None:
        if self._frozen_flag and not frozen:
            raise ValueError("a frozen ufunc cannot be unfrozen (compiling stays disabled)")
        self._frozen_flag = bool(frozen)

    def disable_compile(self) -> None:
        """Freeze: no new loops; calls with other dtypes raise NumPy's TypeError."""
        self._frozen = True

    def add(self, sig: Any) -> AddedLoop:
        """Compile the loop for a signature (`'float64(float64, float64)'`) now."""
        (parsed,) = parse_signatures(sig)
        self._add_loop(parsed)
        return AddedLoop(self._loops.signatures[-1], self._loops.object_mode)

    def build_ufunc(self) -> GrowingUFunc:
        """Numba's builder protocol (`.add(sig)` then `.build_ufunc()`): the object itself."""
        return self

    def _add_loop(self, sig: Signature) -> None:
        from ember.dispatcher.dispatcher import compile_lock

        with compile_lock:  # threads meeting new dtypes at once add their loops one by one
            self._loops.compile(sig)
            self._ufunc = self._remake()

    def _remake(self) -> Any:
        raise NotImplementedError
