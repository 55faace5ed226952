"""Integer constants beyond 64 bits, which CPython produces by folding constant expressions,
hold the value wrapping int64 arithmetic gives, as the same expression computed at run time."""

import pytest

import ember

INT64_MAX = 2**63 - 1


def _wrapped(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


@ember.njit
def _folded_product():
    return 9223372036854775807 * 4  # CPython folds this to 36893488147419103228


@ember.njit
def _folded_as_float():
    return float(9223372036854775807 * 4)


@ember.njit
def _run_time_product(x):
    return x * 4


@ember.njit
def _folded_negative():
    return -9223372036854775807 * 3


@ember.njit
def _largest_unsigned():
    return 18446744073709551615  # a uint64 constant, as in Numba


def test_folded_constants_equal_run_time_wrapping():
    assert _folded_product() == _wrapped(INT64_MAX * 4) == -4
    assert _folded_product() == _run_time_product(INT64_MAX)
    assert _folded_as_float() == float(_wrapped(INT64_MAX * 4))
    assert _folded_negative() == _wrapped(-INT64_MAX * 3)


def test_uint64_constants_keep_their_value():
    assert _largest_unsigned() == 2**64 - 1


@pytest.mark.parametrize("value", [2**64, 2**64 + 5, -(2**63) - 1, 3 * 2**70 + 7, -(2**65)])
def test_literal_type_of_huge_constants_wraps(value):
    literal = ember.types.literal(value)
    assert literal.literal_value == _wrapped(value)
    assert ember.types.unliteral(literal) == ember.types.int64
