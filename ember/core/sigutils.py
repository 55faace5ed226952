"""Numba's `numba.core.sigutils`: signatures as extension code spells them ("int16(complex64)",
a tuple of types, a Signature) turned into `(argument types, return type or None)`."""

from __future__ import annotations

from typing import Any

from ember import types
from ember.typing.signature import Signature


def is_signature(sig: Any) -> bool:
    """Whether `sig` spells a signature: a string, a tuple of types or a Signature."""
    return isinstance(sig, (str, tuple, Signature))


def normalize_signature(sig: Any) -> tuple[tuple, types.Type | None]:
    """`(argument types, return type)` of `sig` (the return type None when not given);
    TypeError for anything else."""
    from ember.decorators import _parse_signature

    if isinstance(sig, str):
        parsed = _parse_signature(sig)
    elif isinstance(sig, tuple):
        parsed = Signature(None, sig)
    elif isinstance(sig, Signature):
        parsed = sig
    else:
        raise TypeError(f"invalid signature: {sig!r} (expected a str, a tuple or a signature)")
    for typ in parsed.args:
        if not isinstance(typ, types.Type):
            raise TypeError(f"invalid type in signature: expected a type instance, got {typ!r}")
    return tuple(parsed.args), parsed.return_type


__all__ = ["is_signature", "normalize_signature"]
