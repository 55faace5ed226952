"""A function signature: return type, argument types and an optional receiver for methods."""

from __future__ import annotations

from typing import Any

from ember.types import Type


class Signature:
    """`float64(int64, int64)`; compares by value so it can key a dict of specializations."""

    __slots__ = ("return_type", "args", "recvr", "pysig")

    def __init__(
        self,
        return_type: Type | None,
        args: tuple,
        recvr: Type | None = None,
        pysig: Any = None,
    ) -> None:
        self.return_type = return_type
        self.args = tuple(args)
        self.recvr = recvr
        # The callee's inspect.Signature when `args` are folded to its parameters (keyword
        # and omitted arguments included); lowering uses it to place keyword arguments.
        self.pysig = pysig

    def __eq__(self, other: Any) -> bool:
        return (
            isinstance(other, Signature)
            and self.return_type is other.return_type
            and self.args == other.args
            and self.recvr is other.recvr
        )

    def __hash__(self) -> int:
        return hash((self.return_type, self.args, self.recvr))

    def __str__(self) -> str:  # Numba's, as programs print signatures
        return f"{tuple(self.args)!r} -> {self.return_type}"

    __repr__ = __str__

    def __reduce__(self) -> tuple:  # every pickle protocol (slots need this below protocol 2)
        return (Signature, (self.return_type, self.args, self.recvr, self.pysig))

    def as_type(self) -> Type:
        """The first-class function type of this signature (Numba's `sig.as_type()`)."""
        from ember.types import FunctionType

        return FunctionType(self)

    def replace(self, **changes: Any) -> Signature:
        fields = {
            "return_type": self.return_type,
            "args": self.args,
            "recvr": self.recvr,
            "pysig": self.pysig,
        }
        fields.update(changes)
        return Signature(**fields)


def signature(return_type: Type | None, *args: Type, recvr: Type | None = None) -> Signature:
    """Build a signature: `signature(float64, int64, int64)`."""
    return Signature(return_type, args, recvr)
