"""`literally(x)` in compiled code: x's literal type, or a request to type the argument it comes
from as a literal (the dispatcher then compiles one specialization per value)."""

from __future__ import annotations

from ember import types
from ember.errors import ForceLiteralArg
from ember.lowering import arrays as refs
from ember.lowering.registry import lower_builtin
from ember.misc.literal import literally
from ember.typing.signature import Signature
from ember.typing.templates import AbstractTemplate, registry


class _LiterallyTemplate(AbstractTemplate):
    """`literally(x)` returns x's literal type; a non-literal asks the caller (type inference)
    to make the argument it comes from literal."""

    key = literally
    prefer_literal = True

    def generic(self, args: tuple, kws: dict) -> Signature | None:
        if kws or len(args) != 1:
            return None
        if isinstance(args[0], types.Literal):
            return Signature(args[0], args)
        raise ForceLiteralArg({0}, f"literally() needs a literal, not {args[0]}")


registry.register_global(literally, _LiterallyTemplate)


@lower_builtin(literally, types.Literal)
def _lower_literally(context, builder, sig, args):
    refs.incref(builder, sig.args[0], args[0])  # a new reference (a list's or dict's literal)
    return args[0]
