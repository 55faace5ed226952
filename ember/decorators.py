"""`@jit` and `@njit`: options, explicit signatures (strings or types) and the dispatcher."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember import config, types
from ember.errors import EmberError
from ember.typing.signature import Signature

_ACCEPTED_OPTIONS = {"nopython", "fastmath", "boundscheck", "error_model", "cache", "nogil",
                     "forceobj", "looplift", "parallel", "inline", "locals", "debug",
                     *("no_cpython_wrapper", "no_cfunc_wrapper", "_nrt", "_llvm_inline"),
                     "no_rewrites"}  # fmt: skip
# Numba's wrapper options only save building a wrapper; ember builds its Python entry and its
# C entry lazily, on the first call that needs one, so these have nothing left to change.
# `_nrt=False` (Numba's own tests) compiles without Numba's runtime; ember's runtime is always
# there, so the flag only applies Numba's typing rule (ember/typing/no_runtime.py).
# `_llvm_inline="never"|"always"` (ember's own helpers): LLVM never / always inlines the function
# into its callers (lowering/context.TargetOptions.llvm_inline).
# `no_rewrites=True` turns off Numba's optional IR rewrites (array expressions fused into one
# loop); the results are the same either way, so ember accepts it and keeps its own passes.


def jit(signature_or_function: Any = None, **options: Any) -> Any:
    """Compile a function to machine code on first call (nopython mode, as Numba since 0.59;
    `forceobj=True`: object mode; `nopython=False`: object mode where nopython mode fails).

    `jit(f)`, `@jit`, `@jit(fastmath=True)`, `@jit("float64(float64, int64)")` and
    `@jit(["int64(int64)", "float64(float64)"])` are all accepted.
    """
    unknown = set(options) - _ACCEPTED_OPTIONS
    if unknown:
        message = f"unknown jit option(s): {', '.join(sorted(unknown))}"
        if callable(signature_or_function) or signature_or_function is None:
            # as Numba, a function decorated with an unknown option (`device=True` written
            # for its CUDA target) fails when called, so a module that defines it imports
            return _refused_on_call(signature_or_function, message)
        raise TypeError(message)  # a signature compiles now
    _parallel_options(options)  # bad values fail at the decorator
    if options.get("forceobj"):
        return _object_mode(signature_or_function, options)
    if callable(signature_or_function) and not isinstance(signature_or_function, (str, list)):
        return _make_dispatcher(signature_or_function, None, options)
    signatures = _parse_signatures(signature_or_function)

    def decorate(py_func: Callable) -> Any:
        return _make_dispatcher(py_func, signatures, options)

    return decorate


class _RefusedFunction:
    """A function decorated with options ember does not know: calling it raises TypeError."""

    def __init__(self, py_func: Callable, message: str) -> None:
        self.py_func = self.__wrapped__ = py_func
        self.__name__ = getattr(py_func, "__name__", "function")
        self.__doc__ = py_func.__doc__
        self._message = message

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self._message} (decorating {self.__name__})")


def _refused_on_call(function: Callable | None, message: str) -> Any:
    if function is None:
        return lambda py_func: _RefusedFunction(py_func, message)
    return _RefusedFunction(function, message)


def _jit_disabled(py_func: Callable) -> bool:
    """DISABLE_JIT leaves users' functions as Python; ember's own jitted helpers (typed
    containers, library kernels) stay compiled, since they only run compiled."""
    module = getattr(py_func, "__module__", None) or ""
    return config.DISABLE_JIT and not module.startswith("ember.")


def _object_mode(signature_or_function: Any, options: dict) -> Any:
    """`@jit(forceobj=True)`: every value a Python object (ember/dispatcher/object_mode.py)."""
    from ember.dispatcher.object_mode import ObjectModeDispatcher

    if options.get("nogil"):
        import warnings

        from ember.errors import NumbaWarning

        message = "Code running in object mode won't allow parallel execution despite nogil=True."
        warnings.warn(message, NumbaWarning, stacklevel=3)  # Numba's warning

    def decorate(py_func: Callable) -> Any:
        _check_decorated(py_func)
        if signatures:  # objects need no types; a signature must still fit, as in Numba
            from ember.dispatcher.binding import ArgumentBinder

            binder = ArgumentBinder(py_func)
            for sig in signatures:
                if sig.args:  # "()" is accepted for any function
                    binder.check_signature_arity(tuple(sig.args))
        if _jit_disabled(py_func):
            return py_func
        dispatcher = ObjectModeDispatcher(py_func, options)
        if signatures:  # a signature compiles at decoration, as in nopython mode
            dispatcher.compile()
        return dispatcher

    given_function = callable(signature_or_function) and not isinstance(
        signature_or_function, (str, list)
    )
    signatures = None if given_function else _parse_signatures(signature_or_function)
    return decorate(signature_or_function) if given_function else decorate


def njit(signature_or_function: Any = None, **options: Any) -> Any:
    """`jit` in nopython mode (the only mode ember has)."""
    options.pop("nopython", None)
    return jit(signature_or_function, **options)


def _check_decorated(py_func: Any) -> None:
    """Numba's TypeErrors for decorating something that is not a plain Python function."""
    from ember.dispatcher.dispatcher import Dispatcher

    if isinstance(py_func, Dispatcher):
        name = py_func.py_func.__name__
        raise TypeError(
            f"A jit decorator was called on an already jitted function {name}. If trying to "
            f"access the original python function, use the {name}.py_func attribute."
        )
    if isinstance(py_func, type):
        raise TypeError(f"The decorated object is not a function (got type {type(py_func)}).")


