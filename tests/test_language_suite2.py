"""Python language features real Numba programs use (literal_unroll with type tests,
comprehensions, closures, exceptions, object-mode blocks): each compiled function is checked
against CPython running the same function. PYTEST_DONT_REWRITE: the compiled functions use
`assert`, which pytest would otherwise rewrite into calls compiled code cannot make."""

from __future__ import annotations

import heapq
import re
import traceback

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.runtime
from ember import literal_unroll, njit, objmode, prange


def unrolled_sum_by_type(a, b):
    out = 0.0
    for x in literal_unroll((a, "xy", b, None)):
        if x is None:
            out += 1000
        elif isinstance(x, str):
            out += len(x)
        elif isinstance(x, np.ndarray):
            out += x.sum()
        else:
            out += x
    return out


def unrolled_pairs(t):
    out = 0
    for x in literal_unroll(t):
        for y in literal_unroll(t):
            if isinstance(x, str) and isinstance(y, str):
                out += len(x) * len(y)
            elif isinstance(x, int) and isinstance(y, int):
                out += x * y
    return out


def test_isinstance_on_a_literal_unroll_member_drops_the_other_branches():
    compiled = njit(unrolled_sum_by_type)
    for a in (1.5, -2.0):
        args = (a, np.arange(3.0))
        assert compiled(*args) == unrolled_sum_by_type(*args)


unrolled_pairs_compiled = njit(unrolled_pairs)  # compiled once for every example


@settings(max_examples=25, deadline=None)
@given(st.integers(-50, 50), st.text(max_size=4), st.integers(-50, 50))
def test_nested_unrolled_loops_test_each_pair_of_member_types(a, s, b):
    t = (a, s, b)
    assert unrolled_pairs_compiled(t) == unrolled_pairs(t)


def print_narrow_floats(a, b):
    print(a, b, (a, b), -a)


def test_print_shows_float32_and_complex64_as_numpy_does(capsys):
    args = (np.float32(0.1), np.complex64(0.1 + 0.2j))
    print_narrow_floats(*args)
    expected = capsys.readouterr().out
    njit(print_narrow_floats)(*args)
    assert capsys.readouterr().out == expected


def raise_or_assert(x):
    if x > 1:
        raise ValueError("too big", x)
    assert x > 0, "must be positive"
    return x


def _last_frame_and_args(func, arg):
    try:
        func(arg)
    except (ValueError, AssertionError) as error:
        last = traceback.extract_tb(error.__traceback__)[-1]
        return (last.filename, last.lineno, last.name, last.line), type(error), error.args
    raise AssertionError("no exception")


def test_a_traceback_ends_at_the_raise_or_assert_line_as_in_cpython():
    compiled = njit(raise_or_assert)
    for arg in (5, -1):
        assert _last_frame_and_args(compiled, arg) == _last_frame_and_args(raise_or_assert, arg)
    formatted = "".join(traceback.format_exception(*_raised_by(compiled, 5)))
    assert "^" not in formatted.splitlines()[-2]  # no column marks under the user's line


def _raised_by(func, arg):
    try:
        func(arg)
    except ValueError as error:
        return type(error), error, error.__traceback__
    raise AssertionError("no exception")


def try_inside_prange(n):
    c = 0
    for i in prange(n):
        try:
            if i == 3:
                raise ValueError
            c += i
        except ValueError:
            c -= 100
    return c


def try_around_prange(n):
    c = 0
    try:
        for _ in prange(n):
            c += 1
    except Exception:
        return -1
    return c


def test_a_try_statement_inside_or_around_a_prange_loop_runs_it_serially():
    for func in (try_inside_prange, try_around_prange):
        assert njit(parallel=True)(func)(10) == func(10)


def head_and_rest(t):
    a, *rest = t
    return a, rest


def both_ends(t):
    a, *middle, y, z = t
    return a, middle, y, z


