"""Container operations Numba documents that ember gained, against CPython: tuples holding
strings or lists compare and sort, `in` over tuples of lists, list ordering and list.index
with bounds, dict items sorted by string keys, min/max of several strings; f-strings and
str.format with !r."""

import functools

import pytest

import ember
from tests.oracle import same

_compiled = functools.cache(ember.njit)


def _check(py_func, *args):
    assert same(_compiled(py_func)(*args), py_func(*args))


def tuples_of_strings(a, b, s, t):
    pairs = [(t, b), (s, a), (s, b)]
    pairs.sort()
    return (
        (s, a) < (t, b),
        (s, a) == (t, a),
        (s, a) >= (s, b),
        (s, a) in [(t, b), (s, a)],
        (s,) in ((t,), (s,)),
        pairs[0],
        pairs[2],
    )


@pytest.mark.parametrize(
    "a, b, s, t", [(1, 2, "a", "b"), (2, 2, "b", "a"), (0, -1, "", "é"), (5, 5, "zz", "z")]
)
def test_tuples_of_strings_compare_and_sort(a, b, s, t):
    _check(tuples_of_strings, a, b, s, t)


def word_counts(text):
    counts = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    items = sorted(counts.items())
    return len(items), items[0], items[-1]


@pytest.mark.parametrize("text", ["a b a c b a", "x", "ü é ü a"])
def test_dict_items_sorted_by_string_keys(text):
    _check(word_counts, text)


def lists_in_tuples(n):
    return [n] in [[1], [2]], [n, n] in ([n], [n, 0]), ([n], "a") < ([n], "b"), [n] == [2]


@pytest.mark.parametrize("n", [2, 3, 0])
def test_lists_inside_tuples(n):
    _check(lists_in_tuples, n)


def list_orderings(xs, ys):
    return xs < ys, xs <= ys, xs > ys, xs >= ys, [1.5] < [2.5], ["a"] < ["b", "c"], xs[:0] < xs


@pytest.mark.parametrize(
    "xs, ys",
    [([1, 2], [1, 3]), ([1, 2], [1, 2]), ([1, 2, 0], [1, 2]), ([5], [1, 9, 9]), ([0], [-1])],
)
def test_list_ordering_is_lexicographic(xs, ys):
    _check(list_orderings, xs, ys)


def string_extremes(a, b):
    return max(a, b), min(a, b, "m"), max("ü", a, b), min(b, b)


@pytest.mark.parametrize("a, b", [("a", "b"), ("b", "a"), ("", "é"), ("zz", "z")])
def test_min_max_of_several_strings(a, b):
    _check(string_extremes, a, b)


def conversions_in_formats(x, s):
    return (
        f"{s}={x:>4} [{x!r}] {s!r} {s!s} {s!r:>6}",
        f"{s!r}|{s!s}|{x!r:^7}",
        f"{s!r}-{3}",
    )


@pytest.mark.parametrize("x, s", [(25, "a"), (-7, "it's"), (0, 'say "hi"\n')])
def test_repr_conversion_in_f_strings_and_format(x, s):
    _check(conversions_in_formats, x, s)


def switched_numbering(s):
    return "{}|{0}".format(s)  # noqa: F525 - the error is the subject


def switched_back(s):
    return "{0}|{}".format(s)  # noqa: F525


@pytest.mark.parametrize("func", [switched_numbering, switched_back])
def test_format_refuses_mixed_field_numbering(func):
    with pytest.raises(ValueError) as expected:
        func("a")
    with pytest.raises(ValueError, match=str(expected.value)):
        _compiled(func)("a")
