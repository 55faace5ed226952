"""`@jit(forceobj=True)`: a function compiled once, in object mode (ember/lowering/
object_mode.py), called with its arguments bound as CPython binds them.

Every call runs the same machine code whatever the argument types, so the dispatcher has one
overload, under the signature `(pyobject, ...) -> pyobject`. With `looplift=True` (the default)
its outermost loops are lifted out first (ember/frontend/loop_lifting.py): each `LiftedLoop`
runs as nopython machine code for the argument types it is called with, or, when the loop does
not type in nopython mode, in object mode itself.
"""

from __future__ import annotations

import ctypes
import functools
import inspect
import threading
import time
from types import FunctionType, MethodType
from typing import Any

from ember import config
from ember.errors import EmberError, UnsupportedError

_NATIVE = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)
_GENERATOR_FLAGS = 0x20 | 0x200  # CO_GENERATOR, CO_ASYNC_GENERATOR


class ObjectModeDispatcher:
    """A function compiled in object mode on its first call."""

    objectmode = True  # Numba's flag on `f.overloads[sig]`, which is this dispatcher

    def __init__(self, py_func: FunctionType, options: dict | None = None) -> None:
        if not isinstance(py_func, FunctionType):
            raise TypeError(
                f"jit(forceobj=True) compiles Python functions, not {type(py_func).__name__} "
                "objects; decorate the function itself"
            )
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.options = dict(options or {})
        code = py_func.__code__
        self._simple_arity = (
            code.co_argcount
            if not (code.co_kwonlyargcount or code.co_flags & 0x0C or code.co_posonlyargcount)
            else None
        )
        count = code.co_argcount + code.co_kwonlyargcount
        count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
        self._parameter_order = code.co_varnames[:count]
        self._signature = inspect.signature(py_func)
        self._native: Any = None
        self._keepalive: list = []
        self._llvm_ir = ""
        self._lock = threading.Lock()
        from ember.caching import CompileStats

        # seconds of the compilation, and Numba's cache_hits / cache_misses (none: object-mode
        # code is not written to the disk cache)
        self.stats = CompileStats({}, None)
        self.lifted_loops: list[LiftedLoop] = []

    # ------------------------------------------------------------------ compiling

    def compile(self) -> Any:
        with self._lock:
            if self._native is None and self.py_func.__code__.co_flags & _GENERATOR_FLAGS:
                # object mode only calls into the interpreter: a generator's frame, suspended
                # between yields, is the interpreter's own generator object
                py_func = self.py_func
                self._native = lambda arguments: py_func(*arguments)
            if self._native is None:
                from ember.lowering.object_mode import compile_object_mode

                started = time.perf_counter()
                address, keepalive, llvm_ir = compile_object_mode(self._lift_loops())
                self.stats["object mode compilation"] = time.perf_counter() - started
                if config.DUMP_LLVM:
                    print(f"{'-' * 20}LLVM DUMP (object mode) {self.py_func.__qualname__}")
                    print(llvm_ir)
                self._keepalive = keepalive
                self._llvm_ir = llvm_ir
                self._native = _NATIVE(address)
                if self.options.get("cache"):
                    _warn_not_cached(self.py_func, bool(self.lifted_loops))
        return self._native

    def _lift_loops(self) -> FunctionType:
        if not self.options.get("looplift", True):
            return self.py_func
        from ember.frontend.loop_lifting import lift_loops

        rewritten, self.lifted_loops = lift_loops(self.py_func, LiftedLoop)
        if config.DUMP_IR:
            for loop in self.lifted_loops:
                print(loop.describe())
        return rewritten

    @property
    def signatures(self) -> list:
        return [self._object_signature()] if self._native is not None else []

    @property
    def nopython_signatures(self) -> list:
        """Numba's list of the signatures compiled in nopython mode: none here."""
        return []

    @property
    def overloads(self) -> dict:
        return {self._object_signature(): self} if self._native is not None else {}

    @property
    def lifted(self) -> tuple:
        """The lifted loops, as Numba's `f.overloads[sig].lifted` lists them."""
        return tuple(self.lifted_loops)

    def _object_signature(self) -> tuple:
        return ("pyobject",) * len(self._parameter_order)

    def inspect_llvm(self, signature: Any = None) -> Any:
        if signature is not None:
            return self._llvm_ir
        return {sig: self._llvm_ir for sig in self.overloads}

    def inspect_types(self, file: Any = None, pretty: bool = False) -> None:
        """The source in object mode, then each lifted loop's nopython annotation."""
        if pretty:
            raise UnsupportedError(
                f"{self.py_func.__qualname__} runs in object mode, where every line calls "
                "Python: the annotated page covers nopython functions (for a lifted loop, "
                "use `f.lifted_loops[i].nopython.inspect_types(pretty=True)`)"
            )
        lines = inspect.getsource(self.py_func).splitlines()
        header = f"{self.py_func.__qualname__} (object mode: every value is a pyobject)"
        print("\n".join([header, "-" * len(header), *lines]), file=file)
        if self.lifted_loops:
            print("\n# The function contains lifted loops", file=file)
        for loop in self.lifted_loops:
            print(f"# Loop at line {loop.span.loc.line}", file=file)
            print(f"# Has {len(loop.signatures)} overloads", file=file)
            print(f"# {loop.describe()}", file=file)
            if loop.nopython.overloads:
                print(loop.nopython.inspect_types(), file=file)
            else:
                print(f"# runs in object mode: {loop.reason or 'not called yet'}", file=file)

    def disable_compile(self, val: bool = True) -> None:
        """Numba's method; an object-mode function has its one compiled version already."""
        self.compile()

    # ------------------------------------------------------------------ calling

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        native = self._native or self.compile()
        if not kwargs and len(args) == self._simple_arity:
            return native(args)
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError:
            from ember.dispatcher.binding import ArgumentBinder

            ArgumentBinder(self.py_func).bind(args, kwargs)  # raises with Numba's wording
            raise
        bound.apply_defaults()
        arguments = bound.arguments
        return native(tuple(arguments[name] for name in self._parameter_order))

    def __reduce__(self) -> tuple:
        """Pickled by value, as the nopython dispatcher: it compiles again where unpickled."""
        from ember.dispatcher.serialize import function_state

        return (_rebuild_object_mode, (function_state(self.py_func, self), self.options))

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """A bound method, as for a Python function (and the nopython dispatcher): attributes
        the method lacks (`overloads`, `py_func`...) read the dispatcher's."""
        if instance is None:
            return self
        return MethodType(self, instance)

    def __repr__(self) -> str:
        return f"<ember object-mode function {self.py_func.__qualname__}>"


