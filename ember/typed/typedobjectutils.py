"""Numba's `numba.typed.typedobjectutils._sentry_safe_cast(from_type, to_type)`: whether a value
of one type may be stored into a typed container slot of another (ember's rule: `storable`)."""

from __future__ import annotations

from ember import types
from ember.errors import TypingError
from ember.typing.conversions import storable, warn_if_unsafe


def _sentry_safe_cast(from_type: types.Type, to_type: types.Type) -> None:
    """Nothing when the store is safe; a NumbaTypeSafetyWarning when it may lose precision (an
    int into a narrower int or a float); a TypingError when it cannot be stored."""
    from_type, to_type = types.unliteral(from_type), types.unliteral(to_type)
    kind = storable(from_type, to_type)
    if kind is None:
        raise TypingError(f"cannot safely cast {from_type} to {to_type}. Please cast explicitly.")
    warn_if_unsafe(kind, from_type, to_type)
