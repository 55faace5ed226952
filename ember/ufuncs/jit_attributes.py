"""`ufunc.nin`, `.nout`, `.nargs`, `.identity` and `.signature` of @vectorize ufuncs and DUFuncs
read in jitted code: constants of the ufunc (they never change after it is built)."""

from __future__ import annotations

from collections.abc import Callable

from ember import types
from ember.typing.overload_attribute import overload_attribute
from ember.ufuncs.jit_reduce import reducible_ufunc

_CONSTANT_ATTRIBUTES = ("nin", "nout", "nargs", "identity", "signature")


def _constant_getter(name: str) -> Callable:
    def resolve(fnty):
        ufunc = reducible_ufunc(fnty)
        if ufunc is None:
            return None
        value = getattr(ufunc, name)
        return lambda fn: value

    return resolve


for _name in _CONSTANT_ATTRIBUTES:
    overload_attribute(types.Function, _name)(_constant_getter(_name))