def starred_from_iterables(n, text, values):
    first, *others = range(n)
    *init, last = text
    x, *ys = values
    return first, others, init, last, x, ys


STARRED = {func: njit(func) for func in (head_and_rest, both_ends)}


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-100, 100), min_size=1, max_size=6))
def test_starred_assignment_from_a_tuple(items):
    t = tuple(items)
    assert STARRED[head_and_rest](t) == head_and_rest(t)
    try:
        expected = both_ends(t)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error))):
            STARRED[both_ends](t)
    else:
        assert STARRED[both_ends](t) == expected


def test_starred_assignment_from_ranges_strings_and_arrays():
    args = (4, "abc", np.arange(3.0))
    compiled = njit(starred_from_iterables)
    assert compiled(*args) == starred_from_iterables(*args)
    with pytest.raises(ValueError, match=r"expected at least 1, got 0"):
        compiled(0, "abc", np.arange(3.0))


def test_starred_assignment_from_a_mixed_tuple():
    t = (1, "x", 2.5, 3.5)
    assert njit(both_ends)(t) == both_ends(t)


def next_with_defaults(n):
    def count_up(n):
        for i in range(n):
            yield i * 3

    def growing_arrays(n):
        for i in range(n):
            yield np.arange(i + 1.0)

    numbers = count_up(n)
    arrays = growing_arrays(n)
    first, second = next(numbers, -1), next(numbers, 2.5)
    a = next(arrays, np.zeros(2))
    b = next(arrays, np.zeros(2))
    return first, second, a.sum() + b.sum() + b.size


def test_next_of_a_generator_with_a_default():
    compiled = njit(next_with_defaults)
    for n in (0, 1, 4):
        assert compiled(n) == next_with_defaults(n)
    before = ember.runtime.stats().live
    for _ in range(20):
        compiled(1)
    assert ember.runtime.stats().live == before


def objmode_in_a_generator(n):
    def values(n):
        for i in range(n):
            with objmode(v="float64", a="float64[:]", s="unicode_type"):
                v = float(i) / 2
                a = np.full(2, v)
                s = "x" * i
            if i == 2:
                with objmode():
                    raise KeyError(i)
            yield v + a.sum() + len(s)

    return [v for v in values(n)]


def test_objmode_blocks_inside_a_generator():
    compiled = njit(objmode_in_a_generator)
    assert compiled(2) == objmode_in_a_generator(2) == [0.0, 2.5]  # i/2 * 3 + i
    with pytest.raises(KeyError) as raised:
        compiled(4)
    assert raised.value.args == (2,)


def indexed_by_unrolled_range(t):
    out = ""
    for i in range(len(literal_unroll(t))):
        out += str(t[i]) + "@" + str(i) + ";"
    return out


def unrolled_range_with_break(z):
    a = (12, 12.7, 3j, 4, z, 2 * z)
    acc = 0
    for i in range(len(literal_unroll(a))):
        acc += a[i]
        if acc.real >= 26:
            break
        acc -= 1
    return acc


indexed_by_unrolled_range_compiled = njit(indexed_by_unrolled_range)


@settings(max_examples=25, deadline=None)
@given(st.integers(-1000, 1000), st.text(max_size=3), st.booleans())
def test_range_len_of_literal_unroll_indexes_each_member(a, s, b):
    t = (a, s, b)
    assert indexed_by_unrolled_range_compiled(t) == indexed_by_unrolled_range(t)


def test_range_len_of_literal_unroll_with_break():
    compiled = njit(unrolled_range_with_break)
    for z in (-30, 0, 9):
        assert compiled(z) == unrolled_range_with_break(z)


def literal_unroll_under_another_name():
    from ember import literal_unroll as each_member

    mixed = (np.ones(1), np.ones((1, 1)), np.ones((1, 1, 1)))

    def count_dimensions():
        out = 0
        for member in each_member(mixed):
            out += member.ndim
        return out

    return count_dimensions


