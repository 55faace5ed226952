"""Where the cache entries of a `cache=True` function go: the locator classes (Numba's names),
tried in order for each function's source file; the first whose folder is writable wins.

`EMBER_CACHE_LOCATOR_CLASSES` (or `NUMBA_CACHE_LOCATOR_CLASSES`) replaces the order: locator
names, or `module.Class` paths of user locators, separated by commas. An extension can also
insert its own subclass of `_CacheLocator` into `locator_classes`.
"""

from __future__ import annotations

import hashlib
import importlib
import linecache
import os
import sys
import tempfile
import warnings
from pathlib import Path, PurePath
from typing import Any

from ember import config
from ember.caching.store import mirrored, user_cache_root

__all__ = [
    "IPythonCacheLocator",
    "InTreeCacheLocator",
    "InTreeCacheLocatorFsAgnostic",
    "UserProvidedCacheLocator",
    "UserWideCacheLocator",
    "ZipCacheLocator",
    "choose_locator",
    "configured_classes",
    "locator_classes",
]


class _CacheLocator:
    """Decides the folder of one function's cache entries. Subclasses say whether they apply
    to a source file (`from_function`, None when not) and which folder (`get_cache_path`)."""

    def ensure_cache_path(self) -> None:
        """Create the folder and check it can be written (OSError when not)."""
        path = self.get_cache_path()
        os.makedirs(path, exist_ok=True)
        # os.access is fooled by read-only mounts and ACLs: create a file for real
        tempfile.TemporaryFile(dir=path).close()

    def get_cache_path(self) -> str:
        raise NotImplementedError

    def get_source_stamp(self) -> Any:
        """What changes when the source changes (ember's keys check the code itself; the stamp
        is for locators written against Numba's interface)."""
        raise NotImplementedError

    def get_disambiguator(self) -> str:
        """Tells apart functions of one name in one source (the first line number)."""
        raise NotImplementedError

    def get_filename_stem(self) -> str:
        """The first part of the entries' file names (the source file's stem)."""
        return Path(self._py_file).stem

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _CacheLocator | None:
        raise NotImplementedError

    @classmethod
    def get_suitable_cache_subpath(cls, py_file: str) -> str:
        """A folder name unique to the source's folder: its name and a digest of its path."""
        parent = os.path.dirname(os.path.abspath(py_file))
        digest = hashlib.sha1(parent.encode()).hexdigest()
        return f"{os.path.basename(parent)}_{digest}"


class _SourceFileBackedLocatorMixin:
    """A locator for a function whose source is a file on disk."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno

    def get_source_stamp(self) -> Any:
        source = sys.executable if getattr(sys, "frozen", False) else self._py_file
        with open(source, "rb") as stream:
            return hashlib.blake2b(stream.read(), digest_size=16).hexdigest()

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _CacheLocator | None:
        if not os.path.isfile(py_file):
            return None
        return cls(py_func, py_file)


class UserProvidedCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """`EMBER_CACHE_DIR` / `NUMBA_CACHE_DIR`, mirroring the source's folder inside it."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)
        root = Path(config.CACHE_DIR).absolute()
        self._cache_path = str(mirrored(root, os.path.dirname(os.path.abspath(py_file))))

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _CacheLocator | None:
        if not config.CACHE_DIR:
            return None
        return super().from_function(py_func, py_file)


class InTreeCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """`__pycache__` beside the source file."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(os.path.dirname(os.path.abspath(py_file)), "__pycache__")

    def get_cache_path(self) -> str:
        return self._cache_path


class InTreeCacheLocatorFsAgnostic(InTreeCacheLocator):
    """Deprecated: every in-tree locator now stamps the source by its contents."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        from ember.errors import EmberDeprecationWarning

        warnings.warn(
            "InTreeCacheLocatorFsAgnostic is deprecated: InTreeCacheLocator already stamps "
            "sources by their contents, not their modification times; use it instead.",
            EmberDeprecationWarning,
            stacklevel=3,
        )
        super().__init__(py_func, py_file)


class UserWideCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """The per-user cache folder, for sources in folders that cannot be written (installed
    packages) and for frozen executables."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._cache_path = str(mirrored(user_cache_root(), os.path.dirname(py_file)))

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _CacheLocator | None:
        if not (os.path.exists(py_file) or getattr(sys, "frozen", False)):
            return None
        return cls(py_func, py_file)


class IPythonCacheLocator(_CacheLocator):
    """Functions typed at an IPython prompt or in a Jupyter cell: entries go to IPython's
    cache folder, named by a digest of the cell's source (the same cell in a later session
    finds them)."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        from IPython.paths import get_ipython_cache_dir

        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(get_ipython_cache_dir(), "ember_cache")

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        cell = "".join(linecache.getlines(self._py_file))
        return hashlib.blake2b(cell.encode(), digest_size=16).hexdigest()

    def get_disambiguator(self) -> str:
        return self.get_source_stamp()[:10]

    def get_filename_stem(self) -> str:
        return f"ipython-{self.get_source_stamp()[:16]}"

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _CacheLocator | None:
        in_cell = py_file.startswith("<ipython-") or os.path.basename(
            os.path.dirname(py_file)
        ).startswith("ipykernel_")
        if not in_cell:
            return None
        try:
            return cls(py_func, py_file)
        except ImportError:  # IPython's own files but no IPython: nothing to hold the cache
            return None


class ZipCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """Modules imported from a zip archive: entries go to the per-user cache folder, under the
    archive's path and the module's path inside it."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._zip_path, self._internal_path = self._split_zip_path(py_file)
        inside = os.path.dirname(self._internal_path)
        folder = mirrored(user_cache_root() / "zip", self._zip_path)
        self._cache_path = str(folder / inside if inside else folder)

    @staticmethod
    def _split_zip_path(py_file: str) -> tuple[str, str] | None:
        """(archive path, posix path inside it), or None for a path through no `.zip`."""
        parts = PurePath(py_file).parts
        for index, part in enumerate(parts[:-1]):
            if part.lower().endswith(".zip"):
                return str(Path(*parts[: index + 1])), "/".join(parts[index + 1 :])
        return None

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> Any:
        stat = os.stat(self._zip_path)
        return stat.st_mtime, stat.st_size

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _CacheLocator | None:
        if cls._split_zip_path(py_file) is None:
            return None
        return cls(py_func, py_file)


# Numba's older, underscored names for the same classes (extensions import these)
_UserProvidedCacheLocator = UserProvidedCacheLocator
_InTreeCacheLocator = InTreeCacheLocator
_UserWideCacheLocator = UserWideCacheLocator
_IPythonCacheLocator = IPythonCacheLocator
_ZipCacheLocator = ZipCacheLocator

locator_classes: list[type] = [
    UserProvidedCacheLocator,
    InTreeCacheLocator,
    UserWideCacheLocator,
    IPythonCacheLocator,
    ZipCacheLocator,
]


def configured_classes() -> list[type]:
    """The locators to try, in order: the environment's list, else `locator_classes`."""
    setting = os.environ.get("EMBER_CACHE_LOCATOR_CLASSES") or os.environ.get(
        "NUMBA_CACHE_LOCATOR_CLASSES"
    )
    if not setting:
        return list(locator_classes)
    return [_locator_named(name.strip()) for name in setting.split(",") if name.strip()]


def _locator_named(name: str) -> type:
    found = globals().get(name) if "." not in name else None
    if found is None and "." in name:
        module, _, attribute = name.rpartition(".")
        try:
            found = getattr(importlib.import_module(module), attribute, None)
        except ImportError:
            found = None
    if not (isinstance(found, type) and issubclass(found, _CacheLocator)):
        known = ", ".join(cls.__name__ for cls in locator_classes)
        raise RuntimeError(
            f"EMBER_CACHE_LOCATOR_CLASSES names {name!r}, which is not a cache locator: use "
            f"{known}, InTreeCacheLocatorFsAgnostic, or 'module.Class' of a _CacheLocator "
            "subclass"
        )
    return found


def choose_locator(py_func: Any, py_file: str, classes: list[type]) -> _CacheLocator | None:
    """The first of `classes` that applies to `py_file` and whose folder can be written."""
    for cls in classes:
        locator = cls.from_function(py_func, py_file)
        if locator is None:
            continue
        try:
            locator.ensure_cache_path()
        except OSError:
            continue
        return locator
    return None
