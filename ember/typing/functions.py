"""Typing calls of a run-time choice among jitted functions (`types.DispatcherChoice`).

Each candidate is typed (and compiled) for the call's argument types; the call's result is the
unification of their return types.
"""

from __future__ import annotations

from ember import types
from ember.errors import TypingError
from ember.typing.conversions import unify_pair
from ember.typing.signature import Signature


class RecursionPending(TypingError):
    """A call could not be typed because its callee is still being typed (mutual recursion:
    f calls g calls f). Not remembered as a failure: f types g again once its own return type
    is known."""


def type_choice_call(choice: types.DispatcherChoice, args: tuple, kws: dict) -> Signature | None:
    """The signature of calling whichever candidate `choice` holds; None if one cannot take
    these arguments. A return type of None means a candidate is still being typed."""
    return_type = None
    for dispatcher in choice.dispatchers:
        try:
            sig = dispatcher.type_call(args, kws)
        except TypingError as error:
            if isinstance(error, RecursionPending):
                raise
            raise TypingError(
                f"{dispatcher.py_func.__qualname__}, one of the functions chosen at run time "
                f"here, cannot take these arguments: {error.msg}"
            ) from None
        if sig is None:
            return None
        if sig.return_type is None:
            return Signature(None, args)
        if return_type is None:
            return_type = sig.return_type
            continue
        unified = unify_pair(return_type, sig.return_type)
        if unified is None:
            names = ", ".join(d.py_func.__qualname__ for d in choice.dispatchers)
            raise TypingError(
                f"the jitted functions chosen at run time ({names}) return incompatible types "
                f"{return_type} and {sig.return_type} for arguments "
                f"({', '.join(str(a) for a in args)})"
            )
        return_type = unified
    return Signature(return_type, args)
