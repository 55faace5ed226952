"""containers7: str/repr of floats (CPython's shortest repr, NumPy's float32 digits) and repr of
strings built cheaply; dicts of empty lists/sets filled later (`d.setdefault(k, []).append(v)`,
`d[k] = []; d[k].append(v)`); spreads in list and set displays; checked against CPython."""

import bisect
import heapq
import math
import random
import struct

import numpy as np
import pytest

import ember
from tests.oracle import assert_frees_all

# ---------------------------------------------------------------------------- str(float)


def _doubles() -> list:
    rng = random.Random(7)
    special = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e16, 1e-5, 1e-4, 1e15, 1e22, 1e23]
    special += [9999999999999998.0, 5e-324, 2.2250738585072014e-308, 2.225073858507201e-308]
    special += [1.7976931348623157e308, 0.1, 0.30000000000000004, 1 / 3, 100.0, 9.5, -2.5e-7]
    powers = [2.0**k for k in range(-1074, 1024, 3)] + [-(2.0**k) for k in range(-60, 60)]
    bits = [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(6000)]
    subnormal = [struct.unpack("d", struct.pack("Q", rng.getrandbits(52)))[0] for _ in range(500)]
    rounded = [round(rng.uniform(-1e4, 1e4), rng.randint(0, 8)) for _ in range(2000)]
    scaled = [rng.randint(1, 10**9) * 10.0 ** rng.randint(-30, 30) for _ in range(2000)]
    return special + powers + bits + subnormal + rounded + scaled


def texts_of(xs):
    """(str, repr) of each item."""
    texts, reprs = [], []
    for x in xs:
        texts.append(str(x))
        reprs.append(repr(x))
    return texts, reprs


def test_str_of_floats_is_cpythons_repr():
    values = _doubles()
    jitted = ember.njit(texts_of)
    expected = [repr(v) for v in values]
    assert jitted(np.array(values)) == (expected, expected)


def test_str_of_float32_is_numpys_shortest_text():
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 2**32, 20000, dtype=np.uint32).view(np.float32)
    powers = np.array([2.0**k for k in range(-149, 128)], dtype=np.float32)
    with np.errstate(all="ignore"):
        values = np.concatenate([raw, powers, np.array(_doubles()[:40], dtype=np.float32)])
    jitted = ember.njit(texts_of)
    assert jitted(values)[0] == [str(v) for v in values]


def spelled(x):
    return repr(x) + "|" + f"{x}" + "|" + str(-x)


def test_repr_and_fstring_of_a_float():
    jitted = ember.njit(spelled)
    for x in (0.1, 1e16, 1e-5, 123456.789, 5e-324, -0.0, math.inf, 2.0**60):
        assert jitted(x) == spelled(x)
    assert jitted(math.nan) == "nan|nan|nan"


# ---------------------------------------------------------------------------- repr(str)


def test_repr_of_strings_quotes_and_escapes_as_cpython():
    rng = random.Random(5)
    codes = list(range(300)) + [0x2028, 0xAD, 0x300, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF, 0x4E2D]
    pool = [chr(c) for c in codes]
    strings = ["", "'", '"', "'\"", "a'b", 'a"b', "\\", "\t\n\r", "\x7f\x80"]
    strings += ["".join(rng.choice(pool) for _ in range(rng.randint(0, 10))) for _ in range(3000)]
    assert ember.njit(texts_of)(strings) == (strings, [repr(s) for s in strings])


def parse_float(s):
    try:
        return float(s), ""
    except ValueError as error:
        return 0.0, str(error)


def test_float_of_special_words_and_bad_text():
    jitted = ember.njit(parse_float)
    for s in ("INF", "-iNfInItY", " nan ", "+Infinity", "infx", "in", "nann", "1e5", "x\n'"):
        expected, got = parse_float(s), jitted(s)
        assert repr(got) == repr(expected)


# ---------------------------------------------------------------------------- dicts of lists


