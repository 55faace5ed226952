"""Two corpus kernels' lowerings against CPython: `round(x)` in a loop that runs again on a
failure (rounded to even by the conversion itself, flagged by a sum of squares), and loops
over a list (`for p in xs` with break/continue, appends, `k % p` by any divisor)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.library.builtins.numeric import BEYOND_INT64_MESSAGE

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def rounded_total(a):
    total = 0
    for i in range(a.shape[0]):
        total += int(round(a[i] * 100.0))
    return total


def round_sum(a):
    total = 0
    for i in range(a.shape[0]):
        total += round(a[i])
    return total


def round_then_int_sum(a):
    """Two conversions in one loop: either may flag."""
    total = 0
    for i in range(a.shape[0]):
        total += round(a[i]) - int(a[i] * 0.5)
    return total


ROUNDED = {k: ember.njit(k) for k in (rounded_total, round_sum, round_then_int_sum)}


def wrapped(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


def within_int64(value: int) -> int:
    """A conversion's result as compiled code gives it: beyond int64, OverflowError."""
    if not INT64_MIN <= value <= INT64_MAX:
        raise OverflowError(BEYOND_INT64_MESSAGE)
    return value


def model(kernel, a):
    """What ember gives: CPython's round/int of each float (its errors, the first raised),
    within int64 (else OverflowError), the sum wrapped."""
    convert = {
        rounded_total: lambda x: [within_int64(round(x * 100.0))],
        round_sum: lambda x: [within_int64(round(x))],
        round_then_int_sum: lambda x: [within_int64(round(x)), -within_int64(int(x * 0.5))],
    }[kernel]
    total = 0
    for x in a.tolist():
        total += sum(convert(float(x)))
    return wrapped(total)


def outcome(func, *args):
    try:
        return "value", func(*args)
    except (ValueError, OverflowError) as error:
        return type(error), str(error)


ties = st.integers(-50, 50).map(lambda k: k + 0.5)
special = st.sampled_from([np.nan, np.inf, -np.inf, 2.0**63, -(2.0**63), 2.0**63 - 1024, 1e300])
items = st.one_of(st.floats(-1e6, 1e6), ties, special)


@settings(max_examples=60, deadline=None)
@given(st.lists(items, max_size=40), st.sampled_from(list(ROUNDED)))
def test_rounding_loops_match_python(values, kernel):
    a = np.array(values, dtype=np.float64)
    assert outcome(ROUNDED[kernel], a) == outcome(model, kernel, a)


def test_ties_round_to_even():
    a = np.array([0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 0.49999999999999994, 4.5000000000000009])
    for scale in (1, 40):  # the scalar loop, and the vectorized one
        b = np.tile(a, scale)
        assert ROUNDED[round_sum](b) == sum(round(x) for x in b.tolist())
        assert ROUNDED[rounded_total](b / 100.0) == model(rounded_total, b / 100.0)


def test_empty_and_float32():
    assert ROUNDED[round_sum](np.empty(0)) == 0
    a = np.array([0.5, 1.5, 2.5, -7.25, 1e6] * 20, dtype=np.float32)
    assert ROUNDED[round_sum](a) == sum(round(float(x)) for x in a)
    a[33] = np.nan
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        ROUNDED[round_sum](a)


@pytest.mark.parametrize("position", [0, 5, 8, 31, 32, 63, 500, 998, 999])
@pytest.mark.parametrize(
    "bad, error",
    [
        (np.nan, ValueError),
        (np.inf, OverflowError),
        (-np.inf, OverflowError),
    ],
)
def test_failure_in_any_lane(position, bad, error):
    a = np.linspace(-3.0, 3.0, 1000)
    a[position] = bad
    expected = outcome(model, round_sum, a)
    assert expected[0] is error
    assert outcome(ROUNDED[round_sum], a) == expected


@pytest.mark.parametrize("position", [0, 7, 8, 640, 999])
def test_int64_min_is_a_result_not_an_error(position):
    """-2**63 (what the hardware conversion gives for NaN) is a valid round(): flagged, the
    loop runs again and gives it exactly."""
    a = np.zeros(1000)
    a[position] = -(2.0**63)
    a[(position + 1) % 1000] = 2.5  # a tie: 2
    assert ROUNDED[round_sum](a) == INT64_MIN + 2
    a[(position + 2) % 1000] = 2.0**63  # beyond int64: raises, as a lone round() does
    with pytest.raises(OverflowError, match="beyond int64"):
        ROUNDED[round_sum](a)
    with pytest.raises(OverflowError, match="beyond int64"):
        ember.njit(lambda x: round(x))(2.0**63)
    b = np.zeros(1000)
    b[position] = 2.0**63 - 1024.0  # the largest double below: valid, its square near the limit
    assert ROUNDED[round_sum](b) == 2**63 - 1024


