"""Numba's `numba.core.caching` names for code written against them: `FunctionCache` and the
cache locator classes are ember's own (ember/caching), which decide where `cache=True` entries go.
"""

from ember.caching import FunctionCache
from ember.caching.locators import (
    InTreeCacheLocator,
    InTreeCacheLocatorFsAgnostic,
    IPythonCacheLocator,
    UserProvidedCacheLocator,
    UserWideCacheLocator,
    ZipCacheLocator,
    _CacheLocator,
    _InTreeCacheLocator,
    _IPythonCacheLocator,
    _SourceFileBackedLocatorMixin,
    _UserProvidedCacheLocator,
    _UserWideCacheLocator,
    _ZipCacheLocator,
)

__all__ = [
    "FunctionCache",
    "IPythonCacheLocator",
    "InTreeCacheLocator",
    "InTreeCacheLocatorFsAgnostic",
    "UserProvidedCacheLocator",
    "UserWideCacheLocator",
    "ZipCacheLocator",
    "_CacheLocator",
    "_IPythonCacheLocator",
    "_InTreeCacheLocator",
    "_SourceFileBackedLocatorMixin",
    "_UserProvidedCacheLocator",
    "_UserWideCacheLocator",
    "_ZipCacheLocator",
]
