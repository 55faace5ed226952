"""Numba's `numba.experimental.structref`: mutable structs shared by reference between compiled
code and Python. Types subclass `types.StructRef`; Python sees instances through proxy classes
deriving from `StructRefProxy`. Layout and memory are the jitclass's (ember/lowering/classes.py).
"""

from __future__ import annotations

import functools
import keyword
from collections.abc import Callable, Sequence
from typing import Any

from ember import types
from ember.dispatcher.typeof import typeof_impl
from ember.errors import TypingError
from ember.jitclasses import box as boxes
from ember.lowering import classes as layout
from ember.lowering.registry import lower_getattr_generic, lower_setattr_generic
from ember.runtime.nrt import HEADER_SIZE
from ember.types.structref import StructRefDefinitionError
from ember.typing.conversions import can_convert
from ember.typing.intrinsics import intrinsic
from ember.typing.overload import overload
from ember.typing.signature import Signature, signature
from ember.typing.templates import AttributeTemplate, registry

# ---------------------------------------------------------------------------- the type class


def register(struct_type: type) -> type:
    """Class decorator on a subclass of `types.StructRef`: its instances get the struct layout
    and their fields become readable and writable attributes in compiled code."""
    if not (isinstance(struct_type, type) and issubclass(struct_type, types.StructRef)):
        raise TypeError(f"structref.register needs a types.StructRef subclass, not {struct_type!r}")
    if struct_type is types.StructRef:
        raise StructRefDefinitionError(
            "cannot register types.StructRef itself: subclass it and register the subclass"
        )
    define_attributes(struct_type)
    return struct_type


_with_attributes: set[type] = set()


def define_attributes(struct_typeclass: type) -> None:
    """Typing and lowering of `s.field` and `s.field = value` for instances of the type class."""
    if struct_typeclass in _with_attributes:
        return
    _with_attributes.add(struct_typeclass)
    name = f"StructRefFields_{struct_typeclass.__name__}"
    registry.register_attr(type(name, (_FieldAttributes,), {"key": struct_typeclass}))
    lower_getattr_generic(struct_typeclass)(_load_field)
    lower_setattr_generic(struct_typeclass)(_store_field)


class _FieldAttributes(AttributeTemplate):
    """The fields of a structref type (other attributes are left to @overload_attribute and
    @overload_method)."""

    def generic_resolve(self, value_type: types.StructRef, attr: str) -> types.Type | None:
        return value_type.struct.get(attr)

    def resolve_setattr(self, target: types.StructRef, attr: str, value: types.Type):
        field_type = target.struct.get(attr)
        if field_type is None:
            return None
        value = types.unliteral(value)
        if can_convert(value, field_type) is None:
            raise TypingError(
                f"cannot assign a value of type {value} to field '{attr}' of {target}, "
                f"declared as {field_type}"
            )
        return Signature(types.none, (target, field_type))


def _load_field(context, builder, typ: types.StructRef, value, attr: str):
    return layout.load_field(builder, typ, value, attr)


def _store_field(context, builder, sig: Signature, args: list, attr: str) -> None:
    layout.store_field(context, builder, sig.args[0], args[0], attr, args[1])


@intrinsic
def new(typingctx: Any, struct_type: types.Type) -> Any:
    """`new(MyStructType(fields))` in compiled code: an instance whose fields are zero (and
    own nothing) until assigned."""
    instance_type = getattr(struct_type, "instance_type", None)
    if not isinstance(struct_type, types.TypeRef) or not isinstance(instance_type, types.StructRef):
        raise TypingError(f"structref.new needs a StructRef type, not {struct_type}")

    def codegen(context, builder, sig, args):
        return layout.allocate(context, builder, instance_type)

    return signature(instance_type, struct_type), codegen


# ---------------------------------------------------------------------------- the Python side