def test_valid_values_whose_squares_add_past_the_flag():
    """|x| < 2**63 each, their squares summing past 2**126: only a second run, same value."""
    a = np.array([1e18, -1e18 + 2048.0] * 200 + [0.5, 1.5])
    assert ROUNDED[round_sum](a) == sum(round(x) for x in a.tolist())


def test_round_loop_vectorizes_with_one_conversion():
    compiled = ROUNDED[round_sum]
    compiled(np.linspace(0.0, 1.0, 5))
    code = "\n".join(compiled.inspect_llvm().values())
    assert "x double>" in code
    assert "@llvm.llrint.v" in code  # round and convert in one instruction per vector


# ------------------------------------------------------------------------------ lists


def primes_below(n):
    primes = [2]
    k = 3
    while k < n:
        is_prime = True
        for p in primes:
            if p * p > k:
                break
            if k % p == 0:
                is_prime = False
                break
        if is_prime:
            primes.append(k)
        k += 2
    return len(primes), sum(primes)


def skip_and_stop(xs, stop):
    """continue and break in one list loop."""
    total = 0
    for x in xs:
        if x % 3 == 0:
            continue
        if x > stop:
            break
        total = total * 7 + x
    return total


def grows_while_iterated(xs):
    """Appends to the list being iterated: the loop sees the new items (Python's length test)."""
    count = 0
    for x in xs:
        if len(xs) < 12:
            xs.append(x + 1)
        count += 1
    return count, sum(xs)


def remainders(ks, ps):
    """`k % p` for each divisor of a list, signed either way (-1 included)."""
    total = 0
    for k in ks:
        for p in ps:
            total = total * 31 + k % p
    return total


def appends_in_other_loops(n):
    """A list grows in an outer loop while another list is iterated inside it."""
    evens = [0]
    odds = []
    for i in range(n):
        for e in evens:
            if e > i:
                break
            if (i - e) % 2 == 1:
                odds.append(i - e)
        evens.append(2 * i + 2)
    return len(odds), sum(odds), len(evens)


LISTED = {
    k: ember.njit(k)
    for k in (primes_below, skip_and_stop, grows_while_iterated, remainders, appends_in_other_loops)
}


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 9, 10, 11, 49, 50, 97, 1000])
def test_primes_below(n):
    assert LISTED[primes_below](n) == primes_below(n)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-20, 40), min_size=1, max_size=15), st.integers(-5, 30))
def test_break_and_continue(xs, stop):
    assert LISTED[skip_and_stop](list(xs), stop) == wrapped(skip_and_stop(list(xs), stop))


@pytest.mark.parametrize("xs", [[5], [1, 2, 3], list(range(12)), list(range(20))])
def test_appends_during_iteration(xs):
    assert LISTED[grows_while_iterated](list(xs)) == grows_while_iterated(list(xs))


@pytest.mark.parametrize("n", [0, 1, 2, 7, 40])
def test_appends_in_other_loops(n):
    assert LISTED[appends_in_other_loops](n) == appends_in_other_loops(n)


def wrapped_remainders(ks, ps):
    total = 0
    for k in ks:
        for p in ps:
            total = wrapped(total * 31 + k % p)
    return total


divisors = st.one_of(st.integers(-9, 9), st.sampled_from([INT64_MIN, INT64_MAX, 2**32 + 1]))
dividends = st.one_of(st.integers(-1000, 1000), st.sampled_from([INT64_MIN, INT64_MAX, -(2**40)]))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(dividends, min_size=1, max_size=6),
    st.lists(divisors.filter(bool), min_size=1, max_size=6),
)
def test_remainders_by_any_divisor(ks, ps):
    assert LISTED[remainders](list(ks), list(ps)) == wrapped_remainders(ks, ps)


def test_int64_min_modulo_minus_one():
    assert LISTED[remainders]([INT64_MIN, -7, 7], [-1, 1]) == wrapped_remainders(
        [INT64_MIN, -7, 7], [-1, 1]
    )
    assert ember.njit(lambda k, p: k // p)(INT64_MIN, -1) == wrapped(INT64_MIN // -1)


def sum_of_squares_below(n, limit):
    """Iterates a list built by a loop that may append nothing (n <= 0): an empty list."""
    xs = [0][:0]
    for i in range(n):
        xs.append(i)
    total = 0
    for x in xs:
        if x * x > limit:
            break
        total += x * x
    return total, len(xs)


@pytest.mark.parametrize("n, limit", [(0, 10), (-3, 10), (1, 0), (10, 30), (10, 1000)])
def test_lists_empty_or_not(n, limit):
    assert ember.njit(sum_of_squares_below)(n, limit) == sum_of_squares_below(n, limit)
