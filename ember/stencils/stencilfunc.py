"""The `@stencil` decorator and the StencilFunc it returns: checks the options and the argument
types, and runs calls from Python through the stencil function generated once per types."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ember import types
from ember.errors import StencilError

if TYPE_CHECKING:  # imported when first needed: `import ember` stays lean
    from ember.stencils.codegen import GeneratedStencil, StencilTypes
    from ember.stencils.kernel import Kernel, Neighborhood

_OPTIONS = ("neighborhood", "cval", "standard_indexing", "index_offsets", "cache")
_MODES = ("constant",)  # the border keeps cval: Numba's only mode too


def stencil(func_or_mode: Any = "constant", **options: Any) -> Any:
    """`@stencil`, `@stencil(neighborhood=..., cval=..., standard_indexing=...)` and
    `@stencil('constant', ...)`: make a StencilFunc of a kernel written with relative indices."""
    if callable(func_or_mode):
        return StencilFunc(func_or_mode, "constant", options)
    _check_options(func_or_mode, options)

    def decorate(kernel: Callable) -> StencilFunc:
        return StencilFunc(kernel, func_or_mode, options)

    return decorate


def check_option_names(names: Iterable[str]) -> None:
    unknown = sorted(set(names) - set(_OPTIONS))
    if unknown:
        raise StencilError(
            f"unknown stencil option(s) {', '.join(map(repr, unknown))}: @stencil accepts "
            f"{', '.join(_OPTIONS)}"
        )


def _check_options(mode: Any, options: dict[str, Any]) -> Neighborhood | None:
    """Check the mode and the options; return the given neighborhood (None if not given)."""
    from numbers import Number  # here: `import ember` stays lean

    from ember.stencils.kernel import check_neighborhood_option

    if mode not in _MODES:
        raise StencilError(
            f"stencil mode {mode!r} is not supported: 'constant' (the border of the output "
            "holds cval) is the only mode"
        )
    check_option_names(options)
    cval = options.get("cval")
    if cval is not None and not (isinstance(cval, Number) or hasattr(cval, "dtype")):
        raise StencilError(f"cval must be a number (the value of the border), not {cval!r}")
    _index_offsets(options)
    return check_neighborhood_option(options.get("neighborhood"))


def _index_offsets(options: dict[str, Any]) -> tuple[int, ...]:
    """`index_offsets=(d0, ...)`: integers added to every relative index (one per dimension)."""
    from numbers import Integral

    given = options.get("index_offsets")
    if given is None:
        return ()
    if not (
        isinstance(given, (tuple, list))
        and given
        and all(isinstance(d, Integral) and not isinstance(d, bool) for d in given)
    ):
        raise StencilError(
            f"stencil index_offsets must be a tuple of integers, one per dimension, such as "
            f"(-1,) or (0, 1), not {given!r}"
        )
    return tuple(int(d) for d in given)


class StencilFunc:
    """A stencil kernel and its options; calling it runs the stencil over its array arguments.

    `neighborhood` holds the given neighborhood, or after the first call the inferred one.
    """

    def __init__(self, kernel_func: Callable, mode: str, options: dict[str, Any]) -> None:
        from ember.stencils.jitcall import register_jit_call

        self.neighborhood = self._given_neighborhood = _check_options(mode, options)
        self.kernel_ws = kernel_func
        self.mode = mode
        self.options = dict(options)
        self._cval = options.get("cval")
        self._standard_indexing = _names(options.get("standard_indexing", ()))
        self._kernel: Kernel | None = None
        # integer values of kernel parameters fixed by the one call of a stencil made in
        # jitted code (ember/stencils/inner_kernels.py): constants in relative indices
        self.parameter_constants: dict[str, int] = {}
        self.run_time_offsets = 0  # index offsets passed after the arguments (inner stencils)
        self._generated: dict[tuple, GeneratedStencil] = {}  # by (argument types, out type)
        self._compiled: dict[tuple, Callable] = {}  # calls from Python, by the same key
        self._disk_cache = _StencilCache(self) if options.get("cache") else None
        register_jit_call(self)

    def take_neighborhood_when_run(self, ndim: int) -> None:
        """A stencil made in jitted code with neighborhood=((lo, hi), ...) of variables: the
        bounds are passed after the arguments (inner_kernels.py appends them to the call)."""
        from ember.stencils.kernel import run_time_neighborhood

        self.neighborhood = self._given_neighborhood = run_time_neighborhood(ndim)

    def take_index_offsets_when_run(self, ndim: int) -> None:
        """A stencil made in jitted code with index_offsets=(d0, ...) of variables: the
        offsets are passed after the arguments (and the neighborhood's bounds)."""
        if self._given_neighborhood is None:
            raise StencilError(
                "stencil index_offsets computed at run time need the neighborhood option: "
                "pass neighborhood=((low, high), ...) (it cannot be inferred from indices "
                "whose offsets are known only when the stencil runs)"
            )
        self.run_time_offsets = ndim

    def __repr__(self) -> str:
        return f"<StencilFunc {self.kernel_ws.__qualname__} at {id(self):#x}>"

    @property
    def kernel(self) -> Kernel:
        """The kernel's parsed definition and relative indices (read on first use)."""
        if self._kernel is None:
            from ember.stencils.kernel import read_kernel

            self._kernel = read_kernel(
                self.kernel_ws,
                self._standard_indexing,
                self.parameter_constants,
                _index_offsets(self.options),
            )
        return self._kernel

    def __call__(self, *args: Any, out: Any = None) -> Any:
        from ember.dispatcher.typeof import typeof

        arg_types = tuple(typeof(arg) for arg in args)
        out_type = None if out is None else typeof(out)
        compiled = self._compiled.get((arg_types, out_type))
        if compiled is None:
            compiled = self._compile_for_python(arg_types, out_type)
        return compiled(*args) if out is None else compiled(*args, out)

    @property
    def stats(self) -> Any:
        """Numba's cache counters (`cache_hits`, `cache_misses`) of calls from Python."""
        from ember.caching import CompileStats

        return CompileStats({}, self._disk_cache and self._disk_cache.cache)

    def _compile_for_python(self, arg_types: tuple, out_type: types.Type | None) -> Callable:
        """The compiled stencil function for calls from Python: with `cache=True` loaded from
        the disk cache (no kernel parsing, typing or code generation) or compiled and saved."""
        from ember.dispatcher.dispatcher import compile_lock

        with compile_lock:
            key = (arg_types, out_type)
            found = self._compiled.get(key)
            if found is None:
                if self._disk_cache is not None:
                    found = self._disk_cache.compiled(arg_types, out_type)
                else:
                    found = self.generated(arg_types, out_type).dispatcher
                self._compiled[key] = found
        return found

    def generated(self, arg_types: tuple, out_type: types.Type | None) -> GeneratedStencil:
        """The GeneratedStencil for these types, generated and compiled on first use."""
        from ember.dispatcher.dispatcher import compile_lock
        from ember.stencils.codegen import generate_stencil

        key = (arg_types, out_type)
        with compile_lock:
            found = self._generated.get(key)
            if found is None:
                sig = self._stencil_types(arg_types, out_type)
                found = self._generated[key] = generate_stencil(self.kernel, sig, self._cval)
        return found

    def inspect_source(self) -> dict[tuple, str]:
        """The generated Python source per (argument types, out type) compiled so far."""
        return {key: generated.source for key, generated in self._generated.items()}

    def _stencil_types(self, arg_types: tuple, out_type: types.Type | None) -> StencilTypes:
        from ember.stencils.codegen import StencilTypes
        from ember.stencils.kernel import is_run_time, neighborhood_for

        kernel = self.kernel
        given = self._given_neighborhood
        if self.run_time_offsets:  # the offsets come last
            offsets, arg_types = (
                arg_types[-self.run_time_offsets :],
                arg_types[: -self.run_time_offsets],
            )
            if not all(isinstance(t, types.Integer) for t in offsets):
                raise StencilError(
                    f"the index_offsets of stencil {kernel.name} must be integers, not "
                    f"{', '.join(map(str, offsets))}"
                )
        if given is not None and is_run_time(given):  # its bounds follow the arguments
            bounds, arg_types = arg_types[len(kernel.params) :], arg_types[: len(kernel.params)]
            if len(bounds) != 2 * len(given) or not all(
                isinstance(t, types.Integer) for t in bounds
            ):
                raise StencilError(
                    f"the neighborhood of stencil {kernel.name} must be integers, not "
                    f"{', '.join(map(str, bounds))}"
                )
        if len(arg_types) != len(kernel.params):
            raise TypeError(
                f"stencil {kernel.name}{tuple(kernel.params)} takes {len(kernel.params)} "
                f"argument(s) but {len(arg_types)} were given"
            )
        first = arg_types[0] if arg_types else None
        if not isinstance(first, types.Array):
            raise StencilError(
                f"the first argument of stencil {kernel.name} is the input array whose shape "
                f"the output takes: pass an array, not {first}"
            )
        arrays = tuple(
            name
            for name, typ in zip(kernel.params, arg_types)
            if kernel.is_relative(name) and isinstance(typ, types.Array)
        )
        for name, typ in zip(kernel.params, arg_types):
            if name in arrays and typ.ndim != first.ndim:
                raise StencilError(
                    f"stencil input '{name}' is {typ.ndim}-d but '{kernel.params[0]}' is "
                    f"{first.ndim}-d: pass arrays of the same shape (or list '{name}' in "
                    "standard_indexing to index it normally)"
                )
        neighborhood = neighborhood_for(kernel, arrays, first.ndim, self._given_neighborhood)
        if self.run_time_offsets not in (0, first.ndim):
            raise StencilError(
                f"index_offsets of stencil {kernel.name} gives {self.run_time_offsets} "
                f"offset(s) for {first.ndim}-d input: give one offset per dimension"
            )
        self.neighborhood = neighborhood
        return StencilTypes(arg_types, out_type, arrays, neighborhood, self.run_time_offsets)


class _StencilCache:
    """The disk cache of a StencilFunc's functions for calls from Python, keyed on the kernel
    (its code and the globals it reads), the options, and the argument types."""

    def __init__(self, stencil_func: StencilFunc) -> None:
        from ember.caching import FunctionCache

        self.stencil_func = stencil_func
        # What FunctionCache reads of a dispatcher: the Python function and the options.
        self.py_func = stencil_func.kernel_ws
        self.options = {"stencil": stencil_func.mode} | {
            name: value for name, value in stencil_func.options.items() if name != "cache"
        }
        self.cache = FunctionCache(self)
        self.cache.qualname = f"{self.py_func.__qualname__}.stencil"

    def compiled(self, arg_types: tuple, out_type: types.Type | None) -> Callable:
        call_types = arg_types if out_type is None else (*arg_types, out_type)
        loaded = self.cache.load(call_types, None)
        if loaded is not None:
            from ember.decorators import njit

            # A dispatcher holding only the loaded code: calls take its native fast entry.
            dispatcher = njit(self._stand_in(out_type is not None))
            dispatcher._add_overload(call_types, loaded)
            return dispatcher
        dispatcher = self.stencil_func.generated(arg_types, out_type).dispatcher
        dispatcher._disk_cache = self.cache  # compiled under the entry's symbol, then saved
        dispatcher.compile(call_types)
        return dispatcher

    def _stand_in(self, with_out: bool) -> Callable:
        """A function with the stencil function's parameters (never run: its dispatcher is
        given the loaded machine code for the only types it is called with)."""
        code = self.py_func.__code__
        params = [*code.co_varnames[: code.co_argcount], *(["out"] if with_out else [])]
        source = f"def stencil({', '.join(params)}):\n    raise NotImplementedError\n"
        namespace: dict[str, Any] = {}
        filename = f"<cached stencil {self.py_func.__qualname__}>"
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - generated here
        return namespace["stencil"]


def _names(standard_indexing: Any) -> tuple[str, ...]:
    names = (standard_indexing,) if isinstance(standard_indexing, str) else standard_indexing
    try:
        names = tuple(names)
    except TypeError:
        names = (names,)
    if not all(isinstance(name, str) for name in names):
        raise StencilError(
            f"standard_indexing must be a tuple of parameter names, not {standard_indexing!r}"
        )
    return names