class StructRefProxy:
    """Base of the Python classes whose instances stand for structrefs: `_type` is the
    structref type, `_meminfo` the address of the runtime block (one reference held)."""

    __slots__ = ("_type", "_meminfo")

    def __new__(cls, *args: Any) -> Any:
        """Construct through compiled code: `cls(*args)` as `define_constructor` defines it."""
        constructor = cls.__dict__.get("_ember_constructor_")
        if constructor is None:
            constructor = cls._ember_constructor_ = _python_constructor(cls)
        return constructor(*args)

    @classmethod
    def _numba_box_(cls, ty: types.StructRef, mi: int) -> StructRefProxy:
        """A proxy taking over the reference `mi` to an instance of type `ty`."""
        instance = object.__new__(cls)
        instance._type = ty
        instance._meminfo = mi
        return instance

    @property
    def _numba_type_(self) -> types.StructRef:
        return self._type

    def __del__(self) -> None:
        boxes.release(getattr(self, "_meminfo", None))

    def __reduce__(self) -> Any:
        raise TypeError(f"cannot pickle structref proxy {type(self).__name__}")


def _python_constructor(cls: type) -> Any:
    """A jitted `cls(...)`: with the fields of `define_constructor` as its parameters (the
    native entry takes fixed parameters only), else with `*args`."""
    names = _constructor_fields.get(cls)
    params = "*args" if names is None else ", ".join(names)
    target = _unused("proxy_class", names or [])
    source = f"def {cls.__name__}({params}):\n    return {target}({params})\n"
    namespace = {target: cls, "__name__": __name__}  # ember's own: compiled even in DISABLE_JIT
    exec(compile(source, f"<structref proxy {cls.__name__}>", "exec"), namespace)  # noqa: S102
    return _jit(namespace[cls.__name__])


_constructor_fields: dict[type, list[str]] = {}  # proxy class -> its constructor's parameters


@typeof_impl.register(StructRefProxy)
def _typeof_proxy(value: StructRefProxy) -> types.StructRef:
    return value._type


_proxy_classes: dict[type, type] = {}  # struct type class -> its proxy class (define_boxing)


def define_boxing(struct_typeclass: type, obj_class: type) -> None:
    """Instances of `struct_typeclass`'s types cross into Python as `obj_class` proxies."""
    if struct_typeclass is types.StructRef:
        raise StructRefDefinitionError(
            "cannot register types.StructRef itself: define boxing for a subclass"
        )
    if not (isinstance(obj_class, type) and issubclass(obj_class, StructRefProxy)):
        raise TypeError(f"define_boxing: {obj_class!r} does not derive from StructRefProxy")
    boxes.load_runtime()
    _release_natively()
    _proxy_classes[struct_typeclass] = obj_class


@functools.cache
def _release_natively() -> None:
    """Proxies dropped from Python release their reference in compiled code (no frame)."""
    from ember.dispatcher.call_slots import class_slot_offset
    from ember.jitclasses.native_release import native_del

    offset = class_slot_offset(StructRefProxy, "_meminfo")
    if offset is not None:
        StructRefProxy.__del__ = native_del(StructRefProxy, offset)


def _proxy_class(typ: types.StructRef) -> type | None:
    for klass in type(typ).__mro__:
        found = _proxy_classes.get(klass)
        if found is not None:
            return found
    return None


def box_proxy(typ: types.StructRef, meminfo: int) -> StructRefProxy:
    """The proxy of an instance compiled code hands over (takes over its reference)."""
    proxy_class = _proxy_class(typ)
    if proxy_class is not None:
        return proxy_class._numba_box_(typ, meminfo)
    boxes.release(meminfo)
    raise TypeError(
        f"{typ} cannot be returned to Python: it has no proxy class (call "
        f"structref.define_boxing({type(typ).__name__}, ProxyClass) or define_proxy)"
    )


