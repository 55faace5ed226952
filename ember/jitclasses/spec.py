"""The fields of a jitclass: a spec (a list of (name, type) pairs or a dict) merged with the
class's annotations, each turned into an ember type and checked."""

from __future__ import annotations

import sys
from typing import Any

from ember import types

_PYTHON_TYPES = {
    int: types.int64,
    float: types.float64,
    bool: types.boolean,
    complex: types.complex128,
}


def field_types(cls: type, spec: Any) -> dict[str, types.Type]:
    """Field name -> ember type: the annotations first (in order, base classes' first), then
    the spec (which wins). Annotations may name Python classes (`int`, `List[float]`); the
    spec takes ember types only, as in Numba."""
    found: dict[str, types.Type] = {}
    for klass in reversed(cls.__mro__[:-1]):
        if klass.__module__.startswith("ember."):  # a jitclass's own box class
            continue
        for name, annotation in klass.__dict__.get("__annotations__", {}).items():
            found[name] = as_field_type(cls, name, _annotation_type(cls, name, annotation))
    for name, declared in _spec_items(spec):
        if not isinstance(name, str):
            raise TypeError(f"spec keys should be strings, got {name!r}")
        if not name.isidentifier():
            raise TypeError(f"jitclass {cls.__name__}: field name {name!r} is not an identifier")
        if name.startswith("__") and not name.endswith("__"):  # as `self.__x` reads in methods
            name = f"_{cls.__name__.lstrip('_')}{name}"
        if declared in _PYTHON_TYPES:
            raise TypeError(
                f"spec values should be Numba type instances, got {declared!r} (for field "
                f"'{name}' of jitclass {cls.__name__}; e.g. int64 for int)"
            )
        found[name] = as_field_type(cls, name, declared)
    return found


def _annotation_type(cls: type, name: str, annotation: Any) -> Any:
    """What an annotation names: an ember type when `as_numba_type` knows it (`int`,
    `List[float]`, `Optional[int]`...), else the annotation itself (checked by the caller)."""
    from ember.errors import TypingError
    from ember.extending import as_numba_type

    evaluated = _evaluate(cls, annotation)
    try:
        found = as_numba_type.try_infer(evaluated)
    except TypingError as error:
        raise TypeError(f"jitclass {cls.__name__}: field '{name}': {error}") from None
    return evaluated if found is None else found


def _spec_items(spec: Any) -> list[tuple[Any, Any]]:
    if spec is None:
        return []
    if isinstance(spec, dict):
        return list(spec.items())
    try:
        items = [tuple(item) for item in spec]
    except TypeError:
        raise TypeError(
            f"jitclass spec must be a list of (name, type) pairs or a dict, not {spec!r}"
        ) from None
    if any(len(item) != 2 for item in items):
        raise TypeError(f"jitclass spec must be a list of (name, type) pairs, not {spec!r}")
    return items


def _evaluate(cls: type, annotation: Any) -> Any:
    """A string annotation (`from __future__ import annotations`) in the class's module."""
    if not isinstance(annotation, str):
        return annotation
    module = sys.modules.get(cls.__module__)
    namespace = dict(vars(module)) if module is not None else {}
    try:
        return eval(annotation, namespace)  # noqa: S307 - the user's own annotation
    except Exception as error:
        raise TypeError(
            f"jitclass {cls.__name__}: cannot evaluate the annotation {annotation!r}: {error}"
        ) from None


def as_field_type(cls: type, name: str, declared: Any) -> types.Type:
    """The ember type of a declared field type, or TypeError saying what is accepted."""
    typ = _PYTHON_TYPES.get(declared) if isinstance(declared, type) else None
    if typ is None:
        class_type = getattr(declared, "class_type", None)  # another jitclass, by its class
        if isinstance(class_type, types.ClassType):
            typ = class_type.instance_type
    if typ is None and isinstance(declared, types.ClassType):
        typ = declared.instance_type
    if typ is None:
        typ = declared
    problem = unsupported_field(typ)
    if problem is not None:
        raise TypeError(f"jitclass {cls.__name__}: field '{name}' {problem}")
    return typ


def unsupported_field(typ: Any) -> str | None:
    """Why `typ` cannot be the type of a field, or None when it can."""
    if not isinstance(typ, types.Type):
        return (
            f"is declared as {typ!r}, not an ember type: write e.g. `float64`, `int64[:]`, "
            "`types.List(float64)` or `OtherClass.class_type.instance_type`"
        )
    if isinstance(
        typ,
        (
            types.Number,
            types.Boolean,
            types.Array,
            types.ManagedStruct,
            types.UnicodeType,
            types.Record,
        ),
    ):
        return None
    if isinstance(typ, (types.DictType, types.Set)) and typ.is_precise:
        return None
    if isinstance(typ, types.DeferredType):  # checked once defined, when first compiled
        return None
    if isinstance(typ, types.Optional):
        return unsupported_field(typ.type)
    if isinstance(typ, types.List) and (
        typ.is_precise or isinstance(typ.dtype, types.DeferredType)
    ):
        return None
    if isinstance(typ, types.BaseTuple):
        if any(isinstance(member, types.Record) for member in typ.types):
            return f"has type {typ}: a record is a field of its own, not a tuple's member"
        reasons = [unsupported_field(member) for member in typ.types]
        return next((reason for reason in reasons if reason is not None), None)
    return (
        f"has type {typ}, which jitclass fields do not support: use numbers, booleans, strings, "
        "arrays, lists, typed dicts, sets, tuples of these, other jitclass instances, "
        "optional(...) of these or a deferred_type()"
    )
