"""Literal types in dispatch, as Numba users write them: overloads chosen by literal argument
values, `literally()` in jitted code and in overload implementations, `prefer_literal`, and
`ember.np.unsafe.ndarray.to_fixed_tuple`. Results are checked against the same Python code."""

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import literally, njit, types
from ember.errors import TypingError
from ember.extending import intrinsic, overload, overload_method
from ember.np.unsafe.ndarray import to_fixed_tuple

# ------------------------------------------------------------------ user functions and overloads


def pick(x):
    """Python meaning of the overload below: a special case for 1, else ten times."""
    return 100 if x == 1 else x * 10


@overload(pick)
def _pick(x):
    if not isinstance(x, types.IntegerLiteral):
        return None  # declines plain integers: only constants have an implementation
    if x.literal_value == 1:
        return lambda x: 100
    return lambda x: x * 10


_FACTORS = {"m": 1.0, "km": 1000.0, "mm": 0.001}


def to_metres(value, unit):
    return value * _FACTORS[unit]


@overload(to_metres)
def _to_metres(value, unit):
    if isinstance(unit, types.StringLiteral) and unit.literal_value in _FACTORS:
        factor = _FACTORS[unit.literal_value]  # chosen while compiling
        return lambda value, unit: value * factor
    return None


def scaled(x, double):
    return x * 2 if double else x


@overload(scaled)
def _scaled(x, double):
    if isinstance(double, types.BooleanLiteral):
        if double.literal_value:
            return lambda x, double: x * 2
        return lambda x, double: x
    return None


def which(x):
    """Which implementation the overloads below chose: 1 literal, 2 plain (Python: none)."""


def _which_overload(x):
    if isinstance(x, types.IntegerLiteral):
        return lambda x: 1
    if isinstance(x, types.Integer):
        return lambda x: 2
    return None


def which_plain_first(x):
    pass


def which_literal_first(x):
    pass


overload(which_plain_first)(_which_overload)
overload(which_literal_first, prefer_literal=True)(_which_overload)


def times_length(n, a):
    """Python meaning: n * len(a); the overload asks for `n` as a literal."""
    return n * len(a)


@overload(times_length)
def _times_length(n, a):
    if isinstance(n, types.IntegerLiteral):
        count = n.literal_value
        return lambda n, a: count * len(a)
    return lambda n, a: times_length(literally(n), a)  # Numba's documented idiom


def repeat_sum(x, times):
    """Python meaning: x added `times` times; the overload function asks for `times`."""
    return x * times


@overload(repeat_sum)
def _repeat_sum(x, times):
    count = literally(times).literal_value  # asks for the call to be typed with the literal

    def impl(x, times):
        total = 0.0
        for _ in range(count):
            total += x
        return total

    return impl


@overload(operator.getitem)
def _array_statistic(a, key):
    """`a["sum"]` / `a["mean"]` on a 1-D array: the statistic named by a constant key."""
    if not (isinstance(a, types.Array) and isinstance(a.dtype, types.Number)):
        return None
    if isinstance(key, types.StringLiteral):
        if key.literal_value == "sum":
            return lambda a, key: a.sum()
        if key.literal_value == "mean":
            return lambda a, key: a.mean()
    return None


GLOBAL_COUNT = 1


# ------------------------------------------------------------------ @overload with literals


def test_overload_chooses_by_integer_literal_value_and_declines_plain_integers():
    @njit
    def constants():
        return pick(1) + pick(3) + pick(GLOBAL_COUNT)

    assert constants() == constants.py_func() == 100 + 30 + 100

    @njit
    def from_argument(n):
        return pick(n)

    with pytest.raises(TypingError, match="No implementation of function .*pick"):
        from_argument(3)


def test_overload_chooses_by_string_literal():
    @njit
    def total(x):
        return to_metres(x, "km") + to_metres(x, "mm") + to_metres(x, "m")

    assert total(2.5) == total.py_func(2.5) == 2500.0 + 0.0025 + 2.5


def test_overload_chooses_by_boolean_literal():
    @njit
    def both(x):
        return scaled(x, True) + scaled(x, False)

    assert both(7) == both.py_func(7) == 21


def test_prefer_literal_decides_which_attempt_comes_first():
    @njit
    def choices():
        return which_plain_first(4) * 10 + which_literal_first(4)

    assert choices() == 2 * 10 + 1  # plain first: 2; literal first: 1

    @njit
    def from_argument(n):  # no constant: both get the plain implementation
        return which_plain_first(n) * 10 + which_literal_first(n)

    assert from_argument(4) == 22


def test_overload_method_and_intrinsic_get_literals():
    @overload_method(types.Array, "first_items_sum")
    def _first_items_sum(arr, count):
        if isinstance(count, types.IntegerLiteral):
            n = count.literal_value
            return lambda arr, count: arr[:n].sum()
        return None

    @intrinsic(prefer_literal=True)
    def literal_value_of(typingctx, x):
        if not isinstance(x, types.IntegerLiteral):
            return None
        sig = types.int64(x)

        def codegen(context, builder, signature, args):
            return context.get_constant(types.int64, x.literal_value * 3)

        return sig, codegen

    @njit
    def f(a):
        return a.first_items_sum(3) + literal_value_of(5)

    a = np.arange(1.0, 6.0)
    assert f(a) == (1.0 + 2.0 + 3.0) + 15


def test_operator_overload_gets_a_literal_index():
    @njit
    def f(a):
        return a["sum"] * 10 + a["mean"] + a[1]

    a = np.arange(1.0, 5.0)
    assert f(a) == 10.0 * 10 + 2.5 + 2.0


# ------------------------------------------------------------------ literally()


