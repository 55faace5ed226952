"""User `@overload` / `@overload_method` with keyword parameters, as in Numba: keywords bind by
name, omitted ones reach the overload function as their Python defaults, constant strings can
select the implementation, and `jit_options` apply; each jitted call checked against the Python
function it implements."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember
from ember import types
from ember.errors import TypingError
from ember.extending import overload, overload_method


def total(a, axis=None):
    """The Python function the overload implements (NumPy's sum along `axis`)."""
    return a.sum() if axis is None else a.sum(axis)


_seen_axis = []


@overload(total)
def _total(a, axis=None):
    _seen_axis.append(axis)
    if not isinstance(a, types.Array):
        return None
    if axis is None or isinstance(axis, types.NoneType):

        def whole(a, axis=None):
            return a.sum()

        return whole

    def along(a, axis=None):
        return a.sum(axis)

    return along


@ember.njit
def total_whole(a):
    return total(a)


@ember.njit
def total_positional(a, axis):
    return total(a, axis)


@ember.njit
def total_keyword(a, axis):
    return total(a, axis=axis)


@ember.njit
def total_all_keywords(a, axis):
    return total(axis=axis, a=a)


@ember.njit
def total_explicit_none(a):
    return total(a, None)


matrices = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=4),
    elements=st.floats(-1e3, 1e3, allow_nan=False),
)


@settings(max_examples=25, deadline=None)
@given(matrices, st.sampled_from([0, 1]))
def test_keywords_bind_by_name_as_in_python(a, axis):
    np.testing.assert_allclose(total_whole(a), total(a))
    for jitted in (total_positional, total_keyword, total_all_keywords):
        np.testing.assert_allclose(jitted(a, axis), total(a, axis))
    np.testing.assert_allclose(total_explicit_none(a), total(a, None))


def test_an_omitted_argument_reaches_the_overload_as_its_python_default():
    # float32 arrays: argument types no other test resolves, so the overload function runs here
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    _seen_axis.clear()
    np.testing.assert_allclose(total_whole(a), total(a))
    assert _seen_axis and all(seen is None for seen in _seen_axis)
    _seen_axis.clear()
    np.testing.assert_allclose(total_explicit_none(a), total(a, None))
    assert _seen_axis and all(isinstance(seen, types.NoneType) for seen in _seen_axis)


def scale(x, factor=2.0, offset=0.0):
    return x * factor + offset


@overload(scale)
def _scale(x, factor=2.0, offset=0.0):
    if not isinstance(x, types.Float):
        return None

    def impl(value, times, plus):  # NumPy-style: every parameter, in order, no defaults
        return value * times + plus

    return impl


@ember.njit
def scale_calls(x):
    return scale(x), scale(x, 3.0), scale(x, offset=1.5), scale(x, offset=-1.0, factor=0.5)


@settings(max_examples=25, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False))
def test_an_implementation_without_defaults_receives_every_argument_in_order(x):
    expected = (scale(x), scale(x, 3.0), scale(x, offset=1.5), scale(x, offset=-1.0, factor=0.5))
    assert scale_calls(x) == expected


def combine(x, y, mode="add"):
    return x + y if mode == "add" else x * y


@overload(combine)
def _combine(x, y, mode="add"):
    if isinstance(mode, types.StringLiteral):
        mode = mode.literal_value
    if mode not in ("add", "mul"):
        return None  # a run-time string: declined, so the constant is offered next

    if mode == "add":

        def add(x, y, mode="add"):
            return x + y

        return add

    def mul(x, y, mode="add"):
        return x * y

    return mul


@ember.njit
def combine_calls(x, y):
    return combine(x, y), combine(x, y, "mul"), combine(x, y, mode="add"), combine(x, y, "mul")


@settings(max_examples=25, deadline=None)
@given(st.integers(-1000, 1000), st.integers(-1000, 1000))
def test_a_constant_string_selects_the_implementation(x, y):
    expected = (combine(x, y), combine(x, y, "mul"), combine(x, y, mode="add"), x * y)
    assert combine_calls(x, y) == expected


def test_a_run_time_string_is_declined_with_a_typing_error():
    @ember.njit
    def run_time_mode(x, y, mode):
        return combine(x, y, mode)

    with pytest.raises(TypingError):
        run_time_mode(1, 2, "add")


def test_an_unknown_keyword_is_a_typing_error():
    @ember.njit
    def bad_keyword(a):
        return total(a, axes=0)

    with pytest.raises(TypingError):
        bad_keyword(np.ones((2, 2)))


def weighted_sum(a, factor=1.0, squared=False):
    values = a * a if squared else a
    return (values * factor).sum()


@overload_method(types.Array, "weighted_sum_for_test")
def _weighted_sum_method(self, factor=1.0, squared=False):
    if not isinstance(self.dtype, types.Float):
        return None

    def impl(self, factor=1.0, squared=False):
        values = self * self if squared else self
        return (values * factor).sum()

    return impl


@ember.njit
def weighted_calls(a, f):
    return (
        a.weighted_sum_for_test(),
        a.weighted_sum_for_test(f),
        a.weighted_sum_for_test(squared=True),
        a.weighted_sum_for_test(squared=True, factor=f),
    )


@settings(max_examples=25, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(0, 6), elements=st.floats(-100, 100)),
    st.floats(-10, 10),
)
def test_overload_method_keywords(a, f):
    expected = (
        weighted_sum(a),
        weighted_sum(a, f),
        weighted_sum(a, squared=True),
        weighted_sum(a, squared=True, factor=f),
    )
    np.testing.assert_allclose(weighted_calls(a, f), expected, rtol=1e-12, atol=1e-9)


def ratio(x, y):
    return x / y


@overload(ratio, jit_options={"error_model": "numpy"})
def _ratio(x, y):
    def impl(x, y):
        return x / y

    return impl


def test_jit_options_give_numpys_division_by_zero():
    @ember.njit
    def divide(x, y):
        return ratio(x, y)

    with np.errstate(divide="ignore"):
        assert divide(1.0, 0.0) == np.float64(1.0) / np.float64(0.0)
        assert divide(-3.0, 0.0) == np.float64(-3.0) / np.float64(0.0)
    with pytest.raises(ZeroDivisionError):
        ratio(1.0, 0.0)  # plain Python, by contrast
