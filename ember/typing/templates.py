"""Typing templates (seed 004) and the registry the typing context looks them up in.

A template answers "what does calling `key` with these argument types return?" with a Signature,
or None to decline so the next template can try.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable
from typing import Any

from ember import types
from ember.errors import ForceLiteralArg, TypingError, UnsupportedError
from ember.lowering.registry import call_key
from ember.typing.conversions import Conversion, can_convert
from ember.typing.signature import Signature, signature  # noqa: F401 - Numba's export


class FunctionTemplate:
    """Base of call templates; subclasses set `key` and implement `apply`.

    A call may offer literal types (`types.IntegerLiteral`...) for the arguments known while
    compiling: constants and literal arguments of the function. The template is asked with the
    plain types first and, if it declines or fails, with the literal ones (`prefer_literal`:
    the other way round).
    """

    key: Any = None
    prefer_literal: bool = False

    def __init__(self, context: Any) -> None:
        self.context = context

    def apply(self, args: tuple, kws: dict) -> Signature | None:
        raise NotImplementedError

    def non_literal(self, args: tuple, kws: dict) -> tuple[tuple, dict]:
        """The types of the plain attempt: as given (ember's own templates read a constant
        string as a `StringLiteral`)."""
        return args, kws


def _widen(values: tuple | dict, literal_classes: tuple) -> tuple | dict:
    """`values` (argument or keyword types) with the literals of these classes widened."""

    def widen(typ: types.Type) -> types.Type:
        return types.unliteral(typ) if isinstance(typ, literal_classes) else typ

    if isinstance(values, dict):
        return {name: widen(typ) for name, typ in values.items()}
    return tuple(widen(typ) for typ in values)


def widen_number_literals(args: tuple, kws: dict) -> tuple[tuple, dict]:
    """Integer and bool literals widened: the plain types of a call's arguments."""
    literal_classes = (types.IntegerLiteral, types.BooleanLiteral)
    return _widen(args, literal_classes), _widen(kws, literal_classes)


def widen_all_literals(args: tuple, kws: dict) -> tuple[tuple, dict]:
    """Every literal widened: the plain attempt of Numba-style extension templates."""
    return _widen(args, (types.Literal,)), _widen(kws, (types.Literal,))


def apply_template(
    template: FunctionTemplate, args: tuple, kws: dict, literals: tuple | None = None
) -> Signature | None:
    """Ask `template` for the signature of a call with `args`; `literals` (argument and keyword
    types with the call's constants as literal types) is asked too when the plain types find
    nothing (first, for `prefer_literal`). When both fail, one error of the literal attempt's kind
    gives both reasons, as Numba reports them."""
    attempts = [template.non_literal(args, kws)]
    if literals is None and attempts[0] != (args, kws):
        literals = (args, kws)  # literal argument types (a literal parameter) as given
    if literals is not None and literals != attempts[0]:
        attempts.append(literals)
        if template.prefer_literal:
            attempts.reverse()
    failures = {}
    for attempt in attempts:
        try:
            sig = template.apply(*attempt)
        except (TypingError, UnsupportedError, ForceLiteralArg) as failure:
            failures[attempt is literals] = failure
            continue
        if sig is not None:
            return sig
    if len(failures) == 2:
        raise _both_failed(failures[False], failures[True])
    if failures:
        raise next(iter(failures.values()))
    return None


def _both_failed(plain: Exception, literal: Exception) -> Exception:
    if isinstance(literal, ForceLiteralArg):
        return literal
    if isinstance(plain, ForceLiteralArg):  # Numba's rule: a literal request wins
        return plain
    message = (
        f"With plain argument types:\n{_rejection(plain)}\n"
        f"With literal argument types:\n{_rejection(literal)}"
    )
    return type(literal)(message)