def native_arguments(typ: types.StructRef, value: Any) -> tuple[int, int]:
    """(meminfo, data) of a proxy passed to compiled code (borrowed: the proxy keeps its
    reference)."""
    if not isinstance(value, StructRefProxy) or value._type is not typ:
        raise TypeError(f"expected a structref of type {typ}, not {value!r}")
    return value._meminfo, value._meminfo + HEADER_SIZE


def proxy_kind(typ: types.StructRef) -> Any:
    """The native entry's kind of proxies of `typ` (exactly of its proxy class, with `typ` as
    their `_type`), or None: no fast path."""
    from ember.dispatcher.object_layout import InstanceKind

    proxy_class = _proxy_class(typ)
    offsets = _slot_offsets()
    if proxy_class is None or offsets is None:
        return None
    meminfo_offset, type_offset = offsets
    boxer = _boxer(proxy_class, typ)
    return InstanceKind(proxy_class, meminfo_offset, tag=typ, tag_offset=type_offset, boxer=boxer)


@functools.cache
def _boxer(proxy_class: type, typ: types.StructRef) -> Callable[[int], StructRefProxy]:
    """`box(meminfo)` for the native entry (cached: the entry's code holds its address)."""
    return functools.partial(proxy_class._numba_box_, typ)


def _slot_offsets() -> tuple[int, int] | None:
    """Where proxies keep the PyObject* of `_meminfo` and of `_type`, or None if not found."""
    from ember.dispatcher.call_slots import class_slot_offset

    found = tuple(class_slot_offset(StructRefProxy, name) for name in ("_meminfo", "_type"))
    return None if None in found else found


def define_constructor(py_class: type, struct_typeclass: type, fields: Sequence[str]) -> None:
    """`py_class(*values)` in compiled code: a new instance of `struct_typeclass` whose field
    types are the values' types (passed through `preprocess_fields`)."""
    names = list(fields)
    for name in names:
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise TypeError(f"define_constructor: field name {name!r} is not an identifier")
    overload(py_class)(_constructor_overload(py_class.__name__, struct_typeclass, names))
    _constructor_fields[py_class] = names
    if "_ember_constructor_" in py_class.__dict__:  # made for *args: the fields take over
        del py_class._ember_constructor_


def define_proxy(py_class: type, struct_typeclass: type, fields: Sequence[str]) -> None:
    """`define_constructor` and `define_boxing` at once."""
    define_constructor(py_class, struct_typeclass, fields)
    define_boxing(struct_typeclass, py_class)


def _constructor_overload(class_name: str, struct_typeclass: type, names: list[str]) -> Callable:
    """An overload function with the fields as parameters, returning the implementation for
    the argument types: allocate, assign each field, return."""
    instance, struct_type, typeclass, allocate, field_names = (
        _unused(base, names) for base in ("st", "struct_type", "typeclass", "new", "field_names")
    )
    params = ", ".join(names)
    values = f"({params},)" if names else "()"
    stores = "".join(f"        {instance}.{name} = {name}\n" for name in names)
    source = (
        f"def {class_name}({params}):\n"
        f"    {struct_type} = {typeclass}(list(zip({field_names}, {values})))\n"
        f"    def {class_name}({params}):\n"
        f"        {instance} = {allocate}({struct_type})\n"
        f"{stores}"
        f"        return {instance}\n"
        f"    return {class_name}\n"
    )
    namespace = {typeclass: struct_typeclass, allocate: new, field_names: names}
    exec(compile(source, f"<structref constructor of {class_name}>", "exec"), namespace)  # noqa: S102
    return namespace[class_name]


def _unused(base: str, names: list[str]) -> str:
    """`base`, with underscores appended until no field has that name."""
    while base in names:
        base += "_"
    return base


def _jit(func: Callable) -> Any:
    from ember.decorators import njit

    return njit(func)


__all__ = [
    "StructRefProxy",
    "define_attributes",
    "define_boxing",
    "define_constructor",
    "define_proxy",
    "new",
    "register",
]
