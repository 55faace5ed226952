"""Binding call arguments to parameters as Python does, with Numba's wording for arity errors.

One binder serves calls from Python (values) and calls from compiled code (types), so every
spelling of a call (positional, keyword, omitted default) lands on the same parameter order.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

_EMPTY = inspect.Parameter.empty


class Omitted:
    """Marks a parameter the call left out: its default applies."""

    __slots__ = ("default",)

    def __init__(self, default: Any) -> None:
        self.default = default

    @property
    def value(self) -> Any:
        """Numba's name (its `OmittedArg.value`)."""
        return self.default

    @property
    def _ember_type_(self) -> Any:
        """`typeof(Omitted(d))`: Numba's `types.Omitted(d)`."""
        from ember import types

        return types.Omitted(self.default)


class ArgumentBinder:
    """Binds (args, kwargs) to a function's parameters in declaration order."""

    def __init__(self, py_func: Callable) -> None:
        self.name = py_func.__name__
        params = list(inspect.signature(py_func).parameters.values())
        positional_kinds = (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        )
        self.positional = [p for p in params if p.kind in positional_kinds]
        self.varargs = next((p for p in params if p.kind is p.VAR_POSITIONAL), None)
        self.keyword_only = [p for p in params if p.kind is p.KEYWORD_ONLY]
        self.names = [p.name for p in params if p.kind is not p.VAR_KEYWORD]
        self.varkw = any(p.kind is p.VAR_KEYWORD for p in params)
        self._keyword_names = {
            p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        }

    def check_signature_arity(self, arg_types: tuple) -> None:
        """An explicit signature must give one type per parameter (Numba's wording)."""
        takes = len(self.positional) + len(self.keyword_only)
        if self.varargs is None and len(arg_types) != takes:
            raise TypeError(
                f"Signature mismatch: {len(arg_types)} argument types given, but function "
                f"takes {takes} arguments"
            )

    def bind(self, args: tuple | list, kwargs: dict) -> list[Any]:
        """Values per parameter: given values, `Omitted(default)`, and a tuple for *args."""
        for name in kwargs:
            if name not in self._keyword_names:
                self._fail_unexpected(name)
        kwargs = dict(kwargs)
        self._check_counts(len(args), kwargs)
        count = len(self.positional)
        if len(args) > count and self.varargs is None:
            self._fail(f"too many arguments: expected {count}, got {len(args)}")
        bound: list[Any] = list(args[:count])
        for param in self.positional[: len(bound)]:
            if param.name in kwargs:
                self._fail_duplicate(param.name, len(bound), kwargs)
        for param in self.positional[len(bound) :]:
            bound.append(self._keyword_or_default(param, kwargs))
        if self.varargs is not None:
            bound.append(tuple(args[count:]))
        for param in self.keyword_only:
            bound.append(self._keyword_or_default(param, kwargs))
        if kwargs:
            self._fail_unexpected(next(iter(kwargs)))
        return bound

    def _fail_unexpected(self, name: str) -> None:
        if self.varkw:  # the compilation would refuse it: say why now
            from ember.errors import KWARGS_PARAMETERS_MESSAGE, UnsupportedError

            raise UnsupportedError(KWARGS_PARAMETERS_MESSAGE)
        detail = f"got an unexpected keyword argument '{name}'"
        if self.varargs is not None:  # Numba's words for a function with *args
            self._fail(f"some keyword arguments unexpected ({detail})")
        self._fail(detail)

    def _keyword_or_default(self, param: inspect.Parameter, kwargs: dict) -> Any:
        if param.name in kwargs:
            return kwargs.pop(param.name)
        if param.default is not _EMPTY:
            return Omitted(param.default)
        self._fail(f"missing argument '{param.name}'")

    def _check_counts(self, positional_count: int, kwargs: dict) -> None:
        """Numba's arity messages: too many arguments, or fewer than the required ones (then
        which one is missing)."""
        given = positional_count + len(kwargs)
        takes = len(self.positional) + len(self.keyword_only)
        if self.varargs is None and given > takes:
            filled = {p.name for p in self.positional[:positional_count]}
            twice = [name for name in kwargs if name in filled]
            detail = f" (got multiple values for argument '{twice[0]}')" if twice else ""
            self._fail(f"too many arguments: expected {takes}, got {given}{detail}")
        required = [p for p in (*self.positional, *self.keyword_only) if p.default is _EMPTY]
        if given < len(required):
            at_least = "at least " if len(required) < takes or self.varargs else ""
            filled = {p.name for p in self.positional[:positional_count]} | set(kwargs)
            missing = next(p.name for p in required if p.name not in filled)
            self._fail(
                f"not enough arguments: expected {at_least}{len(required)}, got {given} "
                f"(missing argument '{missing}')"
            )

    def _fail_duplicate(self, name: str, positional_count: int, kwargs: dict) -> None:
        """A keyword naming a parameter a positional argument filled: Numba's wording first,
        then what went wrong."""
        detail = f"got multiple values for argument '{name}'"
        if self.varargs is not None:
            self._fail(f"some keyword arguments unexpected ({detail})")
        unfilled = [
            p.name
            for p in self.positional[positional_count:]
            if p.name not in kwargs and p.default is _EMPTY
        ]
        if unfilled:
            self._fail(f"missing argument '{unfilled[0]}' ({detail})")
        self._fail(detail)

    def _fail(self, message: str) -> None:
        raise TypeError(f"{self.name}(): {message}")