def _rejection(error: Exception) -> str:
    """Why an attempt failed, in Numba's words (an overload's own report already has them)."""
    reason = types.functions._err_reasons["specific_error"]
    text = str(error)
    return text if reason.splitlines()[0] in text else reason.format(text)


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
        pysig = getattr(typer, "pysig", None) or inspect.signature(typer)
        try:
            bound = pysig.bind(*args, **kws)
        except TypeError:  # not this arity or these keywords: decline
            return None
        result = typer(*args, **kws)
        if result is None:
            return None
        if not kws:
            return result if isinstance(result, Signature) else Signature(result, args)
        return _folded_keywords(result, bound, pysig)


def _folded_keywords(
    result: Any, bound: inspect.BoundArguments, pysig: inspect.Signature
) -> Signature:
    """The signature of a typer's call with keyword arguments, as Numba's: the arguments in
    the typer's parameter order (omitted trailing parameters left out, so lowering matches on
    the arguments given) and the typer's signature, by which lowering places them."""
    if bound.kwargs:  # a keyword-only parameter, or one after an omitted one
        raise TypingError(f"unsupported call signature: keywords {sorted(bound.kwargs)}")
    folded = tuple(bound.args)
    parameters = list(pysig.parameters.values())[: len(folded)]
    trimmed = pysig.replace(parameters=parameters)
    if isinstance(result, Signature):
        return result.replace(pysig=trimmed)
    return Signature(result, folded, pysig=trimmed)


class AttributeTemplate:
    """Attributes of a type class `key`: define `resolve_<name>(self, ty)` or `generic_resolve`.

    Setting and deleting attributes (`obj.x = v`, `del obj.x`) are typed by `resolve_setattr`
    and `resolve_delattr`. By default an attribute this template can read may be set to a
    value that converts to its type, provided a `@lower_setattr` implementation exists
    (Numba's rule, checked early so a read-only attribute is a typing error, not a crash).
    """

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

    def resolve_setattr(self, target: types.Type, attr: str, value: types.Type) -> Signature | None:
        """`none(target, attribute type)` when `target.attr = value` is allowed, else None."""
        attr_type = self.resolve(target, attr)
        if attr_type is None or isinstance(attr_type, types.BoundFunction):
            return None
        if can_convert(types.unliteral(value), attr_type) is None:
            return None
        from ember.lowering.registry import registry as lowering  # only asks: is it lowered?

        if lowering.find_setattr(target, attr) is None:
            return None
        return Signature(types.none, (target, attr_type))

    def resolve_delattr(self, target: types.Type, attr: str) -> Signature | None:
        """`none(target)` when `del target.attr` is allowed, else None."""
        return None


def bound_function(template_key: Any) -> Callable:
    """Numba's decorator for a method typer on an AttributeTemplate:
    `@bound_function("MyType.push") def resolve_push(self, this, args, kws)` returns the call's
    Signature (or None); the method's lowering is `@lower_builtin("MyType.push", MyType, ...)`,
    whose signature has the receiver first."""

    def decorate(typer: Callable) -> Callable:
        def resolve(attribute_template: AttributeTemplate, this: types.Type) -> types.Type:
            class MethodTemplate(AbstractTemplate):
                key = template_key

                def generic(self, args: tuple, kws: dict) -> Signature | None:
                    return typer(attribute_template, this, args, kws)

            return types.BoundFunction(MethodTemplate, this)

        resolve.__name__ = resolve.__qualname__ = typer.__name__
        resolve.__doc__ = typer.__doc__
        return resolve

    return decorate


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
        listing = "\n".join(str(c) for c in best)  # Numba lists them unindented
        raise TypeError(f"Ambiguous overloading for {describe} ({argtypes}):\n{listing}")
    return best[0]


def _is_method_key(key: Any) -> bool:
    return (
        isinstance(key, tuple)
        and len(key) == 2
        and isinstance(key[0], type)
        and issubclass(key[0], types.Type)
        and isinstance(key[1], str)
    )


class _FunctionTable(dict):
    """Templates by key. A method key `(TypeClass, name)` also finds the templates registered
    for the base classes of `TypeClass` (most derived first), so `@overload_method(types.Number,
    'f')` serves int64 and float64 receivers alike."""

    def get(self, key: Any, default: Any = None) -> Any:
        if not _is_method_key(key):
            return dict.get(self, key, default)
        klass, name = key
        found = [t for base in klass.__mro__ for t in dict.get(self, (base, name), ())]
        return found or default

    def __contains__(self, key: Any) -> bool:
        if not _is_method_key(key):
            return dict.__contains__(self, key)
        return any(dict.__contains__(self, (base, key[1])) for base in key[0].__mro__)


