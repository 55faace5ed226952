"""Numba's `numba.core.caching` names for code written against them: `FunctionCache` and the
cache locator classes are ember's own (ember/caching), which decide where `cache=True` entries go.
"""

from ember.caching import FunctionCache  # noqa: F401
from ember.caching.locators import *  # noqa: F403 - the locator classes, by their public names
from ember.caching.locators import (  # noqa: F401 - Numba's older, underscored names
    _CacheLocator,
    _InTreeCacheLocator,
    _IPythonCacheLocator,
    _SourceFileBackedLocatorMixin,
    _UserProvidedCacheLocator,
    _UserWideCacheLocator,
    _ZipCacheLocator,
)


class NullCache:
    """Numba's cache that keeps nothing: `dispatcher._cache = NullCache()` turns `cache=True`
    off for that dispatcher (code that customizes caching falls back to it)."""

    cache_path = None

    def load_overload(self, *args: object) -> None:
        return None

    def save_overload(self, *args: object) -> None:
        return None

    def enable_caching(self) -> None:
        return None


class IndexDataCacheFile:
    """Numba's index-plus-data cache file, for code that subclasses it at import time.

    ember stores each specialization as one self-checking file (ember/caching/store.py) and
    never instantiates this class: a subclass's `save`/`load` hooks are not consulted."""

    def __init__(self, cache_path: str, filename_base: str, source_stamp: object) -> None:
        self._cache_path = cache_path
        self._index_name = f"{filename_base}.nbi"
        self._source_stamp = source_stamp
