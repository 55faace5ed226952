"""`@jitclass`: turns a Python class and its field spec into a jitclass — the Python class whose
instances box compiled instances, with a compiled constructor, jitted methods, properties and
static methods, and the `ClassType` / `ClassInstanceType` compiled code sees."""

from __future__ import annotations

import inspect
import weakref
from typing import Any

from ember import config, types
from ember.errors import TypingError, UnsupportedError
from ember.jitclasses import box as boxes
from ember.jitclasses.spec import field_types


def jitclass(cls_or_spec: Any = None, spec: Any = None) -> Any:
    """`@jitclass(spec)`, `@jitclass` (fields from annotations), `jitclass(cls, spec)`; with
    `config.DISABLE_JIT` the class is returned unchanged, as Numba does."""
    if isinstance(cls_or_spec, type):
        return _build_unless_disabled(cls_or_spec, spec)
    if cls_or_spec is not None and spec is not None:
        raise TypeError("jitclass(cls, spec): the first argument must be a class")
    chosen = cls_or_spec if cls_or_spec is not None else spec

    def decorate(cls: type) -> Any:
        return _build_unless_disabled(cls, chosen)

    return decorate


def _build_unless_disabled(cls: type, spec: Any) -> Any:
    return cls if config.DISABLE_JIT else build_jitclass(cls, spec)


_compiled_classes: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def compiled_class_of(value: Any) -> Any:
    """The jitclass built from the class `value`, or None."""
    if not isinstance(value, type):
        return None
    try:
        return _compiled_classes.get(value)
    except TypeError:
        return None


def build_jitclass(cls: type, spec: Any) -> Any:
    if any(isinstance(klass, boxes.JitClassMeta) for klass in cls.__mro__):
        raise UnsupportedError(
            f"jitclass {cls.__name__}: a jitclass cannot be decorated again or subclassed; "
            "subclass the undecorated class (`Cls.class_type.class_def`) and decorate that"
        )
    struct = field_types(cls, spec)
    members = _members(cls)
    _check_class_body(cls, members, struct)
    namespace: dict[str, Any] = {
        "__slots__": (),
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "__doc__": cls.__doc__,
        "class_def": cls,
        "spec_types": struct,
        "jit_methods": {},
        "jit_props": {},
        "jit_static_methods": {},
    }
    # a subclass of the decorated class, as in Numba (`Jitted.mro()[1]` is the Python class);
    # the box's slots come from JitClassBox, the class's own members are replaced below
    jit_class = boxes.JitClassMeta(cls.__name__, (cls, boxes.JitClassBox), namespace)
    constructor = _constructor(jit_class, members.methods.get("__init__"))
    constructor.jit_class = jit_class
    class_type = types.ClassType(constructor)
    jit_class.class_type = class_type
    jit_class._ember_type_ = jit_class._numba_type_ = class_type.instance_type
    jit_class._constructor = constructor
    boxes.load_runtime()
    jit_class._boxer = jit_class._from_native  # one object the native entry can call
    _install_members(jit_class, members, struct)
    _compiled_classes[cls] = jit_class
    return jit_class


class _Members:
    """What the class body defines, by kind."""

    def __init__(self) -> None:
        self.methods: dict[str, Any] = {}
        self.static: dict[str, Any] = {}
        self.properties: dict[str, property] = {}
        self.python: dict[str, Any] = {}  # dunders compiled code has no use for (__repr__...)


def _members(cls: type) -> _Members:
    from ember.library.objects.classes import SUPPORTED_DUNDERS

    found = _Members()
    for klass in reversed(cls.__mro__[:-1]):  # base classes first: the class's own win
        for name, value in vars(klass).items():
            if isinstance(value, staticmethod):
                found.static[name] = value.__func__
            elif isinstance(value, property):
                found.properties[name] = value
            elif isinstance(value, classmethod):
                raise UnsupportedError(
                    f"jitclass {cls.__name__}: classmethod '{name}' is not supported; "
                    "use a @staticmethod or a module-level @njit function"
                )
            elif inspect.isfunction(value):
                if name.startswith("__") and name not in SUPPORTED_DUNDERS:
                    found.python[name] = value
                else:
                    _check_parameters(cls, name, value)
                    found.methods[name] = value
    return found


# what a class body holds besides its members (Python fills these in)
_CLASS_BOOKKEEPING = {
    "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__",
    "__static_attributes__", "__firstlineno__", "__slots__", "__annotate_func__",
    "__annotate__", "__classdictcell__", "__classcell__", "__orig_bases__", "__parameters__",
}  # fmt: skip


def _names_tuple(value: object) -> bool:
    return isinstance(value, tuple) and all(isinstance(item, str) for item in value)


def _check_class_body(cls: type, members: _Members, struct: dict) -> None:
    """Numba's rules: no field named like a method or property, no class attributes other
    than methods, properties and static methods, no property deleters, no dunders other than
    the supported ones."""
    shadowed = (set(members.methods) | set(members.properties) | set(members.static)) & set(struct)
    if shadowed:
        raise NameError(f"name shadowing: {', '.join(sorted(shadowed))}")
    others = [
        name
        for name, value in vars(cls).items()
        if name not in _CLASS_BOOKKEEPING
        and not (name == "__hash__" and value is None)  # Python's, beside an __eq__
        and not (name == "__match_args__" and _names_tuple(value))  # `case Vec(x, y):`
        and not isinstance(value, (staticmethod, property, classmethod))
        and not inspect.isfunction(value)
    ]
    if others:
        raise TypeError(f"class members are not yet supported: {', '.join(others)}")
    for name, prop in members.properties.items():
        if prop.fdel is not None:
            raise TypeError(f"deleter is not supported: {name}")
    unsupported = [name for name in members.python if name in vars(cls)]
    if unsupported:
        raise TypeError(f"Method '{unsupported[0]}' is not supported.")