_OPERATORS = frozenset(id(f) for f in vars(operator).values() if callable(f))


def operator_first(key: Any) -> bool:
    """Whether ember's own typing rules of `key` come before extension templates (Numba's
    order for operators; other functions try the extension's @overload first)."""
    return id(key) in _OPERATORS


def builtin_rules_end(templates: list, start: int) -> int:
    """The index after the run of ember's own rules that begins at `start`."""
    while start < len(templates) and getattr(templates[start], "builtin_rule", False):
        start += 1
    return start


class Registry:
    """Templates for global callables (by the Python object) and for attributes (by type class)."""

    def __init__(self) -> None:
        self.functions: dict[Any, list[type[FunctionTemplate]]] = _FunctionTable()
        self.attributes: list[type[AttributeTemplate]] = []
        self.global_types: dict[Any, types.Type] = {}  # infer_global(value, its_type)

    def register_global(self, key: Any, template: type[FunctionTemplate]) -> None:
        """Add a template for `key`. For an operator, ember's own rules (`typer`) go before
        extension templates whenever they are registered (the library loads lazily, often
        after user code registered its @overloads): Numba tries its number templates first,
        so an extension type that converts to a number adds as that number."""
        found = self.functions.setdefault(call_key(key), [])
        if getattr(template, "builtin_rule", False) and operator_first(key):
            found.insert(builtin_rules_end(found, 0), template)
        else:
            found.append(template)

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
                {
                    "key": key,
                    "generic": lambda self, args, kws: func(args, kws),
                    "builtin_rule": True,
                },
            )
            self.register_global(key, template)
            return func

        return decorate


registry = Registry()


# ------------------------------------------------------------------ the decorators of seed 004


def infer(template: type[FunctionTemplate]) -> type[FunctionTemplate]:
    """Class decorator: register a call template under its own `key` (Numba's `@infer`)."""
    if template.key is None:
        raise TypeError(f"{template.__name__} needs a `key` to be registered with @infer")
    registry.register_global(template.key, template)
    return template


def infer_global(value: Any, template: type[FunctionTemplate] | None = None) -> Callable:
    """Type calls of the global `value` with a template class.

    `@infer_global(len) class Len(AbstractTemplate): ...` (the template's `key` becomes `len`),
    or `infer_global(len, Len)` without the decorator syntax; `infer_global(MyClass,
    MyCallableType(MyClass))` gives the global that type instead (a `types.Callable` types its
    calls itself).
    """
    if isinstance(template, types.Type):
        registry.global_types[value] = template
        return template
    decorate = registry.function(value)
    if template is not None:
        return decorate(template)
    return decorate


def infer_getattr(template: type[AttributeTemplate]) -> type[AttributeTemplate]:
    """Class decorator: register an AttributeTemplate for the type class in its `key`."""
    if not (isinstance(template.key, type) and issubclass(template.key, types.Type)):
        raise TypeError(f"{template.__name__}.key must be a types.Type subclass")
    if issubclass(template, _OverloadAttributeTemplate):
        template.register_overload()
        return template
    return registry.register_attr(template)


class _OverloadAttributeTemplate(AttributeTemplate):
    """What Numba's `make_overload_attribute_template` makes: registering it (`infer_getattr`)
    registers its overload function as `@overload_method` when the class says `is_method`
    (a `"__call__"` method serves calls of the type's values), else as `@overload_attribute`.
    Numba's private hooks a subclass may override (`_resolve`, `_init_once`) are not called."""

    is_method = False
    _attr: str
    _overload_func: Callable
    _jit_options: dict

    @classmethod
    def register_overload(cls) -> None:
        from ember.typing.overload import overload_method
        from ember.typing.overload_attribute import overload_attribute

        decorator = overload_method if cls.is_method else overload_attribute
        decorator(cls.key, cls._attr, jit_options=cls._jit_options)(cls._overload_func)


