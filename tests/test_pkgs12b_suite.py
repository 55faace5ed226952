"""pkgs12b: constructs of third-party Numba packages (clifford's extension API) that ember missed,
each reproduced without the package and checked against plain Python / NumPy."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from ember.core.imputils import impl_ret_borrowed
from ember.core.typing.templates import (
    _OverloadAttributeTemplate,
    make_overload_attribute_template,
)

from ember import njit, types
from ember.core import cgutils
from ember.errors import TypingError
from ember.extending import (
    infer_getattr,
    intrinsic,
    make_attribute_wrapper,
    models,
    overload_method,
    register_model,
)
from tests.oracle import assert_frees_all

# ---------------------------------------------------------------- a callable extension type


def _array_struct_type(name: str):
    """A type holding one array (`coeffs`), as clifford's MultiVectorType wraps its value
    array, and an intrinsic making one from an array: (type class, constructor)."""

    class ArrayStructType(types.Type):
        def __init__(self, coeffs_type: types.Type) -> None:
            self.coeffs_type = coeffs_type
            super().__init__(f"{name}({coeffs_type})")

    @register_model(ArrayStructType)
    class ArrayStructModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, [("coeffs", fe_type.coeffs_type)])

    make_attribute_wrapper(ArrayStructType, "coeffs", "coeffs")

    @intrinsic
    def make(typingctx, coeffs):
        def codegen(context, builder, sig, args):
            value = cgutils.create_struct_proxy(sig.return_type)(context, builder)
            value.coeffs = args[0]
            return impl_ret_borrowed(context, builder, sig.return_type, value._getvalue())

        return ArrayStructType(coeffs)(coeffs), codegen

    return ArrayStructType, make


# a polynomial over its coefficient array (lowest degree first)
_PolyType, _make_poly = _array_struct_type("Poly12b")


@overload_method(_PolyType, "__call__")
def _poly_call(self, x, *shifts):
    def impl(self, x, *shifts):
        total = 0.0
        for c in self.coeffs[::-1]:
            total = total * x + c
        return total + len(shifts)

    return impl


def _horner(coeffs, x):
    total = 0.0
    for c in coeffs[::-1]:
        total = total * x + c
    return total


def test_overload_method_call_serves_calls_of_an_extension_value():
    @njit
    def evaluate(coeffs, x):
        poly = _make_poly(coeffs)
        return poly(x), poly(x, 7, 8, 9), poly(x, 1.5)

    cases = [
        (np.array([1.0, -2.0, 0.5]), 3.0),
        (np.array([0.0]), -1.25),
        (np.array([], dtype=np.float64), 4.0),  # the zero polynomial
        (np.array([2.0, np.nan]), 1.0),
        (np.array([1e308, 1e308]), 10.0),  # overflows to inf, as in Python
    ]
    for coeffs, x in cases:
        plain, shifted, one_shift = evaluate(coeffs, x)
        with np.errstate(over="ignore"):
            want = _horner(coeffs, x)
        np.testing.assert_equal(plain, want)
        np.testing.assert_equal(shifted, want + 3)
        np.testing.assert_equal(one_shift, want + 1)
    assert_frees_all(evaluate, lambda: np.arange(4.0), lambda: 0.5)


class _PlainType(types.Type):
    def __init__(self) -> None:
        super().__init__("Plain12b")


register_model(_PlainType)(models.OpaqueModel)


@intrinsic
def _make_plain(typingctx):
    def codegen(context, builder, sig, args):
        return context.get_dummy_value()

    return _PlainType()(), codegen


def test_calling_an_extension_value_without_call_method_is_a_typing_error():
    @njit
    def call_it():
        return _make_plain()(1)

    with pytest.raises(TypingError):
        call_it()


# ------------------------------------------- Numba's make_overload_attribute_template factory


class _CallTemplateBase(_OverloadAttributeTemplate):
    """clifford's `overload_call`: a subclass of Numba's private base saying `is_method`, with
    hooks of Numba's own (never called by ember)."""

    is_method = True

    def _resolve(self, typ, attr):  # Numba's hook; ember registers an overload_method instead
        raise AssertionError("not called")


_ScaledType, _make_scaled = _array_struct_type("Scaled12b")


def _scaled_call(self, *factors):
    if all(isinstance(f, types.IntegerLiteral) for f in factors):  # compile-time product
        product = int(np.prod([f.literal_value for f in factors]))

        def literal_impl(self, *factors):
            return self.coeffs * product

        return literal_impl

    def impl(self, *factors):
        out = self.coeffs.copy()
        for i in range(len(factors)):
            out = out * factors[i]
        return out

    return impl


def _scaled_total(self):
    def get(self):
        return self.coeffs.sum()

    return get


infer_getattr(
    make_overload_attribute_template(_ScaledType, "__call__", _scaled_call, base=_CallTemplateBase)
)
infer_getattr(make_overload_attribute_template(_ScaledType, "total", _scaled_total))


def test_overload_attribute_template_factory_registers_methods_and_attributes():
    @njit
    def use(coeffs, k):
        value = _make_scaled(coeffs)
        return value(2, 3), value(k, k), value.total

    for coeffs, k in [(np.arange(5.0) - 2, 3), (np.array([0.5]), -4), (np.zeros(0), 0)]:
        literal, runtime, total = use(coeffs, k)
        np.testing.assert_array_equal(literal, coeffs * 6)
        np.testing.assert_array_equal(runtime, coeffs * k * k)
        assert total == coeffs.sum()
    assert_frees_all(use, lambda: np.arange(3.0), lambda: 2)


# ---------------------------------------------------------------- Numba's type names


def test_numba_abstract_names_and_star_arg_tuples():
    assert types.abstract.Number is types.Number
    assert isinstance(types.int64, types.abstract.Number)
    assert isinstance(types.complex128, types.abstract.Number)
    assert isinstance(types.float64[:], types.abstract.ArrayCompatible)
    with pytest.raises(AttributeError):
        types.abstract.NoSuchKind  # noqa: B018
    # ember hands an overload function the *args types one by one: no tuple is a StarArgTuple
    for tup in (types.UniTuple(types.int64, 2), types.Tuple((types.int64, types.float64))):
        assert not isinstance(tup, (types.StarArgTuple, types.StarArgUniTuple))


# ---------------------------------------------------------------- pickling an extension type


class _LayoutLikeType(types.Dummy):
    """clifford's LayoutType: the constructor takes an object, not the name, and __getstate__
    leaves a cache out."""

    def __init__(self, obj: tuple) -> None:
        self.obj = obj
        self._cache = {"made": len(obj)}
        super().__init__(f"LayoutLike12b({obj!r})")

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_cache"] = {}
        return state


def test_extension_type_pickles_to_the_interned_instance():
    for obj in [(1, 2, 3), (), ("a", 2.5)]:
        typ = _LayoutLikeType(obj)
        assert pickle.loads(pickle.dumps(typ)) is typ
        assert pickle.loads(pickle.dumps(types.UniTuple(typ, 2))) is types.UniTuple(typ, 2)
    # a type no longer interned is rebuilt from its state (its cache as __getstate__ left it)
    state_only = pickle.dumps(_LayoutLikeType((9,)))
    rebuilt = pickle.loads(state_only)
    assert rebuilt.obj == (9,) and rebuilt.name == "LayoutLike12b((9,))"
    assert pickle.loads(pickle.dumps(types.float64[:, ::1])) is types.float64[:, ::1]
