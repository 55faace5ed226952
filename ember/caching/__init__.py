"""The disk cache behind `cache=True`: one FunctionCache per dispatcher loads compiled
specializations from cache files (ember/caching/store.py) keyed structurally
(ember/caching/fingerprint.py) and saves new ones (ember/caching/entries.py).

`EMBER_CACHE_DIR` moves the files, `EMBER_DEBUG_CACHE=1` prints every hit and miss with its
reason, `f.stats.cache_hits` / `cache_misses` count them; `cache_clear()` or
`python -m ember.caching clear [folder]` removes entries.
"""

from __future__ import annotations

import re
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

from ember import config
from ember.caching import locators, store
from ember.caching.fingerprint import Uncacheable, key_digest, specialization_parts
from ember.errors import EmberWarning

__all__ = ["CompileStats", "FunctionCache", "cache_clear"]

in_use = False  # a function with cache=True exists: ember's runtime is cached as well


def prebuilt_object(name: str, build: Any) -> bytes | None:
    """The object code of ember's own module `name` (the runtime) from the cache folder, or
    `build()` saved there; None when no folder is writable."""
    from ember.caching.fingerprint import environment_parts

    folder = store.runtime_directory()
    if folder is None:
        return None
    path = folder / f"{name}.{key_digest(environment_parts())[:16]}{store.SUFFIX}"
    try:
        found = store.read_entry(path)
    except store.CorruptEntry:
        found = None
    if found is None:
        found = build()
        try:
            store.write_entry(path, found)
        except OSError:
            pass
    return found


def cache_clear(folder: Any = None) -> int:
    """Remove cache entries under `folder` (default: EMBER_CACHE_DIR or the user cache)."""
    return store.clear(folder)


class CompileStats(dict):
    """`f.stats`: seconds per compiler pass for each signature (a dict, as before), plus
    Numba's `cache_path`, `cache_hits` and `cache_misses` (Counters by signature) and
    `cache_miss_reasons` (the last reason of each signature's miss)."""

    def __init__(self, timings: dict, cache: FunctionCache | None) -> None:
        super().__init__(timings)
        self.cache_path = str(cache.directory) if cache and cache.directory else None
        self.cache_hits = Counter(cache.hits) if cache else Counter()
        self.cache_misses = Counter(cache.misses) if cache else Counter()
        self.cache_miss_reasons = dict(cache.reasons) if cache else {}


