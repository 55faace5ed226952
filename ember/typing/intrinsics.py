"""`@intrinsic` (seed 004): functions whose typing and LLVM code are written in Python,
callable only from compiled code; they pickle by value, as jitted functions do."""

from __future__ import annotations

import functools
import inspect
import uuid
import weakref
from collections.abc import Callable
from typing import Any

from ember import types
from ember.errors import EmberError, ForceLiteralArg, LoweringError, TypingError
from ember.lowering.registry import registry as lowering
from ember.typing.overload import _fresh, _where
from ember.typing.signature import Signature
from ember.typing.templates import AbstractTemplate, registry, widen_all_literals


def _in_intrinsic(defn: Callable, error: EmberError) -> EmberError:
    """`error` with Numba's header naming the intrinsic whose typing raised it."""
    code = defn.__code__
    where = f"File: {code.co_filename}: Line {code.co_firstlineno}."
    text = f"Intrinsic in function {defn.__name__!r}: {where}\n{error.msg}"
    return type(error)(text)


class Intrinsic:
    """A function whose typing and LLVM code are written in Python; callable only from
    compiled code. `defn(typingctx, *argtypes)` returns `(signature, codegen)` or None, and
    `codegen(context, builder, signature, args)` returns the result's LLVM value."""

    def __init__(self, defn: Callable, prefer_literal: bool = False) -> None:
        functools.update_wrapper(self, defn)
        self._defn = defn
        self._name = defn.__name__  # Numba's attribute: the name errors give the intrinsic
        self._prefer_literal = prefer_literal
        self._uuid = uuid.uuid4().hex  # the same object again when unpickled in this process
        _live_intrinsics[self._uuid] = self
        self._codegens: dict[tuple, Callable] = {}
        template = type(
            f"Intrinsic_{defn.__name__}",
            (AbstractTemplate,),
            {
                "key": self,
                "generic": lambda tmpl, args, kws: self._type(tmpl.context, args, kws),
                "prefer_literal": prefer_literal,
                "non_literal": lambda tmpl, args, kws: widen_all_literals(args, kws),
            },
        )
        registry.register_global(self, template)

    def _type(self, context: Any, args: tuple, kws: dict) -> Signature | None:
        args = self._positional(context, args, kws)
        if args is None:
            return None
        try:
            result = self._defn(context, *args)
        except ForceLiteralArg:
            raise
        except EmberError as error:  # the intrinsic refused: say which one and where
            raise _fresh(_in_intrinsic(self._defn, error)) from None
        if result is None:
            return None
        sig, codegen = result
        if not isinstance(sig, Signature) or sig.return_type is None:
            raise TypingError(f"intrinsic {_where(self._defn)} must return (signature, codegen)")
        if sig.args not in self._codegens:
            lowering.lower(self, *sig.args)(self._lower)
        self._codegens[sig.args] = codegen
        if kws:  # lowering passes the arguments in the order of the definition's parameters
            sig = Signature(sig.return_type, sig.args, recvr=sig.recvr, pysig=self._pysig)
        return sig

    def _positional(self, context: Any, args: tuple, kws: dict) -> tuple | None:
        """The argument types in the order of `defn`'s parameters after `typingctx` (keyword
        arguments placed by name); a call that does not bind is a TypingError saying why."""
        try:
            bound = inspect.signature(self._defn).bind(context, *args, **kws)
        except TypeError as error:
            shown = ", ".join(str(arg) for arg in args)
            raise TypingError(f"{self._name}() {error} (argument types: {shown})") from None
        if any(p.kind is p.VAR_KEYWORD for p in self._pysig.parameters.values()) and kws:
            return None
        return tuple(bound.args[1:])

    @functools.cached_property
    def _pysig(self) -> inspect.Signature:
        """`defn`'s signature without `typingctx`: how calls place keyword arguments."""
        parameters = list(inspect.signature(self._defn).parameters.values())[1:]
        return inspect.Signature(parameters)

    def _lower(self, context, builder, sig: Signature, args: list) -> Any:
        result = self._codegens[tuple(sig.args)](context, builder, sig, args)
        if result is None:
            if sig.return_type is not types.none:
                raise LoweringError(
                    f"intrinsic {self.__name__}: codegen of a non-void function returns None "
                    f"(it must return the {sig.return_type} value)"
                )
            return context.get_dummy_value(types.none)
        return result

    def __call__(self, *args: Any, **kws: Any) -> Any:
        raise TypeError(f"intrinsic {self.__name__} can only be called from jitted code")

    def __reduce__(self) -> tuple:
        """By value (its definition's code, globals and closure), as jitted functions pickle,
        so that a jitted function using it pickles too (multiprocessing, Dask)."""
        from ember.dispatcher.serialize import function_state

        state = function_state(self._defn, None)
        return (_rebuild_intrinsic, (self._uuid, state, self._prefer_literal))

    def __repr__(self) -> str:
        return f"<intrinsic {self.__name__}>"


_live_intrinsics: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _rebuild_intrinsic(key: str, state: tuple, prefer_literal: bool) -> Intrinsic:
    found = _live_intrinsics.get(key)
    if found is not None:
        return found
    from ember.dispatcher.serialize import rebuild_function

    defn, _ = rebuild_function(state)
    rebuilt = Intrinsic(defn, prefer_literal=prefer_literal)
    del _live_intrinsics[rebuilt._uuid]
    rebuilt._uuid = key
    _live_intrinsics[key] = rebuilt
    return rebuilt


_Intrinsic = Intrinsic  # Numba's name for the class of @intrinsic functions


def intrinsic(*args: Any, **options: Any) -> Any:
    """`@intrinsic` or `@intrinsic(prefer_literal=True)` on `defn(typingctx, *argtypes)`."""
    if args and callable(args[0]) and not options:
        return Intrinsic(args[0])
    return lambda defn: Intrinsic(defn, **options)