def test_literally_compiles_one_specialization_per_value():
    @njit
    def f(n, x):
        return literally(n) * x + n

    for n, x in [(3, 2.0), (4, 2.0), (3, 5.0), (-2, 1.5)]:
        assert f(n, x) == f.py_func(n, x)
    assert set(f.signatures) == {
        (types.literal(3), types.float64),
        (types.literal(4), types.float64),
        (types.literal(-2), types.float64),
    }
    assert len(f.overloads) == 3


def test_literally_of_strings_and_bools():
    @njit
    def f(unit, flag, x):
        return scaled(to_metres(x, literally(unit)), literally(flag))

    assert f("km", True, 1.5) == f.py_func("km", True, 1.5) == 3000.0
    assert f("mm", False, 1.5) == f.py_func("mm", False, 1.5)
    assert {sig[:2] for sig in f.signatures} == {
        (types.literal("km"), types.literal(True)),
        (types.literal("mm"), types.literal(False)),
    }


def test_literally_lets_an_argument_reach_a_literal_only_overload():
    @njit
    def f(n):
        return pick(literally(n))

    assert [f(1), f(2), f(1)] == [f.py_func(1), f.py_func(2), 100]
    assert len(f.signatures) == 2


def test_literally_propagates_through_a_jitted_caller():
    @njit
    def inner(x):
        return literally(x) * 2

    @njit
    def outer(y, x):
        return inner(y) + x

    assert outer(3, 7) == outer.py_func(3, 7) == 13
    [outer_sig] = outer.signatures
    assert outer_sig[0] == types.literal(3)
    assert not isinstance(outer_sig[1], types.Literal)
    assert inner.signatures == [(types.literal(3),)]

    @njit
    def with_constant(x):  # a constant needs no specialization of the caller
        return inner(5) + x

    assert with_constant(1) == with_constant.py_func(1) == 11
    assert with_constant.signatures == [(types.int64,)]
    assert set(inner.signatures) == {(types.literal(3),), (types.literal(5),)}


def test_literally_inside_an_overload_implementation():
    @njit
    def with_constant(a):
        return times_length(4, a)

    @njit
    def with_argument(n, a):
        return times_length(n, a)

    a = np.zeros(5)
    assert with_constant(a) == with_constant.py_func(a) == 20
    assert with_argument(2, a) == with_argument.py_func(2, a) == 10
    assert with_argument(3, a) == 15
    assert {sig[0] for sig in with_argument.signatures} == {types.literal(2), types.literal(3)}


def test_literally_inside_an_overload_function():
    @njit
    def f(x, n):
        return repeat_sum(x, 3) + repeat_sum(x, n)

    assert f(1.5, 2) == f.py_func(1.5, 2) == 4.5 + 3.0
    assert f(1.5, 4) == f.py_func(1.5, 4)
    assert {sig[1] for sig in f.signatures} == {types.literal(2), types.literal(4)}


@settings(max_examples=10, deadline=None)
@given(st.integers(-1000, 1000))
def test_literally_matches_python_for_any_value(n):
    assert _literal_polynomial(n) == _literal_polynomial.py_func(n)


@njit
def _literal_polynomial(n):
    k = literally(n)
    return k * k - 3 * k + 1


def test_literally_of_a_computed_value_is_a_typing_error():
    @njit
    def f(a):
        n = len(a)
        return literally(n)

    with pytest.raises(TypingError, match=r"'n' as a literal.*constant int, bool or str"):
        f(np.zeros(3))


def test_literally_of_a_float_argument_is_a_typing_error():
    @njit
    def f(x):
        return literally(x)

    with pytest.raises(TypingError, match="argument 'x' as a literal.*float64"):
        f(1.5)


def test_python_sees_literally_as_identity():
    assert literally(5) == 5
    assert ember.extending.literally is literally


def test_literal_type_names():
    assert isinstance(types.literal(3), types.IntegerLiteral)
    assert types.literal(3).literal_value == 3
    assert types.unliteral(types.literal(3)) is types.int64
    assert isinstance(types.literal("a"), types.StringLiteral)
    assert isinstance(types.literal(True), types.BooleanLiteral)
    assert types.unliteral(types.literal(True)) is types.boolean
    assert all(isinstance(t, types.Literal) for t in (types.literal(1), types.literal("s")))


# ------------------------------------------------------------------ to_fixed_tuple


def test_to_fixed_tuple_builds_a_shape_for_np_zeros():
    @njit
    def zeros_like_shape(dims):
        return np.zeros(to_fixed_tuple(dims, 2))

    dims = np.array([2, 3])
    got = zeros_like_shape(dims)
    expected = zeros_like_shape.py_func(dims)
    assert got.shape == expected.shape == (2, 3)
    assert (got == expected).all()


@settings(max_examples=10, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=4, max_size=8))
def test_to_fixed_tuple_matches_python(items):
    a = np.array(items)
    assert _first_three(a) == _first_three.py_func(a)
    assert _first_n(a, 4) == _first_n.py_func(a, 4)


@njit
def _first_three(a):
    return to_fixed_tuple(a, 3)


@njit
def _first_n(a, n):
    return to_fixed_tuple(a, n)


def test_to_fixed_tuple_length_past_the_end_raises_as_python():
    a = np.arange(2.0)
    with pytest.raises(ValueError, match="exceeds"):
        _first_three.py_func(a)
    with pytest.raises(ValueError, match="exceeds"):
        _first_three(a)


def test_to_fixed_tuple_needs_a_1d_array():
    @njit
    def f(a):
        return to_fixed_tuple(a, 2)

    with pytest.raises(TypingError, match="1-D array"):
        f(np.zeros((2, 2)))
