"""The dispatcher: the object `@jit` returns. It binds call arguments as Python does, types
them, picks or compiles a specialization (seed 003) and calls its machine code."""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import uuid
import weakref
from collections.abc import Callable
from types import FunctionType, MethodType
from typing import Any

from ember import config, types
from ember.compiler import CompileResult, CompileState, run_pipeline
from ember.dispatcher.binding import ArgumentBinder, Omitted
from ember.dispatcher.entrypoints import init_all
from ember.errors import (
    ArgumentTypeError,
    CompilerError,
    EmberError,
    ForceLiteralArg,
    LiteralTypingError,
    TypingError,
    UnsupportedError,
)
from ember.frontend.interpreter import UndefinedName
from ember.lowering.context import TargetOptions
from ember.misc import events
from ember.typing.functions import RecursionPending
from ember.typing.signature import Signature
from ember.typing.templates import choose_best

OmittedArg = Omitted  # Numba's name (numba.core.dispatcher.OmittedArg)


class _TargetOptionsView(dict):
    """A dispatcher's options as a dict whose writes go to the dispatcher."""

    def __init__(self, current: dict, set_option: Callable[[str, Any], None]) -> None:
        super().__init__(current)
        self._set_option = set_option

    def __setitem__(self, name: str, value: Any) -> None:
        self._set_option(name, value)
        super().__setitem__(name, value)


# Numba's limit on the length of a tuple argument (its error says "smaller than", it allows 1000)
_MAX_TUPLE_LENGTH = 1000

# One compilation at a time: typing and lowering registries are shared, and compiling is rare.
compile_lock = threading.RLock()


class _InProgress:
    """A specialization being compiled: lets recursive calls type and link to it.

    A mutually recursive callee (f calls g calls f) is typed and lowered while f is still
    being typed: it sees f's return type so far (`handed_out` records what it saw, checked
    when f is done) and links to f's machine code once f's library exists (`library`).
    """

    def __init__(self, state: CompileState, symbol: str) -> None:
        self.state = state
        self.symbol = symbol
        self.library = None
        self.handed_out: set = set()
        self.dependents: list = []  # libraries whose code calls this one's symbol

    @property
    def return_type_so_far(self) -> types.Type | None:
        if self.state.signature is not None:
            return self.state.signature.return_type
        if self.state.declared_return is not None:
            return self.state.declared_return
        inferer = self.state.inferer
        found = inferer.return_type if inferer is not None else None
        # (imported here: a process that only loads cached code never loads type inference)
        from ember.typing.infer import running_inferer

        if found is not None and running_inferer() is not inferer:
            # another function's code keeps this type; the function's own recursive calls
            # are typed again by its next sweep, until its return type settles
            self.handed_out.add(found)
        return found

    @property
    def signature(self) -> Signature | None:
        return_type = self.return_type_so_far
        if return_type is None:
            return None
        return Signature(return_type, self.state.arg_types)

    def finish(self, result: CompileResult) -> None:
        """Check what callers assumed, then let their libraries link to the machine code."""
        wrong = {t for t in self.handed_out if t is not result.signature.return_type}
        if wrong:
            message = (
                f"mutual recursion: {self.state.py_func.__qualname__} returns "
                f"{result.signature.return_type}, but a function it calls was compiled "
                f"while its return type was {', '.join(map(str, wrong))}; give it an explicit "
                "signature or make every return give the same type"
            )
            for library in self.dependents:
                library.broken = message
            raise TypingError(message)
        self.library = result.library