class FunctionCache:
    """The disk cache of one dispatcher's specializations."""

    def __init__(self, dispatcher: Any) -> None:
        """`dispatcher`: the dispatcher whose specializations are cached (a plain Python
        function gives a cache that only says where its entries would go)."""
        global in_use
        in_use = True
        self.dispatcher = dispatcher
        py_func = getattr(dispatcher, "py_func", dispatcher)
        self.source_file = py_func.__code__.co_filename
        self.qualname = py_func.__qualname__
        self.hits: Counter = Counter()
        self.misses: Counter = Counter()
        self.reasons: dict[tuple, str] = {}
        self.disabled: str | None = None  # why nothing of this function is cached
        self._keys: dict[tuple, tuple[dict, str]] = {}
        self._locator_classes = locators.configured_classes()  # a bad setting fails here
        self._locator: Any = False  # False: not looked up yet

    @property
    def locator(self) -> Any:
        """The cache locator that chose the folder (None: no folder, nothing is cached)."""
        if self._locator is False:
            py_func = getattr(self.dispatcher, "py_func", self.dispatcher)
            self._locator = locators.choose_locator(
                py_func, self.source_file, self._locator_classes
            )
            if self._locator is None:
                self._disable(f"its source file {self.source_file!r} is not a file on disk, "
                              "or no cache folder is writable")  # fmt: skip
        return self._locator

    @property
    def directory(self) -> Path | None:
        return None if self.locator is None else Path(self.locator.get_cache_path())

    @property
    def cache_path(self) -> str | None:
        """Numba's name: the folder of this function's entries."""
        return None if self.locator is None else self.locator.get_cache_path()

    @property
    def _impl(self) -> FunctionCache:
        return self  # Numba's `cache._impl.locator`

    # ------------------------------------------------------------------ lookups

    def symbol(self, arg_types: tuple, declared_return: Any, variant: str = "") -> str | None:
        """A symbol unique to this specialization's key (None: the usual numbered one).
        `variant` names other code made from the same kernel (a ufunc's inner loop)."""
        from ember.caching.entries import in_process

        found = self._key(arg_types, declared_return, variant)
        if found is None or in_process(found[1]):
            return None  # compiled again here (for a caller): its symbol must be new
        args = ".".join(t.mangling for t in arg_types)
        return f"{self.dispatcher.py_func.__module__}.{self.qualname}$c{found[1][:16]}.{args}"

    def load(self, arg_types: tuple, declared_return: Any, variant: str = "") -> Any:
        """A CompileResult from the cache, or None (a miss: counted, and explained)."""
        started = time.perf_counter()
        key = self._key(arg_types, declared_return, variant)
        if key is None or self.directory is None:
            return None
        parts, digest = key
        path = self._path(arg_types, declared_return, variant)
        entry, reason = self._read(path, parts, digest)
        if entry is not None:
            from ember.caching.entries import load

            try:
                library, reason = load(entry, self.dispatcher.py_func)
            except Exception as error:  # noqa: BLE001 - a bad entry is a miss, never a crash
                library, reason = None, f"the entry cannot be loaded ({error})"
            if library is not None:
                return self._hit(arg_types, entry, library, path, started)
        self._miss(arg_types, reason)
        return None

    def save(self, arg_types: tuple, declared_return: Any, result: Any, variant: str = "") -> None:
        """Write a freshly compiled specialization (a function that cannot be cached says so
        once, and keeps working)."""
        from ember.caching import entries

        key = self._keys.get((arg_types, variant))
        if key is None or self.directory is None or entries.in_process(key[1]):
            return  # not keyed, or this process already wrote or loaded the entry
        parts, digest = key
        try:
            entries.check_cacheable(result)
            payload = entries.dump(result, parts, digest)
        except Uncacheable as error:
            self._disable(str(error))
            return
        entries.remember(digest, result.library)
        path = self._path(arg_types, declared_return, variant)
        try:
            store.write_entry(path, payload)
        except OSError as error:
            self._debug(f"cannot write {path}: {error}")
            return
        self._debug(f"saved {self._describe(arg_types)} to {path}")

    # ------------------------------------------------------------------ internals

    def _key(self, arg_types: tuple, declared_return: Any, variant: str) -> tuple | None:
        if self.disabled is not None:
            return None
        found = self._keys.get((arg_types, variant))
        if found is None:
            try:
                parts = specialization_parts(self.dispatcher, arg_types, declared_return)
            except Uncacheable as error:
                self._disable(str(error))
                return None
            if variant:
                parts["variant"] = variant
            found = self._keys[arg_types, variant] = (parts, key_digest(parts))
        return found

    def _path(self, arg_types: tuple, declared_return: Any, variant: str) -> Path:
        from ember.caching.fingerprint import _digest

        parts = self._keys[arg_types, variant][0]
        closure = [f"{n}={v}" for n, v in parts.items() if n[:8] == "closure "]
        selector = _digest(
            *(_PROCESS_ID.sub("", str(t)) for t in arg_types),  # the same in every process
            str(declared_return),
            repr(self.dispatcher.options),
            variant,
            *closure,  # functions made by one factory with different values: one file each
        )[:16]
        stem = self.locator.get_filename_stem()
        return self.directory / store.entry_name(stem, self.qualname, selector)

    def _read(self, path: Path, parts: dict, digest: str) -> tuple[dict | None, str]:
        from ember.caching.entries import read_payload

        try:
            payload = store.read_entry(path)
        except store.CorruptEntry as error:
            self._warn(f"the cache file {path} {error}; compiling again")
            return None, f"the cache file {error}"
        if payload is None:
            return None, "no cache entry yet"
        try:
            entry = read_payload(payload, self.dispatcher.py_func)
        except Exception as error:  # noqa: BLE001 - anything unreadable is a miss
            return None, f"the cache entry cannot be read ({type(error).__name__}: {error})"
        if entry.get("key") == digest:
            return entry, ""
        return None, "changed: " + explain_difference(entry.get("parts", {}), parts)

    def _hit(self, arg_types: tuple, entry: dict, library: Any, path: Path, started: float):
        from ember.compiler import CompileResult, record_compilation

        result = CompileResult(
            entry["signature"],
            entry["symbol"],
            library,
            None,
            None,
            {"cache load": time.perf_counter() - started},
            self.dispatcher.py_func,
            from_cache=True,
            written_params=entry.get("written"),
        )
        self.hits[arg_types] += 1
        _publish_generator(result)
        self._debug(f"hit {self._describe(arg_types)} from {path}")
        record_compilation(result, cached=True)  # compile_report() lists it as cached
        return result

    def _miss(self, arg_types: tuple, reason: str) -> None:
        self.misses[arg_types] += 1
        self.reasons[arg_types] = reason
        self._debug(f"miss {self._describe(arg_types)}: {reason}")

    def _disable(self, reason: str) -> None:
        if self.disabled is not None:
            return
        self.disabled = reason
        self._warn(
            f'Cannot cache compiled function "{self.qualname}": {reason}. It works, and is '
            "compiled again in each new process."
        )
        self._debug(f"not caching {self.qualname}: {reason}")

    def _warn(self, message: str) -> None:
        """Warn at the function's definition (the compiler's frames would say nothing)."""
        code = self.dispatcher.py_func.__code__
        # exec'd code may have no module: warn_explicit drops a warning whose module is None
        module = self.dispatcher.py_func.__module__ or "__main__"
        warnings.warn_explicit(message, EmberWarning, code.co_filename, code.co_firstlineno, module)

    def _describe(self, arg_types: tuple) -> str:
        return f"{self.qualname}({', '.join(map(str, arg_types))})"

    def _debug(self, message: str) -> None:
        if config.DEBUG_CACHE:
            print(f"[ember cache] {message}", flush=True)


_PROCESS_ID = re.compile(r"#[0-9a-f]+")  # jitclass.Acc#7f12...: an object of this process


def explain_difference(old: dict, new: dict) -> str:
    """Which parts of two keys differ, e.g. "code, global helper"."""
    changed = sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))
    return ", ".join(changed) if changed else "the key (same parts, different digest)"


def _publish_generator(result: Any) -> None:
    """A generator function loaded from the cache: its generators resume in the loaded code."""
    from ember import types

    if isinstance(result.signature.return_type, types.Generator):
        from ember.lowering.generators import publish_resume  # (only then: lowering is big)

        publish_resume(result.signature.return_type, result.library, result.symbol)
