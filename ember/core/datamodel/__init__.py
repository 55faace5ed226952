"""Numba's `numba.core.datamodel` package path: its names (`StructModel`, `PrimitiveModel`,
`register_default`, `default_manager`...) are those of `ember.lowering.models`, which is also
its submodules `models` and `manager`; `registry` holds `register_default`."""

import sys
from typing import Any

from ember.lowering import models

from . import registry  # noqa: F401 - Numba's `numba.core.datamodel.registry`
from .registry import default_manager, register_default  # noqa: F401 - Numba's names

register = register_default
DataModelManager = models.DataModelManager

for _name in ("models", "manager"):
    sys.modules[f"{__name__}.{_name}"] = models


def __getattr__(name: str) -> Any:
    """Any other name `numba.core.datamodel` code reaches for: the models module's."""
    return getattr(models, name)
