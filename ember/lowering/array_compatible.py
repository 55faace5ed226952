"""Numba's array protocol for extension types deriving from `types.ArrayCompatible` or
`types.Buffer` (a pandas-like Index or Series): a call no typing takes with the extension type is
typed with its `as_array` instead. The value becomes that array through the type's `'__array__'`
lowering (given a pointer to the value, it returns a pointer to the array), and an array result
becomes the extension type again through its `'__array_wrap__'` typing and lowering."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ember import types
from ember.lowering.cgutils import alloca_once
from ember.lowering.registry import registry as lowering_registry
from ember.typing.signature import Signature

_cast_classes: set[type] = set()  # extension classes whose cast to Array is registered
_wrapping_calls: set[tuple] = set()  # (key, argument types) with a wrapping lowering


def stands_for_array(typ: types.Type) -> bool:
    """An extension type that is an array through its `'__array__'` lowering."""
    if not isinstance(typ, types.ArrayCompatible) or isinstance(typ, types.Array):
        return False
    if lowering_registry.find_function("__array__", (typ,)) is None:
        return False
    if type(typ) not in _cast_classes:
        _cast_classes.add(type(typ))
        lowering_registry.lower_cast(type(typ), types.Array)(_as_array)
    return True


def _as_array(context, builder, from_type, to_type, value):
    """The array the extension value holds (its `'__array__'`), converted to `to_type`."""
    slot = alloca_once(builder, value.type)
    builder.store(value, slot)
    array_type = from_type.as_array
    pointer = context.call_implementation(
        builder, "__array__", Signature(array_type, (from_type,)), [slot]
    )
    array = builder.load(pointer, typ=context.value_type(array_type))
    return context.cast(builder, array, array_type, to_type)


def typed_as_arrays(
    typing_context: Any, key: Any, args: tuple, kws: dict, apply: Callable
) -> Signature | None:
    """The signature of `key(*args)` with each array-like extension argument taken as its
    array (`apply(key, args, kws)` types the call); an array result of the same dimensions is
    wrapped back into the extension type when its `'__array_wrap__'` types it."""
    plain = tuple(t.as_array if stands_for_array(t) else t for t in args)
    inner = apply(key, plain, kws)
    if inner is None or kws:
        return inner
    source = max(
        (i for i, t in enumerate(args) if stands_for_array(t)),
        key=lambda i: getattr(args[i], "array_priority", 0.0),
    )
    wrapped = _wrapped_type(typing_context, args[source], inner.return_type)
    if wrapped is None:
        return inner
    if (key, args) not in _wrapping_calls:  # typing runs again on each compilation
        _wrapping_calls.add((key, args))
        lowering_registry.lower(key, *args)(_wrapping_call(key, inner, source))
    return Signature(wrapped, args)


def _wrapped_type(typing_context: Any, source: types.Type, result: types.Type) -> Any:
    if not isinstance(result, types.Array) or result.ndim != getattr(source, "ndim", 1):
        return None
    try:
        sig = typing_context.resolve_function_type(
            types.Function("__array_wrap__"), (source, result), {}
        )
    except Exception:  # noqa: BLE001 - an extension's typer may assert on shapes it lacks
        return None
    return None if sig is None else sig.return_type


def _wrapping_call(key: Any, inner: Signature, source: int) -> Callable:
    def lower_wrapped(context, builder, sig, values):
        converted = [
            context.cast(builder, value, given, taken)
            for value, given, taken in zip(values, sig.args, inner.args)
        ]
        result = context.call_implementation(builder, key, inner, converted)
        wrap = Signature(sig.return_type, (sig.args[source], inner.return_type))
        return context.call_implementation(
            builder, "__array_wrap__", wrap, [values[source], result]
        )

    return lower_wrapped
