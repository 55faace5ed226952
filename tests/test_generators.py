"""Generators in nopython mode (ember/lowering/generators.py, ember/library/objects/generators.py,
ember/dispatcher/generators.py): what a jitted generator yields, iterated from Python or by
compiled code, equals what CPython's generator (`py_func`) yields; nothing leaks."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.runtime
from ember import njit
from ember.errors import UnsupportedError
from tests.oracle import same


def plain(value):
    """CPython's items as compiled code boxes them: NumPy scalars become Python numbers."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return value


def same_items(got: list, expected: list) -> bool:
    if len(got) != len(expected):
        return False
    for a, b in zip(got, expected):
        if isinstance(b, np.ndarray):
            if not (isinstance(a, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)):
                return False
        elif not same(a, plain(b)):
            return False
    return True


def live_blocks() -> int:
    gc.collect()
    return ember.runtime.stats().live


# ---------------------------------------------------------------------------- generators


@njit
def squares(n):
    for i in range(n):
        yield i * i


@njit
def branches(n):
    """Several yields, in branches and in a loop, of an int and a float (unified to float)."""
    yield -1
    for i in range(n):
        if i % 3 == 0:
            yield i * 0.5
        elif i % 3 == 1:
            yield -i
    yield 100


@njit
def early_return(n, stop):
    for i in range(n):
        if i == stop:
            return
        yield i
    yield -1


@njit
def pairs(n):
    total = 0.0
    for i in range(n):
        total += i / 2
        yield (i, total)


@njit
def positives(a):
    for x in a:
        if x > 0:
            yield x


@njit
def windows(a, width):
    """Yields views of an argument array: the state keeps the array alive."""
    for start in range(a.shape[0] - width + 1):
        yield a[start : start + width]


@njit
def fresh_arrays(n):
    for i in range(n):
        yield np.ones(i) * i


@njit
def nested(n):
    """A generator iterating another generator, with variables live across both yields."""
    offset = 10
    for i in range(n):
        for sq in squares(i):
            yield sq + offset * i
        offset += 1


@njit
def fibonacci(limit):
    a, b = 0, 1
    while a < limit:
        yield a
        a, b = b, a + b


@njit
def enumerated(a):
    for i, x in enumerate(a):
        yield i * x


@njit
def no_items(n):
    if n > 1000:
        yield n


@njit
def raises_after(n):
    for i in range(n):  # noqa: UP028 - the loop form is what this exercises
        yield i
    raise ValueError("generator failed")


GENERATORS = [
    (squares, (7,)),
    (squares, (0,)),
    (early_return, (10, 4)),
    (early_return, (3, 5)),
    (pairs, (5,)),
    (positives, (np.array([1.5, -2.0, 3.0, 0.0, 4.25]),)),
    (fibonacci, (1000,)),
    (nested, (5,)),
    (enumerated, (np.arange(6.0),)),
    (no_items, (3,)),
    (windows, (np.arange(6.0), 3)),
    (fresh_arrays, (4,)),
]


@pytest.mark.parametrize(("gen", "args"), GENERATORS, ids=lambda v: getattr(v, "__name__", ""))
def test_list_of_generator_from_python(gen, args):
    assert same_items(list(gen(*args)), list(gen.py_func(*args)))


def test_yields_of_ints_and_floats_unify_to_float():
    """As in Numba, every item has the one yield type (CPython yields the ints unchanged)."""
    got = list(branches(10))
    assert all(type(v) is float for v in got)
    assert got == [float(v) for v in branches.py_func(10)]


def test_generator_object_protocol_from_python():
    g = squares(3)
    assert iter(g) is g
    assert [next(g), next(g), next(g)] == [0, 1, 4]
    with pytest.raises(StopIteration):
        next(g)
    with pytest.raises(StopIteration):  # a finished generator stays finished
        next(g)
    seen = [value for value in squares(4)]
    assert seen == [0, 1, 4, 9]
    assert "squares" in repr(squares(1))


def test_exception_inside_generator_reaches_python_and_ends_it():
    g = raises_after(2)
    assert [next(g), next(g)] == [0, 1]
    with pytest.raises(ValueError, match="generator failed"):
        next(g)
    with pytest.raises(StopIteration):
        next(g)


def test_next_slot_loops_and_method_calls_share_one_state():
    # Items that are numbers: the object's next() slot is generated code (no Python frame per
    # item); `for`, next(), .__next__() and sum() all resume the one state.
    g = squares(7)
    assert next(g) == 0 and g.__next__() == 1
    for value in g:
        if value == 9:
            break
    assert list(g) == [16, 25, 36]
    assert sum(squares(1000)) == sum(i * i for i in range(1000))
    assert [type(v) for v in branches(3)] == [float] * len(list(branches.py_func(3)))


