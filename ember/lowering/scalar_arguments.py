"""NumPy's `asarray` rule for array functions given numbers: a call no typing takes with a number
(`np.mean(2.5)`, `np.intersect1d(a, 3)`) is typed with the number as a 0-d array, as NumPy's
functions see it, and lowered by putting the number into a new 0-d array for the call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember import types
from ember.lowering import arrays as arr
from ember.lowering.registry import registry as lowering_registry
from ember.typing.signature import Signature

_lowered_calls: set[tuple] = set()  # (key, argument types) with a lowering registered


def typed_with_scalars_as_arrays(key: Any, args: tuple, kws: dict, apply: Callable):
    """The signature of `key(*args)` with its first number argument taken as a 0-d array
    (`apply` types the call, and may take a further number the same way), or None."""
    position = next((i for i, t in enumerate(args) if _is_scalar(t)), None)
    if position is None:
        return None
    as_array = types.Array(types.unliteral(args[position]), 0, "C")
    taken = (*args[:position], as_array, *args[position + 1 :])
    inner = apply(key, taken, kws)
    if inner is None:
        return None
    given = (*inner.args[:position], args[position], *inner.args[position + 1 :])
    if (key, given) not in _lowered_calls:  # typing runs again on each compilation
        _lowered_calls.add((key, given))
        lowering_registry.lower(key, *given)(_call_with_array(key, inner, position))
    return Signature(inner.return_type, given, pysig=inner.pysig)


def _is_scalar(typ: types.Type) -> bool:
    return isinstance(types.unliteral(typ), (types.Number, types.Boolean))


def _call_with_array(key: Any, inner: Signature, position: int) -> Callable:
    def lower_with_array(context, builder, sig, values):
        array_type = inner.args[position]
        number = context.cast(builder, values[position], sig.args[position], array_type.dtype)
        array = arr.allocate(context, builder, array_type, [])
        data = arr.unpack(builder, array_type, array).data
        arr.store_item(builder, array_type.dtype, number, data)
        taken = [*values[:position], array, *values[position + 1 :]]
        result = context.call_implementation(builder, key, inner, taken)
        arr.decref(builder, array_type, array)  # the call's result holds its own reference
        return result

    return lower_with_array
