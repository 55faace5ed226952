"""The structural key of a cached specialization, in named parts.

Consumes a dispatcher and argument types; produces `{part name: digest}`: the function's code
(bytecode, constants, names; not line numbers), each global and closure value it reads
(arrays by content), the keys of the jitted functions, `@overload` implementations and
stencils it reaches (transitively, across modules), argument types, options, ember's version
and sources, and the platform (Python, NumPy, llvmlite, CPU name and features). Comparing the
parts of two keys says why an entry missed.
"""

from __future__ import annotations

import enum
import functools
import hashlib
import importlib.util
import os
import re
import sys
from types import BuiltinFunctionType, CodeType, FunctionType, ModuleType
from typing import Any

# Values from these packages are named, not hashed: ember's sources and the versions of
# Python and NumPy are parts of every key.
_LIBRARY_PACKAGES = frozenset({
    "ember", "numpy", "math", "cmath", "builtins", "operator", "functools", "itertools",
    "collections", "typing", "random", "numba", "scipy", "_operator", "_functools",
})  # fmt: skip
_CO_GENERATOR = 0x20
_SIMPLE = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))


class Uncacheable(Exception):
    """The function cannot be cached; the message says why (shown once as a warning)."""


def _digest(*texts: str | bytes) -> str:
    h = hashlib.blake2b(digest_size=16)
    for text in texts:
        h.update(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def key_digest(parts: dict[str, str]) -> str:
    return _digest(*(f"{name}={value}" for name, value in sorted(parts.items())))


# ---------------------------------------------------------------------------- environment


@functools.cache
def environment_parts() -> dict[str, str]:
    """Parts shared by every key of this process: ember, the platform, global settings."""
    import llvmlite
    import llvmlite.binding as llvm_binding

    from ember import config

    host = f"{llvm_binding.get_process_triple()} {llvm_binding.get_host_cpu_name()}"
    features = llvm_binding.get_host_cpu_features().flatten()
    return {
        "ember version": f"{_ember_version()} {_ember_sources_stamp()}",
        "python, numpy, llvmlite": f"{sys.version} {_numpy_version()} {llvmlite.__version__}",
        "cpu": _digest(host, features),
        "global settings": f"opt={config.OPT_LEVEL} boundscheck={config.BOUNDSCHECK}",
    }


def _numpy_version() -> str:
    """NumPy's version without importing NumPy (a third of a second), so loading a cached
    scalar function stays cheap: read from `numpy/version.py`, the module that defines it."""
    numpy_module = sys.modules.get("numpy")
    if numpy_module is not None:
        return numpy_module.__version__
    spec = importlib.util.find_spec("numpy")
    folder = spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else ""
    try:
        with open(os.path.join(folder, "version.py"), encoding="utf-8") as source:
            found = re.search(r'^version = "([^"]+)"', source.read(), re.MULTILINE)
    except OSError:
        found = None
    if found is None:
        import numpy

        return numpy.__version__
    return found.group(1)


def _ember_version() -> str:
    import ember

    return getattr(ember, "ember_version", "0")


def _ember_sources_stamp() -> str:
    """Size and modification time of every ember source: a change to the compiler (in a
    development tree) invalidates what it compiled before."""
    import ember

    root = os.path.dirname(ember.__file__)
    entries = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                stat = os.stat(os.path.join(folder, name))
                entries.append(f"{folder[len(root) :]}/{name}:{stat.st_size}:{stat.st_mtime_ns}")
    return _digest(*sorted(entries))


# ---------------------------------------------------------------------------- functions


def specialization_parts(dispatcher: Any, arg_types: tuple, declared_return: Any) -> dict:
    """Every part of the key of `dispatcher` compiled for `arg_types`."""
    parts = dict(environment_parts())
    # Read the globals again for each new specialization: it freezes their current values.
    dispatcher._cache_function_parts = None
    parts.update(function_parts(dispatcher))
    parts["argument types"] = ", ".join(_type_text(t) for t in arg_types)
    parts["declared return type"] = _type_text(declared_return) if declared_return else "-"
    return parts


def _type_text(typ: Any) -> str:
    """The type's name; a jitted function passed as an argument adds its own key."""
    from ember import types

    if isinstance(typ, types.DispatcherType):
        parts = function_parts(typ.dispatcher)
        if parts is None:
            raise Uncacheable(f"it receives {typ}, which is being compiled (recursion)")
        return f"{typ}:{key_digest(parts)}"
    if isinstance(typ, types.BaseTuple):
        return f"{type(typ).__name__}({', '.join(_type_text(t) for t in typ.types)})"
    if isinstance(typ, types.ClassInstanceType):
        return _Fingerprinter().type_text(typ)
    text = str(typ)
    if " at 0x" in text or "#" in text:
        raise Uncacheable(
            f"its argument type {text} stands for an object of this process (a function or "
            "class passed as an argument)"
        )
    return text


_computing: set[int] = set()  # dispatchers whose parts are being computed (recursion)
_cycles_cut = [0]


def function_parts(dispatcher: Any) -> dict[str, str] | None:
    """The parts that come from the function itself (memoized on the dispatcher); None when
    the dispatcher is already being fingerprinted further up (a recursive call)."""
    found = getattr(dispatcher, "_cache_function_parts", None)
    if found is not None:
        return found
    if id(dispatcher) in _computing:
        _cycles_cut[0] += 1
        return None
    _computing.add(id(dispatcher))
    cuts_before = _cycles_cut[0]
    try:
        found = _Fingerprinter().function_parts(dispatcher.py_func, repr(dispatcher.options))
    finally:
        _computing.discard(id(dispatcher))
    # Parts computed inside a cycle stand in for the outer function by its code only: keep
    # them only when complete (no cycle cut, or the outermost function of the walk).
    if _cycles_cut[0] == cuts_before or not _computing:
        dispatcher._cache_function_parts = found
    return found


class _Fingerprinter:
    """Walks the values a function reaches; `in_progress` cuts cycles (recursion)."""

    def __init__(self) -> None:
        self.in_progress: set[int] = set()
        self.memo: dict[int, str] = {}
        self.keep: list = []  # values whose ids are in `memo` stay alive meanwhile

    def function_parts(self, func: FunctionType, options: str) -> dict[str, str]:
        code = func.__code__
        self.in_progress.add(id(func))
        try:
            parts = {"code": _code_digest(code), "options": options}
            names = _names_read(code)
            parts["defaults"] = self.value(func.__defaults__, names, "defaults")
            if func.__kwdefaults__:
                parts["defaults"] += self.value(func.__kwdefaults__, names, "defaults")
            namespace = func.__globals__
            for name in sorted(names):
                if name in namespace:
                    parts[f"global {name}"] = self.value(namespace[name], names, name)
            parts.update(self._extension_members(names))
            for name, cell in zip(code.co_freevars, func.__closure__ or ()):
                try:
                    contents = cell.cell_contents
                except ValueError:  # not assigned yet
                    raise Uncacheable(f"its closure variable '{name}' is not set") from None
                parts[f"closure {name}"] = self.value(contents, names, name)
        finally:
            self.in_progress.discard(id(func))
        return parts

    def _extension_members(self, names: frozenset) -> dict[str, str]:
        """`method <name>` / `attribute <name>` / `overload <name>` parts: the user's
        `@overload_method` and `@overload_attribute` implementations of the names the code
        reads (`x.name`), whatever the receiver's type (which the code does not tell), and
        the user's `@overload`s of library functions it names (`np.name`)."""
        found: dict[str, list[str]] = {}
        for kind, type_class, name, implementation in _user_extension_members():
            if name in names:
                text = self.value(implementation, _names_read(implementation.__code__), name)
                found.setdefault(f"{kind} {name}", []).append(
                    f"{_qualified_name(type_class)}:{text}"
                )
        return {part: _digest(*sorted(texts)) for part, texts in found.items()}

    def value(self, value: Any, names: frozenset, where: str) -> str:
        """A short text standing for `value` (a digest where it would be long)."""
        if isinstance(value, _SIMPLE):
            return f"{type(value).__name__}:{value!r}"
        key = id(value)
        if key in self.memo:
            return self.memo[key]
        if key in self.in_progress:
            return f"cycle:{_qualified_name(value)}"
        self.in_progress.add(key)
        self.keep.append(value)
        try:
            text = self._describe(value, names, where)
        finally:
            self.in_progress.discard(key)
        if len(text) > 80:
            text = _digest(text)
        self.memo[key] = text
        return text

    def _describe(self, value: Any, names: frozenset, where: str) -> str:
        from ember.dispatcher.dispatcher import Dispatcher

        if isinstance(value, (tuple, list, frozenset, set)):
            items = sorted(map(repr, value)) if isinstance(value, (set, frozenset)) else value
            inner = ",".join(self.value(item, names, where) for item in items)
            return f"{type(value).__name__}({inner})"
        if isinstance(value, dict):
            inner = ",".join(
                f"{self.value(k, names, where)}:{self.value(v, names, where)}"
                for k, v in value.items()
            )
            return f"dict({inner})"
        if isinstance(value, Dispatcher):
            parts = function_parts(value)
            name = _qualified_name(value.py_func)
            if parts is None:
                return f"recursive:{name}:{_code_digest(value.py_func.__code__)}"
            return f"jit:{name}:{key_digest(parts)}"
        if isinstance(value, ModuleType):
            return self._module(value, names, where)
        numpy_text = _numpy_value(value)
        if numpy_text is not None:
            return numpy_text
        if isinstance(value, enum.Enum):
            return f"enum:{_qualified_name(type(value))}.{value.name}={value.value!r}"
        if isinstance(value, FunctionType):
            return self._python_function(value, names)
        if isinstance(value, type):
            return self._class(value, names)
        return self._other(value, names, where)

    def _module(self, module: ModuleType, names: frozenset, where: str) -> str:
        """A module by name, plus the attributes the function may read from it."""
        texts = [f"module:{module.__name__}"]
        if _is_library(module.__name__):
            return texts[0]
        for name in sorted(names):
            attribute = getattr(module, name, None) if not name.startswith("__") else None
            if attribute is None:
                continue
            try:  # a name the function reads elsewhere (`x.shape`) may name anything here
                text = self.value(attribute, names, f"{where}.{name}")
            except Uncacheable:
                text = f"opaque:{type(attribute).__qualname__}"
            texts.append(f"{name}={text}")
        return ";".join(texts)

    def _python_function(self, func: FunctionType, names: frozenset) -> str:
        name = _qualified_name(func)
        if _is_library(func.__module__):
            return f"function:{name}"
        parts = self.function_parts(func, "")
        return f"function:{name}:{key_digest(parts)}{self._overloads(func)}"

    def _overloads(self, value: Any) -> str:
        """The `@overload` implementations registered for `value` (a user function)."""
        templates_module = sys.modules.get("ember.typing.templates")
        if templates_module is None:
            return ""
        try:
            templates = dict.get(templates_module.registry.functions, value) or ()
        except TypeError:  # unhashable
            return ""
        found = []
        for template in templates:
            implementation = getattr(template, "_overload_func", None)
            if isinstance(implementation, FunctionType):
                found.append(self.value(implementation, _names_read(implementation.__code__), ""))
        return f":overloads({','.join(found)})" if found else ""

    def _class(self, cls: type, names: frozenset) -> str:
        name = _qualified_name(cls)
        if "class_def" in vars(cls) and "spec_types" in vars(cls):
            return self._jitclass(cls)
        if _is_library(cls.__module__):
            return f"class:{name}"
        members = []
        for attribute, member in _class_members(cls):
            if isinstance(member, (FunctionType, staticmethod, classmethod, property)):
                inner = getattr(member, "__func__", None) or getattr(member, "fget", member)
                if isinstance(inner, FunctionType):
                    members.append(f"{attribute}={_code_digest(inner.__code__)}")
            elif isinstance(member, _SIMPLE):
                members.append(f"{attribute}={member!r}")
        return f"class:{name}({','.join(members)}){self._overloads(cls)}"

    def _jitclass(self, jit_class: type) -> str:
        """A jitclass: its fields' types and every member of the class it was made from (each
        method with the globals it reads, as a function's key)."""
        definition = jit_class.class_def
        members = []
        for attribute, member in _class_members(definition):
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if isinstance(member, property):
                functions = [member.fget, member.fset, member.fdel]
                text = ",".join(self.value(f, frozenset(), attribute) for f in functions if f)
            elif isinstance(member, FunctionType):
                text = self.value(member, frozenset(), attribute)
            elif isinstance(member, _SIMPLE):
                text = repr(member)
            else:
                continue
            members.append(f"{attribute}={text}")
        fields = [f"{n}:{self.type_text(t)}" for n, t in jit_class.spec_types.items()]
        return f"jitclass:{_qualified_name(jit_class)}({';'.join(fields)})({','.join(members)})"

    def type_text(self, typ: Any) -> str:
        """A type's name; a jitclass instance type adds its class's fingerprint."""
        from ember import types

        if isinstance(typ, types.ClassInstanceType):
            return f"instance:{self.value(typ.class_type.jit_class, frozenset(), str(typ))}"
        if isinstance(typ, types.BaseTuple):
            return f"{type(typ).__name__}({', '.join(self.type_text(t) for t in typ.types)})"
        return str(typ)

    def _other(self, value: Any, names: frozenset, where: str) -> str:
        from ember import types

        if isinstance(value, types.Type):
            return f"type:{value}"
        if type(value).__name__ == "_ObjModeContext":  # `objmode`: its block is in the code
            return f"objmode:{sorted((k, str(v)) for k, v in value.outputs.items())}"
        if isinstance(value, BuiltinFunctionType) or type(value).__name__ in _NAMED_OBJECTS:
            owner = getattr(value, "__module__", None) or type(value).__module__
            return f"builtin:{owner}.{getattr(value, '__qualname__', repr(value))}"
        for attribute in ("py_func", "_defn", "kernel_ws"):  # DUFunc, @intrinsic, @stencil
            inner = getattr(value, attribute, None)
            if isinstance(inner, FunctionType):
                options = repr(sorted(getattr(value, "options", {}).items()))
                return f"{type(value).__name__}:{self.value(inner, names, where)}:{options}"
        raise Uncacheable(
            f"the global '{where}' is a {type(value).__name__}, whose value ember cannot "
            "fingerprint (make it a constant: a number, string, tuple, array or jitted function)"
        )


# C-level callables that are named, not hashed (their behaviour comes with a version part).
_NAMED_OBJECTS = frozenset({
    "builtin_function_or_method", "method_descriptor", "wrapper_descriptor",
    "_ArrayFunctionDispatcher", "getset_descriptor", "classmethod_descriptor",
})  # fmt: skip


def _numpy_value(value: Any) -> str | None:
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    if isinstance(value, numpy.ndarray):
        if value.dtype.hasobject:
            raise Uncacheable("it reads a global array of Python objects")
        data = numpy.ascontiguousarray(value).tobytes()
        return f"array:{value.dtype.str}:{value.shape}:{_digest(data)}"
    if isinstance(value, numpy.generic):
        return f"numpy:{value.dtype.str}:{value!r}"
    if isinstance(value, numpy.dtype):
        return f"dtype:{value.str}"
    if isinstance(value, numpy.ufunc):
        reduce = value.__dict__.get("_ember_reduce") if hasattr(value, "__dict__") else None
        loops = getattr(reduce, "args", (None,))[0]
        if loops is not None and hasattr(loops, "py_func"):
            return f"ember-ufunc:{value.__name__}:{_code_digest(loops.py_func.__code__)}"
        return f"ufunc:{value.__name__}"
    return None


def _class_members(cls: type) -> list[tuple[str, Any]]:
    """A class's own members, without those that only say where it is written (Python 3.13
    records the first line: moving a class down must not invalidate its users)."""
    return [(n, m) for n, m in sorted(vars(cls).items()) if n not in _LOCATION_MEMBERS]


_LOCATION_MEMBERS = frozenset({"__firstlineno__", "__static_attributes__"})


def _user_extension_members() -> list[tuple[str, type, str, FunctionType]]:
    """(kind, type class or function, name, implementation) of every `@overload_method`,
    `@overload_attribute` and `@overload` of a library function written outside the library
    packages (whose own changes come with a version)."""
    templates_module = sys.modules.get("ember.typing.templates")
    if templates_module is None:
        return []
    registry = templates_module.registry
    size = (sum(map(len, dict.values(registry.functions))), len(registry.attributes))
    if _extension_members_memo[0] != size:
        found = []
        for key, templates in dict.items(registry.functions):
            if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str):
                found += [("method", key[0], key[1], t) for t in templates]
            elif _is_library(getattr(key, "__module__", None)) and hasattr(key, "__name__"):
                # `@overload(np.clip)`: the code reads `np.clip`, whose module is named only
                found += [("overload", key, key.__name__, t) for t in templates]
        found += [("attribute", t.key, getattr(t, "_attr", None), t) for t in registry.attributes]
        members = []
        for kind, type_class, name, template in found:
            implementation = getattr(template, "_overload_func", None)
            if isinstance(implementation, FunctionType) and not _is_library(
                implementation.__module__
            ):
                members.append((kind, type_class, name, implementation))
        _extension_members_memo[:] = [size, members]
    return _extension_members_memo[1]


_extension_members_memo: list = [None, []]


def _is_library(module_name: str | None) -> bool:
    return (module_name or "").split(".")[0] in _LIBRARY_PACKAGES


def _qualified_name(value: Any) -> str:
    return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', '?')}"


def _code_digest(code: CodeType) -> str:
    """Bytecode, constants (nested code too), names, argument counts and flags; not line
    numbers, so that editing the lines above a function does not invalidate it."""
    texts: list[str | bytes] = [
        code.co_code,
        code.co_exceptiontable,
        repr(code.co_names),
        repr(code.co_varnames),
        repr(code.co_freevars),
        repr(code.co_cellvars),
        repr((code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount)),
        repr(code.co_flags),
    ]
    for const in code.co_consts:
        if isinstance(const, CodeType):
            texts.append(_code_digest(const))
        else:
            texts.append(f"{type(const).__name__}:{const!r}")
    return _digest(*texts)


def _names_read(code: CodeType) -> frozenset:
    """Global and attribute names used by `code` and the code nested in it."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names |= _names_read(const)
    return frozenset(names)
