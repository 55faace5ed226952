"""A compiled specialization as a cache payload, and back.

`dump` turns a CompileResult into bytes: the object code of its optimized module (callees
linked in), its symbol and signature, the external symbols it calls, the constant arrays and
static exceptions it refers to. `load` resolves those symbols in this process, hands the object
code to the JIT and returns a CompileResult: no bytecode analysis, typing or optimization.
"""

from __future__ import annotations

import io
import pickle
import re
import sys
import threading
from typing import Any

from ember.caching.fingerprint import Uncacheable

_ADDRESS = re.compile(r"inttoptr \(i64 (-?\d+) to ")
_loaded: dict[str, Any] = {}  # key digest -> library already in this process's JIT
_loaded_lock = threading.Lock()


class LoadedLibrary:
    """Machine code loaded from a cache entry: found by symbol, no LLVM module behind it."""

    from_cache = True

    def __init__(self, name: str) -> None:
        self.name = name
        self.dependencies: list = []
        self.waiting_for: list = []
        self.broken: str | None = None
        self.exception_ids: set[int] = set()
        self.finalized = True

    def finalize(self) -> None:
        """Nothing to do: the machine code is final."""

    def address_of(self, symbol: str) -> int:
        from ember.codegen.jit import engine

        return engine().address_of(symbol)


# ---------------------------------------------------------------------------- dumping


def check_cacheable(result: Any) -> None:
    """Raise Uncacheable unless the machine code works in any process."""
    from ember.lowering.callconv import static_exceptions

    libraries = result.library.linked_libraries()
    _check_objmode_runners(result.library.external_symbols(), result.py_func)
    for library in libraries:
        if library.waiting_for:
            raise Uncacheable("it is mutually recursive with a function compiled at the same time")
        for match in _ADDRESS.finditer(library.llvm_ir):
            if abs(int(match.group(1))) > 4096:
                raise Uncacheable(
                    "its code refers to a Python object or memory of this process by address "
                    "(a Python object constant or a callback)"
                )
    if _exception_ids(libraries) & static_exceptions.unstable:
        raise Uncacheable("two of its exceptions share an id")


def _check_objmode_runners(symbols: list[str], owner: Any) -> None:
    runners = [name for name in symbols if name.startswith("ember.objmode.")]
    if not runners:
        return
    from ember.lowering.objmode import runner_found_by_name

    for name in runners:
        if not runner_found_by_name(name, owner):
            raise Uncacheable(
                "its objmode block belongs to a function that a new process cannot find by "
                "its module and name (one defined inside another function, or defined again)"
            )


def _exception_ids(libraries: list) -> set[int]:
    found: set[int] = set()
    for library in libraries:
        found |= getattr(library, "exception_ids", set())
    return found


def dump(result: Any, parts: dict, key: str) -> bytes:
    """The payload of a cache entry for `result` (check_cacheable first)."""
    from ember.codegen.symbols import PICKLED_PREFIX, pickled_constant
    from ember.lowering.callconv import static_exceptions
    from ember.runtime.boxing import named_constant

    library = result.library
    symbols = library.external_symbols()
    constants = {}
    for name in symbols:
        if name.startswith("ember.const."):
            prefix = name.rsplit(".", 1)[0]  # <prefix>.obj and <prefix>.data
            array = named_constant(prefix)
            constants[prefix] = (array.dtype.str, array.shape, array.tobytes())
    exceptions = [
        (exc_id, *static_exceptions.entry(exc_id))
        for exc_id in sorted(_exception_ids(library.linked_libraries()))
    ]
    objects = {name: pickled_constant(name) for name in symbols if name.startswith(PICKLED_PREFIX)}
    entry = {
        "key": key,
        "parts": parts,
        "symbol": result.symbol,
        "signature": result.signature,
        "object": library.object_code(),
        "symbols": symbols,
        "constants": constants,
        "objects": objects,
        "exceptions": exceptions,
        "written": _written_parameters(result),
    }
    stream = io.BytesIO()
    try:
        _EntryPickler(stream, result.py_func).dump(entry)
    except (pickle.PicklingError, TypeError, AttributeError) as error:
        raise Uncacheable(f"its signature or exceptions cannot be saved ({error})") from None
    return stream.getvalue()


def _written_parameters(result: Any) -> frozenset | None:
    """Which parameters' arrays the code may write: a prange loop calling the loaded entry
    needs it, and a loaded entry has no body to read it from."""
    if "numpy" not in sys.modules:
        return frozenset()  # no array exists, so none is written (and NumPy stays unloaded)
    from ember.parallel.array_hazards import result_written_parameters

    return result_written_parameters(result)


_JITCLASS_INSTANCE = "jitclass instance"


_GENERATOR = "generator of the cached function"