def test_exception_inside_generator_reaches_a_python_loop():
    got = []
    with pytest.raises(ValueError, match="generator failed"):
        for value in raises_after(3):
            got.append(value)
    assert got == [0, 1, 2]


def test_generator_objects_dropped_mid_loop_release_their_state():
    gc.collect()
    before = ember.runtime.stats()
    for n in (0, 1, 50):
        g = squares(n)
        for value in g:
            if value > 10:
                break
        del g
    gc.collect()
    assert ember.runtime.stats().live == before.live


def test_arguments_stay_alive_with_the_generator():
    a = np.arange(8.0)
    g = windows(a, 2)
    first = next(g)
    del a
    gc.collect()
    rest = list(g)
    assert np.array_equal(first, [0.0, 1.0])
    assert [list(w) for w in rest] == [[i, i + 1.0] for i in range(1, 7)]


# ---------------------------------------------------------------------------- in jitted code


@njit
def sum_squares(n):
    total = 0
    for v in squares(n):
        total += v
    return total


@njit
def sum_branches(n):
    total = 0.0
    count = 0
    for v in branches(n):
        total += v
        count += 1
    return total, count


@njit
def sum_positives(a):
    total = 0.0
    for x in positives(a):
        total += x
    return total


@njit
def nested_total(n):
    total = 0
    for v in nested(n):
        total = (total * 3 + v) % 1_000_003
    return total


@njit
def pair_totals(n):
    first = 0
    second = 0.0
    for i, t in pairs(n):
        first += i
        second += t
    return first, second


@njit
def window_sums(a, width):
    out = np.zeros(a.shape[0])
    k = 0
    for w in windows(a, width):
        out[k] = w.sum()
        k += 1
    return out[:k]


@njit
def fresh_total(n):
    total = 0.0
    for arr in fresh_arrays(n):
        total += arr.sum()
    return total


@njit
def first_items(n, count):
    """Stops early: the rest of the generator is released with it."""
    out = 0
    taken = 0
    for arr in fresh_arrays(n):
        out += arr.shape[0]
        taken += 1
        if taken == count:
            break
    return out


@njit
def generator_in_loop(n):
    total = 0
    for j in range(n):
        for v in squares(j):
            total += v
    return total


@njit
def make_generator(n):
    return squares(n)


@njit
def consume_argument(g):
    total = 0
    for v in g:
        total += v
    return total


@njit
def pass_generator(n):
    return consume_argument(squares(n))


@njit
def catch_generator_error(n):
    total = 0
    for v in raises_after(n):
        total += v
    return total


@pytest.mark.parametrize("n", [0, 1, 2, 7, 50])
def test_consumed_in_jitted_code(n):
    for func, args in [
        (sum_squares, (n,)),
        (sum_branches, (n,)),
        (nested_total, (min(n, 8),)),
        (pair_totals, (n,)),
        (fresh_total, (min(n, 10),)),
        (first_items, (n, 3)),
        (generator_in_loop, (min(n, 10),)),
    ]:
        assert same(func(*args), plain(func.py_func(*args))), func.__name__
    assert pass_generator(n) == sum(i * i for i in range(n))


def test_array_arguments_consumed_in_jitted_code():
    a = np.array([0.5, -1.0, 2.0, -3.5, 4.0, 0.0])
    assert same(sum_positives(a), plain(sum_positives.py_func(a)))
    np.testing.assert_array_equal(window_sums(a, 2), window_sums.py_func(a, 2))


def test_jitted_function_returning_a_generator():
    g = make_generator(5)
    assert list(g) == [0, 1, 4, 9, 16]


def test_exception_from_generator_propagates_through_the_consumer():
    with pytest.raises(ValueError, match="generator failed"):
        catch_generator_error(3)


def test_a_generator_consumed_where_it_is_made_runs_as_a_plain_loop():
    # The consumer is optimized twice (ember/codegen/library.py): the resume function's state
    # machine is threaded away and the state lives in registers, as in a hand-written loop.
    for n in (0, 1, 5, 1_000_000):
        assert sum_squares(n) == sum(i * i for i in range(n))
    optimized = next(iter(sum_squares.inspect_llvm().values()))
    body = optimized[optimized.index("define") : optimized.index("\n}\n")]
    assert "switch" not in body and "$resume" not in body


# ---------------------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=60), st.integers(min_value=-2, max_value=70))
def test_hypothesis_sizes(n, stop):
    assert list(early_return(n, stop)) == list(early_return.py_func(n, stop))
    assert list(branches(n)) == [float(v) for v in branches.py_func(n)]
    assert same(sum_branches(n), sum_branches.py_func(n))
    assert nested_total(min(n, 12)) == nested_total.py_func(min(n, 12))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=0, max_size=40),
    st.integers(min_value=1, max_value=5),
)
def test_hypothesis_arrays(values, width):
    a = np.array(values, dtype=np.float64)
    assert same_items(list(positives(a)), list(positives.py_func(a)))
    assert same(sum_positives(a), plain(sum_positives.py_func(a)))
    assert same_items(list(windows(a, width)), list(windows.py_func(a, width)))


