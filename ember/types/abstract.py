"""The base of ember's type lattice: interned `Type` instances, each with an integer typecode.

Two types with the same key are the same object, so types compare (and hash) by identity.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, ClassVar

_typecodes = itertools.count()
# Held weakly (as in Numba): a type nothing refers to any more (a dynamic type, a type of a
# freed jitted function) is freed; caches that key on a type hold it, so it stays interned
# while they can find it. A type made again after being freed gets a new typecode.
_interned: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_intern_lock = threading.Lock()
_by_typecode: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_typecache = _interned  # Numba's name for its cache of types


class _InterningMeta(type):
    """Return the existing instance for an equal key instead of building a new one."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return _intern(super().__call__(*args, **kwargs))


def _intern(candidate: Any) -> Any:
    """The interned type equal to `candidate` (`candidate` itself when it is the first)."""
    key = (type(candidate), candidate.key)
    existing = _interned.get(key)
    if existing is not None:
        return existing
    with _intern_lock:
        existing = _interned.get(key)
        if existing is not None:
            return existing
        candidate.typecode = next(_typecodes)
        _by_typecode[candidate.typecode] = candidate
        _interned[key] = candidate
        return candidate


class Type(metaclass=_InterningMeta):
    """An ember type. Subclasses define `key` (what makes two instances equal) and `name`."""

    typecode: int
    is_precise: ClassVar[bool] = True

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def key(self) -> Any:
        return self.name

    @property
    def _code(self) -> int:
        """Numba's name for the typecode."""
        return self.typecode

    @property
    def is_internal(self) -> bool:
        """Whether ember defines this type (False for an extension's types)."""
        return type(self).__module__.startswith("ember.")

    @property
    def mangling(self) -> str:
        """The spelling of this type inside a native symbol name."""
        return "".join(ch if ch.isalnum() else "_" for ch in self.name)

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple:
        if type(self)._rebuild_args is Type._rebuild_args and not self.is_internal:
            # an extension's type, whose constructor need not take its name: rebuilt from its
            # state, as Numba does (`__getstate__` may leave caches out), then interned
            state = dict(self.__getstate__() or {})
            state.pop("typecode", None)
            return (_rebuild_from_state, (type(self), state))
        return (_rebuild, (type(self), self._rebuild_args()))

    def _rebuild_args(self) -> tuple:
        return (self.name,)

    def __call__(self, *args: Any) -> Any:
        """`float64(int64, int64)` builds a signature, as in Numba."""
        from ember.typing.signature import signature

        return signature(self, *args)

    def __getitem__(self, spec: Any) -> Type:
        """`float64[:]` and `float64[:, ::1]` spell array types, as in Numba."""
        from ember.types.arrays import array_from_slices

        return array_from_slices(self, spec)


def _rebuild(cls: type, args: tuple) -> Type:
    return cls(*args)


def _rebuild_from_state(cls: type, state: dict) -> Type:
    candidate = cls.__new__(cls)
    candidate.__dict__.update(state)
    return _intern(candidate)


def forget_interned(key: tuple) -> None:
    """Drop the interned type of `key` (a type whose identity died: its key may be reused).
    No lock: this runs from weakref callbacks, possibly inside the interning lock's section
    (a garbage collection there); the dead object's id is not reused before this runs."""
    if _interned is not None:  # (None at interpreter exit, once this module is torn down)
        _interned.pop(key, None)


def type_from_typecode(code: int) -> Type:
    """The interned type that owns `code`."""
    return _by_typecode[code]


class Dummy(Type):
    """A type with no runtime data (modules, exception classes, literal strings...)."""


class Opaque(Dummy):
    """An opaque pointer-sized value."""


class PyObject(Dummy):
    """Any Python object: the type of every value in an object-mode function, as in
    `jit((types.pyobject,), forceobj=True)` (nopython code cannot hold one)."""


pyobject = PyObject("pyobject")


# Numba's `types.abstract` module also holds its abstract kinds; ember defines them beside the
# concrete types, so `types.abstract.Number` finds them there.
_NUMBA_ABSTRACT_NAMES = frozenset(
    "Number Hashable Callable IterableType IteratorType Sized ConstSized Container Sequence "
    "MutableSequence ArrayCompatible Literal DTypeSpec".split()
)


def __getattr__(name: str) -> Any:
    if name in _NUMBA_ABSTRACT_NAMES:
        import ember.types

        return getattr(ember.types, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
