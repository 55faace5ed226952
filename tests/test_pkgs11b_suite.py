"""pkgs11b: constructs of third-party Numba extensions (pandas' numba engine, rocket-fft...)
reproduced small: `@type_callable` typers called with keyword arguments, typed dicts of an
extension's values read back from Python.

Values are checked against CPython running the same functions (`py_func`), NumPy, or worked by
hand.
"""

import numpy as np
import pytest

import ember
from ember import types
from ember.extending import (
    box,
    lower_builtin,
    make_attribute_wrapper,
    models,
    register_model,
    type_callable,
)
from ember.lowering import cgutils
from tests.oracle import assert_frees_all

# ------------------------------------------------------------------ an extension type: Scaled


class Scaled:
    """Values with a scale factor (pure Python: what the native value boxes into)."""

    def __init__(self, values, scale=1.0):
        self.values = values
        self.scale = scale

    def total(self):
        return float(np.sum(self.values)) * self.scale


class ScaledType(types.Type):
    def __init__(self, dtype):
        self.dtype = dtype
        super().__init__(name=f"Scaled({dtype})")

    @property
    def array_type(self):
        return types.Array(self.dtype, 1, "C")


@register_model(ScaledType)
class _ScaledModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [("values", fe_type.array_type), ("scale", types.float64)]
        super().__init__(dmm, fe_type, members)


make_attribute_wrapper(ScaledType, "values", "values")
make_attribute_wrapper(ScaledType, "scale", "scale")


@type_callable(Scaled)
def _type_scaled(context):
    def typer(values, scale=None):  # pandas' Series(data, index, name=None) has this shape
        if isinstance(values, types.Array) and values.ndim == 1 and values.layout == "C":
            return ScaledType(values.dtype)

    return typer


def _make_scaled(context, builder, sig, values, scale):
    scaled = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    scaled.values = values
    scaled.scale = scale
    if context.enable_nrt:  # the struct holds its own reference to the array
        context.nrt.incref(builder, sig.args[0], values)
    return scaled._getvalue()


@lower_builtin(Scaled, types.Array)
def _scaled_unit(context, builder, sig, args):
    return _make_scaled(context, builder, sig, args[0], context.get_constant(types.float64, 1.0))


@lower_builtin(Scaled, types.Array, types.float64)
def _scaled_with_scale(context, builder, sig, args):
    return _make_scaled(context, builder, sig, args[0], args[1])


@box(ScaledType)
def _box_scaled(typ, val, c):
    scaled = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    cls = c.pyapi.unserialize(c.pyapi.serialize_object(Scaled))
    values = c.box(typ.array_type, scaled.values)
    scale = c.box(types.float64, scaled.scale)
    obj = c.pyapi.call_function_objargs(cls, (values, scale))
    c.pyapi.decref(values)
    c.pyapi.decref(scale)
    c.pyapi.decref(cls)
    return obj


# ------------------------------------------------------------------ typer keyword arguments


def test_type_callable_typer_takes_keyword_arguments():
    """`Scaled(a, scale=s)`: the keyword folds into the typer's parameter order (Numba's rule),
    so the 2-argument @lower_builtin serves it; an omitted keyword uses the 1-argument one."""

    @ember.njit
    def totals(a, s):
        by_keyword = Scaled(a, scale=s)
        positional = Scaled(a, s)
        omitted = Scaled(a)
        return (
            by_keyword.values.sum() * by_keyword.scale,
            positional.values.sum() * positional.scale,
            omitted.values.sum() * omitted.scale,
        )

    for a, s in [(np.arange(5.0), 2.0), (np.array([]), -1.5), (np.array([1e300, 1e300]), 0.5)]:
        total = Scaled(a, s).total()
        assert totals(a, s) == (total, total, Scaled(a).total())


def _three_parameters(a, b=None, c=None):
    return a


def test_type_callable_keyword_after_omitted_parameter_is_a_typing_error():
    """A keyword the typer's positional order cannot hold (after an omitted parameter) is a
    clear TypingError, as in Numba, not a crash in lowering."""

    @type_callable(_three_parameters)
    def _typer(context):
        def typer(a, b=None, c=None):
            return types.float64

        return typer

    @ember.njit
    def call(x):
        return _three_parameters(x, c=x)

    with pytest.raises(ember.errors.TypingError, match="unsupported call signature"):
        call(1.0)


# ------------------------------------------------------------------ dicts of extension values


def _scaled_by_column(values, scales):
    out = {}
    for j in range(values.shape[1]):
        out[j] = Scaled(np.ascontiguousarray(values[:, j]), scales[j])
    return out


def test_typed_dict_of_extension_values_boxes_through_its_box():
    """A returned typed Dict whose values are an extension type (pandas' DataFrame.apply with
    engine="numba" returns {column: Series}): iterating it from Python boxes each value with
    the type's @box, and nothing leaks."""
    jitted = ember.njit(_scaled_by_column)
    values = np.arange(12.0).reshape(4, 3)
    scales = np.array([1.0, -2.0, 0.5])
    got = dict(jitted(values, scales))
    expected = _scaled_by_column(values, scales)
    assert sorted(got) == sorted(expected)
    for key, scaled in expected.items():
        assert isinstance(got[key], Scaled)
        np.testing.assert_array_equal(got[key].values, scaled.values)
        assert got[key].scale == scaled.scale
    assert list(jitted(values, scales).values())[2].total() == expected[2].total()
    assert dict(jitted(np.empty((3, 0)), scales)) == {}

    def roundtrip(values, scales):
        return [s.total() for s in jitted(values, scales).values()]

    assert_frees_all(roundtrip, lambda: values.copy(), lambda: scales.copy(), calls=50)


# ------------------------------------------------------------------ register_jitable closures


def test_register_jitable_closure_compiles_per_caller_options():
    """pandas re-registers a user's function for each set of engine_kwargs (nogil, parallel):
    the implementation is compiled per set of the caller's options (Numba's rule), so a caller
    with other options sees the closure's current cells."""
    from ember.extending import register_jitable

    factor = 2

    def scaled(values):
        return values.sum() * factor

    register_jitable(scaled)

    @ember.njit(nogil=True)
    def with_nogil(values):
        return scaled(values)

    values = np.array([1.0, -2.5, 4.0])
    assert with_nogil(values) == scaled(values) == 5.0
    factor = -3
    register_jitable(scaled)

    @ember.njit
    def plain(values):
        return scaled(values)

    assert plain(values) == scaled(values) == -7.5