def _check_parameters(cls: type, name: str, func: Any) -> None:
    kinds = {p.kind for p in inspect.signature(func).parameters.values()}
    for kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
        if kind in kinds:  # Numba's words first
            raise UnsupportedError(
                f"{kind.name} argument type unsupported: jitclass {cls.__name__}'s method "
                f"'{name}' takes *args or **kwargs, which jitclass methods do not support; "
                "list the parameters"
            )


def _jit(func: Any) -> Any:
    from ember.decorators import njit

    return njit(func)


def _install_members(jit_class: Any, members: _Members, struct: dict) -> None:
    from ember.library.objects.classes import register_method_name

    for name, typ in struct.items():
        if boxes.is_direct(typ):
            setattr(jit_class, name, boxes.direct_property(name, typ))
        else:
            getter = _accessor(f"get_{name}", f"(self):\n    return self.{name}\n")
            setter = _accessor(f"set_{name}", f"(self, value):\n    self.{name} = value\n")
            setattr(jit_class, name, property(getter, setter))
    for name, func in members.methods.items():
        if name == "__init__":
            continue
        dispatcher = _jit(func)
        jit_class.jit_methods[name] = dispatcher
        register_method_name(name)
        # a method of the box too (binds like a function); an iterator cannot be boxed, so
        # from Python the box iterates with __iter__ run as Python over its attributes
        setattr(jit_class, name, func if name == "__iter__" else dispatcher)
    if "__eq__" in members.methods and "__hash__" not in members.methods:
        jit_class.__hash__ = None  # as Python does for a class defining only __eq__
    for name, func in members.static.items():
        dispatcher = _jit(func)
        jit_class.jit_static_methods[name] = dispatcher
        setattr(jit_class, name, staticmethod(dispatcher))
    for name, prop in members.properties.items():
        accessors = {"get": _jit(prop.fget)}
        if prop.fset is not None:
            accessors["set"] = _jit(prop.fset)
        jit_class.jit_props[name] = accessors
        setattr(jit_class, name, property(accessors["get"], accessors.get("set"), doc=prop.__doc__))
    for name, func in members.python.items():
        setattr(jit_class, name, func)


def _accessor(name: str, rest: str) -> Any:
    """A jitted field getter or setter for Python's use (fields without a direct view)."""
    namespace: dict[str, Any] = {}
    exec(compile(f"def {name}{rest}", "<ember jitclass accessor>", "exec"), namespace)  # noqa: S102
    return _jit(namespace[name])


# ---------------------------------------------------------------------------- construction


def _constructor(jit_class: Any, init: Any) -> Any:
    """A jitted function with `__init__`'s parameters (less `self`) that allocates an instance,
    runs the compiled `__init__` on it and returns it."""
    from ember.extending import intrinsic
    from ember.lowering.classes import allocate
    from ember.typing.signature import signature

    @intrinsic
    def allocate_instance(typingctx):
        instance_type = jit_class._ember_type_

        def codegen(context, builder, sig, args):
            return allocate(context, builder, instance_type)

        return signature(instance_type), codegen

    namespace: dict[str, Any] = {"_allocate": allocate_instance, "_returns_none": _returns_none}
    params, passed = "", ""
    if init is not None:
        _check_parameters(jit_class, "__init__", init)
        namespace["_init"] = _jit(init)
        params, passed = _forwarding(init, namespace)
        jit_class.__init__ = init  # its signature and docstring, for help() (not called)
    body = "    _returns_none(_init(self, " + passed + "))\n" if init is not None else ""
    source = f"def {jit_class.__name__}({params}):\n    self = _allocate()\n{body}    return self\n"
    code = compile(source, f"<ember constructor of jitclass {jit_class.__name__}>", "exec")
    exec(code, namespace)  # noqa: S102
    return _jit(namespace[jit_class.__name__])


def _returns_none(value: Any) -> None:
    """Checks, while compiling a constructor, that `__init__` returns None."""


def _type_init_result(value: Any) -> Any:
    if value is not types.none:
        raise TypingError(f"__init__() should return None, not '{value}'")
    return lambda value: None


def _forwarding(init: Any, namespace: dict) -> tuple[str, str]:
    """(the parameter list, the arguments passing them on) of `__init__` without `self`."""
    params, passed, keyword_only = [], [], False
    for param in list(inspect.signature(init).parameters.values())[1:]:
        if param.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only:
            params.append("*")
            keyword_only = True
        text = param.name
        if param.default is not inspect.Parameter.empty:
            namespace[f"_default_{param.name}"] = param.default
            text += f"=_default_{param.name}"
        params.append(text)
        passed.append(f"{param.name}={param.name}" if keyword_only else param.name)
    return ", ".join(params), ", ".join(passed)


def _register_init_check() -> None:
    from ember.typing.overload import overload

    overload(_returns_none)(_type_init_result)


_register_init_check()