def _warn_not_cached(py_func: FunctionType, lifted: bool) -> None:
    """`cache=True` on an object-mode function, when it compiles: said in Numba's words (which
    users filter warnings by) rather than silently compiling again in every new process."""
    import warnings

    from ember.errors import EmberWarning

    reason = "it uses lifted code" if lifted else "it is an object-mode function"
    code = py_func.__code__
    warnings.warn_explicit(
        f'Cannot cache compiled function "{py_func.__qualname__}" as {reason}: ember does not '
        "write object-mode code to the disk cache, so each new process compiles it again "
        "(within a process, it is compiled once)",
        EmberWarning,
        code.co_filename,
        code.co_firstlineno,
        py_func.__module__ or "__main__",
    )


def _rebuild_object_mode(state: tuple, options: dict) -> ObjectModeDispatcher:
    from ember.dispatcher.serialize import rebuild_function

    py_func, self_names = rebuild_function(state)
    dispatcher = ObjectModeDispatcher(py_func, options)
    for name in self_names:  # a recursive function calls its new dispatcher
        py_func.__globals__[name] = dispatcher
    return dispatcher


class LiftedLoop:
    """One lifted loop: a nopython function for the argument types it is called with; object
    mode when the loop cannot be compiled in nopython mode for them."""

    def __init__(self, py_func: FunctionType, span: Any) -> None:
        from ember.decorators import njit

        self.py_func = py_func
        self.span = span
        self.nopython = njit(py_func)
        self.object_mode: ObjectModeDispatcher | None = None
        self.reason = ""
        self._object_mode_signatures: list[tuple] = []  # the argument types it ran for

    @property
    def overloads(self) -> dict:
        return self.nopython.overloads

    @property
    def nopython_signatures(self) -> list:
        return self.nopython.signatures

    @property
    def signatures(self) -> list:
        """The nopython signatures, or the argument types the loop ran for in object mode
        once it fell back (one each, as the nopython versions are)."""
        if self.object_mode is None:
            return self.nopython.signatures
        return list(self._object_mode_signatures)

    def describe(self) -> str:
        span = self.span
        where = f"{span.loc.filename}:{span.loc.line}-{span.last_line}"
        inputs, outputs = ", ".join(span.inputs), ", ".join(span.outputs)
        return f"LIFTED LOOP at {where}: inputs ({inputs}) -> outputs ({outputs})"

    def __call__(self, *args: Any) -> Any:
        if self.object_mode is None:
            try:
                self.nopython.compile(tuple(_typeof(value) for value in args))
            except Exception as error:  # noqa: BLE001 - compiling runs no user code
                self.reason = f"{type(error).__name__}: {error}".splitlines()[0]
                self.object_mode = ObjectModeDispatcher(self.py_func, {"looplift": False})
            else:
                return self.nopython(*args)
        arg_types = tuple(_typeof_or_object(value) for value in args)
        if arg_types not in self._object_mode_signatures:
            self._object_mode_signatures.append(arg_types)
        return self.object_mode(*args)