class Dispatcher:
    """A jitted function: callable from Python and from other jitted functions.

    Each dispatcher is the only instance of its own subclass, whose call slot points at the
    generated native entry once a specialization exists (see fast_entry.py and call_slots.py).
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Dispatcher:
        from ember.dispatcher.call_slots import make_vectorcall_class

        own_class = type(cls.__name__, (cls,), {"__module__": cls.__module__})
        vectorcall_offset = make_vectorcall_class(own_class)
        instance = super().__new__(own_class)
        instance._vectorcall_offset = vectorcall_offset
        return instance

    def __reduce__(self) -> tuple:
        from ember.dispatcher.serialize import function_state

        state = function_state(self.py_func, self)
        identity = _pickle_identity(self)
        return (_rebuild_dispatcher, (state, self.options, self._explicit_signatures(), identity))

    def _explicit_signatures(self) -> list | None:
        if not self._explicit:
            return None
        return [result.signature for result in self.overloads.values()]

    def __init__(
        self,
        py_func: FunctionType,
        options: TargetOptions,
        signatures: list[Signature] | None = None,
        cache: bool = False,
    ) -> None:
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        # Passed to a jitted function, a dispatcher is a compile-time constant of its own
        # type (typeof reads this first); its class has no other instance.
        type(self)._ember_type_ = types.DispatcherType(self)
        self.options = options
        self.cache = cache
        self._disk_cache = _disk_cache_of(self) if cache else None
        self.overloads: dict[tuple, CompileResult] = {}
        self._binder = ArgumentBinder(py_func)
        self._explicit = bool(signatures)
        self._compile_disabled = False  # disable_compile()
        self._declaring = False  # compiling a declared signature (allowed when disabled)
        self._failed: dict[tuple, EmberError] = {}
        self._in_progress: dict[tuple, _InProgress] = {}
        self._invokers: dict[tuple, Callable] = {}
        self._entries: list = []  # every generated entry stays alive: its code may be running
        self._entry_chain: Any = None  # fast_entry.EntryChain, from the first entry on
        self._entry_stale = True
        self._slow_calls = 0
        self._deferred: list[Signature] = []  # declared, waiting for a name to be defined
        # Parameters that literally() asks for as literal types: each value compiles its own
        # specialization (Numba's literal dispatch).
        self._literal_params: frozenset[int] = frozenset()
        for sig in signatures or ():
            self._compile_declared(sig)

    def _compile_declared(self, sig: Signature) -> None:
        """Compile an explicit signature now, or at the first call when the function reads a
        global not defined yet (f calls g, both with signatures, g defined below f)."""
        self._declaring, declaring = True, self._declaring
        try:
            self.compile(sig, allow_cached=True)
        except UndefinedName:
            self._deferred.append(sig)
        finally:
            self._declaring = declaring

    def _compile_deferred(self, final: bool = False) -> None:
        """Compile the declared signatures waiting for a name; `final` (a call from Python):
        a name still undefined is the caller's error, raised."""
        deferred, self._deferred = self._deferred, []
        for sig in deferred:
            self._compile_declared(sig)
        if final and self._deferred:
            self._declaring, declaring = True, self._declaring
            try:
                self.compile(self._deferred[0], allow_cached=True)  # raises UndefinedName
            finally:
                self._declaring = declaring

    # ------------------------------------------------------------------ introspection

    @property
    def signatures(self) -> list[tuple]:
        return list(self.overloads)

    @property
    def nopython_signatures(self) -> list[Signature]:
        """The compiled specializations' signatures (Numba's name)."""
        return [result.signature for result in self.overloads.values()]

    @property
    def targetoptions(self) -> dict[str, Any]:
        """The compile options as Numba's `targetoptions` dict (`f.targetoptions['nogil']`).
        Setting `fastmath`, `error_model`, `boundscheck`, `nogil` or `debug` in it changes
        what the next compilation uses (`f.recompile()`), as in Numba."""
        options = self.options
        current = {
            "nopython": True,
            "error_model": options.error_model,
            "fastmath": options.fastmath,
            "boundscheck": options.boundscheck,
            "nogil": options.nogil,
            "parallel": options.parallel is not None,
            "debug": options.debug,
        }
        return _TargetOptionsView(current, self._set_target_option)

    def _set_target_option(self, name: str, value: Any) -> None:
        from dataclasses import replace

        from ember.lowering.context import error_model_option, fastmath_option

        converters = {
            "fastmath": fastmath_option,
            "boundscheck": bool,
            "nogil": bool,
            "debug": bool,
            "error_model": error_model_option,
        }
        if name not in converters:
            raise KeyError(
                f"targetoptions[{name!r}] cannot change after decorating; pass it to @jit "
                f"(changeable: {', '.join(sorted(converters))})"
            )
        self.options = replace(self.options, **{name: converters[name](value)})

    def disable_compile(self, val: bool = True) -> None:
        """After this, a call whose types need a new specialization takes a compiled one its
        arguments convert to, or raises TypeError (Numba's method)."""
        self._compile_disabled = val

    @property
    def is_compiling(self) -> bool:
        """True while a specialization of this function is being compiled."""
        return bool(self._in_progress)

    @property
    def stats(self) -> Any:
        """Seconds spent in each compiler pass, per compiled signature (a dict), and Numba's
        `cache_path`, `cache_hits` and `cache_misses` (empty without `cache=True`)."""
        from ember.caching import CompileStats

        timings = {args: dict(result.timings) for args, result in self.overloads.items()}

        return CompileStats(timings, self._disk_cache)

    @property
    def _cache(self) -> Any:
        """Numba's name for the disk cache (None without cache=True)."""
        return self._disk_cache

    @_cache.setter
    def _cache(self, cache: Any) -> None:
        """Numba's idiom `dispatcher._cache = NullCache()` turns the disk cache off."""
        from ember.core.caching import NullCache

        if cache is not None and not isinstance(cache, NullCache):
            raise TypeError(f"a dispatcher's _cache can only be switched off (None or "
                            f"NullCache()), not set to {type(cache).__name__}")  # fmt: skip
        self._disk_cache = None

    @property
    def _cache_hits(self) -> Any:
        """Numba's per-signature counter of disk-cache hits (`stats.cache_hits`)."""
        return self.stats.cache_hits

    @property
    def _cache_misses(self) -> Any:
        return self.stats.cache_misses

    # Numba's other introspection names.

    @property
    def doc(self) -> str | None:
        return self.py_func.__doc__

    @property
    def func_code(self) -> Any:
        return self.py_func.__code__

    @property
    def __code__(self) -> Any:  # Numba's: code that inspects functions reads it
        return self.py_func.__code__

    @property
    def __defaults__(self) -> tuple | None:
        return self.py_func.__defaults__

    @property
    def locals(self) -> dict[str, types.Type]:
        """The declared variable types of `@jit(locals={...})`."""
        return dict(self.options.locals)

    def get_overload(self, sig: Signature | tuple) -> Callable:
        """The compiled entry point of an existing specialization (KeyError if none)."""
        arg_types = tuple(sig.args) if isinstance(sig, Signature) else tuple(sig)
        return self.overloads[arg_types].entry_point

    def get_compile_result(self, sig: Signature | tuple | str) -> CompileResult:
        """The specialization for these argument types, compiled now if needed."""
        return self.compile(sig)

    def typeof_pyval(self, value: Any) -> types.Type:
        """The type a call gives the argument `value`."""
        from ember.dispatcher.typeof import typeof

        return typeof(value)

    def get_metadata(self, signature: tuple | None = None) -> dict:
        """Per specialization (or for one): its `metadata` (pass timings, parallel report)."""
        if signature is not None:
            return self.overloads[tuple(signature)].metadata
        return {args: result.metadata for args, result in self.overloads.items()}

    def enable_caching(self) -> None:
        """Turn on `cache=True` after the decoration (Numba's method)."""
        if self._disk_cache is None:
            self.cache = True
            self._disk_cache = _disk_cache_of(self)

    def parallel_diagnostics(self, signature: tuple | None = None, level: int = 1) -> None:
        """Print what parallel=True did with each loop (level 1-4: more detail), as Numba."""
        from ember.parallel.diagnostics import print_diagnostics

        print_diagnostics(self, self._selected(signature), level)

    def inspect_types(
        self, file: Any = None, signature: tuple | None = None, pretty: bool = False, **_: Any
    ) -> str:
        """Print the annotated source of each specialization to `file` (stdout), as Numba
        does, and also return it. `inspect_types(signature)` (a tuple first) still works.
        `pretty=True` returns the annotated HTML view instead (shown inline in a notebook;
        ember/annotate/)."""
        from ember.typing.annotate import annotate

        if isinstance(file, (tuple, list)):
            file, signature = None, file
        if pretty:
            from ember.annotate import annotate as annotated_page

            return annotated_page(self, signature)
        text = "\n".join(
            annotate(result.func_ir, result.typing) for result in self._selected(signature)
        )
        print(text, file=file if file is not None else sys.stdout)
        return text

    def get_annotation_info(self, signature: tuple | None = None) -> dict:
        """Numba's annotation data of each specialization (of one, when given), keyed by
        (`file:first line`, argument types): source lines, indents and typed statements."""
        from ember.typing.annotate import annotation_info

        found = {}
        for result in self._selected(signature):
            code = self.py_func.__code__
            key = (f"{code.co_filename}:{code.co_firstlineno + 1}", result.signature.args)
            found[key] = annotation_info(result.func_ir, result.typing)
        return found

    def inspect_llvm(self, signature: tuple | None = None) -> dict[tuple, str] | str:
        """The optimized LLVM IR of each compiled signature (of one, when given), with the
        callees linked into it, as the machine code is generated from it."""
        found = {args: self._full(args).library.optimized_ir for args in list(self.overloads)}
        return found[tuple(signature)] if signature is not None else found

    def inspect_asm(self, signature: tuple | None = None) -> dict[tuple, str] | str:
        found = {args: self._full(args).library.assembly for args in list(self.overloads)}
        return found[tuple(signature)] if signature is not None else found

    def inspect_cfg(
        self, signature: tuple | None = None, show_wrapper: str | None = None, **kwargs: Any
    ) -> Any:
        """Numba's control-flow graphs of the optimized LLVM functions (Graphviz `dot` text:
        `str(cfg)`, `cfg.dot`, `cfg.display()`), one per signature or of the one given.
        `show_wrapper` is accepted; ember's Python entry is not part of the function."""
        graphs = {
            args: _ControlFlowGraph(result.library.optimized_ir, result.symbol)
            for args, result in ((r.signature.args, r) for r in self._selected(signature))
        }
        return graphs[tuple(signature)] if signature is not None else graphs

    def _selected(self, signature: tuple | None) -> list[CompileResult]:
        if signature is None:
            return [self._full(args) for args in list(self.overloads)]
        return [self._full(tuple(signature))]

    def _full(self, arg_types: tuple) -> CompileResult:
        """The specialization with its IR and LLVM module (one loaded from the disk cache
        holds machine code only: compile it now)."""
        return self.compile(arg_types)

    def __repr__(self) -> str:
        return f"CPUDispatcher({self.py_func})"

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """A bound method, as for a Python function: attributes the method lacks
        (`overloads`, `py_func`, `inspect_types`...) read the dispatcher's."""
        if instance is None:
            return self
        return MethodType(self, instance)

    # ------------------------------------------------------------------ compilation

    def compile(
        self, sig: Signature | tuple | str, allow_cached: bool = False, for_caller: bool = False
    ) -> CompileResult:
        """Compile (or return) the specialization for these argument types. `allow_cached`:
        machine code from the disk cache will do (calls from Python); otherwise the result
        has its IR and LLVM module (other compilations link and inspect it). `for_caller`:
        for the typing or lowering of a call from compiled code, which may never need the
        optimized module, so its optimization waits for the first link or call."""
        if isinstance(sig, str):  # "float64(float64, int64)", as Numba's compile() takes
            from ember.decorators import _parse_signature

            sig = _parse_signature(sig)
        if isinstance(sig, Signature):
            arg_types, declared_return = tuple(sig.args), sig.return_type
        else:
            arg_types, declared_return = tuple(sig), None
        self._binder.check_signature_arity(arg_types)
        with compile_lock:
            existing = self.overloads.get(arg_types)
            if (
                existing is None
                and (self._compile_disabled or self._explicit)
                and not self._declaring
                and arg_types not in self._in_progress
            ):
                raise RuntimeError("compilation disabled")  # Numba's words, as its test has
            if existing is not None and (allow_cached or not existing.from_cache):
                if not for_caller:
                    existing.library.finalize()
                return existing
            failed = self._failed.get(arg_types)
            if failed is not None:
                raise failed.detached()
            cache = self._disk_cache
            if cache is not None and allow_cached:
                loaded = cache.load(arg_types, declared_return)
                if loaded is not None:
                    return self._add_overload(arg_types, loaded)
            state = CompileState(self.py_func, arg_types, declared_return, self.options, self)
            state.for_caller = for_caller
            from ember.compiler import _symbol_name

            cached_symbol = cache.symbol(arg_types, declared_return) if cache is not None else None
            state.symbol = cached_symbol or _symbol_name(self.py_func, arg_types)
            self._in_progress[arg_types] = _InProgress(state, state.symbol)
            in_progress = self._in_progress[arg_types]
            event_data = {"dispatcher": self, "args": arg_types, "return_type": declared_return}
            retry_after_extensions = False
            with events.trigger_event("numba:compile", event_data):
                try:
                    result = run_pipeline(state)
                    in_progress.finish(result)
                except EmberError as error:
                    if isinstance(error, TypingError) and init_all():
                        # An installed package's extension, loaded now, may type what failed.
                        retry_after_extensions = True
                    else:
                        # A callee still being typed, or a global not defined yet: may work
                        # later.
                        if not isinstance(error, (RecursionPending, UndefinedName)):
                            self._failed[arg_types] = error.detached()
                        raise
                finally:
                    del self._in_progress[arg_types]
                if retry_after_extensions:
                    return self.compile(sig, allow_cached, for_caller)
                if cache is not None:
                    cache.save(arg_types, declared_return, result)
                return self._add_overload(arg_types, result)

    def recompile(self) -> None:
        """Compile every specialization again, e.g. after a global it reads changed (Numba's
        method). Compiled callers keep the code they linked; calls from Python get the new."""
        with compile_lock:
            previous = list(self.overloads.items())
            self.overloads = {}
            self._failed.clear()
            self._invokers.clear()
            self._declaring, declaring = True, self._declaring
            try:
                for arg_types, result in previous:
                    self.compile(result.signature if self._explicit else arg_types)
            finally:
                self._declaring = declaring
            if self._entries:  # a new chain: the installed entries call the old code
                self._entry_chain = None
                self._install_fast_entry()

    def _add_overload(self, arg_types: tuple, result: CompileResult) -> CompileResult:
        self.overloads[arg_types] = result
        self._entry_stale = True
        return result

    # ------------------------------------------------------------------ calls from jitted code

    def _fold_types(self, args: tuple, kws: dict, keep_literals: bool = False) -> tuple:
        """Argument types in parameter order; omitted defaults are typed from their values.
        Literal types are kept only for the parameters literally() asks for (all of them with
        `keep_literals`: the retry of a call whose plain types do not compile)."""

        folded = []
        for index, item in enumerate(self._binder.bind(args, kws)):
            if isinstance(item, Omitted):
                folded.append(self._omitted_type(item.default, keep_literals))
            elif isinstance(item, tuple):  # the *args tuple
                folded.append(types.make_tuple(types.unliteral(t) for t in item))
            elif keep_literals or index in self._literal_params:
                folded.append(item)
            else:
                folded.append(types.unliteral(item))
        return tuple(folded)

    @staticmethod
    def _omitted_type(default: Any, literal: bool) -> types.Type:
        """An omitted argument's type: of its default value, as a literal in the literal
        retry (an overload may need the constant, as Numba gives it)."""
        from ember.typing.context import TypingContext

        if literal and type(default) in (int, bool, str):
            return types.literal(default)
        return TypingContext().resolve_value_type(default)

    def type_call(self, args: tuple, kws: dict) -> Signature | None:
        """The signature of a call from compiled code (compiling the callee if needed)."""
        self._compile_deferred()
        while True:
            try:
                arg_types = self._fold_types(args, kws)
            except TypeError as error:
                raise TypingError(str(error)) from None
            in_progress = self._in_progress.get(arg_types)
            if in_progress is not None:
                return Signature(in_progress.return_type_so_far, arg_types)
            if self._explicit or self._compile_disabled:
                return self._declared_for_caller(arg_types)
            try:
                return self.compile(arg_types, for_caller=True).signature
            except ForceLiteralArg as request:
                if not self._learn_literal_params(request):
                    raise  # the caller makes its own arguments literal, or reports why not
            except TypingError:
                literal_types = self._fold_types(args, kws, keep_literals=True)
                if literal_types == arg_types:
                    raise
                try:  # Numba types constant arguments as literals: `np.zeros(n, dt)` needs it
                    return self.compile(literal_types, for_caller=True).signature
                except TypingError:
                    pass
                raise  # the error of the plain types, the usual case

    def _declared_for_caller(self, arg_types: tuple) -> Signature:
        """With explicit signatures (or compiling disabled), a call from compiled code takes
        the compiled signature its arguments convert to best, as a call from Python does: no
        new specialization (Numba's rule); the caller converts the arguments."""
        for sig in list(self._deferred):  # compiled now, or UndefinedName defers the caller too
            self._declaring, declaring = True, self._declaring
            try:
                self.compile(sig)
            finally:
                self._declaring = declaring
            self._deferred.remove(sig)
        candidates = [result.signature for result in self.overloads.values()]
        candidates += [
            pending.signature
            for pending in self._in_progress.values()
            if pending.signature is not None
        ]
        try:
            best = choose_best(candidates, arg_types, repr(self.py_func))
        except TypeError as ambiguous:
            raise TypingError(str(ambiguous)) from None
        if best is None:
            accepted = "\n".join(f"    {sig}" for sig in candidates)
            listing = ", ".join(map(str, arg_types))
            raise TypingError(
                f"Invalid use of {self.py_func.__name__} with parameters ({listing}): "
                f"{self.py_func.__name__}(): no matching definition for argument type(s) "
                f"{listing}\naccepted signatures:\n{accepted}"
            )
        return best

    def get_call_template(self, args: tuple, kws: dict) -> tuple:
        """Numba's typing hook: (a ConcreteTemplate whose cases are the compiled signatures,
        the Python signature, the folded argument types, {}), compiling for `args` first
        (or choosing among the explicit signatures)."""
        from ember.typing.templates import ConcreteTemplate

        sig = self.type_call(tuple(args), dict(kws))
        name = f"CallTemplate({self.py_func.__name__})"
        cases = [*self.nopython_signatures, *([sig] if sig not in self.nopython_signatures else [])]
        template = type(name, (ConcreteTemplate,), {"key": self, "cases": cases})
        return template, inspect.signature(self.py_func), tuple(sig.args), {}

    def keep_literal_types(self) -> None:
        """Compile calls from compiled code for the literal argument types they pass, as for
        the implementation an overload returned for literal types."""
        self._literal_params = frozenset(range(len(self._binder.names)))

    def _learn_literal_params(self, request: ForceLiteralArg) -> bool:
        """Remember the parameters a compilation asked for as literals; False if known."""
        if request.indices <= self._literal_params:
            return False
        self._literal_params |= request.indices
        return True

    def _with_literals(self, arg_types: tuple, values: list) -> tuple:
        """`arg_types` of a call from Python with the literal parameters typed by value."""
        typed = list(arg_types)
        for index in self._literal_params:
            value = values[index]
            if type(value) not in (int, bool, str):
                name = self._binder.names[index]
                python_type = f"{type(value).__module__}.{type(value).__qualname__}"
                raise LiteralTypingError(
                    f"{self.py_func.__name__}(): literally() needs argument '{name}' as a "
                    f"literal, and a value of type {python_type} ({arg_types[index]}) has none "
                    "(only int, bool and str values do)"
                )
            typed[index] = types.literal(value)
        return tuple(typed)

    def compiled_for_call(self, arg_types: tuple) -> CompileResult | _InProgress:
        in_progress = self._in_progress.get(tuple(arg_types))
        if in_progress is not None:
            return in_progress
        found = self.overloads[tuple(arg_types)]
        return self._full(tuple(arg_types)) if found.from_cache else found

    def fold_call_arguments(self, args: list, kws: dict, resolve: Callable) -> list:
        """(value, type) per parameter for a compiled call; omitted ones are (None, default);
        the `*args` parameter gets a list of (value, type), one per extra argument."""
        ordered = []
        for item in self._binder.bind(args, kws):
            if isinstance(item, Omitted):
                ordered.append((None, item.default))
            elif isinstance(item, tuple):
                ordered.append(([resolve(extra) for extra in item], None))
            else:
                ordered.append(resolve(item))
        return ordered

    # ------------------------------------------------------------------ calls from Python

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Used until the native entry is installed in the call slot (and without it)."""
        return self._python_call(*args, **kwargs)

    def _python_call(self, *args: Any, **kwargs: Any) -> Any:
        """The general path: bind, type, select or compile, convert, call."""
        values = self._bound_values(args, kwargs)
        if kwargs and self._entries and not self._entry_stale:
            with compile_lock:  # the next keyword call stays native
                self._entry_chain.ensure_keyword_entry()
            return self._entries[-1].builtin(*self._spread(values))  # positional: native again
        arg_types = tuple(map(self._typeof_argument, self._binder.names, values))
        if self._literal_params:
            arg_types = self._with_literals(arg_types, values)
        result = self.overloads.get(arg_types)
        if result is None:
            try:
                result = self._resolve_with_literals(arg_types, values)
            except EmberError as error:
                # The message says where and why; the compiler's own frames would only hide it.
                raise error.with_traceback(None) from None
        self._slow_calls += 1
        if self._entry_stale and self._slow_calls > config.CALLS_BEFORE_ENTRY:
            if self._install_fast_entry(result):  # called often enough: worth the entry
                return self._entries[-1].builtin(*self._spread(values))  # this call too
        invoker = self._invokers.get(result.signature.args)
        if invoker is None:
            from ember.dispatcher.pycall import make_invoker

            # An overload compiled for jitted callers alone, left out of the entry until it
            # had machine code, which the invoker makes: the next call links it in.
            self._entry_stale = True

            invoker = make_invoker(result.signature, result.address, self.options.nogil)
            self._invokers[result.signature.args] = invoker
        return invoker(*values)

    def _install_fast_entry(self, calling: CompileResult | None = None) -> bool:
        """Link the specializations compiled since the last link into the native entry (with
        `calling`, the overload this call runs, the others only once they have machine code);
        False when there was nothing it can take."""
        from ember.dispatcher.call_slots import install_entry
        from ember.dispatcher.fast_entry import EntryChain

        with compile_lock:
            self._entry_stale = False
            if self._entry_chain is None:
                self._entry_chain = EntryChain(self)
            entry = self._entry_chain.extend(calling)
            if entry is None:
                return False
            self._entries.append(entry)
            install_entry(self, self._vectorcall_offset, entry)
            return True

    def _spread(self, values: list) -> list:
        """Bound values as the native entry takes them: a *args tuple spread out again."""
        if self.py_func.__code__.co_flags & inspect.CO_VARARGS:
            return [*values[:-1], *values[-1]]
        return values

    def _bound_values(self, args: tuple, kwargs: dict) -> list[Any]:
        values = self._binder.bind(args, kwargs)
        return [item.default if isinstance(item, Omitted) else item for item in values]

    def _position(self, name: str) -> int | str:
        """The position of parameter `name` (the name itself for one gathered by `**kws`)."""
        return self._binder.names.index(name) if name in self._binder.names else name

    def _inexact_parameter(self, name: str) -> types.Type | None:
        """The float or complex type a compiled signature gives parameter `name`, if any: what
        a Python int beyond 64 bits converts to."""
        position = self._position(name)
        if isinstance(position, str):
            return None
        for signature in self.overloads:
            if position < len(signature) and isinstance(
                signature[position], types.Float | types.Complex
            ):
                return signature[position]
        return None

    def _typeof_argument(self, name: str, value: Any) -> types.Type:
        from ember.dispatcher.typeof import typeof_or_none

        try:
            found = typeof_or_none(value)
        except TypingError as error:  # e.g. an array of strings: say which argument
            position = self._position(name)
            message = (
                f"{self.py_func.__name__}(): cannot compile for argument '{name}': {error.msg} "
                f"(argument {position})"
            )
            raise type(error)(message).with_traceback(None) from None
        if found is None and init_all():  # an installed package's extension may type it
            found = typeof_or_none(value)
        if found is None:
            inexact = self._inexact_parameter(name) if type(value) is int else None
            if inexact is not None:  # 2**70 for a float64 parameter: converted, as Numba does
                return inexact
            if _holds_huge_int(value):
                raise OverflowError("int too big to convert")
            position = self._position(name)
            raise ArgumentTypeError(
                f"{self.py_func.__name__}(): cannot compile for argument '{name}' of Python "
                f"type {type(value).__name__}: ember supports numbers, strings, None, tuples, "
                "lists (of numbers, strings, arrays or tuples) and NumPy arrays.\n"
                "This error may have been caused by the following argument(s):\n"
                f"- argument {position}: Cannot determine Numba type of {type(value)}"
            )
        if type(value).__module__ == "numpy":  # np.int64(5): strong in NumPy's promotion
            found = types.numpy_scalar(found)
        if isinstance(found, types.BaseTuple) and len(found.types) > _MAX_TUPLE_LENGTH:
            raise UnsupportedError(
                f"Tuple '{name}' length must be smaller than {_MAX_TUPLE_LENGTH}: a tuple "
                "is compiled member by member, so large tuples make prohibitively large code; "
                "pass a NumPy array instead"
            )
        return found

    def _resolve_with_literals(self, arg_types: tuple, values: list) -> CompileResult:
        """`_resolve`, compiling again with literal types for the parameters literally() asks
        for (`f(3)` then compiles `f(Literal[int](3))`)."""
        while True:
            try:
                return self._resolve(arg_types)
            except ForceLiteralArg as request:
                if not self._learn_literal_params(request):
                    if all(isinstance(arg_types[i], types.Literal) for i in request.indices):
                        raise CompilerError(  # Numba's words: the request cannot be met
                            f"Repeated literal typing request: the arguments are literals "
                            f"already, yet typing asks for them again.\n{request}"
                        ).with_traceback(None) from None
                    raise
                arg_types = self._with_literals(arg_types, values)

    def _resolve(self, arg_types: tuple) -> CompileResult:
        """Without explicit signatures, compile the exact types (as Numba does, so results keep
        their own types); with them, pick the best conversion, unsafe ones allowed."""
        if not (self._explicit or self._compile_disabled):
            return self.compile(arg_types, allow_cached=True)
        if not self._compile_disabled:
            self._compile_deferred(final=True)
        candidates = [result.signature for result in self.overloads.values()]
        describe = repr(self.py_func)
        best = choose_best(candidates, arg_types, describe)
        if best is None:
            listing = ", ".join(str(t) for t in arg_types)
            raise TypeError(f"No matching definition for argument type(s) {listing}")
        return self.overloads[best.args]


class _ControlFlowGraph:
    """The CFG of one LLVM function as Graphviz text (llvmlite's `get_function_cfg`)."""

    def __init__(self, llvm_ir: str, symbol: str) -> None:
        import llvmlite.binding as llvm_binding

        function = llvm_binding.parse_assembly(llvm_ir).get_function(symbol)
        self.dot = llvm_binding.get_function_cfg(function)

    def __str__(self) -> str:
        return self.dot

    def display(self, filename: str | None = None, view: bool = False) -> Any:
        """A graphviz.Source of the graph (the optional `graphviz` package)."""
        import graphviz

        source = graphviz.Source(self.dot, filename=filename)
        if view:
            source.view()
        return source


def _disk_cache_of(dispatcher: Dispatcher) -> Any:
    from ember.caching import FunctionCache

    return FunctionCache(dispatcher)


# Each pickled dispatcher's identity -> the live dispatcher it stands for: unpickling the same
# pickle again (or in the process that made it) gives that dispatcher and its compiled code
# back, as Numba does, instead of a new one that compiles again.
_by_pickle_identity: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _pickle_identity(dispatcher: Dispatcher) -> str:
    identity = getattr(dispatcher, "_pickle_identity", None)
    if identity is None:
        identity = dispatcher._pickle_identity = uuid.uuid4().hex
        _by_pickle_identity[identity] = dispatcher
    return identity


def _rebuild_dispatcher(
    state: tuple, options: TargetOptions, signatures, identity: str | None = None
) -> Dispatcher:
    from ember.dispatcher.serialize import rebuild_function

    existing = _by_pickle_identity.get(identity) if identity is not None else None
    if existing is not None:
        return existing
    py_func, self_names = rebuild_function(state)
    dispatcher = Dispatcher(py_func, options, signatures)
    for name in self_names:
        py_func.__globals__[name] = dispatcher
    if identity is not None:
        dispatcher._pickle_identity = identity
        _by_pickle_identity[identity] = dispatcher
    return dispatcher


def _holds_huge_int(value: Any) -> bool:
    """An int beyond 64 bits (as Python converts one to a C integer: OverflowError), alone or
    inside a tuple."""
    if isinstance(value, tuple):
        return any(_holds_huge_int(item) for item in value)
    return isinstance(value, int) and not (-(2**63) <= value < 2**64)