class _EntryPickler(pickle.Pickler):
    """Saves a jitclass instance type (in a signature) as its class's module and name, and the
    generator type a generator function returns without its function (the loader's own)."""

    def __init__(self, stream: Any, py_func: Any) -> None:
        super().__init__(stream, protocol=pickle.HIGHEST_PROTOCOL)
        self.py_func = py_func

    def persistent_id(self, obj: Any) -> Any:
        from ember import types

        if isinstance(obj, types.Generator):
            if obj.gen_func is not self.py_func:
                raise Uncacheable(f"it uses the generator type of another function ({obj})")
            return (_GENERATOR, obj.arg_types, obj.yield_type, obj.return_type)
        if not isinstance(obj, types.ClassInstanceType):
            return None
        from ember.codegen.symbols import _find_by_name

        jit_class = obj.class_type.jit_class
        module_name, qualname = jit_class.__module__, jit_class.__qualname__
        if "<" in qualname or _find_by_name(module_name, qualname) is not jit_class:
            raise Uncacheable(
                f"it uses the jitclass {qualname}, which a new process cannot find by its "
                "module and name (define it at the top level of a module)"
            )
        return (_JITCLASS_INSTANCE, module_name, qualname)


class _EntryUnpickler(pickle.Unpickler):
    def __init__(self, stream: Any, py_func: Any) -> None:
        super().__init__(stream)
        self.py_func = py_func

    def persistent_load(self, pid: Any) -> Any:
        from ember import types
        from ember.codegen.symbols import _find_by_name

        if pid[0] == _GENERATOR:
            if self.py_func is None:
                raise pickle.UnpicklingError("a generator type needs its function")
            return types.Generator(self.py_func, pid[1], pid[2], return_type=pid[3])
        kind, module_name, qualname = pid
        if kind != _JITCLASS_INSTANCE:
            raise pickle.UnpicklingError(f"unknown reference {kind!r}")
        return _find_by_name(module_name, qualname).class_type.instance_type


# ---------------------------------------------------------------------------- loading


def read_payload(payload: bytes, py_func: Any = None) -> dict:
    """The entry in `payload` (our own checksummed file) of the function `py_func`."""
    return _EntryUnpickler(io.BytesIO(payload), py_func).load()


def load(entry: dict, py_func: Any = None) -> tuple[Any, str | None]:
    """(library holding `entry['symbol']`, None) or (None, why it cannot be loaded here);
    `py_func`: the Python function whose code the entry holds (its objmode blocks)."""
    with _loaded_lock:
        found = _loaded.get(entry["key"])
        if found is not None:
            return found, None
        problem = _prepare(entry, py_func)
        if problem is not None:
            return None, problem
        from ember.codegen.jit import engine

        engine().add_object_code(entry["object"])
        library = LoadedLibrary(entry["symbol"])
        library.exception_ids = {exc_id for exc_id, *_ in entry["exceptions"]}
        _loaded[entry["key"]] = library
        return library, None


def in_process(key: str) -> bool:
    """Whether machine code for `key` is already in this process's JIT."""
    return key in _loaded


def remember(key: str, library: Any) -> None:
    """A specialization compiled in this process under `key`: later loads reuse it."""
    with _loaded_lock:
        _loaded.setdefault(key, library)


def _prepare(entry: dict, py_func: Any = None) -> str | None:
    """Publish what the object code needs; why not, when something is missing."""
    from ember.codegen.jit import engine
    from ember.codegen.symbols import adopt_pickled_constant, resolve
    from ember.lowering.callconv import static_exceptions

    engine()  # starting the JIT publishes its own symbols (the recursion guard's key)
    for exc_id, exc_class, exc_args, site in entry["exceptions"]:
        if not static_exceptions.restore(exc_id, exc_class, exc_args, site):
            return f"its exception {exc_class.__name__}{exc_args} clashes with another one"
    for prefix, (dtype, shape, data) in entry["constants"].items():
        _adopt_constant(prefix, dtype, shape, data)
    for name, data in entry["objects"].items():
        adopt_pickled_constant(name, data)
    if py_func is not None:
        from ember.lowering.objmode import publish_own_runners

        problem = publish_own_runners(entry["symbols"], py_func)
        if problem is not None:
            return problem
    for name in entry["symbols"]:
        problem = resolve(name)
        if problem is not None:
            return problem
    return None


def _adopt_constant(prefix: str, dtype: str, shape: tuple, data: bytes) -> None:
    import numpy as np

    from ember.runtime.boxing import freeze_constant

    array = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape)
    _, name = freeze_constant(array)
    if name != prefix:  # same content, same name: anything else is a corrupted entry
        raise ValueError(f"constant {prefix} does not match its content")
