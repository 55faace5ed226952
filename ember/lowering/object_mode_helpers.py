"""Python functions that object-mode machine code calls for the opcodes whose CPython behaviour
(messages included) is simplest to reproduce in Python: unpacking, f-string parts, imports,
`with`, raising, container displays. Each returns a new object or raises."""

from __future__ import annotations

import builtins
from types import FunctionType
from typing import Any


def unpack(value: Any, count: int) -> tuple:
    """`a, b = value` (UNPACK_SEQUENCE) with CPython's ValueError messages."""
    try:
        iterator = iter(value)
    except TypeError:
        raise TypeError(f"cannot unpack non-iterable {type(value).__name__} object") from None
    items = []
    for item in iterator:
        items.append(item)
        if len(items) > count:
            raise ValueError(f"too many values to unpack (expected {count})")
    if len(items) < count:
        raise ValueError(f"not enough values to unpack (expected {count}, got {len(items)})")
    return tuple(items)


def unpack_ex(value: Any, before: int, after: int) -> tuple:
    """`a, *b, c = value` (UNPACK_EX): the `before` items, a list, the `after` items."""
    items = list(value)
    if len(items) < before + after:
        raise ValueError(
            f"not enough values to unpack (expected at least {before + after}, got {len(items)})"
        )
    middle = items[before : len(items) - after]
    return (*items[:before], middle, *items[len(items) - after :])


_CONVERSIONS = {0: None, 1: str, 2: repr, 3: ascii}


def format_value(value: Any, conversion: int, spec: str) -> str:
    """One f-string field (FORMAT_VALUE)."""
    convert = _CONVERSIONS[conversion]
    if convert is not None:
        value = convert(value)
    return format(value, spec)


def join_strings(*parts: str) -> str:
    return "".join(parts)


def make_set(*items: Any) -> set:
    return set(items)


def make_dict(*flat: Any) -> dict:
    return {flat[index]: flat[index + 1] for index in range(0, len(flat), 2)}


def const_key_map(*values_and_keys: Any) -> dict:
    *values, keys = values_and_keys
    return dict(zip(keys, values))


def list_extend(target: list, iterable: Any) -> None:
    target.extend(iterable)


def set_update(target: set, iterable: Any) -> None:
    target.update(iterable)


def dict_update(target: dict, other: Any) -> None:
    try:
        target.update(other)
    except AttributeError:
        raise TypeError(f"'{type(other).__name__}' object is not a mapping") from None


def dict_merge(target: dict, other: Any) -> None:
    """`f(**a, **b)`: a repeated keyword is an error."""
    for key in other.keys():
        if key in target:
            raise TypeError(f"got multiple values for keyword argument '{key}'")
        target[key] = other[key]


def to_tuple(items: Any) -> tuple:
    return tuple(items)


def call_ex(func: Any, args: Any, kwargs: Any) -> Any:
    return func(*args, **(kwargs or {}))


def make_function(code, globals_, closure, defaults, kwdefaults, annotations) -> FunctionType:
    func = FunctionType(code, globals_, code.co_name, defaults, closure)
    func.__qualname__ = code.co_qualname
    if kwdefaults is not None:
        func.__kwdefaults__ = kwdefaults
    if annotations is not None:
        func.__annotations__ = dict(zip(annotations[::2], annotations[1::2]))
    return func


def import_name(name: str, fromlist: Any, level: int, globals_: dict) -> Any:
    return builtins.__import__(name, globals_, None, fromlist, level)


def import_from(module: Any, name: str) -> Any:
    try:
        return getattr(module, name)
    except AttributeError:
        module_name = getattr(module, "__name__", "?")
        raise ImportError(f"cannot import name '{name}' from '{module_name}'") from None


def exception_to_raise(exc: Any, cause: Any = None, has_cause: bool = False) -> BaseException:
    """The instance `raise exc [from cause]` raises (RAISE_VARARGS), or a TypeError for it."""
    if isinstance(exc, type) and issubclass(exc, BaseException):
        exc = exc()
    elif not isinstance(exc, BaseException):
        return TypeError("exceptions must derive from BaseException")
    if has_cause:
        if isinstance(cause, type) and issubclass(cause, BaseException):
            cause = cause()
        elif cause is not None and not isinstance(cause, BaseException):
            return TypeError("exception causes must derive from BaseException")
        exc.__cause__ = cause
    return exc


def before_with(manager: Any) -> tuple:
    """BEFORE_WITH: (bound __exit__, the value of __enter__())."""
    kind = type(manager)
    try:
        enter, exit_ = kind.__enter__, kind.__exit__
    except AttributeError:
        raise TypeError(
            f"'{kind.__name__}' object does not support the context manager protocol"
        ) from None
    bound_exit = exit_.__get__(manager, kind)
    return bound_exit, enter(manager)


def with_exit(exit_func: Any, exc: BaseException) -> Any:
    """WITH_EXCEPT_START: `__exit__(type, value, traceback)` of the exception in flight."""
    return exit_func(type(exc), exc, exc.__traceback__)


# ---------------------------------------------------------------------------- `match`

_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


def is_mapping(subject: Any) -> bool:
    import collections.abc

    return isinstance(subject, collections.abc.Mapping)


def is_sequence(subject: Any) -> bool:
    import collections.abc

    return isinstance(subject, collections.abc.Sequence) and not isinstance(
        subject, (str, bytes, bytearray)
    )


def match_keys(subject: Any, keys: tuple) -> tuple | None:
    """MATCH_KEYS: the values of `keys` in the mapping, or None when one is missing."""
    missing = object()
    values = []
    for key in keys:
        value = subject.get(key, missing)
        if value is missing:
            return None
        values.append(value)
    return tuple(values)


def match_class(subject: Any, cls: Any, count: int, names: tuple) -> tuple | None:
    """MATCH_CLASS: the attributes a class pattern binds, or None when it does not match."""
    if not isinstance(cls, type):
        raise TypeError("called match pattern must be a class")
    if not isinstance(subject, cls):
        return None
    if count and cls in _SELF_MATCHING and not hasattr(cls, "__match_args__"):
        if count > 1:
            raise TypeError(f"{cls.__name__}() accepts 1 positional sub-pattern ({count} given)")
        positional = [subject]
    else:
        match_args = getattr(cls, "__match_args__", ())
        if count > len(match_args):
            raise TypeError(
                f"{cls.__name__}() accepts {len(match_args)} positional sub-pattern"
                f"{'s' if len(match_args) != 1 else ''} ({count} given)"
            )
        positional = []
        for name in match_args[:count]:
            if not hasattr(subject, name):
                return None
            positional.append(getattr(subject, name))
    named = []
    for name in names:
        if not hasattr(subject, name):
            return None
        named.append(getattr(subject, name))
    return (*positional, *named)