def make_overload_attribute_template(
    typ: Any,
    attr: str,
    overload_func: Callable,
    inline: str = "never",
    prefer_literal: bool = False,
    base: type = _OverloadAttributeTemplate,
    **options: Any,
) -> type[_OverloadAttributeTemplate]:
    """Numba's factory behind overload_attribute/overload_method: a template for `attr` of the
    type class `typ` (or of a type instance's class), registered by `infer_getattr`."""
    type_class = typ if isinstance(typ, type) else type(typ)
    return type(
        f"OverloadAttributeTemplate_{type_class.__name__}_{attr}",
        (base,),
        {
            "key": type_class,
            "_attr": attr,
            "_overload_func": staticmethod(overload_func),
            "_jit_options": dict(options.get("jit_options") or {}),
        },
    )


def calls_a_method(fnty: types.Type) -> bool:
    """Whether calling a value of `fnty` calls its `__call__` method: a jitclass instance's, a
    type's (`int64(x)` converts), an enum class's (`Color(2)` is a member), or an
    `@overload_method(TypeClass, "__call__")` of an extension type."""
    if isinstance(fnty, (types.ClassInstanceType, types.TypeRef, types.EnumClass)):
        return True
    if isinstance(fnty, types.Callable):  # types its own calls (get_call_type)
        return False
    return (type(fnty), "__call__") in registry.functions


def type_callable(key: Any) -> Callable:
    """Function form of CallableTemplate: `@type_callable(func) def typer_factory(context)`
    returns a typer with `func`'s own parameters that maps argument types to the return type
    (or a Signature, or None to decline)."""

    def decorate(factory: Callable) -> Callable:
        name = getattr(key, "__name__", type(key).__name__)
        template = type(
            f"CallableTemplate_{name}",
            (CallableTemplate,),
            {"key": key, "generic": lambda self: factory(self.context)},
        )
        registry.register_global(key, template)
        return factory

    return decorate


def make_overload_template(
    func: Any,
    overload_func: Callable,
    jit_options: dict,
    strict: bool,
    inline: str,
    prefer_literal: bool = False,
    **_numba: Any,
) -> type[FunctionTemplate]:
    """The call template `@overload(func)(overload_func)` registers, made without registering it
    (Numba's factory); `inline` is accepted for compatibility (LLVM inlines)."""
    from ember.typing.overload import _make_overload_template

    return _make_overload_template(
        func, overload_func, jit_options, prefer_literal=prefer_literal, strict=strict
    )


def fold_arguments(
    pysig: inspect.Signature,
    args: tuple,
    kws: Any,
    normal_handler: Callable,
    default_handler: Callable,
    stararg_handler: Callable,
) -> tuple:
    """Numba's helper for templates that place a call's arguments by a Python signature: one
    value per parameter of `pysig`, in order. A passed argument becomes
    `normal_handler(index, param, value)`, an omitted one `default_handler(index, param,
    default)`, and the `*args` parameter `stararg_handler(index, param, values)` (a tuple,
    empty when none are passed). Arguments that do not bind raise TypeError."""
    bound = pysig.bind(*args, **dict(kws))
    folded = []
    for index, param in enumerate(pysig.parameters.values()):
        if param.kind is param.VAR_POSITIONAL:
            folded.append(stararg_handler(index, param, tuple(bound.arguments.get(param.name, ()))))
        elif param.name in bound.arguments:
            folded.append(normal_handler(index, param, bound.arguments[param.name]))
        elif param.kind is param.VAR_KEYWORD:
            raise TypeError(f"fold_arguments: **{param.name} is not supported")
        else:
            folded.append(default_handler(index, param, param.default))
    return tuple(folded)


def __getattr__(name: str) -> Any:
    """`typing.Context` (Numba's typing context class, as `numba.core.typing` exports it)."""
    if name == "Context":
        from ember.typing.context import TypingContext

        return TypingContext
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
