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
