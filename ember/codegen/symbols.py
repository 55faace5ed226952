"""Symbols that compiled code reaches by name instead of by a baked-in address: C-API
functions, the runtime, BLAS, libm, constant arrays. `publish` tells the JIT their addresses in
this process; `resolve` publishes one again in a new process before cached code is loaded.

Code that embeds an absolute address (`inttoptr (i64 N ...)`) instead is valid only in the
process that compiled it: the disk cache refuses such code (ember/caching/).
"""

from __future__ import annotations

import ctypes
import importlib
import threading

from llvmlite import ir as llvm

_published: dict[str, int] = {}
_lock = threading.Lock()

# Symbol prefix -> "module:function" that publishes such a symbol given its full name. Each
# owner of a family of symbols resolves its own; the table only says who owns which.
RESOLVERS: dict[str, str] = {
    "ember.capi.": "ember.codegen.symbols:publish_capi",
    "ember.builtin.": "ember.codegen.symbols:publish_builtin",
    "ember_nrt_": "ember.runtime.nrt:publish_symbol",
    "ember_blas_": "ember.library.numpy.linalg.products:publish_symbol",
    "ember.libm.": "ember.codegen.symbols:publish_libm",
    "ember.numpy.": "ember.library.numpy.random.generator:publish_symbol",
    "ember.random.": "ember.library.numpy.random.legacy:publish_symbol",
    "ember.pyrandom.": "ember.library.builtins.randomlib:publish_symbol",
    "ember.hash_secret": "ember.lowering.strings:publish_symbol",
    "ember.overflow_slot": "ember.library.builtins.int_scalars:publish_symbol",
    "ember_parallel_": "ember.codegen.symbols:publish_threading_layer",
    "ember.pyobj.": "ember.codegen.symbols:publish_named_object",
    "ember.pyconst.": "ember.codegen.symbols:publish_pickled_constant",
    "ember.objmode.": "ember.lowering.objmode:publish_block_runner",
    "ember_objmode_release": "ember.lowering.objmode_arrays:publish_symbol",
    "ember.first_class.": "ember.lowering.function_pointers:publish_symbol",
    "ember.handled_exception_key": "ember.library.builtins.caught_exceptions:publish_symbol",
}


def ascii_symbol(name: str) -> str:
    """`name` with each non-ASCII character spelled `_uXXXX_`: LLVM and the JIT's symbol
    lookup take ASCII names, and Python identifiers may be any letters (`def café():`)."""
    if name.isascii():
        return name
    return "".join(ch if ch.isascii() else f"_u{ord(ch):04x}_" for ch in name)


def publish(name: str, address: int) -> None:
    """Make `name` resolve to `address` for every module the JIT loads from now on."""
    if _published.get(name) == address:
        return
    import llvmlite.binding as llvm_binding

    with _lock:
        llvm_binding.add_symbol(name, address)
        _published[name] = address


def is_published(name: str) -> bool:
    return name in _published


def external_global(
    module: llvm.Module, name: str, value_type: llvm.Type | None = None
) -> llvm.GlobalVariable:
    """A declaration of the global `name` in `module` (its address is the symbol's address;
    `value_type`: what is loaded or stored there, bytes by default)."""
    found = module.globals.get(name)
    if found is None:
        found = llvm.GlobalVariable(module, value_type or llvm.IntType(8), name)
        found.linkage = "external"
    return found


def external_function(module: llvm.Module, name: str, fnty: llvm.FunctionType) -> llvm.Function:
    found = module.globals.get(name)
    if found is None:
        found = llvm.Function(module, fnty, name)
    return found


def resolve(name: str) -> str | None:
    """Publish `name` in this process; None when done, else why it cannot be found."""
    if name in _published or name.startswith("llvm."):
        return None
    for prefix, owner in RESOLVERS.items():
        if name.startswith(prefix):
            module_name, function_name = owner.split(":")
            try:
                getattr(importlib.import_module(module_name), function_name)(name)
            except Exception as error:  # noqa: BLE001 - any failure means "not available"
                return f"the symbol {name} is not available in this process ({error})"
            return None if name in _published else f"the symbol {name} was not published"
    import llvmlite.binding as llvm_binding

    if llvm_binding.address_of_symbol(name):  # the C library (memcpy, fmod, ...)
        return None
    return f"the symbol {name} cannot be found in this process"


# ---------------------------------------------------------------------------- resolvers


