"""Namedtuples (`collections.namedtuple`, `typing.NamedTuple`): typing of instances and of the
class as a global, construction in compiled code, attribute access, and boxing back into an
instance of the same class. Everything else (indexing, iteration, unpacking) is the tuple's."""

from __future__ import annotations

import functools
from typing import Any

from ember import types
from ember.dispatcher.typeof import register_typeof_hook
from ember.errors import TypingError
from ember.extending import intrinsic, overload, overload_attribute, overload_method
from ember.library.interop.boxing import box_by_calling
from ember.lowering import arrays as refs
from ember.lowering.registry import box, lower_getattr_generic
from ember.typing.signature import signature
from ember.typing.templates import AttributeTemplate, registry


def is_namedtuple_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")


@register_typeof_hook
def _typeof_namedtuple_class(value: Any) -> types.Type | None:
    """A namedtuple class (a global used to build instances) types as a function whose
    overload is registered on first sight; instances are typed by ember.dispatcher.typeof."""
    if is_namedtuple_class(value):
        _register_constructor(value)
        return types.Function(value)
    return None


# ---------------------------------------------------------------------------- construction


@functools.cache
def _register_constructor(cls: type) -> None:
    """`cls(a, b)`, `cls(x=a, y=b)` and the class's field defaults, as an `@overload` whose
    Python parameters are the fields."""
    fields = tuple(cls._fields)
    defaults = getattr(cls, "_field_defaults", {}) or {}
    params = ", ".join(f"{name}=_default_{name}" if name in defaults else name for name in fields)
    items = "".join(f"{name}, " for name in fields)
    namespace: dict = {f"_default_{name}": value for name, value in defaults.items()}
    namespace["_retag"] = _retag_as(cls)
    source = (
        f"def typer({params}):\n    return impl\n"
        f"def impl({params}):\n    return _retag(({items}))\n"
    )
    exec(compile(source, f"<ember constructor of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    overload(cls)(namespace["typer"])


@registry.typer(type)
def _type_of_namedtuple(args, kws):
    """`type(point)`: the namedtuple's class, which builds instances when called."""
    if len(args) != 1 or kws or not types.is_named_tuple(args[0]):
        return None
    cls = args[0].instance_class
    _register_constructor(cls)
    return signature(types.Function(cls), args[0])


def _retag_as(cls: type):
    """An intrinsic turning a plain tuple into an instance of `cls` (the same data)."""

    @intrinsic
    def retag(typingctx, items):
        if not isinstance(items, types.BaseTuple):
            return None
        result = types.make_named_tuple(items.types, cls)

        def codegen(context, builder, sig, args):
            refs.incref(builder, sig.return_type, args[0])  # a call returns a new reference
            return args[0]

        return signature(result, items), codegen

    return retag


# ---------------------------------------------------------------------------- attributes


@registry.register_attr
class NamedTupleAttributes(AttributeTemplate):
    key = types.BaseTuple

    def generic_resolve(self, value_type, attr):
        if not types.is_named_tuple(value_type):
            return None
        if attr in value_type.fields:
            return value_type.types[value_type.fields.index(attr)]
        if attr == "_replace":  # resolved as the method registered for the class
            _register_replace(value_type.instance_class)
        return None


_NOT_GIVEN = object()


@functools.cache
def _register_replace(cls: type) -> None:
    """`point._replace(x=1.5)`: a new instance of the class with the fields given by keyword
    replaced (a field's type may change, as in CPython), the others kept. The method's
    parameters are the fields, keyword-only as in CPython (`p._replace(5)` does not match),
    each defaulting to "not given" (omitted arguments reach the typer as their defaults)."""
    fields = tuple(cls._fields)
    params = "".join(f", {name}=_NOT_GIVEN" for name in fields)
    names = "".join(f"{name}, " for name in fields)
    typer_source = f"def typer(self, *{params}):\n    return choose(self, ({names}))\n"

    def choose(value_type: types.Type, given: tuple) -> Any:
        if not (types.is_named_tuple(value_type) and value_type.instance_class is cls):
            return None
        return _replace_impl(cls, tuple(t is not _NOT_GIVEN for t in given))

    namespace: dict = {"choose": choose, "_NOT_GIVEN": _NOT_GIVEN}
    exec(compile(typer_source, f"<ember _replace of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    overload_method(types.BaseTuple, "_replace")(namespace["typer"])


@functools.cache
def _replace_impl(cls: type, given: tuple[bool, ...]) -> Any:
    """The implementation of `_replace` for the fields `given` (by position) of `cls`."""
    fields = tuple(cls._fields)
    params = "".join(f", {name}=None" for name in fields)
    items = "".join(
        f"{name}, " if replaced else f"self[{index}], "
        for index, (name, replaced) in enumerate(zip(fields, given))
    )
    source = f"def impl(self{params}):\n    return _retag(({items}))\n"
    namespace: dict = {"_retag": _retag_as(cls)}
    exec(compile(source, f"<ember _replace of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    return namespace["impl"]


@overload_attribute(types.BaseTuple, "_fields")
def namedtuple_fields(value):
    """`point._fields`: the field names, a tuple of strings."""
    if not types.is_named_tuple(value):
        return None
    fields = tuple(value.fields)
    return lambda value: fields


@lower_getattr_generic(types.BaseTuple)
def namedtuple_getattr(context, builder, typ, value, attr):
    member = builder.extract_value(value, typ.fields.index(attr))
    refs.incref(builder, typ.types[typ.fields.index(attr)], member)
    return member


# ---------------------------------------------------------------------------- boxing


@box(types.NamedTuple)
@box(types.NamedUniTuple)
def box_namedtuple(typ, val, c):
    """`cls(*members)`: box the members as a plain tuple, then call the class with it."""
    return box_by_calling(typ.instance_class, typ, val, c)


@overload_method(types.BaseTuple, "_asdict")
def namedtuple_asdict(value):
    """`point._asdict()`: a dict from field name to value, when the fields share one type
    (a compiled dict holds values of one type)."""
    if not types.is_named_tuple(value):
        return None
    if not isinstance(value, types.NamedUniTuple):
        raise TypingError(
            f"{value.instance_class.__name__}._asdict(): its fields have different types "
            f"({', '.join(map(str, value.types))}) and a compiled dict holds values of one "
            "type; read the fields by name instead"
        )
    fields = tuple(value.fields)

    def asdict_impl(value):
        found = {}
        for i in range(len(fields)):
            found[fields[i]] = value[i]
        return found

    return asdict_impl
