"""containers6: `xs *= n` repeats a list in place, list.index/dict lookups name the missing item
as CPython 3.11 does, format(x, 'n') in the C locale, min/max of several items with a key
function; checked against CPython running the same functions."""

import pytest

import ember
from ember.typed import List
from tests.oracle import assert_frees_all


def _outcome(func, *args):
    """The result of func(*args), or its exception's class and text."""
    try:
        return func(*args)
    except Exception as error:  # noqa: BLE001 - compared as values
        return type(error), str(error)


# ---------------------------------------------------------------------------- xs *= n


def repeat_through_alias(xs, times):
    alias = xs
    alias *= times
    return xs, len(alias)


def test_list_imul_repeats_in_place_and_reflects_to_the_caller():
    jitted = ember.njit(repeat_through_alias)
    for items in ([1, 2], [7], [-3, 0, 3]):
        for times in (3, 2, 1, 0, -1, -5):
            expected_list, got_list = list(items), list(items)
            expected = repeat_through_alias(expected_list, times)
            got = jitted(got_list, times)
            assert got == expected
            assert got_list == expected_list  # the caller's list, changed in place


def test_list_imul_of_owned_items_and_typed_lists():
    @ember.njit
    def strings(times):
        xs = ["a", "bc"]
        ys = xs
        ys *= times
        return xs

    @ember.njit
    def nested(times):
        xs = [[1], [2, 3]]
        ys = xs
        ys *= times
        xs[0].append(9)  # the repeats are the same inner lists, as in CPython
        return xs

    @ember.njit
    def typed(times):
        xs = List([1.5, 2.5])
        ys = xs
        ys *= times
        return xs

    for times in (0, 1, 3):
        assert strings(times) == strings.py_func(times)
        assert nested(times + 1) == nested.py_func(times + 1)
        assert list(typed(times)) == [1.5, 2.5] * times
    assert_frees_all(strings, lambda: 3)
    assert_frees_all(nested, lambda: 2)


# ---------------------------------------------------------------------------- missing items


def index_of(xs, item):
    return xs.index(item)


def index_or_message(xs, item):
    try:
        return str(xs.index(item))
    except ValueError as error:
        return "caught " + str(error)


def test_list_index_error_names_the_item_as_cpython():
    index, caught = ember.njit(index_of), ember.njit(index_or_message)
    cases = [
        ([1, 2], 3),
        ([1, 2], 2),
        (["a", "b"], "z"),
        (["a'"], 'q"'),
        ([1.5, -0.0], 2.5),
        ([(1, "a")], (2, "b")),
    ]
    for xs, item in cases:
        assert _outcome(index, list(xs), item) == _outcome(index_of, list(xs), item)
        assert caught(list(xs), item) == index_or_message(list(xs), item)
    typed = List([4, 5])
    assert _outcome(index, typed, 6) == (ValueError, "6 is not in list")


def lookup(key):
    table = {"a": 1, "bc": 2}
    return table[key]


def tuple_lookup(key):
    table = {(1, "x"): 1.5}
    return table[key]


def pop_missing(key):
    table = {1.5: 1}
    return table.pop(key)


def lookup_or_text(key):
    table = {"a": 1}
    try:
        return str(table[key])
    except KeyError as error:
        return "missing " + str(error)


def test_dict_key_error_carries_the_key():
    for func, keys in (
        (lookup, ["a", "zz", "", "é"]),
        (tuple_lookup, [(1, "x"), (2, "y")]),
        (pop_missing, [1.5, 2.5, -0.0]),
        (lookup_or_text, ["a", "q"]),
    ):
        jitted = ember.njit(func)
        for key in keys:
            expected, got = _outcome(func, key), _outcome(jitted, key)
            assert got == expected
    with pytest.raises(KeyError) as raised:
        ember.njit(tuple_lookup)((3, "w"))
    assert raised.value.args == ((3, "w"),)


# ---------------------------------------------------------------------------- format 'n'


def format_n(x):
    return format(x, "n"), format(x, "12n"), format(x, "<+9n"), format(x, "#n")


def format_n_precision(x):
    return format(x, ".3n"), format(x, "010.2n")


def test_format_n_is_d_or_g_in_the_c_locale():
    ints, floats = ember.njit(format_n), ember.njit(format_n_precision)
    for x in (0, 7, -42, 1234567, -(2**63), 2**63 - 1, True):
        assert ints(x) == format_n(x)
    for x in (0.0, -0.0, 1.5, 1234567.0, 1e-7, 1e16, 0.1 + 0.2, float("inf"), float("nan")):
        assert ints(x) == format_n(x)
        assert floats(x) == format_n_precision(x)


def test_format_n_refuses_grouping_and_int_precision_as_cpython():
    @ember.njit
    def grouped(x):
        return format(x, ",n")

    @ember.njit
    def underscored(x):
        return format(x, "_n")

    @ember.njit
    def int_precision(x):
        return format(x, ".2n")

    for func, x in ((grouped, 5), (grouped, 2.5), (underscored, 5), (int_precision, 3)):
        expected = _outcome(func.py_func, x)
        assert expected[0] is ValueError
        assert _outcome(func, x) == expected


# ---------------------------------------------------------------------------- min/max(a, b, key=)


def extremes_by_key(a, b, c):
    return (
        max(a, b, key=lambda x: -x),
        min(a, b, key=lambda x: -x),
        max(a, b, c, key=lambda x: x % 5),
        min(a, c, b, key=lambda x: (x * x, x)),
    )


def test_min_max_of_several_items_with_a_key_function():
    jitted = ember.njit(extremes_by_key)
    for a, b, c in ((1, 2, 3), (-3, 3, 0), (5, 5, 10), (-7, 2, -2), (0, 0, 0)):
        assert jitted(a, b, c) == extremes_by_key(a, b, c)


