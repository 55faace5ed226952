"""Optional(T) and None in nopython mode: functions that return None on one path, `is None`
tests, default None arguments, Optional arguments and arrays, and CPython's errors when a None
is used as a value. Every result is checked against the same function run by CPython."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
import ember.runtime
from ember import njit, types

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
small_ints = st.integers(-10, 10)


def same_outcome(jitted, *args, exact_type=True):
    """The jitted function gives what CPython gives: the same value and type, or the same
    exception class and message. (`exact_type=False`: a variable holding an int on one path
    and a float on another is a float on both, ember's documented difference.)"""
    try:
        expected = jitted.py_func(*args)
    except Exception as error:  # noqa: BLE001 - any error CPython raises must be mirrored
        with pytest.raises(type(error)) as raised:
            jitted(*args)
        assert str(raised.value) == str(error)
        return
    got = jitted(*args)
    if isinstance(expected, np.generic):  # NumPy scalars come back as Python numbers
        expected = expected.item()
    assert type(got) is type(expected) or not exact_type
    if isinstance(expected, np.ndarray):
        np.testing.assert_array_equal(got, expected)
    else:
        assert got == expected


# ---------------------------------------------------------------------------- the functions


@njit
def positive_or_none(x):
    if x > 0:
        return x
    return None


@njit
def twice_or_default(x):
    y = positive_or_none(x)
    if y is None:
        return -1.0
    return y * 2.0


@njit
def not_none_branch(x):
    y = positive_or_none(x)
    if y is not None:
        return y + 1
    return 0


@njit
def truth_of(x):
    y = positive_or_none(x)
    if y:
        return 1
    return 0


@njit
def negated_truth(x):
    y = positive_or_none(x - 2)
    return not y


@njit
def equality(x, other):
    y = positive_or_none(x)
    return y == other, y != other, other == y, y == None, None != y  # noqa: E711


@njit
def unchecked_add(x):
    y = positive_or_none(x)
    return y + 1.5


@njit
def unchecked_radd(x):
    y = positive_or_none(x)
    return 2 * y


@njit
def unchecked_both(x, z):
    return positive_or_none(x) - positive_or_none(z)


@njit
def unchecked_inplace(x):
    total = 0.5
    total += positive_or_none(x)
    return total


@njit
def unchecked_negate(x):
    return -positive_or_none(x)


@njit
def unchecked_compare(x):
    return positive_or_none(x) < 3


@njit
def unchecked_attribute(x):
    return positive_or_none(x).real


@njit
def mixed_numbers(x):
    """Numba #7577: an int assigned on one path of an Optional(float64) must become 1.0,
    never the bits of 1 read as a double (5e-324)."""
    r = None
    if x > 1:
        r = 1
    elif x > 0:
        r = 0.5
    return r


@njit
def returns_none_or_value_sum(n):
    total = 0.0
    for i in range(n):
        y = positive_or_none(i - n // 2)
        if y is not None:
            total += y
    return total


@njit
def default_none(a, b=None):
    if b is None:
        b = 2
    return a + b


@njit
def default_none_untouched(a, b=None):
    if b is None:
        return a
    return a + b


@njit
def calls_with_and_without(a):
    return default_none(a), default_none(a, 5), default_none(a, b=7), default_none_untouched(a)


@njit
def passes_optional(x):
    return default_none_untouched(1.5, positive_or_none(x))


@njit
def conditional_none(x):
    return 0.1 if x < 1 else None


# ---------------------------------------------------------------------------- tests


@settings(deadline=None)
@given(small_ints)
def test_callee_returning_none_on_one_path(x):
    for function in (
        positive_or_none,
        twice_or_default,
        not_none_branch,
        truth_of,
        negated_truth,
    ):
        same_outcome(function, x)


@settings(deadline=None)
@given(small_ints, st.one_of(small_ints, finite))
def test_equality_with_none_is_python_equality(x, other):
    same_outcome(equality, x, other)


@settings(deadline=None)
@given(small_ints)
def test_using_none_as_a_value_raises_cpythons_error(x):
    for function in (
        unchecked_add,
        unchecked_radd,
        unchecked_inplace,
        unchecked_negate,
        unchecked_compare,
        unchecked_attribute,
    ):
        same_outcome(function, x)


@njit
def unchecked_power(x):
    return positive_or_none(x) ** 2


@njit
def membership(x):
    return positive_or_none(x) in (1, 2, 3), positive_or_none(x) not in (2.0, 4.5)


@njit
def subscript_optional_array(n):
    return ones_or_none(n)[0]


@njit
def store_into_optional_array(n):
    a = ones_or_none(n)
    a[0] = 5.0
    return a


@njit
def shape_of_optional_array(n):
    return ones_or_none(n).shape


@settings(deadline=None)
@given(small_ints)
def test_more_operations_on_none_as_cpython(x):
    for function in (unchecked_power, membership):
        same_outcome(function, x)
    for function in (subscript_optional_array, store_into_optional_array, shape_of_optional_array):
        same_outcome(function, x)


@settings(deadline=None)
@given(small_ints, small_ints)
def test_both_operands_none(x, z):
    same_outcome(unchecked_both, x, z)


def test_none_is_never_reinterpreted_numba_7577():
    assert mixed_numbers(2) == 1.0 and type(mixed_numbers(2)) is float
    assert mixed_numbers(0.5) == 0.5
    assert mixed_numbers(-1) is None
    for x in (2, 0.5, -1, 3.0):
        same_outcome(mixed_numbers, x, exact_type=False)
    same_outcome(conditional_none, 0.5)
    same_outcome(conditional_none, 2.0)


def test_list_of_int_then_none_is_a_clear_typing_error_numba_7577():
    @njit
    def f():
        lst = []
        lst.append(1)
        lst.append(None)
        return lst

    with pytest.raises(ember.TypingError, match="cannot store a none in a (list|ListType)"):
        f()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 30))
