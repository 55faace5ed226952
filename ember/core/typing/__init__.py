"""Numba's `numba.core.typing` package path: its names (`signature`, `Signature`, `Context`,
the template classes...) are those of `ember.typing.templates`, and its submodules `templates`,
`context`, `typeof`, `asnumbatype`, `cffi_utils` and `ctypes_utils` are the ember modules holding
the same names."""

import sys
from typing import Any

from ember import extending
from ember.library.interop import cffi_functions, ctypes_functions
from ember.typing import context, templates

Signature = templates.Signature
signature = templates.signature
Context = BaseContext = context.Context

for _name, _module in {
    "templates": templates,
    "context": context,
    "typeof": extending,  # typeof, typeof_impl
    "asnumbatype": extending,  # as_numba_type
    "cffi_utils": cffi_functions,
    "ctypes_utils": ctypes_functions,
}.items():
    sys.modules[f"{__name__}.{_name}"] = _module


def __getattr__(name: str) -> Any:
    """Any other name of `numba.core.typing` code reaches for: the templates module's."""
    return getattr(templates, name)
