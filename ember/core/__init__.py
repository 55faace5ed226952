"""Numba's `numba.core` paths for code written against them: `ember.core.types`,
`ember.core.errors`, `ember.core.config`, `ember.core.extending`, `ember.core.cgutils`,
`ember.core.imputils`, `ember.core.typing(.templates)`, `ember.core.datamodel(.models)`,
`ember.core.ir`, `ember.core.ir_utils`, `ember.core.rewrites` and `ember.core.withcontexts`
(`objmode_context`) are the ember modules themselves (one home each; these are names, not
copies)."""

import sys

from ember import config, errors, extending, types
from ember.ir import numba_ir as ir
from ember.ir import numba_utils as ir_utils
from ember.lowering import cgutils, models
from ember.misc import objmode as withcontexts
from ember.rewrites import registry as rewrites
from ember.typing import templates

_ALIASES = {
    "types": types,
    "errors": errors,
    "config": config,
    "extending": extending,
    "cgutils": cgutils,
    "withcontexts": withcontexts,
    "imputils": extending,
    "typing": templates,
    "typing.templates": templates,
    "datamodel": models,
    "datamodel.models": models,
    "ir": ir,
    "ir_utils": ir_utils,
    "rewrites": rewrites,
}
for _name, _module in _ALIASES.items():
    sys.modules[f"{__name__}.{_name}"] = _module

imputils = extending
typing = templates
datamodel = models

__all__ = [
    "cgutils",
    "config",
    "datamodel",
    "errors",
    "extending",
    "imputils",
    "ir",
    "ir_utils",
    "rewrites",
    "types",
    "typing",
    "withcontexts",
]
