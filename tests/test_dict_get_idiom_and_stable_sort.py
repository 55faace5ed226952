"""`d[k] = d.get(k, 0) + 1` types an empty dict; list.sort is stable and sorts tuples."""

import random

import pytest

from ember import njit


@njit
def word_counts(words):
    counts = {}
    for word in words:
        counts[word] = counts.get(word, 0) + 1
    return counts


@njit
def half_counts(keys):
    totals = {}
    for key in keys:
        totals[key] = totals.get(key, 0) + 0.5  # the default's int widens to the stored float
    return totals


@njit
def grouped_sums(n):
    sums = {}
    for i in range(n):
        sums[i % 3] = sums.get(i % 3, 0) + i
    return sorted(sums.items())


@njit
def sort_in_place(xs):
    xs.sort()
    return xs


@njit
def sorted_pairs(keys, values, reverse):
    pairs = [(keys[i], values[i]) for i in range(len(keys))]
    return sorted(pairs, reverse=reverse)


def test_get_with_a_default_decides_the_empty_dict():
    words = "to be or not to be that is".split()
    assert word_counts(words) == word_counts.py_func(words)
    keys = [1, 2, 1, 3, 1]
    result = half_counts(keys)
    assert result == half_counts.py_func(keys)
    assert all(isinstance(v, float) for v in result.values())
    for n in (0, 1, 10, 37):
        assert grouped_sums(n) == grouped_sums.py_func(n)


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 33, 200, 1000])
def test_sort_matches_python_including_signed_zeros(n):
    rng = random.Random(n)
    values = [rng.choice([0.0, -0.0, 1.5, -2.0]) for _ in range(n)]
    got, expected = sort_in_place(list(values)), sorted(values)
    assert [repr(v) for v in got] == [repr(v) for v in expected]  # stable: -0.0 vs 0.0 order
    numbers = [rng.randint(-50, 50) for _ in range(n)]
    assert sort_in_place(list(numbers)) == sorted(numbers)


@pytest.mark.parametrize("reverse", [False, True])
def test_tuples_sort_lexicographically_and_stably(reverse):
    rng = random.Random(7)
    keys = [rng.randint(0, 4) for _ in range(300)]
    values = [rng.choice([0.0, -0.0, 2.5]) for _ in range(300)]
    got = sorted_pairs(keys, values, reverse)
    expected = sorted_pairs.py_func(keys, values, reverse)
    assert [repr(p) for p in got] == [repr(p) for p in expected]
