"""The text of a caught exception in compiled code (ember/ir/exception_text.py): '' without
arguments, str() of a single one (repr() for a KeyError's), else the arguments' tuple shown as
repr() shows it."""

from __future__ import annotations

from ember import types
from ember.extending import overload
from ember.ir.exception_text import exception_text
from ember.misc.literal import literal_unroll


@overload(exception_text, prefer_literal=True)
def _exception_text(args, key_error):
    if not isinstance(args, types.BaseTuple) or not isinstance(key_error, types.BooleanLiteral):
        return None
    if len(args) == 0:
        return lambda args, key_error: ""
    if len(args) == 1 and key_error.literal_value:
        return lambda args, key_error: repr(args[0])
    if len(args) == 1:
        return lambda args, key_error: str(args[0])
    return _tuple_repr


def _tuple_repr(args, key_error):
    text = "("
    separator = ""
    for item in literal_unroll(args):
        text += separator + repr(item)
        separator = ", "
    return text + ")"
