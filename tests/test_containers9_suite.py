"""containers9: set methods that take any iterable (CPython's algorithms and result order),
str(int) and format()'s general int path through one digit writer, int()/float() of text with
CPython's whitespace rule, and programs of strings and containers that never import NumPy;
each checked against CPython."""

import random

import pytest

import ember
from tests.oracle import assert_frees_all
from tests.test_library_domains import run_fresh

# ---------------------------------------------------------------------------- sets and iterables


def set_methods_with_iterables(a, b):
    s = set(a)
    updated = [set(a) for _ in range(3)]
    updated[0].difference_update(b)
    updated[1].intersection_update(b)
    updated[2].symmetric_difference_update(b)
    results = [s.union(b), s.difference(b), s.intersection(b), s.symmetric_difference(b)]
    tests = (s.issubset(b), s.issuperset(b), s.isdisjoint(b))
    return [list(t) for t in results + updated], tests


compiled_set_methods = ember.njit(set_methods_with_iterables)


def _int_lists(rng, count):
    scale = rng.choice([1, 8, 64])  # multiples of 8 collide in small tables: probing order
    return [rng.randint(-40, 40) * scale for _ in range(count)]


def test_set_methods_take_iterables_in_cpythons_order():
    compiled = compiled_set_methods
    rng = random.Random(9)
    for _ in range(100):
        a = _int_lists(rng, rng.randint(1, 30))
        b = _int_lists(rng, rng.randint(1, 30))
        # the exact iteration order: CPython adds, discards and looks up in the list's order
        assert compiled(a, b) == set_methods_with_iterables(a, b), (a, b)
    a, b = [1, 2, 3], [3, 3, 2]
    assert compiled(a, b) == set_methods_with_iterables(a, b)
    assert compiled([1, 2], [1, 2, 2]) == set_methods_with_iterables([1, 2], [1, 2, 2])


def iterables_of_other_kinds(words, n):
    s = set(words)
    return (
        sorted(s.union(w.upper() for w in words)),
        sorted(s.intersection(("b", "c", "zz"))),
        sorted(set(range(n)).difference(range(2, n, 2))),
        set(range(n)).issuperset((0, 1)),
        s.isdisjoint("xyz"),
        set([1.5, 2.0]).union([1, 2]) == {1.5, 2.0, 1},
    )


def test_set_methods_take_generators_tuples_ranges_and_strings():
    compiled = ember.njit(iterables_of_other_kinds)
    for words, n in ((["a", "b", "c"], 9), (["zz", "y"], 0), (["x"], 1)):
        assert compiled(words, n) == iterables_of_other_kinds(words, n)


def test_set_operators_still_take_sets_only():
    @ember.njit
    def union_operator(a, b):
        return set(a) | b

    with pytest.raises(ember.errors.TypingError, match="All arguments must be Sets"):
        union_operator([1], [2])


def test_set_methods_with_iterables_free_what_they_make():
    assert_frees_all(
        compiled_set_methods, lambda: [1, 2, 3, 8, 16], lambda: [2, 16, 40, 2], calls=50
    )


# ---------------------------------------------------------------------------- empty on one path


def empty_on_one_path(text, n):
    fields = text.split(",") if text else []
    if n > 2:
        weights = {1: 2.5, n: 0.5}
    else:
        weights = {}
    seen = {n, 2 * n} if n else set()
    return fields, sorted(weights.items()), sorted(seen)


def words_or_nothing(text):
    if not text:
        return []
    return text.split()


def test_an_empty_container_on_one_path_takes_the_other_paths_type():
    compiled = ember.njit(empty_on_one_path)
    compiled_words = ember.njit(words_or_nothing)
    for text, n in (("a,b", 3), ("", 0), ("x y", 1), ("", 5)):
        assert compiled(text, n) == empty_on_one_path(text, n)
        assert compiled_words(text) == words_or_nothing(text)

    @ember.njit
    def never_decided(n):
        empty = []
        return len(empty)

    with pytest.raises(ember.errors.TypingError, match="item type of the empty list"):
        never_decided(1)


# ---------------------------------------------------------------------- str.method as a function


def unbound_string_methods(words):
    return (
        sorted(words, key=str.lower),
        sorted(words, key=str.casefold, reverse=True),
        min(words, key=str.swapcase),
        list(map(str.strip, words)),
        list(filter(str.isupper, words)),
        str.upper(words[0]),
        str.split(" a  b "),
        str.replace("aXa", "a", "b", 1),
        str.join("-", words),
        str.startswith(words[-1], ("B", "ß")),
    )


