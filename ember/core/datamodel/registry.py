"""Numba's `numba.core.datamodel.registry` path: `register_default(TypeClass)` registers a data
model class (ember's `register_model`) in the one process-wide `default_manager`."""

from ember.lowering.models import default_manager, register_model

register_default = register_model

__all__ = ["default_manager", "register_default"]
