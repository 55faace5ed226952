"""Python-level attributes: `@overload_attribute` (a getter, or getter/setter/deleter, compiled
like an @overload implementation) and `make_attribute_wrapper` (a data-model member read as an
attribute); both register an AttributeTemplate and its lowering."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember import types
from ember.errors import EmberError
from ember.lowering.registry import registry as lowering
from ember.typing.overload import (
    _check_type_class,
    _failure,
    _fresh,
    _Resolved,
    implementation_of,
)
from ember.typing.signature import Signature
from ember.typing.templates import AttributeTemplate, registry

# ------------------------------------------------------------------ @overload_attribute


class _AttributeOverloadTemplate(AttributeTemplate):
    """`obj.name` (and `obj.name = v`, `del obj.name`) from one overload_attribute function."""

    _attr: str
    _overload_func: Callable
    _jit_options: dict
    _accessors: dict  # receiver type -> (getter, setter, deleter) Implementations or None
    _resolved: dict  # (role, argument types) -> _Resolved
    _lowered_roles: set

    def generic_resolve(self, value_type: types.Type, attr: str) -> types.Type | None:
        if attr != self._attr:
            return None
        sig = self._signature("get", (value_type,))
        return None if sig is None else sig.return_type

    def resolve_setattr(self, target, attr, value) -> Signature | None:
        if attr != self._attr:
            return None
        sig = self._signature("set", (target, types.unliteral(value)))
        return None if sig is None else Signature(types.none, sig.args)

    def resolve_delattr(self, target, attr) -> Signature | None:
        if attr != self._attr:
            return None
        sig = self._signature("del", (target,))
        return None if sig is None else Signature(types.none, sig.args)

    def _signature(self, role: str, args: tuple) -> Signature | None:
        key = (role, args)
        found = self._resolved.get(key)
        if found is None:
            found = self._resolve(role, args)
            self._resolved[key] = found
        if found.error is not None:
            raise _fresh(found.error)
        return found.signature

    def _resolve(self, role: str, args: tuple) -> _Resolved:
        what = f"attribute {self.key.__name__}.{self._attr}"
        receiver = args[0]
        accessors = self._accessors.get(receiver, ())
        if receiver not in self._accessors:
            try:
                accessors = _as_accessors(self._overload_func(receiver))
            except Exception as error:
                return _Resolved(None, None, _failure(what, self._overload_func, args, error))
            accessors = tuple(
                None if f is None else implementation_of(f, self._jit_options) for f in accessors
            )
            self._accessors[receiver] = accessors
        implementation = accessors[("get", "set", "del").index(role)] if accessors else None
        if implementation is None:
            return _Resolved(None, None)
        try:
            full = implementation.type_call(args)
        except EmberError as error:
            return _Resolved(None, None, _failure(what, self._overload_func, args, error))
        self._register_lowering(role)
        return _Resolved(implementation, full)

    @classmethod
    def _register_lowering(cls, role: str) -> None:
        """Lower `obj.attr` reads, writes and deletes once this attribute has an accessor
        for them (a read-only attribute must not look settable to other templates)."""
        if role in cls._lowered_roles:
            return
        cls._lowered_roles.add(role)
        if role == "get":
            lowering.lower_getattr(cls.key, cls._attr)(cls._lower_get)
        elif role == "set":
            lowering.lower_setattr(cls.key, cls._attr)(cls._lower_set)
        else:
            lowering.lower_delattr(cls.key, cls._attr)(cls._lower_del)

    @classmethod
    def _lower_get(cls, context, builder, typ, value):
        found = cls._resolved[("get", (typ,))]
        return found.implementation.call(context, builder, found.signature, [value])

    @classmethod
    def _lower_set(cls, context, builder, sig, args):
        found = cls._resolved[("set", tuple(sig.args))]
        found.implementation.call(context, builder, found.signature, list(args))

    @classmethod
    def _lower_del(cls, context, builder, sig, args):
        found = cls._resolved[("del", tuple(sig.args))]
        found.implementation.call(context, builder, found.signature, list(args))


def _as_accessors(result: Any) -> tuple:
    """A getter, or a (getter, setter, deleter) tuple, as a 3-tuple (None: not provided)."""
    if result is None:
        return ()
    if isinstance(result, tuple):
        if len(result) != 3:
            raise TypeError("overload_attribute must return a getter or (getter, setter, deleter)")
        return result
    return (result, None, None)


def overload_attribute(
    type_class: type, attr: str, jit_options: dict | None = None, **_numba: Any
) -> Callable:
    """`@overload_attribute(TypeClass, "name") def ov(objtype)` returns a getter `get(obj)`,
    or a `(getter, setter, deleter)` tuple (any may be None): `set(obj, value)` serves
    `obj.name = value`, `delete(obj)` serves `del obj.name`."""
    _check_type_class(type_class, "overload_attribute")

    def decorate(overload_func: Callable) -> Callable:
        template = type(
            f"OverloadAttribute_{type_class.__name__}_{attr}",
            (_AttributeOverloadTemplate,),
            {
                "key": type_class,
                "_attr": attr,
                "_overload_func": staticmethod(overload_func),
                "_jit_options": dict(jit_options or {}),
                "_accessors": {},
                "_resolved": {},
                "_lowered_roles": set(),
            },
        )
        registry.register_attr(template)
        return overload_func

    return decorate


# ------------------------------------------------------------------ make_attribute_wrapper


def make_attribute_wrapper(type_class: type, struct_attr: str, python_attr: str) -> None:
    """Expose the data-model member `struct_attr` of a StructModel-backed type as the
    read-only attribute `python_attr` in compiled code."""
    _check_type_class(type_class, "make_attribute_wrapper")
    from ember.lowering.models import model_of

    def member_type(value_type: types.Type) -> types.Type:
        return model_of(value_type).get_member_fe_type(struct_attr)

    def generic_resolve(self, value_type, attr):
        return member_type(value_type) if attr == python_attr else None

    template = type(
        f"StructAttribute_{type_class.__name__}_{python_attr}",
        (AttributeTemplate,),
        {"key": type_class, "generic_resolve": generic_resolve},
    )
    registry.register_attr(template)

    @lowering.lower_getattr(type_class, python_attr)
    def struct_getattr(context, builder, typ, value):
        from ember.lowering import arrays

        member = builder.extract_value(value, model_of(typ).index_of(struct_attr))
        arrays.incref(builder, member_type(typ), member)  # an expression's result is its own
        return member
