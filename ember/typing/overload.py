"""Python-level implementations (seed 004): `@overload`, `@overload_method` and
`@overload_classmethod` (`@overload_attribute`, `make_attribute_wrapper`: overload_attribute.py;
`@intrinsic`: intrinsics.py).

An overload function receives argument *types* and returns a Python implementation (or None:
"not for these types"). Typing compiles that implementation with ember's own Dispatcher for
the argument types and answers with its signature; lowering calls the compiled specialization
with `context.call_compiled`, which links its module into the caller so LLVM inlines it.

    @overload(len)                       len(x) where x is a tuple:
    def tuple_len(x):                      typing  -> compiles len_impl(Tuple) -> int64(Tuple)
        if isinstance(x, types.BaseTuple):  lowering -> call @len_impl$3(...)  (inlined: `ret 3`)
            n = len(x)
            def len_impl(x):
                return n
            return len_impl

Implementations are compiled once per distinct set of caller options (`error_model`,
`fastmath`...): typing compiles them with the options of the function being typed, and lowering
uses that compilation, so an implementation follows the options of the function that calls it.
"""

from __future__ import annotations

import inspect
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from llvmlite import ir as llvm

from ember import types
from ember.errors import (
    EmberError,
    ForceLiteralArg,
    StencilError,
    TypingError,
    UnsupportedError,
)
from ember.lowering.registry import registry as lowering
from ember.typing.context import TypingContext
from ember.typing.signature import Signature
from ember.typing.templates import (
    AbstractTemplate,
    builtin_rules_end,
    operator_first,
    registry,
    widen_all_literals,
)

# ------------------------------------------------------------------ compiling implementations