# ---------------------------------------------------------------------------- memory


def test_no_leaks_after_10k_generators():
    a = np.arange(5.0)
    for _ in range(2):  # compile and warm everything first
        list(fresh_arrays(3)), fresh_total(3), first_items(5, 2), window_sums(a, 2)
        next(fresh_arrays(4)), list(windows(a, 2)), nested_total(4)
    before = live_blocks()
    for i in range(10_000):
        k = i % 5
        list(fresh_arrays(k))  # fully consumed from Python
        g = fresh_arrays(k + 2)  # partially consumed, then dropped
        next(g)
        del g
        fresh_total(k)
        first_items(k + 3, 2)  # abandoned inside jitted code
        nested_total(k)
    for _ in range(200):
        window_sums(a, 2)
        g = windows(a, 3)
        next(g)
        del g
    assert live_blocks() == before


@njit
def running_sums(n):
    acc = np.zeros(3)  # an array held across every yield
    for i in range(n):
        acc = acc + i
        yield acc.sum()


def test_close_releases_a_suspended_generator():
    g = running_sums(5)
    assert [next(g), next(g)] == [0.0, 3.0]
    before = live_blocks()
    g.close()
    assert live_blocks() == before - 1  # the array the suspended body held
    with pytest.raises(StopIteration):
        next(g)
    assert list(running_sums(4)) == list(running_sums.py_func(4))


# ---------------------------------------------------------------------------- unsupported


def yield_from(n):
    yield from range(n)


def uses_send(n):
    g = squares(n)
    return g.send(None)


def returns_value(n):
    yield n
    return n


def test_unsupported_constructs_are_clear_errors():
    assert list(njit(yield_from)(3)) == list(yield_from(3))  # supported now
    with pytest.raises(UnsupportedError, match="send"):
        njit(uses_send)(3)
    assert list(njit(returns_value)(3)) == list(returns_value(3))  # supported now
    with pytest.raises(UnsupportedError, match="send"):
        squares(3).send(None)


@njit
def first_two_then_rest(n):
    g = squares(n)
    a = next(g)
    b = next(g)
    rest = 0
    for v in g:  # continues where next() left off
        rest += v
    return a, b, rest


@njit
def next_past_the_end(n):
    g = squares(n)
    total = 0
    for _ in range(n + 1):
        total += next(g)
    return total


def test_next_inside_jitted_code():
    for n in (2, 3, 10):
        assert first_two_then_rest(n) == first_two_then_rest.py_func(n)
    with pytest.raises(StopIteration):
        next_past_the_end(3)


@njit
def reductions(n):
    return sum(squares(n)), sum(branches(n)), any(squares(n)), all(squares(n)), sum(squares(n), 5)


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_sum_any_all_of_generators_in_jitted_code(n):
    expected = reductions.py_func(n)
    expected = (expected[0], float(expected[1]), *expected[2:])  # yields unify to float
    assert reductions(n) == expected


@njit
def holds_then_raises(n):
    acc = np.zeros(4)
    for i in range(n):
        acc = acc + i
        yield acc.sum()
    raise IndexError("stopped")


@njit
def owned_argument_total(n):
    a = np.arange(n) * 1.0  # allocated here, kept alive by the generator's state
    total = 0.0
    for x in positives(a):
        total += x
    return total


def test_no_leaks_when_generators_raise_or_take_owned_arrays():
    for _ in range(2):
        with pytest.raises(IndexError):
            list(holds_then_raises(3))
        owned_argument_total(5)
    before = live_blocks()
    for i in range(2000):
        with pytest.raises(IndexError, match="stopped"):
            list(holds_then_raises(i % 4))
        assert owned_argument_total(i % 7) == float(sum(range(i % 7)))
    assert live_blocks() == before


@njit
def own_array_items(n):
    a = np.arange(n) * 2.0  # only the loop's iterator holds it after this line
    for x in a:  # noqa: UP028 - the loop form is what this exercises
        yield x


@njit
def stop_early(n):
    total = 0.0
    for x in own_array_items(n):
        total += x
        if total > 4:
            break
    return total


def test_suspended_inside_a_loop_over_its_own_array():
    assert list(own_array_items(4)) == list(own_array_items.py_func(4))
    assert stop_early(6) == stop_early.py_func(6)
    before = live_blocks()
    for _ in range(200):
        g = own_array_items(5)
        assert [next(g), next(g)] == [0.0, 2.0]
        del g
        stop_early(6)
    assert live_blocks() == before
