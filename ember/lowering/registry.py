"""Registries of lowering implementations: calls by key and argument types, casts, attributes,
and the boxing/unboxing of values crossing between Python and native code.

An implementation is `impl(context, builder, sig, args) -> llvm value`. Argument specs are
type instances (matched by identity), type classes (matched by isinstance) or `types.Type`
(matches anything). The most recent registration that matches wins.

The decorators are the lowering half of seed 004's extension API (`ember.extending`):
`lower_builtin`, `lower_cast`, `lower_getattr(_generic)`, `lower_setattr(_generic)`,
`box` and `unbox`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember import library_domains as library
from ember import types


def _matches(spec: Any, typ: types.Type) -> bool:
    if isinstance(spec, types.Type):  # float64's implementations serve np.float64 (same value)
        return spec is typ or spec is types.Any or spec is types.plain_number(typ)
    return isinstance(typ, spec)


def _loose(spec: Any, typ: types.Type) -> bool:
    """Whether `spec` matches the literal `typ` only as the number it also is (an `Integer`
    spec and an `IntegerLiteral`): such implementations are the fallback of the literal
    ones, whatever their registration order."""
    return (
        isinstance(typ, types.Literal)
        and isinstance(spec, type)
        and issubclass(spec, types.Number)
        and not issubclass(spec, types.Literal)
    )


def _first_tight(candidates: Any, loose: Callable[[Any], bool]) -> Any:
    """The first candidate that matches without a loose spec, else the first one at all."""
    fallback = None
    for candidate in candidates:
        if not loose(candidate):
            return candidate
        if fallback is None:
            fallback = candidate
    return fallback


# Numba's string keys for the iteration protocol, and the builtins ember keys them by: an
# extension's `@lower_builtin("getiter", MyType)` lowers `iter()`, "iternext" lowers `next()`.
_NUMBA_CALL_KEYS = {"getiter": iter, "iternext": next}


def call_key(key: Any) -> Any:
    """The key ember registers and looks up a call of Numba's `key` under."""
    if isinstance(key, str):
        return _NUMBA_CALL_KEYS.get(key, key)
    return key


VarArgs = types.VarArg  # spec matching any number of trailing arguments (Numba's VarArg)


def _signature_matches(specs: tuple, args: tuple) -> bool:
    if specs and isinstance(specs[-1], types.VarArg):
        fixed = specs[:-1]
        if len(args) < len(fixed):
            return False
        rest = args[len(fixed) :]
        trailing = specs[-1].dtype
        return all(map(_matches, fixed, args)) and all(_matches(trailing, t) for t in rest)
    return len(specs) == len(args) and all(map(_matches, specs, args))


def _method_keys(key: Any) -> list:
    """A method key `(TypeClass, name)` also finds implementations registered for the base
    classes of TypeClass, most derived first; any other key is looked up as itself."""
    if (
        isinstance(key, tuple)
        and len(key) == 2
        and isinstance(key[0], type)
        and issubclass(key[0], types.Type)
        and isinstance(key[1], str)
    ):
        return [(base, key[1]) for base in key[0].__mro__]
    return [key]