def _make_dispatcher(py_func: Callable, signatures, options: dict) -> Any:
    _check_decorated(py_func)
    if _jit_disabled(py_func):
        return py_func
    if options.get("nopython") is not False:
        return _nopython_dispatcher(py_func, signatures, options)
    from ember.dispatcher.object_mode import FallbackDispatcher, ObjectModeDispatcher

    try:
        dispatcher = _nopython_dispatcher(py_func, signatures, options)
    except EmberError:  # an explicit signature that does not compile in nopython mode
        return ObjectModeDispatcher(py_func, options)
    return FallbackDispatcher(dispatcher, options)


def _nopython_dispatcher(py_func: Callable, signatures, options: dict) -> Any:
    from ember.dispatcher.dispatcher import Dispatcher
    from ember.lowering.context import (
        TargetOptions,
        error_model_option,
        fastmath_option,
        llvm_inline_option,
    )

    target = TargetOptions(
        error_model=error_model_option(options.get("error_model", "python")),
        fastmath=fastmath_option(options.get("fastmath", False)),
        boundscheck=bool(options.get("boundscheck", False)),
        nogil=bool(options.get("nogil", False)),
        parallel=_parallel_options(options),
        debug=bool(options.get("debug", config.DEBUGINFO)),
        locals=_declared_locals(options.get("locals")),
        nrt=bool(options.get("_nrt", True)),
        llvm_inline=llvm_inline_option(options.get("_llvm_inline", "auto")),
    )
    for sig in signatures or ():
        if any(isinstance(arg, types.PyObject) for arg in sig.args):
            raise TypeError(
                f"{py_func.__qualname__}: a pyobject argument needs object mode: "
                "jit(signature, forceobj=True)"
            )
    return Dispatcher(py_func, target, signatures, cache=bool(options.get("cache", False)))


def _declared_locals(declared: Any) -> tuple:
    """`locals={"acc": float64}`: the variables whose type is declared rather than inferred,
    as sorted (name, type) pairs (the options are hashable)."""
    if not declared:
        return ()
    if not isinstance(declared, dict):
        raise TypeError(f"locals= takes a dict of variable name -> type, not {declared!r}")
    pairs = []
    for name, declared_type in declared.items():
        if not isinstance(name, str) or not isinstance(declared_type, types.Type):
            raise TypeError(f"locals=: {name!r} must map to a type, not {declared_type!r}")
        pairs.append((name, declared_type))
    return tuple(sorted(pairs, key=lambda pair: pair[0]))


def _parallel_options(options: dict) -> Any:
    """The validated `parallel=` option; its module is imported only when it is given."""
    if not options.get("parallel"):
        return None
    from ember.parallel.options import parse_parallel_option

    return parse_parallel_option(options["parallel"])


def _parse_signatures(spec: Any) -> list[Signature] | None:
    if spec is None:
        return None
    items = spec if isinstance(spec, list) else [spec]
    return [_parse_signature(item) for item in items]


def _parse_signature(item: Any) -> Signature:
    if isinstance(item, Signature):
        return item
    if isinstance(item, tuple):
        return Signature(None, item)
    if isinstance(item, str):
        namespace = {name: getattr(types, name) for name in dir(types) if not name.startswith("_")}
        parsed = eval(item, {"__builtins__": {}}, namespace)  # noqa: S307 - type names only
        if isinstance(parsed, Signature):
            return parsed
        if isinstance(parsed, tuple):
            return Signature(None, parsed)
        return Signature(None, (parsed,))
    raise TypeError(f"cannot read a signature from {item!r}")


def jit_module(**options: Any) -> None:
    """Compile every function defined in the calling module with `jit(**options)`, as if each
    were decorated (call it at the end of the module, after the functions are defined).
    Functions imported from elsewhere, and those already jitted, are left as they are."""
    import inspect
    import types as pytypes

    caller = inspect.stack()[1].frame
    try:
        namespace = caller.f_globals
        module_name = namespace.get("__name__")
        for name, value in list(namespace.items()):
            if isinstance(value, pytypes.FunctionType) and value.__module__ == module_name:
                namespace[name] = jit(**options)(value)
    finally:
        del caller