def test_str_methods_read_from_the_class_are_functions():
    compiled = ember.njit(unbound_string_methods)
    for words in ([" b ", "A", "a", "Bc", "ß", "É"], ["Zeta", "alpha", "BETA"], ["x"]):
        assert compiled(words) == unbound_string_methods(words)


# ---------------------------------------------------------------------------- int <-> text


def int_texts(values):
    out = []
    for v in values:
        out.append(str(v))
        out.append(f"{v:é>24,}")  # a non-ASCII fill takes format()'s general path
        out.append(format(v, "★^+22_x"))
    return out


def test_str_of_ints_and_general_format_path_match_cpython():
    import numpy as np

    compiled = ember.njit(int_texts)
    rng = random.Random(3)
    values = [0, 1, -1, 9, 10, -10, 99, 100, 2**63 - 1, -(2**63), 10**18, -(10**18) + 1]
    values += [rng.randint(-(2**63), 2**63 - 1) for _ in range(300)]
    values += [rng.randint(-1000, 1000) for _ in range(100)]
    assert compiled(values) == int_texts(values)

    @ember.njit
    def narrow_and_unsigned(a, b, c, d):
        return str(a), str(b), str(c), str(d), str(a < 0)

    for args in [(-128, 2**64 - 1, -32768, 0), (127, 0, 32767, 255)]:
        typed = (np.int8(args[0]), np.uint64(args[1]), np.int16(args[2]), np.uint8(args[3]))
        expected = tuple(str(int(x)) for x in typed) + (str(args[0] < 0),)
        assert narrow_and_unsigned(*typed) == expected


def _outcome(function, *args):
    try:
        return function(*args)
    except (ValueError, OverflowError) as error:
        return type(error).__name__, str(error)


INT_TEXTS = [
    "0", "-0", "+7", " 12 ", "\t-99\n", "1_000", "1__0", "_1", "1_", "0x1f", "0X1F", "0o17",
    "0b101", "012", "00", "0_0", "", " ", "-", "+", "１２３", "٣", "\u2003 42\u3000", "0x",
    "9223372036854775807", "-9223372036854775808", "abc", "z", "Z", "1e3", "1.0", "0x_1",
    "ａ", "12\x85", "\x0b5", "\xa05\x85", "\x1c5\x1f", "5\x1c", "é", "9" * 30,
]  # fmt: skip


def test_int_of_text_matches_cpython_in_every_base():
    @ember.njit
    def parse(s, base):
        return int(s, base)

    for text in INT_TEXTS:
        for base in (10, 0, 2, 8, 16, 36):
            expected = _outcome(int, text, base)
            if isinstance(expected, int) and not -(2**63) <= expected < 2**63:
                expected = ("OverflowError", "int() of this string does not fit in 64 bits")
            assert _outcome(parse, text, base) == expected, (text, base)


def test_float_of_text_strips_cs_whitespace_only():
    @ember.njit
    def parse(s):
        return float(s)

    texts = ["1.5\x1c", "\x1d2.5", " 1e3 ", "\xa0inf", "\x85nan\x85", "\x0b-2\x0c", "\x1f1"]
    for text in texts + INT_TEXTS:
        assert repr(_outcome(parse, text)) == repr(_outcome(float, text)), text


# ---------------------------------------------------------------------------- NumPy stays out


def test_strings_and_containers_compile_without_importing_numpy():
    body = """
        import sys
        import ember
        from ember import types
        from ember.typed import Dict

        @ember.njit
        def program(text):
            counts = {}
            for word in text.split():
                counts[word] = counts.get(word, 0) + 1
            ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
            typed = Dict.empty(types.unicode_type, types.int64)
            typed["a"] = int("12")
            floats = [float("2.5")]
            seen = set(counts.keys()).union(["q"])
            return (str(ranked), typed["a"], f"{floats[0]:.2f}", str(7), len(seen),
                    repr("x"), "a".encode(), str(1.25))

        print(program("b a b"))
        print("numpy" in sys.modules)
        """
    stdout = run_fresh(body)
    result, numpy_imported = stdout.strip().splitlines()
    expected = ("[('b', 2), ('a', 1)]", 12, "2.50", "7", 3, "'x'", b"a", "1.25")
    assert result == repr(expected)
    assert numpy_imported == "False"