def _typeof_or_object(value: Any) -> Any:
    from ember import types
    from ember.dispatcher.typeof import typeof_or_none
    from ember.errors import EmberError

    try:
        return typeof_or_none(value) or types.pyobject
    except EmberError:  # a Python dict, say: the loop took it as an object
        return types.pyobject


def _typeof(value: Any) -> Any:
    from ember.dispatcher.typeof import typeof

    return typeof(value)


class FallbackDispatcher:
    """`@jit(nopython=False)`: nopython mode where the function types, object mode (with loop
    lifting) where it does not, with a warning naming the reason (as Numba does)."""

    def __init__(self, nopython: Any, options: dict) -> None:
        functools.update_wrapper(self, nopython.py_func)
        self.py_func = nopython.py_func
        self.nopython = nopython
        self.object_mode = ObjectModeDispatcher(self.py_func, options)
        self._warned = False

    @property
    def overloads(self) -> dict:
        return {**self.nopython.overloads, **self.object_mode.overloads}

    @property
    def signatures(self) -> list:
        return [*self.nopython.signatures, *self.object_mode.signatures]

    @property
    def nopython_signatures(self) -> list:
        return self.nopython.signatures

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            self._compile_for(args, kwargs)
        except (EmberError, TypeError, ValueError, OverflowError) as error:
            self._warn(error)  # typing or compiling failed: no user code has run
            return self.object_mode(*args, **kwargs)
        return self.nopython(*args, **kwargs)

    __get__ = ObjectModeDispatcher.__get__  # a method of a class binds its instance

    def __reduce__(self) -> tuple:
        return (FallbackDispatcher, (self.nopython, self.object_mode.options))

    def _compile_for(self, args: tuple, kwargs: dict) -> None:
        nopython = self.nopython
        if nopython._explicit:
            return  # the declared signatures compiled when the function was decorated
        values = nopython._bound_values(args, kwargs)
        nopython.compile(tuple(map(nopython._typeof_argument, nopython._binder.names, values)))

    def _warn(self, error: Exception) -> None:
        if self._warned:
            return
        import warnings

        from ember.errors import EmberWarning

        self._warned = True
        reason = str(error).splitlines()
        warnings.warn(
            f"{self.py_func.__qualname__}: compilation falls back to object mode with loop "
            f"lifting, because nopython mode failed: {reason[-1] if reason else error}",
            EmberWarning,
            stacklevel=3,
        )