class Implementation:
    """One Python implementation function, compiled per set of target options."""

    def __init__(self, py_func: Callable, jit_options: dict | None = None) -> None:
        from ember.dispatcher.dispatcher import Dispatcher  # the layer above: compiles impls

        if isinstance(py_func, Dispatcher):
            py_func = py_func.py_func
        self.py_func = py_func
        self.jit_options = dict(jit_options or {})
        self.parameters = list(inspect.signature(py_func).parameters.values())
        self._dispatchers: dict[Any, Any] = {}

    def dispatcher(self, options: Any) -> Any:
        """The nopython Dispatcher of this implementation for the caller's `options`."""
        from ember.dispatcher.dispatcher import Dispatcher

        options = _apply_jit_options(options, self.jit_options)
        # a compile freezes the closure's cells: cells holding other values compile afresh
        key = (options, closure_key(self.py_func))
        found = self._dispatchers.get(key)
        if found is None:
            found = Dispatcher(self.py_func, options)
            found.keep_literal_types()  # compiled for the types its overload chose
            self._dispatchers[key] = found
        return found

    def type_call(self, args: tuple) -> Signature:
        """Compile for `args` with the options of the function being typed (as lowering will
        use them: one compilation serves both) and return the full signature."""
        return self.dispatcher(_caller_options()).type_call(args, {})

    def compiled(self, options: Any, full_args: tuple) -> Any:
        """The CompileResult for the caller's options (compiling it on first use)."""
        dispatcher = self.dispatcher(options)
        try:
            return dispatcher.compiled_for_call(full_args)  # compiled, or being compiled
        except KeyError:
            return dispatcher.compile(full_args, for_caller=True)

    def bind(self, args: tuple, kws: dict) -> tuple[tuple | None, Any]:
        """(argument types, pysig) of a call: with keywords, or for an implementation without
        `*args`, all parameters in order (omitted ones as `types.Omitted(default)`) and the
        implementation's signature, which lowering uses to place keyword arguments;
        otherwise the positional types themselves and no pysig. (None, None) if it won't bind.
        """
        pysig = inspect.signature(self.py_func)
        if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in self.parameters):
            if kws or not _accepts(self.py_func, args, {}):
                return None, None
            return args, None
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError:
            return None, None
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in self.parameters):
            return None, None
        return _with_omitted(self.parameters, bound.arguments), pysig

    def bind_by(self, pysig: inspect.Signature, args: tuple, kws: dict) -> tuple[tuple | None, Any]:
        """(argument types, pysig) of a call placed by the overload function's own signature
        `pysig` (NumPy's parameter list, say): every parameter in order, omitted ones as
        `types.Omitted(default)`, for an implementation taking that many positional parameters.
        (None, None) if it won't bind."""
        positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        overload_params = list(pysig.parameters.values())
        if len(self.parameters) != len(overload_params) or not all(
            p.kind in positional for p in [*self.parameters, *overload_params]
        ):
            return None, None
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError:
            return None, None
        return _with_omitted(overload_params, bound.arguments), pysig

    @staticmethod
    def compile_types(args: tuple) -> tuple:
        """The types the implementation is compiled for: an omitted argument takes the type of
        its default (one specialization for all values of a number; strings keep their literal
        type, as their text selects behaviour, `side='right'`)."""
        return tuple(
            _keep_strings(TypingContext().resolve_value_type(t.value))
            if isinstance(t, types.Omitted)
            else t
            for t in args
        )

    def fold(self, args: tuple) -> tuple:
        """The implementation's parameter types for a call passing `args` by position:
        omitted parameters take the type of their default, `*args` becomes a tuple."""
        folded = []
        for index, param in enumerate(self.parameters):
            if param.kind is inspect.Parameter.VAR_POSITIONAL:
                folded.append(types.make_tuple(args[index:]))
            elif index < len(args):
                folded.append(args[index])
            else:
                folded.append(TypingContext().resolve_value_type(param.default))
        return tuple(folded)

    def call(self, context: Any, builder: llvm.IRBuilder, sig: Signature, args: list) -> Any:
        """Lower a call passing the values `args` (of `sig.args`) by position; an argument
        typed `types.Omitted` is its default, as a constant."""
        full_args = self.compile_types(self.fold(sig.args))
        values = []
        for index, (param, typ) in enumerate(zip(self.parameters, full_args)):
            if param.kind is inspect.Parameter.VAR_POSITIONAL:
                packed = llvm.Constant(context.value_type(typ), llvm.Undefined)
                for position, item in enumerate(args[index:]):
                    packed = builder.insert_value(packed, item, position)
                values.append(packed)
            elif index < len(args) and not isinstance(sig.args[index], types.Omitted):
                values.append(args[index])
            else:
                default = sig.args[index].value if index < len(args) else param.default
                values.append(context.get_constant_generic(builder, typ, default))
        target = self.compiled(context.options, full_args)
        result = context.call_compiled(builder, target, values)
        return context.cast(builder, result, target.signature.return_type, sig.return_type)


def closure_key(func: Callable) -> tuple:
    """What a compile of `func` freezes from its closure: per cell, its value (by type and
    value when hashable, else by identity), and the cells of functions held in cells, so a
    cell set to another value after a compile is never served by that compile."""
    return _cells_key(func, set())


def _cells_key(func: Callable, seen: set) -> tuple:
    if id(func) in seen:
        return ()
    seen.add(id(func))
    return tuple(_cell_value_key(cell, seen) for cell in getattr(func, "__closure__", None) or ())


def _cell_value_key(cell: Any, seen: set) -> Any:
    try:
        value = cell.cell_contents
    except ValueError:  # not assigned yet
        return _EMPTY_CELL
    if isinstance(value, (float, complex)):  # -0.0 == 0.0, and nan != nan
        return (type(value), repr(value))
    nested = _cells_key(value, seen) if inspect.isfunction(value) else ()
    try:
        hash(value)
    except TypeError:
        return (type(value), _Identity(value), nested)
    return (type(value), value, nested)


_EMPTY_CELL = object()