def groups_by_setdefault(xs):
    groups = {}
    for i, x in enumerate(xs):
        groups.setdefault(x % 3, []).append(i)
    return groups


def groups_by_membership(xs):
    groups = {}
    for x in xs:
        if x % 4 not in groups:
            groups[x % 4] = []
        groups[x % 4].append(x * 0.5)
    return groups


def groups_by_get(xs):
    groups = {}
    for x in xs:
        members = groups.get(x % 2, [])
        members.append(x)
        groups[x % 2] = members
    return groups


def sets_by_setdefault(words):
    by_length = {}
    for word in words:
        by_length.setdefault(len(word), set()).add(word[0])
    return by_length


def nested_by_setdefault(pairs):
    table = {}
    for a, b in pairs:
        table.setdefault(a, {})[b] = a * b
    return table


def adjacency(edges):
    graph = {}
    for u, v in edges:
        if u not in graph:
            graph[u] = []
        if v not in graph:
            graph[v] = []
        graph[u].append(v)
        graph[v].append(u)
    return graph


def _as_python(d):
    return {
        k: (dict(v) if hasattr(v, "keys") else (set(v) if isinstance(v, set) else list(v)))
        for k, v in d.items()
    }


def test_empty_dict_of_empty_lists_takes_types_from_the_appends():
    rng = random.Random(11)
    inputs = [[5], [rng.randint(-20, 20) for _ in range(50)]]
    for func in (groups_by_setdefault, groups_by_membership, groups_by_get):
        jitted = ember.njit(func)
        for xs in inputs:
            got = jitted(xs)
            assert _as_python(got) == func(xs)
            assert list(got) == list(func(xs))  # insertion order


def test_empty_dict_of_sets_dicts_and_adjacency_lists():
    words = ["apple", "avocado", "kiwi", "banana", "fig", "grape", "berry"]
    assert _as_python(ember.njit(sets_by_setdefault)(words)) == sets_by_setdefault(words)
    pairs = [(1, 2), (1, 3), (2, 2), (3, 1)]
    assert _as_python(ember.njit(nested_by_setdefault)(pairs)) == nested_by_setdefault(pairs)
    edges = [(1, 2), (2, 3), (3, 1), (4, 4)]
    assert _as_python(ember.njit(adjacency)(edges)) == adjacency(edges)


def test_dict_of_lists_frees_its_lists():
    jitted = ember.njit(groups_by_setdefault)
    assert_frees_all(jitted, lambda: list(range(40)), calls=50)


def test_dict_whose_lists_never_get_items_is_a_clear_typing_error():
    def never_appended(xs):
        d = {}
        for x in xs:
            d.setdefault(x, [])
        return len(d)

    try:
        ember.njit(never_appended)([1])
    except ember.errors.TypingError as error:
        assert "empty containers stored as values in the dict 'd'" in str(error)
    else:
        raise AssertionError("expected a TypingError")


# ---------------------------------------------------------------------------- spreads


def spread_displays(t, xs, ys, s):
    nested = [[*xs], [*xs, 1]]
    grown = [*xs]
    grown.append(9)
    return [*t, 4], [*xs, *ys], [0, *xs, 7], [*range(3), *ys], [*s], nested, grown, xs


def spread_sets(xs, ys):
    return {*xs, 5}, {*xs, *ys}


def test_spreads_in_list_and_set_displays():
    jitted = ember.njit(spread_displays)
    for t, xs, ys, s in (
        ((1, 2, 3), [4, 5], [6], "ab"),
        ((7,), [8], [9], ""),
        ((0,), [1], [2, 3], "é"),
    ):
        assert jitted(t, list(xs), list(ys), s) == spread_displays(t, list(xs), list(ys), s)
    sets = ember.njit(spread_sets)
    for xs, ys in (([1, 2], {3, 4}), ([5, 5], {5})):
        assert sets(list(xs), set(ys)) == spread_sets(xs, ys)


# ---------------------------------------------------------------------------- heapq


