"""Numba's `numba.core` paths for code written against them: `ember.core.types`,
`ember.core.errors`, `ember.core.config`, `ember.core.extending`, `ember.core.cgutils`,
`ember.core.withcontexts` (`objmode_context`) are the ember modules themselves (one home each;
these are names, not copies)."""

import sys

from ember import config, errors, extending, types
from ember.lowering import cgutils
from ember.misc import objmode as withcontexts

for _name, _module in {
    "types": types,
    "errors": errors,
    "config": config,
    "extending": extending,
    "cgutils": cgutils,
    "withcontexts": withcontexts,
}.items():
    sys.modules[f"{__name__}.{_name}"] = _module

__all__ = ["cgutils", "config", "errors", "extending", "types", "withcontexts"]
