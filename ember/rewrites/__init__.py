"""IR rewrites (seed 002). `from ember.rewrites import Rewrite, register_rewrite` (Numba's
`numba.rewrites` / `numba.core.rewrites` names) reach the registry lazily, so importing one
rewrite module does not load them all."""

from typing import Any

_REGISTRY_NAMES = {"Rewrite", "RewriteRegistry", "register_rewrite", "rewrite_registry"}

__all__ = sorted(_REGISTRY_NAMES)


def __getattr__(name: str) -> Any:
    if name in _REGISTRY_NAMES:
        from ember.rewrites import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
