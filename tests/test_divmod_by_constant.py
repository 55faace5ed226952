"""Floor division and modulo of signed ints by a positive constant (ember/lowering/numbers.py:
one unsigned division), and of operands known non-negative (ember/lowering/int_ranges.py:
unsigned), give Python's results for every int64, the extremes included."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember

INT64 = st.integers(-(2**63), 2**63 - 1)
EDGES = [0, 1, -1, 999, 1000, 1001, -999, -1000, -1001, 2**63 - 1, -(2**63), -(2**63) + 1]


@ember.njit
def by_constants(a):
    return (a // 1000, a % 1000, a // 7, a % 7, a // 3, a % 3, a // 2**40 + 1, a % (2**62 + 1))


def wrapped(value: int) -> int:
    """`value` as int64 arithmetic leaves it (Python's result when it fits)."""
    return int(np.int64(np.uint64(value % 2**64)))


@settings(max_examples=80, deadline=None)
@given(st.one_of(INT64, st.sampled_from(EDGES)))
def test_same_as_python(a):
    expected = (a // 1000, a % 1000, a // 7, a % 7, a // 3, a % 3, a // 2**40 + 1,
                a % (2**62 + 1))  # fmt: skip
    assert by_constants(a) == expected


@ember.njit
def by_divisors_without_a_multiplier(a):
    # 100, 1_000_003 and 10**9 + 7 have no 64-bit floor multiplier: the quotient comes from
    # an unsigned division and the modulo from the truncated remainder.
    return (a // 100, a % 100, a % 1_000_003, a // 1_000_003, divmod(a, 10**9 + 7))


@settings(max_examples=80, deadline=None)
@given(st.one_of(INT64, st.sampled_from(EDGES + [-100, -1_000_003, 1_000_002, -(10**9) - 8])))
def test_divisors_without_a_multiplier_as_python(a):
    expected = (a // 100, a % 100, a % 1_000_003, a // 1_000_003, divmod(a, 10**9 + 7))
    assert by_divisors_without_a_multiplier(a) == expected


def modular_sum(n, start):
    acc = 0
    for i in range(start, start + n):
        acc += (i * 7919) % 1000 - (i * 7919) // 1000
    return acc


def test_in_a_loop_with_wrapping_products():
    """Products past int64 wrap (ember's ints), then divide as Python divides the wrapped
    value: a loop around 2**63 / 7919."""
    start = 2**63 // 7919 - 50
    expected = sum(
        wrapped(i * 7919) % 1000 - wrapped(i * 7919) // 1000 for i in range(start, start + 100)
    )
    assert ember.njit(modular_sum)(100, start) == wrapped(expected)


def gcd_sum(n, offset):
    total = 0
    for i in range(n):
        for j in range(n):
            a, b = i + offset, j
            while b:
                a, b = b, a % b
            total += a
    return total


def digit_quotients(n, divisor):
    total = 0
    for i in range(n):
        k = i
        while k > 0:
            total += k % divisor + k // divisor
            k //= divisor
    return total


COMPILED = {func: ember.njit(func) for func in (gcd_sum, digit_quotients)}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 12), st.integers(-(2**62), 2**62), st.sampled_from([-3, -1, 0, 2, 7, 10]))
def test_divisions_of_values_known_non_negative(n, offset, divisor):
    """Operands a range proves non-negative divide unsigned (here: `j`, the remainders, `k`),
    one that may be negative (`i + offset`) or zero (`divisor`) as Python's ints do."""
    for func, args in ((gcd_sum, (n, offset)), (digit_quotients, (n, divisor))):
        try:
            expected = func(*args)
        except ZeroDivisionError as error:
            with pytest.raises(ZeroDivisionError, match=str(error)):
                COMPILED[func](*args)
            continue
        assert COMPILED[func](*args) == wrapped(expected)


def digits_in_bases(n):
    """`k //= base` and `k % base`, both operands from ranges: unsigned divisions."""
    total = 0
    for base in range(2, n):
        for start in range(n):
            k = start
            while k > 0:
                total += k % base
                k //= base
    return total


def test_in_place_division_of_non_negative_values():
    assert ember.njit(digits_in_bases)(40) == digits_in_bases(40)
