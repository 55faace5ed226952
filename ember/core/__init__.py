"""Numba's `numba.core` paths for code written against them: `ember.core.types`, `.errors`,
`.config`, `.extending`, `.cgutils`, `.imputils`, `.typing(.templates, .cffi_utils,
.ctypes_utils)`, `.datamodel(.models)`, `.ir`, `.ir_utils`, `.rewrites`, `.dispatcher`,
`.registry` (`CPUDispatcher`), `.event` and `.withcontexts` (`objmode_context`) are the ember
modules themselves (one home each: names, not copies)."""

import sys

from ember import config, errors, extending, types
from ember.dispatcher import dispatcher
from ember.ir import numba_ir as ir
from ember.ir import numba_utils as ir_utils
from ember.library.interop import cffi_functions as cffi_utils
from ember.library.interop import ctypes_functions as ctypes_utils
from ember.lowering import cgutils, models
from ember.misc import events as event
from ember.misc import objmode as withcontexts
from ember.rewrites import registry as rewrites
from ember.typing import conversions as typeconv
from ember.typing import templates

from . import registry, sigutils  # Numba's CPUDispatcher; signature spellings

_ALIASES = {
    "types": types,
    "errors": errors,
    "config": config,
    "extending": extending,
    "cgutils": cgutils,
    "withcontexts": withcontexts,
    "event": event,
    "imputils": extending,
    "typing": templates,
    "typing.templates": templates,
    "typing.cffi_utils": cffi_utils,
    "typing.ctypes_utils": ctypes_utils,
    "datamodel": models,
    "datamodel.models": models,
    "ir": ir,
    "ir_utils": ir_utils,
    "rewrites": rewrites,
    "dispatcher": dispatcher,
    "typeconv": typeconv,
}
for _name, _module in _ALIASES.items():
    sys.modules[f"{__name__}.{_name}"] = _module

imputils = extending
typing = templates
# `import ember.core.typing.cffi_utils as m` reads the module off ember.core.typing
templates.cffi_utils, templates.ctypes_utils = cffi_utils, ctypes_utils
datamodel = models

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
    "withcontexts",
]