# ---------------------------------------------------------------------------- shrinking storage


def shrink_and_use(n):
    xs = [i for i in range(n)]
    total = 0
    while len(xs) > 3:
        total += xs.pop(0) + xs.pop()
        del xs[0]
        if len(xs) > 5:
            del xs[1:3]
    ys = [[i] for i in range(n)]
    zs = ys
    for _ in range(n // 2):
        ys.pop()
    ys[0:2] = [[9]]
    seen = 0
    for y in zs:
        seen += y[0]
    ys.clear()
    ys.append([5])
    return total, xs, seen, len(ys), ys[0]


def test_lists_give_back_storage_as_they_empty():
    jitted = ember.njit(shrink_and_use)
    for n in (0, 3, 7, 40, 300):
        assert jitted(n) == shrink_and_use(n)
    assert_frees_all(jitted, lambda: 60, calls=50)

    @ember.njit
    def capacities(n):
        xs = List([0])
        for i in range(n):
            xs.append(i)
        out = []
        while len(xs):
            xs.pop()
            out.append((len(xs), xs._allocated()))
        return out

    for length, room in capacities(1000):
        # CPython's rule: storage less than half full shrinks to about length * 9 / 8
        assert length <= room <= max(2 * length, 8)
        assert (room == 0) == (length == 0)


# ---------------------------------------------------------------------------- xs[i:j] = []


def delete_by_empty_slices(xs):
    xs[1:3] = []
    xs[-1:] = []
    empty = []
    xs[:1] = empty
    return xs


def test_empty_list_display_assigned_to_a_slice_takes_the_list_items():
    jitted = ember.njit(delete_by_empty_slices)
    for items in ([1, 2, 3, 4, 5], [1.5, 2.5, 3.5, 4.5], ["a", "b", "c", "d", "e", "f"], [7]):
        expected, got = list(items), list(items)
        assert jitted(got) == delete_by_empty_slices(expected)
        assert got == expected

    @ember.njit
    def nested(n):
        ys = [[i] for i in range(n)]
        ys[0:2] = [[9]]
        ys[1:2] = []
        return ys

    assert nested(5) == nested.py_func(5)


# ---------------------------------------------------------------------------- dict(pairs)


def dict_of_literal_pairs(k):
    table = dict((("a", 1), ("b", 2), ("a", 3)))
    numbers = dict(((1, 2.5), (-1, 0.5)))
    return table[k], len(table), numbers[1] + numbers[-1]


def test_dict_from_a_tuple_of_pairs_with_literal_keys():
    jitted = ember.njit(dict_of_literal_pairs)
    for key in ("a", "b"):
        assert jitted(key) == dict_of_literal_pairs(key)

    @ember.njit
    def triples():
        return dict((("a", "b", "c"), ("d", "e", "f")))

    with pytest.raises(ember.errors.TypingError, match="has length 3; 2 is required"):
        triples()


# ---------------------------------------------------------------------------- d.setdefault(k, [])


def group_positions(words):
    groups = {"": [-1]}
    for i in range(len(words)):
        groups.setdefault(words[i], []).append(i)
    return [(k, v) for k, v in groups.items()]


def empty_defaults():
    lists = {1: [1.5]}
    sets = {1: {2}}
    sets.setdefault(5, set()).add(3)
    tables = {1: {2: 3}}
    tables.setdefault(5, {})[7] = 8
    return (
        lists.get(2, []),
        lists.get(1, []),
        lists.pop(3, []),
        sorted(sets[5]),
        list(tables[5].items()),
    )


def test_empty_display_default_takes_the_dict_value_type():
    grouped = ember.njit(group_positions)
    for words in (["a", "b", "a", "c", "b"], [], ["", "x"]):
        assert grouped(list(words) or ["q"]) == group_positions(list(words) or ["q"])
    assert ember.njit(empty_defaults)() == empty_defaults()
    assert_frees_all(grouped, lambda: ["a", "b", "a"], calls=50)


# ---------------------------------------------------------------------------- str(d.keys())


def view_texts(k):
    table = {1: "a", k: "b'"}
    return str(table.keys()), repr(table.items())


def test_dict_views_are_written_as_cpython_writes_them():
    jitted = ember.njit(view_texts)
    for k in (1, 2, -7):
        assert jitted(k) == view_texts(k)


# ---------------------------------------------------------------------------- bytes(n), bytes(ints)


def bytes_made(n, codes):
    return bytes(n), bytes(codes), bytes(range(n))


def test_bytes_of_a_count_or_of_ints():
    jitted = ember.njit(bytes_made)
    cases = [(3, [65, 0, 255]), (0, [1]), (True, [97, 98]), (-1, [1]), (2, [256]), (2, [-1])]
    for n, codes in cases:
        assert _outcome(jitted, n, list(codes)) == _outcome(bytes_made, n, list(codes))


# ---------------------------------------------------------------------------- get_refcount


def test_get_refcount_of_counted_values():
    import numpy as np

    from ember.core.unsafe.refcount import get_refcount

    @ember.njit
    def counts(borrowed):
        owned = np.zeros(3)
        items = List([1, 2])
        return get_refcount(borrowed), get_refcount(owned), get_refcount(items), get_refcount("c")

    borrowed, owned, items, constant = counts(np.ones(2))
    assert (borrowed, constant) == (-1, -1)  # Python's array, the module's string
    assert owned >= 1 and items >= 1

    @ember.njit
    def of_int(x):
        return get_refcount(x)

    with pytest.raises(ember.errors.TypingError):
        of_int(1)
