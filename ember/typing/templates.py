"""Typing templates (seed 004) and the registry the typing context looks them up in.

A template answers "what does calling `key` with these argument types return?" with a Signature,
or None to decline so the next template can try.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember import types
from ember.typing.conversions import Conversion, can_convert
from ember.typing.signature import Signature


class FunctionTemplate:
    """Base of call templates; subclasses set `key` and implement `apply`."""

    key: Any = None

    def __init__(self, context: Any) -> None:
        self.context = context

    def apply(self, args: tuple, kws: dict) -> Signature | None:
        raise NotImplementedError


class AbstractTemplate(FunctionTemplate):
    """Implement `generic(args, kws)` returning a Signature (or None)."""

    def generic(self, args: tuple, kws: dict) -> Signature | None:
        raise NotImplementedError

    def apply(self, args: tuple, kws: dict) -> Signature | None:
        return self.generic(args, kws)


class ConcreteTemplate(FunctionTemplate):
    """A fixed list of `cases`; the best one by conversion ranking is chosen."""

    cases: list[Signature] = []

    def apply(self, args: tuple, kws: dict) -> Signature | None:
        if kws:
            return None
        return choose_best(self.cases, args, describe=str(self.key))


class CallableTemplate(FunctionTemplate):
    """`generic()` returns a typer: a Python function with the callee's own parameters,
    called with the argument types; it returns the return type (or a Signature, or None)."""

    def generic(self) -> Callable:
        raise NotImplementedError

    def apply(self, args: tuple, kws: dict) -> Signature | None:
        typer = self.generic()
        try:
            result = typer(*args, **kws)
        except TypeError:
            return None
        if result is None or isinstance(result, Signature):
            return result
        return Signature(result, args)


class AttributeTemplate:
    """Attributes of a type class `key`: define `resolve_<name>(self, ty)` or `generic_resolve`."""

    key: Any = None

    def __init__(self, context: Any) -> None:
        self.context = context

    def resolve(self, value_type: types.Type, attr: str) -> types.Type | None:
        method = getattr(self, f"resolve_{attr}", None)
        if method is not None:
            return method(value_type)
        return self.generic_resolve(value_type, attr)

    def generic_resolve(self, value_type: types.Type, attr: str) -> types.Type | None:
        return None


def rank(candidate_args: tuple, actual_args: tuple) -> tuple[int, int, int, int] | None:
    """(unsafe, safe, promote, exact) conversion counts, or None if an argument cannot convert."""
    if len(candidate_args) != len(actual_args):
        return None
    counts = [0, 0, 0, 0]
    for actual, formal in zip(actual_args, candidate_args):
        kind = can_convert(actual, formal)
        if kind is None:
            return None
        counts[Conversion.unsafe - kind] += 1
    return counts[0], counts[1], counts[2], counts[3]


def choose_best(candidates: list, actual_args: tuple, describe: str = "") -> Any:
    """The candidate signature needing the fewest unsafe, then safe, then promote conversions.

    Raises TypeError when two candidates tie for best (seed 003's ambiguity rule).
    """
    scored = []
    for candidate in candidates:
        score = rank(candidate.args, actual_args)
        if score is not None:
            scored.append((score[:3], candidate))
    if not scored:
        return None
    scored.sort(key=lambda item: item[0])
    best_score = scored[0][0]
    best = [c for score, c in scored if score == best_score]
    if len(best) > 1:
        argtypes = ", ".join(str(a) for a in actual_args)
        listing = "\n".join(f"    {c}" for c in best)
        raise TypeError(f"Ambiguous overloading for {describe} ({argtypes}):\n{listing}")
    return best[0]


class Registry:
    """Templates for global callables (by the Python object) and for attributes (by type class)."""

    def __init__(self) -> None:
        self.functions: dict[Any, list[type[FunctionTemplate]]] = {}
        self.attributes: list[type[AttributeTemplate]] = []

    def register_global(self, key: Any, template: type[FunctionTemplate]) -> None:
        self.functions.setdefault(key, []).append(template)

    def register_attr(self, template: type[AttributeTemplate]) -> type[AttributeTemplate]:
        self.attributes.append(template)
        return template

    def function(self, key: Any) -> Callable:
        """Decorator: register a template class (its `key` is set to `key`)."""

        def decorate(template: type[FunctionTemplate]) -> type[FunctionTemplate]:
            template.key = key
            self.register_global(key, template)
            return template

        return decorate

    def typer(self, key: Any) -> Callable:
        """Decorator: register a plain function `(args, kws) -> Signature | None` for `key`."""

        def decorate(func: Callable) -> Callable:
            template = type(
                f"Typer_{getattr(key, '__name__', key)}",
                (AbstractTemplate,),
                {"key": key, "generic": lambda self, args, kws: func(args, kws)},
            )
            self.register_global(key, template)
            return func

        return decorate


registry = Registry()
