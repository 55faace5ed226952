"""sorted/min/max/list.sort with key= (inner, jitted and builtin functions), list.remove,
inner generator functions, and appends whose argument is a conditional expression."""

import random

import pytest

from ember import njit
from ember.errors import UnsupportedError


@njit
def negate(x):
    return -x


@njit
def sorted_variants(xs, k):
    return (
        sorted(xs, key=lambda x: abs(x - k)),
        sorted(xs, key=lambda x: x % 3, reverse=True),
        sorted(xs, key=negate),
        sorted(xs, key=abs, reverse=True),
    )


@njit
def sort_in_place(xs, k, reverse):
    xs.sort(key=lambda x: (x - k) * (x - k), reverse=reverse)
    return xs


@njit
def sort_reverse_only(xs):
    xs.sort(reverse=True)
    return xs


@njit
def extremes(n):
    pairs = [(i, float((i * 7) % 5)) for i in range(n)]
    return min(pairs, key=lambda p: p[1]), max(pairs, key=lambda p: p[1])


@njit
def by_length(text):
    return sorted(text.split(), key=len)


@njit
def remove_all(xs, values):
    for v in values:
        xs.remove(v)
    return xs


@njit
def squares_up_to(n):
    def squares():
        for i in range(n):
            yield i * i

    return sum(squares())


@njit
def stepped(n, scale):
    def every(m, step):
        i = 0
        while i < m:
            yield i * scale
            i += step

    return [x for x in every(n, 2)], max(every(n, 3))


@njit
def picked(xs, flip):
    out = []
    for i in range(len(xs)):
        out.append(xs[-1 - i] if flip else xs[i])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_sorted_with_keys_matches_python(seed):
    rng = random.Random(seed)
    xs = [rng.randint(-20, 20) for _ in range(rng.randint(0, 40))]
    k = rng.randint(-5, 5)
    assert sorted_variants(list(xs), k) == sorted_variants.py_func(list(xs), k)
    for reverse in (False, True):
        assert sort_in_place(list(xs), k, reverse) == sort_in_place.py_func(list(xs), k, reverse)
    if xs:
        assert sort_reverse_only(list(xs)) == sorted(xs, reverse=True)


def test_min_max_by_key_take_the_first_best():
    for n in (1, 2, 9):
        assert extremes(n) == extremes.py_func(n)
    with pytest.raises(ValueError, match="empty sequence"):
        extremes(0)


def test_builtin_key():
    text = "ccc a bb dd e ffff"
    assert by_length(text) == by_length.py_func(text)


def test_list_remove():
    assert remove_all([3, 1, 2, 1, 5], [1, 5]) == [3, 2, 1]
    with pytest.raises(ValueError, match=r"list.remove\(x\): x not in list"):
        remove_all([1, 2], [7])


def test_inner_generator_functions():
    for n in (0, 1, 6):
        assert squares_up_to(n) == squares_up_to.py_func(n)
    assert stepped(10, 3) == stepped.py_func(10, 3)


def test_inner_generator_writing_an_enclosing_variable_is_refused():
    @njit
    def counts(n):
        total = 0

        def walk():
            nonlocal total
            for i in range(n):
                total += i
                yield i

        for _ in walk():
            pass
        return total

    with pytest.raises(UnsupportedError, match="nonlocal"):
        counts(3)


def test_append_of_a_conditional_expression_types_the_empty_list():
    assert picked([1.5, 2.5, 3.5], True) == [3.5, 2.5, 1.5]
    assert picked([1.5, 2.5, 3.5], False) == [1.5, 2.5, 3.5]
