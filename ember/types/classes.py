"""Types of `@jitclass` classes: `ClassType` (the class used as a value: calling it constructs)
and `ClassInstanceType` (an instance: a reference to a runtime-managed struct of fields, a
`ManagedStruct` as structrefs are)."""

from __future__ import annotations

from typing import Any

from ember.types.abstract import Type
from ember.types.functions import DispatcherType


class ClassType(DispatcherType):
    """A jitclass used as a value in compiled code. Calling it is calling its compiled
    constructor (a jitted function that allocates the instance and runs `__init__`), so it is
    typed and lowered as that dispatcher; `Cls.static_method(...)` calls a static method."""

    def __init__(self, constructor: Any) -> None:
        super().__init__(constructor)
        cls = constructor.jit_class
        self.name = f"jitclass.{cls.__name__}#{id(cls):x}"

    @property
    def jit_class(self) -> Any:
        """The Python class the decorator returned (its instances are the boxes)."""
        return self.dispatcher.jit_class

    typing_key = jit_class  # what `isinstance(x, Cls)` compares with

    @property
    def class_def(self) -> type:
        """The undecorated Python class (as Numba's `class_type.class_def`)."""
        return self.jit_class.class_def

    @property
    def instance_type(self) -> ClassInstanceType:
        return ClassInstanceType(self)

    @property
    def struct(self) -> dict[str, Type]:
        """Field name -> field type, in declaration order (deferred types resolved: they are
        defined after the class that names them)."""
        resolved = self.__dict__.get("_struct")
        if resolved is None:
            resolved = {name: resolve_deferred(t) for name, t in self.jit_class.spec_types.items()}
            self._struct = resolved
        return resolved

    @property
    def jit_methods(self) -> dict[str, Any]:
        return self.jit_class.jit_methods

    @property
    def jit_props(self) -> dict[str, dict[str, Any]]:
        return self.jit_class.jit_props

    @property
    def jit_static_methods(self) -> dict[str, Any]:
        return self.jit_class.jit_static_methods


class ManagedStruct(Type):
    """A reference to a runtime-managed struct of named fields (jitclass instances and
    structrefs): one layout, allocation and reference counting (ember/lowering/classes.py)."""

    @property
    def struct(self) -> dict[str, Type]:
        """Field name -> field type, in layout order."""
        raise NotImplementedError


class ClassInstanceType(ManagedStruct):
    """An instance of a jitclass, shared by reference as in Python (Numba's name)."""

    def __init__(self, class_type: ClassType) -> None:
        self.class_type = class_type
        super().__init__(f"instance.{class_type.name}")

    @property
    def key(self) -> Any:
        return self.class_type

    @property
    def classname(self) -> str:
        return self.class_type.jit_class.__name__

    @property
    def struct(self) -> dict[str, Type]:
        return self.class_type.struct

    @property
    def jit_methods(self) -> dict[str, Any]:
        return self.class_type.jit_methods

    @property
    def jit_props(self) -> dict[str, dict[str, Any]]:
        return self.class_type.jit_props

    @property
    def jit_static_methods(self) -> dict[str, Any]:
        return self.class_type.jit_static_methods

    def __str__(self) -> str:
        return f"{self.classname}"

    def _rebuild_args(self) -> tuple:
        return (self.class_type,)


class DeferredType(Type):
    """A type named before it exists (Numba's `deferred_type()`): a field of a jitclass that
    refers to the class itself, `define`d once the class is built."""

    _count = 0

    def __init__(self) -> None:
        DeferredType._count += 1
        self.serial = DeferredType._count
        self.defined: Type | None = None
        super().__init__(f"deferred#{self.serial}")

    @property
    def key(self) -> Any:
        return self.serial

    def define(self, typ: Type) -> None:
        if self.defined is not None and self.defined is not typ:
            raise TypeError(f"{self} is already defined as {self.defined}")
        self.defined = typ

    def get(self) -> Type:
        if self.defined is None:
            raise TypeError(f"{self} is used before .define(...) gave it a type")
        return self.defined


def deferred_type() -> DeferredType:
    """A placeholder type to `define` later (for self-referential jitclasses)."""
    return DeferredType()


def resolve_deferred(typ: Type) -> Type:
    """`typ` with every deferred type inside replaced by its definition."""
    from ember.types.containers import BaseTuple, make_tuple
    from ember.types.lists import List
    from ember.types.optional import Optional

    if isinstance(typ, DeferredType):
        return resolve_deferred(typ.get())
    if isinstance(typ, Optional):
        resolved = resolve_deferred(typ.type)
        return typ if resolved is typ.type else Optional(resolved)
    if isinstance(typ, List):
        resolved = resolve_deferred(typ.dtype)
        return typ if resolved is typ.dtype else List(resolved)
    if isinstance(typ, BaseTuple) and not hasattr(typ, "fields"):
        return make_tuple([resolve_deferred(member) for member in typ.types])
    return typ
