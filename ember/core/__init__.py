"""Numba's `numba.core` paths for code written against them: `ember.core.types`, `.errors`,
`.config`, `.extending`, `.cgutils`, `.imputils`, `.ir`, `.ir_utils`, `.rewrites`, `.dispatcher`,
`.registry` (`CPUDispatcher`, `cpu_target`), `.withcontexts` (`objmode_context`), `.event`,
`.typing` (a package: `.templates`, `.context`, `.typeof`, `.cffi_utils`, `.ctypes_utils`),
`.caching` (`FunctionCache`, the cache locators), `.datamodel` (a package: `.models`,
`.manager`) and `.utils` are the ember modules themselves or
name them (one home each: names, not copies)."""

import sys

from ember import config, errors, extending, types
from ember.dispatcher import dispatcher
from ember.ir import numba_ir as ir
from ember.ir import numba_utils as ir_utils
from ember.lowering import cgutils
from ember.misc import events as event
from ember.misc import objmode as withcontexts
from ember.rewrites import registry as rewrites
from ember.typing import conversions as typeconv

# Numba's CPUDispatcher, paths and names
from . import caching, datamodel, registry, sigutils, typing, utils  # noqa: F401

_ALIASES = {
    "types": types,
    "errors": errors,
    "config": config,
    "extending": extending,
    "cgutils": cgutils,
    "withcontexts": withcontexts,
    "event": event,
    "imputils": extending,
    "ir": ir,
    "ir_utils": ir_utils,
    "rewrites": rewrites,
    "dispatcher": dispatcher,
    "typeconv": typeconv,
}
for _name, _module in _ALIASES.items():
    sys.modules[f"{__name__}.{_name}"] = _module
    # a package's submodules too (`numba.core.types.containers`): imported again under the
    # alias's name, they would be copies whose classes differ from ember's own
    _prefix = f"{_module.__name__}."
    for _full, _sub in list(sys.modules.items()):
        if _full.startswith(_prefix):
            sys.modules.setdefault(f"{__name__}.{_name}.{_full[len(_prefix) :]}", _sub)

imputils = extending

__all__ = [
    "registry",
    "cgutils",
    "config",
    "datamodel",
    "errors",
    "extending",
    "imputils",
    "ir",
    "ir_utils",
    "rewrites",
    "sigutils",
    "types",
    "typing",
    "utils",
    "withcontexts",
]
