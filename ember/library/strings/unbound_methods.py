"""`str.lower`, `str.strip`, ... read from the class in compiled code: functions whose call
`str.name(s, *args)` is the method call `s.name(*args)`, so `sorted(words, key=str.lower)`,
`map(str.strip, lines)` and `str.upper(s)` compile as in CPython."""

from __future__ import annotations

from ember.extending import overload
from ember.library.containers.dicts import class_method
from ember.library.strings.core import is_string

# the methods a program passes around as functions (key=, map, filter) or calls on the class
_METHODS = (
    "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find",
    "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier",
    "islower", "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust",
    "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind",
    "rindex", "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith",
    "strip", "swapcase", "title", "translate", "upper", "zfill",
)  # fmt: skip


def _calling(name: str, count: int):
    """`lambda s, a0, ...: s.name(a0, ...)` for `count` arguments after the string."""
    parameters = ", ".join(f"a{k}" for k in range(count))
    namespace: dict = {}
    exec(f"def call(s, {parameters}):\n    return s.{name}({parameters})", namespace)
    return namespace["call"]


def _unbound(name: str):
    def unbound(s, *args):
        return getattr(str, name)(s, *args)

    unbound.__name__ = unbound.__qualname__ = f"str_{name}"

    @overload(unbound)
    def _overload(s, *args):
        if is_string(s):
            return _calling(name, len(args))
        return None

    return unbound


for _name in _METHODS:
    class_method(str, _name, _unbound(_name))
