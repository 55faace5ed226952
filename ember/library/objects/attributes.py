"""`getattr(obj, "name")`, `getattr(obj, "name", default)` and `hasattr(obj, "name")` with a
constant name: resolved while compiling, as `obj.name` (a missing attribute gives the default,
False for hasattr, and without a default raises AttributeError when run, as in Numba)."""

from __future__ import annotations

import functools

from ember import types
from ember.errors import TypingError
from ember.extending import overload
from ember.typing.context import TypingContext


def _constant_name(name, builtin: str) -> str | None:
    """The constant attribute name; a clear TypingError for a string known only when run (a
    name chosen by a branch or passed in); None for a name that is no string."""
    if isinstance(name, types.StringLiteral):
        return name.literal_value
    if isinstance(name, types.UnicodeType):
        raise TypingError(
            f"{builtin}(): argument 'name' must be a literal string, a constant known while "
            f"compiling (here it is chosen when the code runs, e.g. by a branch or an argument)"
        )
    return None


# Every Python object has `object`'s attributes (`__hash__`, `__str__`, `__class__`...), even
# where compiled code has no use for them: hasattr() is True for those, as in CPython.
_EVERY_OBJECT_HAS = frozenset(dir(object))


def _resolves(obj, attr: str) -> bool:
    """Whether compiled code can read `obj.<attr>`."""
    return TypingContext().resolve_getattr(obj, attr) is not None


@functools.cache
def _reader(attr: str):
    """`def read_attribute(obj, name, *default): return obj.<attr>`, made for one name."""
    if not attr.isidentifier():
        return None
    namespace: dict = {}
    source = f"def read_attribute(obj, name, *default):\n    return obj.{attr}\n"
    exec(compile(source, f"<ember getattr {attr}>", "exec"), namespace)  # noqa: S102 - checked
    return namespace["read_attribute"]


def _default(obj, name, *default):
    return default[0]


@functools.cache
def _missing(message: str):
    """`def missing_attribute(obj, name): raise AttributeError(<message>)`."""

    def missing_attribute(obj, name):
        raise AttributeError(message)

    return missing_attribute


@overload(getattr, prefer_literal=True)
def builtin_getattr(obj, name, *default):
    attr = _constant_name(name, "getattr")
    if attr is None or len(default) > 1:
        return None
    if not _resolves(obj, attr):
        return _default if default else _missing(f"'{obj}' has no attribute '{attr}'")
    return _reader(attr)


@overload(hasattr, prefer_literal=True)
def builtin_hasattr(obj, name):
    attr = _constant_name(name, "hasattr")
    if attr is None:
        return None
    found = attr in _EVERY_OBJECT_HAS or _resolves(obj, attr)
    return lambda obj, name: found