def test_optional_in_a_loop(n):
    same_outcome(returns_none_or_value_sum, n)


@settings(deadline=None)
@given(small_ints, small_ints)
def test_default_none_argument_from_python(a, b):
    same_outcome(default_none, a)
    same_outcome(default_none, a, b)
    same_outcome(default_none_untouched, a)
    same_outcome(default_none_untouched, a, b)
    same_outcome(default_none_untouched, a, None)
    assert default_none(a, b=b) == default_none.py_func(a, b=b)


@settings(deadline=None)
@given(small_ints)
def test_default_none_argument_from_jitted_callers(a):
    same_outcome(calls_with_and_without, a)
    same_outcome(passes_optional, a)


def test_typeof_none_and_the_optional_type():
    assert ember.typeof(None) is types.none
    assert types.Optional(types.float64) is types.optional(types.float64)
    assert str(types.Optional(types.int64)) == "OptionalType(int64)"
    assert types.Optional(types.float64).type is types.float64
    with pytest.raises(TypeError):
        types.Optional(types.none)
    sig = positive_or_none.overloads[(types.int64,)].signature
    assert sig.return_type is types.Optional(types.int64)


def test_explicit_optional_signatures():
    @njit("float64(optional(float64))")
    def value_or_zero(x):
        if x is None:
            return 0.0
        return x

    @njit("optional(float64)(optional(float64))")
    def identity(x):
        return x

    assert value_or_zero(None) == 0.0
    assert value_or_zero(2.5) == 2.5
    assert identity(None) is None
    assert identity(2.5) == 2.5

    @njit
    def caller(x):
        return value_or_zero(positive_or_none(x))

    assert caller(3.0) == 3.0
    assert caller(-3.0) == 0.0


def test_pruned_branch_on_a_none_argument_is_not_typed():
    @njit
    def f(a, b):
        if b is None:
            return a
        return a + b

    assert f(1, None) == 1
    assert f(1, 2) == 3
    assert f.overloads[(types.int64, types.none)].signature.return_type is types.int64

    @njit
    def truthy(a, b=None):
        if b:
            return a + b
        return a

    @njit
    def falsy(a, b=None):
        if not b:
            return a
        return a * b

    for function in (truthy, falsy):
        for args in [(2,), (2, None), (2, 3), (2, 0)]:
            same_outcome(function, *args)


# ---------------------------------------------------------------------------- arrays


@njit
def ones_or_none(n):
    if n > 0:
        return np.ones(n)
    return None


@njit
def sum_with_default_array(a=None):
    if a is None:
        a = np.zeros(2)
    return a.sum() + a[0]


@njit
def sum_of_optional_array(n):
    a = ones_or_none(n)
    if a is None:
        return -1.0
    return a.sum()


@njit
def passes_optional_array(n):
    return sum_with_default_array(ones_or_none(n))


def test_optional_arrays():
    same_outcome(ones_or_none, 3)
    same_outcome(ones_or_none, 0)
    same_outcome(sum_with_default_array)
    same_outcome(sum_with_default_array, np.arange(3.0))
    same_outcome(sum_of_optional_array, 4)
    same_outcome(sum_of_optional_array, 0)
    same_outcome(passes_optional_array, 3)
    same_outcome(passes_optional_array, 0)