def k_smallest_pairs(values, k):
    heap = []
    for x in values:
        heapq.heappush(heap, (-x, x))
        if len(heap) > k:
            heapq.heappop(heap)
    return sorted([x for _, x in heap])


def test_heappush_into_an_empty_list_decides_its_items():
    jitted = ember.njit(k_smallest_pairs)
    rng = random.Random(2)
    for n in (1, 5, 200):
        values = [rng.uniform(-10, 10) for _ in range(n)]
        assert jitted(values, 4) == k_smallest_pairs(values, 4)


# ---------------------------------------------------------------------------- bisect


def bisections(xs, x, lo, hi):
    found = (
        bisect.bisect_left(xs, x),
        bisect.bisect_right(xs, x),
        bisect.bisect(xs, x, lo),
        bisect.bisect_left(xs, x, lo, hi),
        bisect.bisect_right(xs, x, lo, hi),
    )
    grown = list(xs)
    bisect.insort(grown, x)
    bisect.insort_left(grown, x, lo)
    bisect.insort_right(grown, x - 1, lo, hi)
    return found, grown


def by_length(words, word):
    bisect.insort(words, word, key=len)
    return words, bisect.bisect_left(words, 2, key=len), bisect.bisect_right(words, 2, key=len)


def test_bisect_and_insort_as_cpython():
    jitted = ember.njit(bisections)
    rng = random.Random(4)
    for n in (1, 2, 7, 30):
        xs = sorted(rng.randint(-5, 5) for _ in range(n))
        for x in (-6, 0, 3, 6):
            for lo, hi in ((0, -1), (1, n), (0, 0), (n // 2, n), (2, 1)):
                assert jitted(list(xs), x, lo, hi) == bisections(list(xs), x, lo, hi)
    words = ["a", "cc", "dd", "eee"]
    assert ember.njit(by_length)(list(words), "bb") == by_length(list(words), "bb")
    with pytest.raises(ValueError, match="lo must be non-negative"):
        jitted([1, 2], 1, -1, 2)


# ---------------------------------------------------------------------------- sorting


def sort_lists_and_bools(xs):
    pairs = [[x % 3, -x] for x in xs]
    pairs.sort(reverse=True)
    flags = [x > 1 for x in xs]
    flags.sort()
    labelled = [(str(x % 2), [x, -x]) for x in xs]
    labelled.sort()
    return pairs, flags, labelled


def test_sort_lists_of_lists_bools_and_tuples_holding_lists():
    jitted = ember.njit(sort_lists_and_bools)
    rng = random.Random(9)
    for n in (1, 2, 20, 40):
        xs = [rng.randint(-5, 5) for _ in range(n)]
        assert jitted(xs) == sort_lists_and_bools(xs)


# ---------------------------------------------------------------------------- format(x, '.2f')

_C_SPECS = (".2f", ".0f", "f", "e", ".3e", "E", "g", ".10g", "G", "#.0f", "#g", "0.2f", "n", "F")


def c_conversions(x):
    return (
        format(x, ".2f"),
        format(x, ".0f"),
        format(x, "f"),
        format(x, "e"),
        format(x, ".3e"),
        format(x, "E"),
        format(x, "g"),
        format(x, ".10g"),
        format(x, "G"),
        format(x, "#.0f"),
        format(x, "#g"),
        format(x, "0.2f"),
        format(x, "n"),
        f"{x:F}",
    )


def test_plain_c_conversions_as_cpython():
    jitted = ember.njit(c_conversions)
    rng = random.Random(6)
    values = [0.0, -0.0, 1.5, -2.5, 2.675, 1e-7, 1e22, -1e300, 5e-324, math.inf, -math.inf]
    values += [math.nan, -math.nan] + [rng.uniform(-1e6, 1e6) for _ in range(200)]
    for x in values:
        assert jitted(x) == tuple(format(x, spec) for spec in _C_SPECS)
    assert jitted(7) == tuple(format(7, spec) for spec in _C_SPECS)