class LoweringRegistry:
    def __init__(self) -> None:
        self.functions: dict[Any, list[tuple[tuple, Callable]]] = {}
        self.casts: list[tuple[Any, Any, Callable]] = []
        self.getattrs: list[tuple[Any, str | None, Callable]] = []
        self.setattrs: list[tuple[Any, str | None, Callable]] = []
        self.delattrs: list[tuple[Any, str | None, Callable]] = []
        self.boxers: list[tuple[Any, Callable]] = []
        self.unboxers: list[tuple[Any, Callable]] = []
        self.constants: list[tuple[Any, Callable]] = []

    def lower(self, key: Any, *arg_specs: Any) -> Callable:
        """Decorator registering `impl` for calls of `key` with matching argument types."""

        def decorate(impl: Callable) -> Callable:
            self.functions.setdefault(call_key(key), []).insert(0, (arg_specs, impl))
            return impl

        return decorate

    def lower_cast(self, from_spec: Any, to_spec: Any) -> Callable:
        def decorate(impl: Callable) -> Callable:
            self.casts.insert(0, (from_spec, to_spec, impl))
            return impl

        return decorate

    def lower_getattr(self, type_spec: Any, attr: str | None) -> Callable:
        """`attr=None` registers a generic getter `impl(context, builder, typ, value, attr)`."""

        def decorate(impl: Callable) -> Callable:
            self.getattrs.insert(0, (type_spec, attr, impl))
            return impl

        return decorate

    def lower_getattr_generic(self, type_spec: Any) -> Callable:
        """Any attribute of `type_spec`: `impl(context, builder, typ, value, attr)`."""
        return self.lower_getattr(type_spec, None)

    def lower_setattr(self, type_spec: Any, attr: str | None) -> Callable:
        """`obj.attr = v`: `impl(context, builder, sig, args)` with `sig = none(objty, valty)`;
        `attr=None` registers a generic setter `impl(context, builder, sig, args, attr)`."""

        def decorate(impl: Callable) -> Callable:
            self.setattrs.insert(0, (type_spec, attr, impl))
            return impl

        return decorate

    def lower_setattr_generic(self, type_spec: Any) -> Callable:
        return self.lower_setattr(type_spec, None)

    def lower_delattr(self, type_spec: Any, attr: str | None) -> Callable:
        """`del obj.attr`: `impl(context, builder, sig, args)` with `sig = none(objty)`."""

        def decorate(impl: Callable) -> Callable:
            self.delattrs.insert(0, (type_spec, attr, impl))
            return impl

        return decorate

    def box(self, type_spec: Any) -> Callable:
        """`@box(MyType) def box_my(typ, val, c)`: native value -> new Python reference
        (NULL with a Python exception set on failure); see `ember/lowering/boxing.py`."""

        def decorate(impl: Callable) -> Callable:
            self.boxers.insert(0, (type_spec, impl))
            return impl

        return decorate

    def unbox(self, type_spec: Any) -> Callable:
        """`@unbox(MyType) def unbox_my(typ, obj, c)`: Python object -> `NativeValue`."""

        def decorate(impl: Callable) -> Callable:
            self.unboxers.insert(0, (type_spec, impl))
            return impl

        return decorate

    def lower_constant(self, type_spec: Any) -> Callable:
        """`@lower_constant(MyType) def impl(context, builder, ty, pyval)`: the native value of
        a Python constant of that type (a global or closure variable used in compiled code)."""

        def decorate(impl: Callable) -> Callable:
            self.constants.insert(0, (type_spec, impl))
            return impl

        return decorate

    def find_function(self, key: Any, args: tuple) -> Callable | None:
        library.load_for_value(key)
        library.load_for_types(args)
        for lookup in _method_keys(key):
            matching = (
                entry
                for entry in self.functions.get(lookup, ())
                if _signature_matches(entry[0], args)
            )
            found = _first_tight(matching, lambda entry: any(map(_loose, entry[0], args)))
            if found is not None:
                return found[1]
        return None

    def find_cast(self, from_type: types.Type, to_type: types.Type) -> Callable | None:
        library.load_for_types((from_type, to_type))
        matching = (
            entry
            for entry in self.casts
            if _matches(entry[0], from_type) and _matches(entry[1], to_type)
        )
        found = _first_tight(
            matching, lambda entry: _loose(entry[0], from_type) or _loose(entry[1], to_type)
        )
        return found[2] if found is not None else None

    def find_getattr(self, typ: types.Type, attr: str) -> tuple[Callable, bool] | None:
        """(impl, is_generic) for reading `attr` of a value of type `typ`: a getter of that
        name wins over a generic one (a record array's generic field views leave `a.shape`)."""
        library.load_for_types((typ,))
        for wanted in (attr, None):
            for type_spec, name, impl in self.getattrs:
                if name == wanted and _matches(type_spec, typ):
                    return impl, name is None
        return None

    def find_setattr(self, typ: types.Type, attr: str) -> tuple[Callable, bool] | None:
        library.load_for_types((typ,))
        for type_spec, name, impl in self.setattrs:
            if _matches(type_spec, typ) and name in (attr, None):
                return impl, name is None
        return None

    def find_delattr(self, typ: types.Type, attr: str) -> tuple[Callable, bool] | None:
        library.load_for_types((typ,))
        for type_spec, name, impl in self.delattrs:
            if _matches(type_spec, typ) and name in (attr, None):
                return impl, name is None
        return None

    def find_box(self, typ: types.Type) -> Callable | None:
        return _first_for(self.boxers, typ)

    def find_unbox(self, typ: types.Type) -> Callable | None:
        return _first_for(self.unboxers, typ)

    def find_constant(self, typ: types.Type) -> Callable | None:
        return _first_for(self.constants, typ)


def _first_for(entries: list[tuple[Any, Callable]], typ: types.Type) -> Callable | None:
    """The most recently registered implementation whose type spec matches `typ`."""
    library.load_for_types((typ,))
    matching = (entry for entry in entries if _matches(entry[0], typ))
    found = _first_tight(matching, lambda entry: _loose(entry[0], typ))
    return found[1] if found is not None else None


registry = LoweringRegistry()
lower_builtin = registry.lower
lower_cast = registry.lower_cast
lower_getattr = registry.lower_getattr
lower_getattr_generic = registry.lower_getattr_generic
lower_setattr = registry.lower_setattr
lower_setattr_generic = registry.lower_setattr_generic
lower_delattr = registry.lower_delattr
box = registry.box
unbox = registry.unbox
lower_constant = registry.lower_constant