def test_literal_unroll_held_in_a_closure_cell_under_another_name():
    func = literal_unroll_under_another_name()
    assert njit(func)() == func() == 6


def text_of_caught(x):
    try:
        if x > 5:
            raise ValueError("many", x, 25)
        raise ValueError("few", -x, 5)
    except ValueError as e:
        print("caught:", e)
        return str(e) + "|"


def text_without_and_with_one_argument(x):
    try:
        raise IndexError
    except IndexError as e:
        bare = str(e)
    try:
        raise IndexError("one")
    except IndexError as e:
        return bare + "/" + str(e)


def text_of_caught_key_error(x):
    try:
        if x > 5:
            raise KeyError("key", x)
        raise KeyError("only", -x)
    except KeyError as e:
        many = str(e)
    try:
        raise KeyError("key")
    except KeyError as e:
        return many + str(e)


def test_str_and_print_of_a_caught_exception(capsys):
    compiled = njit(text_of_caught)
    for x in (1, 7):
        expected = text_of_caught(x)
        printed = capsys.readouterr().out
        assert compiled(x) == expected
        assert capsys.readouterr().out == printed
    compiled = njit(text_without_and_with_one_argument)
    assert compiled(0) == text_without_and_with_one_argument(0) == "/one"


def test_str_of_a_caught_key_error_shows_its_argument_as_repr():
    compiled = njit(text_of_caught_key_error)
    for x in (1, 7):
        assert compiled(x) == text_of_caught_key_error(x)


class BrokenException(Exception):
    def __init__(self, a):
        super().__init__(a, self.undefined_attribute)


def raise_broken_exception(x):
    if x > 0:
        raise BrokenException(x)  # its __init__ fails: AttributeError from inside it
    return x


def test_an_error_in_an_exception_constructor_shows_under_the_raise_line():
    def frames(func):
        with pytest.raises(AttributeError) as raised:
            func(1)
        return [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(raised.tb)[-2:]]

    assert frames(njit(raise_broken_exception)) == frames(raise_broken_exception)


def yield_from_several(a, n):
    def chained(a, n):
        yield from a
        got = yield from range(n)
        yield -1.0 if got is None else 1.0
        yield from a[::-1]

    return [v for v in chained(a, n)]


def test_yield_from_ranges_arrays_and_lists():
    a = np.arange(3.0)
    compiled = njit(yield_from_several)
    for n in (0, 2):
        assert compiled(a, n) == yield_from_several(a, n)
    before = ember.runtime.stats().live
    compiled(a, 2)
    assert ember.runtime.stats().live == before


def select_from_other_iterables(n):
    t = (3, 1, 4, 1, 5, 9)
    return (
        heapq.nlargest(n, t),
        heapq.nsmallest(n, t),
        heapq.nlargest(n, {3, 1, 4, 5, 9}),
        heapq.nsmallest(n, range(10, 0, -3)),
    )


def test_heapq_selection_from_tuples_sets_and_ranges():
    compiled = njit(select_from_other_iterables)
    for n in (-1, 0, 2, 10):
        assert compiled(n) == select_from_other_iterables(n)


def print_ranges_and_nested_containers(n):
    print(range(n), range(1, n, 2), range(n, 0, -3))
    print({"a": [1.5, n * 0.5]}, [[1, 2], [n]])


def test_print_of_ranges_and_of_lists_inside_dicts(capsys):
    print_ranges_and_nested_containers(7)
    expected = capsys.readouterr().out
    njit(print_ranges_and_nested_containers)(7)
    assert capsys.readouterr().out == expected


def caught_text_beside_its_args(x):
    try:
        raise ValueError("m", x)
    except ValueError as e:
        print(e)
        return len(e.args), e.args, str(e)


def test_the_text_of_a_caught_exception_leaves_its_args_alone(capsys):
    expected = caught_text_beside_its_args(3)
    printed = capsys.readouterr().out
    assert njit(caught_text_beside_its_args)(3) == expected
    assert capsys.readouterr().out == printed
