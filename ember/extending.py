"""The public API for extending ember (seed 004, Numba's `numba.extending`).

    from ember import types
    from ember.extending import overload, overload_method, typeof_impl, ...

Types: subclass `types.Type`; teach `typeof` about your Python class with
`@typeof_impl.register(MyClass)`, a `_ember_type_` / `_numba_type_` attribute, or (for values no
class list can name) `@register_typeof_hook`.

Typing: `@overload`, `@overload_method`, `@overload_attribute` (Python implementations chosen by
argument types), templates (`ConcreteTemplate`, `AbstractTemplate`, `CallableTemplate`,
`AttributeTemplate`) registered with `@infer`, `@infer_global`, `@infer_getattr`, and the
functional `@type_callable`.

Code generation: `@register_model` with `models.PrimitiveModel/StructModel/OpaqueModel`,
`make_attribute_wrapper`, `@lower_builtin`, `@lower_getattr(_generic)`, `@lower_setattr(_generic)`,
`@lower_cast`, `@lower_constant`, `@intrinsic`, and `@box` / `@unbox` with `NativeValue`.

See docs/extending.md for a walk-through.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ember import types
from ember.dispatcher import typeof as _typeof
from ember.errors import TypingError
from ember.lowering import cgutils, models
from ember.lowering.boxing import NativeValue
from ember.lowering.context_numba import (
    RefType,
    impl_ret_borrowed,
    impl_ret_new_ref,
    impl_ret_untracked,
    iternext_impl,
)
from ember.lowering.models import register_model
from ember.lowering.registry import (
    box,
    lower_builtin,
    lower_cast,
    lower_constant,
    lower_getattr,
    lower_getattr_generic,
    lower_setattr,
    lower_setattr_generic,
    unbox,
)
from ember.misc.literal import literally
from ember.typing.intrinsics import (
    _Intrinsic,  # noqa: F401 - Numba's name for the class of @intrinsic functions
    intrinsic,
)
from ember.typing.overload import (
    overload,
    overload_classmethod,
    overload_method,
    register_jitable,
)
from ember.typing.overload_attribute import make_attribute_wrapper, overload_attribute
from ember.typing.signature import Signature, signature
from ember.typing.templates import (
    AbstractTemplate,
    AttributeTemplate,
    CallableTemplate,
    ConcreteTemplate,
    infer,
    infer_getattr,
    infer_global,
    type_callable,
)

# ------------------------------------------------------------------ typeof


class TypeofContext:
    """The `c` argument of typeof implementations: why the value is being typed."""

    def __init__(self, purpose: str = "argument") -> None:
        self.purpose = purpose


_ARGUMENT = TypeofContext("argument")


def _with_context(func: Callable) -> Callable[[Any], types.Type | None]:
    """Adapt `func(val, c)` (Numba's spelling) or `func(val)` to ember's `hook(val)`."""
    try:
        count = len(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        count = 2
    if count >= 2:
        return lambda value: func(value, _ARGUMENT)
    return func


class _TypeofImpl:
    """`@typeof_impl.register(MyClass) def typeof_my(val, c)`: the ember type of instances of
    MyClass (and its subclasses), or None when this value cannot be typed."""

    def register(self, cls: type, func: Callable | None = None) -> Callable:
        def decorate(func: Callable) -> Callable:
            _typeof.typeof_impl.register(cls, _with_context(func))
            return func

        return decorate if func is None else decorate(func)

    def __call__(self, value: Any, c: TypeofContext | None = None) -> types.Type | None:
        return _typeof.typeof_or_none(value)


typeof_impl = _TypeofImpl()


def register_typeof_hook(hook: Callable) -> Callable:
    """`@register_typeof_hook def hook(val, c)`: asked for values that no class rule types,
    e.g. every object exposing some protocol; return a type or None."""
    _typeof.register_typeof_hook(_with_context(hook))
    return hook


def typeof(value: Any) -> types.Type:
    """The ember type of a Python value (ValueError if ember cannot type it)."""
    return _typeof.typeof(value)


class AsNumbaTypeRegistry:
    """`as_numba_type(py_class)`: the ember type that annotations naming `py_class` mean:
    Python's scalar classes, `typing.List[T]` / `list[T]` (a typed list), `Dict[K, V]`,
    `Set[T]`, `Tuple[...]`, `Optional[T]` (a Union with None), jitclasses and ember types.
    `as_numba_type.register(py_class, ember_type)` teaches it a class;
    `as_numba_type.register(func)` a function `func(py_class) -> type or None`."""

    def __init__(self) -> None:
        self._known: dict[Any, types.Type] = {
            bool: types.boolean,
            int: types.int64,
            float: types.float64,
            complex: types.complex128,
            str: types.string_type,
            type(None): types.none,
            None: types.none,
        }
        self._functions: list[Callable[[Any], types.Type | None]] = []

    def register(self, py_class: Any, ember_type: types.Type | None = None) -> None:
        if ember_type is None:
            self._functions.append(py_class)
        else:
            self._known[py_class] = ember_type

    def try_infer(self, py_class: Any) -> types.Type | None:
        """The ember type, or None when nothing knows `py_class`."""
        if isinstance(py_class, types.Type):
            return py_class
        try:
            found = self._known.get(py_class)
        except TypeError:  # unhashable
            found = None
        if found is None:
            found = self._generic(py_class)
        if found is None:
            class_type = getattr(py_class, "class_type", None)  # a jitclass, by its class
            if isinstance(class_type, types.ClassType):
                found = class_type.instance_type
        for function in self._functions:
            if found is not None:
                break
            found = function(py_class)
        if found is not None and not isinstance(found, types.Type):
            raise TypingError(f"as_numba_type should return an ember type, got {found!r}")
        return found

    def _generic(self, py_class: Any) -> types.Type | None:
        """`List[float]`, `dict[str, int]`, `Optional[int]`, `Tuple[int, float]`..."""
        import types as pytypes
        import typing

        origin, args = typing.get_origin(py_class), typing.get_args(py_class)
        if origin is None:
            return None
        if origin is typing.Union or origin is pytypes.UnionType:  # Optional[T], T | None
            members = [arg for arg in args if arg is not type(None)]
            if len(args) != 2 or len(members) != 1:
                raise TypingError(  # Numba's words first: programs match them
                    f"Cannot type Union that is not an Optional: {py_class} (only a Union of "
                    "one type with None, Optional[T], has an ember type)"
                )
            return types.Optional(self(members[0]))
        if origin is list and len(args) == 1:
            return types.ListType(self(args[0]))
        if origin is dict and len(args) == 2:
            return types.DictType(self(args[0]), self(args[1]))
        if origin is set and len(args) == 1:  # a typed set, as list[T] is a typed list
            return types.SetType(self(args[0]))
        if origin is tuple and args and args[-1] is not Ellipsis:
            return types.make_tuple([self(arg) for arg in args])
        return None

    def __call__(self, py_class: Any) -> types.Type:
        found = self.try_infer(py_class)
        if found is None:
            raise TypingError(  # Numba's words: programs match them
                f"Cannot infer Numba type of Python type {py_class!r}: ember has no type for it"
            )
        return found


as_numba_type = AsNumbaTypeRegistry()


def get_cython_function_address(module_name: str, function_name: str) -> int:
    """The address of a Cython module's exported C function (its `__pyx_capi__` entry), e.g.
    `get_cython_function_address("scipy.special.cython_special", "gammaln")`; wrap it with
    `ctypes.CFUNCTYPE(...)(address)` to call it from compiled code."""
    import ctypes
    import importlib

    capsules = getattr(importlib.import_module(module_name), "__pyx_capi__", {})
    capsule = capsules.get(function_name)
    if capsule is None:
        raise ValueError(f"No function {function_name!r} found in __pyx_capi__ of {module_name!r}")
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype, get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(capsule, get_name(capsule))


def include_path() -> str:
    """Numba's directory of C headers for C code using its runtime's C API; ember ships no
    headers (the table `NRT_get_api()` gives has Numba's layout), so there is no such directory."""
    from ember.core.unsafe.nrt import NO_C_API
    from ember.errors import UnsupportedError

    raise UnsupportedError(NO_C_API)


def is_jitted(function: Any) -> bool:
    """Whether `function` is a jitted function (what `@jit`/`@njit` return), not plain Python."""
    from ember.dispatcher.dispatcher import Dispatcher

    return isinstance(function, Dispatcher)


def sentry_literal_args(
    pysig: inspect.Signature, literal_args: Any, args: tuple, kwargs: dict
) -> None:
    """In an `@overload` function: ask for the arguments named in `literal_args` to be typed
    as literals (the call is typed again with their values) when they are not already."""
    from ember.errors import ForceLiteralArg

    bound = pysig.bind(*args, **kwargs)
    names = list(pysig.parameters)
    wanted = [name for name in literal_args if not isinstance(bound.arguments[name], types.Literal)]
    if wanted:  # the positions of exactly these arguments (others may share their type)
        raise ForceLiteralArg(
            {names.index(name) for name in wanted},
            f"arguments {', '.join(map(repr, wanted))} are needed as literals",
        )


class BoundLiteralArgs:
    """`SentryLiteralArgs(names).for_function(f)`: `.bind(*args, **kws)` checks the call."""

    def __init__(self, pysig: inspect.Signature, literal_args: Any) -> None:
        self.pysig = pysig
        self.literal_args = tuple(literal_args)

    def bind(self, *args: Any, **kwargs: Any) -> None:
        sentry_literal_args(self.pysig, self.literal_args, args, kwargs)


class SentryLiteralArgs:
    """Numba's spelling of `sentry_literal_args` for a function's own signature."""

    def __init__(self, literal_args: Any) -> None:
        self.literal_args = tuple(literal_args)

    def for_function(self, function: Callable) -> BoundLiteralArgs:
        return BoundLiteralArgs(inspect.signature(function), self.literal_args)

    def for_pysig(self, pysig: inspect.Signature) -> BoundLiteralArgs:
        return BoundLiteralArgs(pysig, self.literal_args)


__all__ = [
    "BoundLiteralArgs",
    "SentryLiteralArgs",
    "sentry_literal_args",
    "get_cython_function_address",
    "is_jitted",
    "AbstractTemplate",
    "AttributeTemplate",
    "CallableTemplate",
    "ConcreteTemplate",
    "NativeValue",
    "RefType",
    "Signature",
    "TypeofContext",
    "as_numba_type",
    "AsNumbaTypeRegistry",
    "box",
    "cgutils",
    "impl_ret_borrowed",
    "impl_ret_new_ref",
    "impl_ret_untracked",
    "include_path",
    "infer",
    "infer_getattr",
    "infer_global",
    "intrinsic",
    "iternext_impl",
    "literally",
    "lower_builtin",
    "lower_cast",
    "lower_constant",
    "lower_getattr",
    "lower_getattr_generic",
    "lower_setattr",
    "lower_setattr_generic",
    "make_attribute_wrapper",
    "models",
    "overload",
    "overload_attribute",
    "overload_classmethod",
    "overload_method",
    "register_jitable",
    "register_model",
    "register_typeof_hook",
    "signature",
    "type_callable",
    "typeof",
    "typeof_impl",
    "types",
    "unbox",
]
