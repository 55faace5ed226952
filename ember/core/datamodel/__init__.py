"""Numba's `numba.core.datamodel` package path: its names (`StructModel`, `PrimitiveModel`,
`register_default`, `default_manager`...) are those of `ember.lowering.models`, which is also
its submodules `models` and `manager`."""

import sys
from typing import Any

from ember.lowering import models

register_default = register = models.register_model
default_manager = models.default_manager
DataModelManager = models.DataModelManager

for _name in ("models", "manager"):
    sys.modules[f"{__name__}.{_name}"] = models


def __getattr__(name: str) -> Any:
    """Any other name `numba.core.datamodel` code reaches for: the models module's."""
    return getattr(models, name)