class _Identity:
    """An unhashable value compared by identity (holding it keeps its id from being reused)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.value is self.value


def _with_omitted(params: list, given: dict) -> tuple:
    """One type per parameter: the given argument's, or `types.Omitted(default)` for one the
    call left out (so calls passing and omitting an argument differ, as Numba's signatures)."""
    return tuple(given[p.name] if p.name in given else types.Omitted(p.default) for p in params)


def _caller_options() -> Any:
    """The target options of the function whose typing asks (defaults outside a compile).
    Numba, too, compiles an implementation per set of its callers' flags: a closure's cells
    are read again for callers with other options."""
    from ember.lowering.context import TargetOptions
    from ember.typing.infer import running_inferer

    return getattr(running_inferer(), "target_options", None) or TargetOptions()


# Per function (weakly: a closure made per call goes with its last user), per jit_options.
_shared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def implementation_of(py_func: Callable, jit_options: dict | None = None) -> Implementation:
    """The one Implementation of `py_func` under `jit_options`: overloads returning the same
    function (`a | b` and `a.union(b)` both return a set's `update`) share its compilations."""
    try:
        by_options = _shared.setdefault(py_func, {})
        key = _options_key(jit_options or {})
        found = by_options.get(key)
    except TypeError:  # not weakly referable, or an option value that is not hashable
        return Implementation(py_func, jit_options)
    if found is None:
        found = by_options[key] = Implementation(py_func, jit_options)
    return found


def _options_key(jit_options: dict) -> tuple:
    frozen = {k: frozenset(v) if isinstance(v, (set, list)) else v for k, v in jit_options.items()}
    return tuple(sorted(frozen.items()))


def _apply_jit_options(options: Any, jit_options: dict) -> Any:
    if not jit_options and options.llvm_inline == "auto":
        return options
    # the caller's inlining choice is about the caller: an implementation has its own
    changes = {"llvm_inline": jit_options.get("_llvm_inline", "auto")}
    changes.update((k, v) for k, v in jit_options.items() if k in _TARGET_OPTION_NAMES)
    if "_nrt" in jit_options:
        changes["nrt"] = bool(jit_options["_nrt"])
    if "fastmath" in changes and isinstance(changes["fastmath"], (set, frozenset)):
        changes["fastmath"] = frozenset(changes["fastmath"])
    return replace(options, **changes)


_TARGET_OPTION_NAMES = ("error_model", "fastmath", "boundscheck", "nogil")


def _where(func: Callable) -> str:
    """`name (file.py:12)` for messages."""
    code = getattr(func, "__code__", None)
    name = getattr(func, "__qualname__", repr(func))
    if code is None:
        return name
    return f"{name} ({code.co_filename}:{code.co_firstlineno})"


def _describe_key(key: Any) -> str:
    if isinstance(key, tuple):
        klass, name = key
        return f"method {klass.__name__}.{name}"
    module = getattr(key, "__module__", None)
    name = getattr(key, "__qualname__", None) or repr(key)
    return name if module in (None, "builtins") else f"{module}.{name}"


def _failure(what: str, func: Callable, args: tuple, inner: BaseException) -> EmberError:
    """The error of an overload that failed: an UnsupportedError stays one (the overload said
    what ember does not do), a StencilError too (a ValueError for the caller, as Numba's),
    anything else becomes a TypingError naming the overload."""
    argtypes = ", ".join(str(a) for a in args)
    if isinstance(inner, EmberError):
        detail = str(inner)
    else:  # the overload function itself raised: show where
        frame = traceback.extract_tb(inner.__traceback__)[-1]
        detail = (
            f'File "{frame.filename}", line {frame.lineno}:\n    {frame.line}\n'
            f"{type(inner).__name__}: {inner}"
        )
    inner_text = "\n".join(f"  {line}" for line in detail.splitlines())
    kind = type(inner) if isinstance(inner, (UnsupportedError, StencilError)) else TypingError
    reason = types.functions._err_reasons["specific_error"].format(inner_text)
    return kind(
        f"Failed in the overload of {what} for argument types ({argtypes}), "
        f"overload function {_where(func)}:\n{reason}"
    )


def _fresh(error: str | EmberError) -> EmberError:
    """A new exception for a remembered failure (a message alone is a TypingError)."""
    if isinstance(error, EmberError):
        return type(error)(error.msg)
    return TypingError(error)


def _same_function(first: Callable, second: Callable) -> bool:
    """The same function, or two closures of the same code over equal values."""
    if first is second:
        return True
    code, other = getattr(first, "__code__", None), getattr(second, "__code__", None)
    if code is None or code is not other or first.__defaults__ != second.__defaults__:
        return False
    cells = zip(first.__closure__ or (), second.__closure__ or ())
    try:
        return all(a.cell_contents == b.cell_contents for a, b in cells)
    except ValueError:  # an empty cell
        return False


def _accepts(func: Callable, args: tuple, kws: dict) -> bool:
    try:
        inspect.signature(func).bind(*args, **kws)
    except TypeError:
        return False
    return True


NUMPY_ERRORS = {"error_model": "numpy"}  # jit_options of library code with NumPy's float errors


def as_type(value: Any) -> types.Type:
    """The type of an argument an overload function received: an omitted argument arrives as its
    Python default (as in Numba), typed here as a caller passing it would have it."""
    from ember.typing.context import TypingContext

    return value if isinstance(value, types.Type) else TypingContext().resolve_value_type(value)


def _keep_strings(typ: types.Type) -> types.Type:
    """Constant strings keep their literal type (their text selects behaviour, as
    `side='right'`); other literals widen."""
    return typ if isinstance(typ, types.StringLiteral) else types.unliteral(typ)


@dataclass
class _Resolved:
    """What one overload answered for one tuple of argument types."""

    implementation: Implementation | None
    signature: Signature | None
    error: str | EmberError | None = None  # a failure, raised afresh on each use


# ------------------------------------------------------------------ @overload, @overload_method


class _OverloadTemplate(AbstractTemplate):
    """Call template asking one overload function; subclasses are made per registration."""

    _overload_func: Callable
    _jit_options: dict
    _resolved: dict  # (argument types, keyword types) -> _Resolved
    _lowerings: dict  # signature argument types -> Implementation

    def non_literal(self, args: tuple, kws: dict) -> tuple[tuple, dict]:
        return widen_all_literals(args, kws)  # Numba's overloads see unicode_type, not literals

    def generic(self, args: tuple, kws: dict) -> Signature | None:
        cache_key = (args, tuple(sorted(kws.items())))
        found = self._resolved.get(cache_key)
        if found is None:
            found = self._resolve(args, kws)
            self._resolved[cache_key] = found
        if found.error is not None:
            raise _fresh(found.error)
        sig = found.signature
        if sig is None:
            return None
        known = self._lowerings.get(sig.args)
        if known is None:
            self._lowerings[sig.args] = found.implementation
            lowering.lower(type(self).key, *sig.args)(self._lower)
        elif not _same_function(known.py_func, found.implementation.py_func):
            # Lowering finds implementations by the folded argument types alone.
            raise TypingError(
                f"overload function {_where(self._overload_func)} returned different "
                f"implementations for calls folding to the same argument types {sig}; "
                "choose the implementation from the types only"
            )
        return sig

    def _resolve(self, args: tuple, kws: dict) -> _Resolved:
        what = _describe_key(type(self).key)  # (on the instance, a function key would bind)
        func = self._overload_func
        pysig = inspect.signature(func)  # `__signature__` when the function declares one
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError:
            return _Resolved(None, None)
        bound.apply_defaults()  # omitted arguments arrive as their Python defaults, as in Numba
        try:
            impl = func(*bound.args, **bound.kwargs)
        except ForceLiteralArg as request:  # literally(argtype) in the overload function
            raise _request_for_type(request, args) from None
        except Exception as error:  # a bug in the overload function: say where
            if _is_extension(func) and not isinstance(error, EmberError):
                raise  # as Numba's (new-style) capturing: an extension's bug is its own error
            return _Resolved(None, None, _failure(what, func, args, error))
        if impl is None:
            return _Resolved(None, None)
        if not callable(impl):
            message = f"overload function {_where(func)} returned {impl!r}, not a function"
            return _Resolved(None, None, message)
        if self._strict:
            mismatch = signature_mismatch(func, impl)
            if mismatch is not None:
                return _Resolved(None, None, mismatch)
        implementation = implementation_of(impl, self._jit_options)
        call_args, call_pysig = implementation.bind(args, kws)
        if call_args is None:
            call_args, call_pysig = implementation.bind_by(pysig, args, kws)
        if call_args is None:
            message = (
                f"the implementation {_where(implementation.py_func)} returned by overload "
                f"function {_where(func)} does not accept the arguments of this call"
            )
            return _Resolved(None, None, message)
        try:
            full = implementation.type_call(implementation.compile_types(call_args))
        except ForceLiteralArg as request:
            raise _positional_request(request, implementation, args, what) from None
        except EmberError as error:
            return _Resolved(None, None, _failure(what, func, args, error))
        if full.return_type is None:
            message = f"{what}: overload implementations cannot recurse through the overload"
            return _Resolved(None, None, message)
        signature = Signature(full.return_type, call_args, pysig=call_pysig)
        return _Resolved(implementation, signature)

    def _lower(self, context, builder, sig: Signature, args: list) -> Any:
        implementation = self._lowerings[tuple(sig.args)]
        return implementation.call(context, builder, sig, args)


def _request_for_type(request: ForceLiteralArg, args: tuple) -> EmberError:
    """`literally(argtype)` as a request for the arguments of that type (SentryLiteralArgs
    names the positions itself)."""
    if request.requested_type is None:
        return request
    indices = {i for i, typ in enumerate(args) if typ is request.requested_type}
    if not indices:
        return TypingError(f"literally() needs an argument type of this call: {request.msg}")
    return ForceLiteralArg(indices, request.msg)


def _positional_request(
    request: ForceLiteralArg, implementation: Implementation, args: tuple, what: str
) -> EmberError:
    """An implementation's `literally(param)` as a request for the call's argument at that
    position (arguments passed by keyword or gathered by `*args` cannot be literal)."""
    positional = {
        index
        for index in request.indices
        if index < len(args)
        and all(p.kind is not p.VAR_POSITIONAL for p in implementation.parameters[: index + 1])
    }
    if positional == request.indices:
        return request
    return TypingError(f"{what}: literally() needs the argument passed by position")


def _shown_parameters(parameters: list) -> set[str]:
    """Parameters as Numba's report lists them: `<Parameter "kw=None">`."""
    return {f'<Parameter "{p}">' for p in parameters}


def signature_mismatch(typing_func: Callable, impl_func: Callable) -> str | None:
    """Numba's `strict` rule for an extension's overload: the implementation takes the overload
    function's parameters (same names, same keyword defaults; `*args` in the implementation may
    take the trailing ones). ember also takes an implementation receiving every parameter
    positionally, without defaults (`Implementation.bind_by`). The reason they differ, or None."""
    from ember.dispatcher.dispatcher import Dispatcher

    if isinstance(impl_func, Dispatcher):
        impl_func = impl_func.py_func
    typing_sig, impl_sig = inspect.signature(typing_func), inspect.signature(impl_func)
    if _all_positional(impl_sig, len(typing_sig.parameters)):
        return None
    shown = f"Typing signature:         {typing_sig}\nImplementation signature: {impl_sig}"
    prefix = "Typing and implementation arguments differ in "
    for sig in (typing_sig, impl_sig):
        for param in sig.parameters.values():
            if param.kind is param.VAR_KEYWORD:
                return (
                    "The use of VAR_KEYWORD (e.g. **kwargs) is unsupported. "
                    f"(offending argument name is '{param}')"
                )
    typing_args, typing_kws, typing_star = _split_parameters(typing_sig)
    impl_args, impl_kws, impl_star = _split_parameters(impl_sig)
    if typing_star is not None and impl_star is None:
        return (
            f"VAR_POSITIONAL (e.g. *args) argument kind (offending argument name is "
            f"'{typing_star}') found in the typing function signature, but is not in the "
            f"implementing function signature.\n{shown}"
        )
    if typing_star is None and impl_star is not None:  # *args takes the trailing arguments
        impl_args = impl_args[: impl_args.index(impl_star)]
        typing_args = typing_args[: len(impl_args)]
    if [p.name for p in typing_args] != [p.name for p in impl_args] or [
        p.kind for p in typing_args
    ] != [p.kind for p in impl_args]:
        difference = _shown_parameters(typing_args) ^ _shown_parameters(impl_args)
        pairs = zip(typing_args, impl_args)
        first = next((b.name for a, b in pairs if a.name != b.name), None)
        first_text = f"\nFirst difference: '{first}'" if first is not None else ""
        return f"{prefix}argument names.\n{shown}\nDifference: {difference}{first_text}"
    difference = _shown_parameters(typing_kws) ^ _shown_parameters(impl_kws)
    if [p.name for p in typing_kws] != [p.name for p in impl_kws]:
        return f"{prefix}keyword argument names.\n{shown}\nDifference: {difference}"
    if [p.default for p in typing_kws] != [p.default for p in impl_kws]:
        return f"{prefix}keyword argument default values.\n{shown}\nDifference: {difference}"
    return None


def _all_positional(sig: inspect.Signature, count: int) -> bool:
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = list(sig.parameters.values())
    return len(params) == count and all(
        p.kind in positional and p.default is p.empty for p in params
    )


def _split_parameters(sig: inspect.Signature) -> tuple[list, list, Any]:
    """(parameters without defaults, parameters with defaults, the *args parameter or None)."""
    args = [p for p in sig.parameters.values() if p.default is p.empty]
    kws = [p for p in sig.parameters.values() if p.default is not p.empty]
    star = next((p for p in args if p.kind is p.VAR_POSITIONAL), None)
    return args, kws, star


def _make_overload_template(
    key: Any,
    func: Callable,
    jit_options: dict | None,
    base=None,
    prefer_literal: bool = False,
    strict: bool = False,
):
    name = getattr(func, "__name__", "overload")
    return type(
        f"Overload_{name}",
        (base or _OverloadTemplate,),
        {
            "key": key,
            "prefer_literal": prefer_literal,
            "_strict": strict and _is_extension(func),
            "_overload_func": staticmethod(func),
            "_jit_options": dict(jit_options or {}),
            "_resolved": {},
            "_lowerings": {},
        },
    )


def _is_extension(func: Callable) -> bool:
    """Written outside ember: ember's own library overloads may take their arguments under
    other names (see `Implementation.bind_by`)."""
    return not (getattr(func, "__module__", None) or "").startswith("ember.")


def overload(
    func: Any,
    jit_options: dict | None = None,
    strict: bool = True,
    inline: str = "never",
    prefer_literal: bool = False,
) -> Callable:
    """`@overload(func) def ov(*argtypes)`: implement `func` in compiled code for the argument
    types `ov` accepts (it returns the implementation, or None to decline).

    `ov`'s parameters are `func`'s (NumPy's names and defaults, say): a call's keyword arguments
    bind by name and omitted ones arrive as their Python defaults, as in Numba. The
    implementation takes the same parameters; one that takes them all positionally instead (any
    names, no defaults) receives every argument in order, omitted ones as their defaults.
    Arguments known while compiling (constants, literal arguments) are offered as literal types
    (`types.IntegerLiteral`, `types.StringLiteral`...) when `ov` declines or fails for their
    plain types; `prefer_literal=True` offers the literal types first.

    `jit_options` (e.g. `{"fastmath": True}`, `{"error_model": "numpy"}`) apply to the
    implementation on top of the caller's options. `strict` (Numba's default) makes an
    extension's implementation take the overload function's parameters: same names and keyword
    defaults (TypingError otherwise). `inline` is accepted for Numba compatibility:
    implementations are always inlined by LLVM.
    """

    def decorate(overload_func: Callable) -> Callable:
        # tried after earlier overloads but before ember's own typing of `func` (np.where...)
        template = _make_overload_template(
            func, overload_func, jit_options, prefer_literal=prefer_literal, strict=strict
        )
        templates = registry.functions.setdefault(func, [])
        position = builtin_rules_end(templates, 0) if operator_first(func) else 0
        while position < len(templates) and issubclass(templates[position], _OverloadTemplate):
            position += 1
        templates.insert(position, template)
        return overload_func

    return decorate


def register_jitable(*args: Any, **jit_options: Any) -> Any:
    """`@register_jitable` (or `@register_jitable(fastmath=True)`): a plain Python function that
    compiled code may call too; it compiles for each caller's argument types. The function
    itself is returned unchanged."""

    def decorate(py_func: Callable) -> Callable:
        def overload_func(*_types: Any, **_kws: Any) -> Callable:
            return py_func

        overload(py_func, jit_options=jit_options)(overload_func)
        return py_func

    if len(args) == 1 and callable(args[0]) and not jit_options:
        return decorate(args[0])
    return decorate


def overload_method(
    type_class: type,
    name: str,
    jit_options: dict | None = None,
    prefer_literal: bool = False,
    **_numba: Any,
) -> Callable:
    """`@overload_method(TypeClass, "name") def ov(self, *argtypes)`: `obj.name(...)` for values
    whose type is an instance of TypeClass (or of a subclass); arguments and literals as for
    `@overload`."""
    _check_type_class(type_class, "overload_method")

    def decorate(overload_func: Callable) -> Callable:
        key = (type_class, name)
        template = _make_overload_template(
            key, overload_func, jit_options, prefer_literal=prefer_literal
        )
        registry.register_global(key, template)
        return overload_func

    return decorate


class _ClassMethodTemplate(_OverloadTemplate):
    """A classmethod: the receiver is `types.TypeRef(the type class)` itself, so the method is
    not offered on the class's bases nor on its subclasses."""

    _receiver: types.Type

    @classmethod
    def accepts_receiver(cls, this: types.Type) -> bool:
        return this is cls._receiver

    def generic(self, args: tuple, kws: dict) -> Signature | None:
        if not args or not self.accepts_receiver(args[0]):
            return None
        return super().generic(args, kws)


def overload_classmethod(
    type_class: type,
    name: str,
    jit_options: dict | None = None,
    prefer_literal: bool = False,
    **_numba: Any,
) -> Callable:
    """`@overload_classmethod(TypeClass, "name") def ov(cls, *argtypes)`: `TypeClass.name(...)`
    in compiled code, where the global `TypeClass` (a types.Type subclass) is the receiver
    `cls`, typed `types.TypeRef(TypeClass)`; arguments and literals as for `@overload`."""
    _check_type_class(type_class, "overload_classmethod")

    def decorate(overload_func: Callable) -> Callable:
        key = (types.TypeRef, name)
        template = _make_overload_template(
            key, overload_func, jit_options, _ClassMethodTemplate, prefer_literal
        )
        template._receiver = types.TypeRef(type_class)
        registry.register_global(key, template)
        return overload_func

    return decorate


def _check_type_class(type_class: Any, what: str) -> None:
    if not (isinstance(type_class, type) and issubclass(type_class, types.Type)):
        raise TypeError(f"{what} needs a types.Type subclass, got {type_class!r}")