def capi_symbol(name: str) -> str:
    """The symbol of the C-API function `name`, published with its address in this process."""
    symbol = f"ember.capi.{name}"
    if symbol not in _published:
        publish(symbol, ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value)
    return symbol


def publish_capi(symbol: str) -> None:
    capi_symbol(symbol.removeprefix("ember.capi."))


def builtin_symbol(obj: object) -> str | None:
    """A symbol for a builtin object (None, True, ValueError, ...) whose address compiled code
    may embed, or None for other objects (their addresses are not stable across processes)."""
    import builtins

    name = _BUILTIN_NAMES.get(id(obj))
    if name is None:
        for candidate in ("None", "True", "False", "Ellipsis", "NotImplemented"):
            if getattr(builtins, candidate) is obj:
                name = candidate
        if name is None and isinstance(obj, type) and getattr(builtins, obj.__name__, None) is obj:
            name = obj.__name__
        if name is None:
            return None
        _BUILTIN_NAMES[id(obj)] = name
    symbol = f"ember.builtin.{name}"
    publish(symbol, id(obj))
    return symbol


_BUILTIN_NAMES: dict[int, str] = {}


def publish_builtin(symbol: str) -> None:
    import builtins

    builtin_symbol(getattr(builtins, symbol.removeprefix("ember.builtin.")))


def named_object_symbol(obj: object) -> str | None:
    """`ember.pyobj.<module>:<qualname>` for a function or class of ember's own modules that
    a new process finds again by importing its module; None for any other object."""
    module_name = getattr(obj, "__module__", None) or ""
    qualname = getattr(obj, "__qualname__", None) or ""
    if not module_name.startswith("ember.") or "<" in qualname or not qualname:
        return None
    if _find_by_name(module_name, qualname) is not obj:
        return None
    symbol = f"ember.pyobj.{module_name}:{qualname}"
    publish(symbol, id(obj))
    return symbol


def _find_by_name(module_name: str, qualname: str) -> object:
    import sys

    found = sys.modules.get(module_name) or importlib.import_module(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


def publish_named_object(symbol: str) -> None:
    module_name, qualname = symbol.removeprefix("ember.pyobj.").split(":")
    named_object_symbol(_find_by_name(module_name, qualname))


# Objects that compiled code points at and that a cache entry carries pickled (ember's types,
# handed to Python helpers as arguments): symbol -> object, kept alive for the process.
PICKLED_PREFIX = "ember.pyconst."
_pickled: dict[str, object] = {}


def pickled_constant_symbol(obj: object) -> str | None:
    """`ember.pyconst.<digest of its pickle>` for an ember type, None for other objects."""
    import hashlib  # here, as pickle below: the first compilation seldom needs either
    import pickle

    from ember import types

    if not isinstance(obj, types.Type):
        return None
    try:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    symbol = PICKLED_PREFIX + hashlib.blake2b(data, digest_size=12).hexdigest()
    _adopt(symbol, obj)
    return symbol


def pickled_constant(symbol: str) -> bytes:
    """The pickle of the object behind `symbol` (saved in a cache entry)."""
    import pickle

    return pickle.dumps(_pickled[symbol], protocol=pickle.HIGHEST_PROTOCOL)


def adopt_pickled_constant(symbol: str, data: bytes) -> None:
    """Publish `symbol` for the object pickled in `data` (read from a cache entry)."""
    import pickle

    if symbol not in _pickled:
        _adopt(symbol, pickle.loads(data))  # noqa: S301 - our own checksummed cache file


def _adopt(symbol: str, obj: object) -> None:
    with _lock:
        obj = _pickled.setdefault(symbol, obj)
    publish(symbol, id(obj))


def publish_pickled_constant(symbol: str) -> None:
    if symbol not in _pickled:
        raise LookupError("a pickled constant comes with the cache entry that uses it")


def libm_symbol(name: str) -> str:
    """`ember.libm.<name>`: the C math library's `name` under a private symbol."""
    symbol = f"ember.libm.{name}"
    if symbol not in _published:
        import ctypes.util

        library = ctypes.CDLL(ctypes.util.find_library("m") or None)
        publish(symbol, ctypes.cast(getattr(library, name), ctypes.c_void_p).value)
    return symbol


def publish_libm(symbol: str) -> None:
    libm_symbol(symbol.removeprefix("ember.libm."))


def publish_threading_layer(symbol: str) -> None:
    from ember.parallel.threading_layer import layer

    for name, address in layer().addresses.items():
        publish(name, address)