def test_optional_arrays_do_not_leak():
    arange = np.arange(3.0)
    for function, args in [
        (ones_or_none, (3,)),
        (ones_or_none, (0,)),
        (sum_with_default_array, ()),
        (sum_with_default_array, (arange,)),
        (sum_of_optional_array, (4,)),
        (sum_of_optional_array, (0,)),
        (passes_optional_array, (3,)),
        (passes_optional_array, (0,)),
    ]:
        function(*args)  # compiled before counting
    before = ember.runtime.stats()
    for _ in range(10_000):
        ones_or_none(3)
        ones_or_none(0)
        sum_with_default_array()
        sum_with_default_array(arange)
        sum_of_optional_array(4)
        sum_of_optional_array(0)
        passes_optional_array(3)
        passes_optional_array(0)
    after = ember.runtime.stats()
    assert after.live == before.live
    assert after.alloc - before.alloc >= 40_000  # the arrays were really made and freed


# ---------------------------------------------------------------------------- from Python


@njit
def optional_of_kind(x, flag):
    if flag:
        return x
    return None


@njit
def pair_with_optional(x):
    return x, positive_or_none(x)


@pytest.mark.parametrize("value", [3, -2.5, 1 + 2j, True, np.float32(1.5), np.int32(7)])
def test_optional_results_reach_python_on_every_call_path(value):
    # the first calls take the general path; later ones the generated native entry
    expected = value.item() if isinstance(value, np.generic) else value
    for _ in range(4):
        got = optional_of_kind(value, True)
        assert got == expected and type(got) is type(expected)
        assert optional_of_kind(value, False) is None


@settings(deadline=None)
@given(small_ints)
def test_tuples_holding_optionals(x):
    for _ in range(2):
        same_outcome(pair_with_optional, x)


def test_print_of_an_optional(capsys):
    @njit
    def show(x):
        print(positive_or_none(x))

    show(3)
    show(-3)
    assert capsys.readouterr().out == "3\nNone\n"


DEBUG_CHECKS = False
VERBOSITY = 2
MODE = "fast"


def _flagged(x):
    if DEBUG_CHECKS:
        print("checking", x, object())  # (cannot compile: pruned as in Numba)
    if not DEBUG_CHECKS:
        x = x + 1
    if VERBOSITY > 3:
        x = "too verbose"
    if MODE == "fast" and VERBOSITY >= 2:
        x = x * 10
    return x


def test_branches_on_global_constants_are_pruned():
    """Globals are frozen when compiling, so `if DEBUG:` and comparisons of constants decide
    their branch before typing, as Numba's dead-branch pruning does."""
    from ember import njit

    assert njit(_flagged)(4) == _flagged(4) == 50


def test_branch_on_a_closure_constant_is_pruned():
    from ember import njit

    def make(unpack):
        def take(t):
            if unpack is True:
                t = t[0]
            return t

        return njit(take)

    assert make(True)((7,)) == 7
    assert make(False)((7,)) == (7,)


def _merge_by_rank(smaller, other):
    """stumpy's shape of code: one function for 1-d and 2-d arrays, split on `ndim`."""
    if smaller.ndim == 1:
        mask = other < smaller
        smaller[mask] = other[mask]
    elif smaller.ndim != 2:
        return -1
    else:
        columns = smaller.shape[1]  # a 1-d array has no shape[1]: this branch must not type
        for i in range(smaller.shape[0]):
            for j in range(columns):
                smaller[i, j] = min(smaller[i, j], other[i, j])
    return smaller.ndim


def _sum_pairs_or_first(t):
    if len(t) == 2:
        return t[0] + t[1]
    if not len(t) > 2:
        return t[0]
    return t[0] * t[2]


def test_branches_on_an_arrays_rank_and_a_tuples_length_are_pruned():
    """`a.ndim` of an array argument and `len(t)` of a tuple argument are known while compiling,
    so the branches written for other ranks and lengths are dropped before typing (as Numba's
    semantic constants); results equal CPython's."""
    merge = njit(_merge_by_rank)
    rng = np.random.default_rng(3)
    for shape in [(5,), (3, 4), (2, 2, 2)]:
        a, b = rng.random(shape), rng.random(shape)
        want_a = a.copy()
        want = _merge_by_rank(want_a, b)
        assert merge(a, b) == want
        np.testing.assert_array_equal(a, want_a)
    pick = njit(_sum_pairs_or_first)
    for t in [(1, 2), (5,), (1.5, 2, 3)]:
        assert pick(t) == _sum_pairs_or_first(t)
