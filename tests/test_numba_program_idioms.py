"""Idioms of existing Numba programs: calling a type to convert (`int64(x)`), `types.ListType`
for typed-list values, and `@jit(locals={...})`; values checked against CPython and NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import float32, float64, int32, int64, njit, typed, types, uint8
from ember.errors import TypingError

# ---------------------------------------------------------------------------- int64(x) and kin


@njit
def _converted(x):
    return int64(x), float32(x), float64(x), ember.boolean(x), int32(7)


@settings(max_examples=25, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False))
def test_calling_a_number_type_converts_like_numpy(x):
    as_int, as_f32, as_f64, as_bool, seven = _converted(x)
    assert as_int == int(x) and isinstance(as_int, int)
    assert as_f32 == float(np.float32(x))
    assert as_f64 == x
    assert as_bool is bool(x)
    assert seven == 7


def test_calling_a_type_on_ints_and_bools_wraps_like_numpy():
    @njit
    def narrow(n, flag):
        return uint8(n), int64(flag), float64(n)

    assert narrow(300, True) == (int(np.uint8(300 % 256)), 1, 300.0)


def test_calling_a_type_on_a_non_number_is_a_typing_error():
    @njit
    def bad(s):
        return int64(s)

    with pytest.raises(TypingError):
        bad("12")


# ---------------------------------------------------------------------------- types.ListType


_INT_LIST = types.ListType(types.int64)


@njit
def _group_by_remainder(n, k):
    groups = typed.Dict.empty(key_type=types.int64, value_type=_INT_LIST)
    for i in range(n):
        if i % k not in groups:
            groups[i % k] = typed.List.empty_list(types.int64)
        groups[i % k].append(i)
    return groups


def test_list_type_declares_typed_list_values_of_a_dict():
    groups = _group_by_remainder(10, 3)
    expected = {r: [i for i in range(10) if i % 3 == r] for r in range(3)}
    assert {k: list(v) for k, v in groups.items()} == expected


def test_list_type_is_the_type_of_a_typed_list():
    assert ember.typeof(typed.List([1, 2])) == types.ListType(types.int64)
    assert types.ListType(types.float64).item_type == types.float64
    assert isinstance(ember.typeof(typed.List([1.5])), types.ListType)


# ---------------------------------------------------------------------------- locals=


def _accumulate(n):
    acc = 0
    for i in range(n):
        acc += i
    return acc


def test_locals_declares_a_float_accumulator():
    declared = njit(locals={"acc": float64})(_accumulate)
    result = declared(6)
    assert result == float(_accumulate(6)) and isinstance(result, float)


def test_locals_narrows_to_float32():
    @njit(locals={"x": float32})
    def doubled(a):
        x = a * 2
        return x

    assert doubled(1.1) == float(np.float32(1.1 * 2))


def test_locals_rejects_what_cannot_convert_and_non_types():
    @njit(locals={"x": float64})
    def stores_a_string():
        x = "text"
        return x

    with pytest.raises(TypingError, match="declared float64 by locals"):
        stores_a_string()
    with pytest.raises(TypeError, match="locals"):
        njit(locals={"x": "not a type"})(_accumulate)


# ---------------------------------------------------------------------------- Numba's names


def test_numba_warning_names_are_exported_at_the_top_level():
    import warnings

    assert issubclass(ember.NumbaDeprecationWarning, DeprecationWarning)
    assert issubclass(ember.NumbaPendingDeprecationWarning, PendingDeprecationWarning)
    assert issubclass(ember.NumbaPerformanceWarning, ember.NumbaWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", category=ember.NumbaDeprecationWarning)
        warnings.warn("old", ember.NumbaDeprecationWarning, stacklevel=1)
    assert caught == []


def test_extension_code_testing_for_omitted_arguments_runs():
    from ember.extending import is_jitted, overload

    def scaled(a, k=None):
        return a * (2 if k is None else k)

    @overload(scaled)
    def _scaled(a, k=None):
        if isinstance(k, (types.Omitted, types.NoneType)) or k is None:
            return lambda a, k=None: a * 2
        return lambda a, k=None: a * k

    @njit
    def both(a):
        return scaled(a), scaled(a, 3.0), scaled(a, None)

    assert both(1.5) == (scaled(1.5), scaled(1.5, 3.0), scaled(1.5, None))
    assert types.Omitted(3).value == 3
    assert is_jitted(both) and not is_jitted(scaled)


# ---------------------------------------------------------------------------- widened lists


def _running_times(n, step):
    times = [0]
    for _ in range(n):
        times.append(times[-1] + step)
    return times


def _mixed_appends():
    values = []
    values.append(1)
    values.append(2.5)
    values.insert(0, 1j)
    alias = values
    alias.append(3)
    return values


_compiled_running_times = njit(_running_times)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 8), st.floats(-10, 10, allow_nan=False))
def test_appending_floats_to_an_int_display_widens_it(n, step):
    result = _compiled_running_times(n, step)
    expected = [float(t) for t in _running_times(n, step)]
    assert list(result) == pytest.approx(expected)
    assert all(isinstance(t, float) for t in result)


def test_widening_follows_copies_and_reaches_complex():
    assert list(njit(_mixed_appends)()) == [complex(v) for v in _mixed_appends()]


def test_a_list_argument_keeps_its_item_type():
    @njit
    def append_float(xs):
        xs.append(2.5)
        return xs

    with pytest.raises(TypingError, match="cannot store a float64"):
        append_float([1, 2])


def test_numbas_reflected_list_spelling_names_the_list_type():
    assert types.List(types.int64, reflected=True) == ember.typeof([1, 2])
