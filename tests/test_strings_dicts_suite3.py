"""Strings and dicts against CPython (and NumPy for its scalars): tuple keys holding string
constants, `Dict(pairs)` in and out of compiled code, Optional separators, container types
spelled in compiled code, uint64/float32 text, `join` of any iterable, dict union and views."""

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit, types
from ember.errors import TypingError
from ember.runtime import nrt
from ember.typed import Dict, List

TEXT = st.text(alphabet="ab \t\n-é€😀ß", max_size=12)
SEPARATORS = st.sampled_from(["", "-", "a", "é", " ", "ab"])


def _live_blocks() -> int:
    gc.collect()
    stats = nrt.stats()
    return stats.alloc - stats.free


# ---------------------------------------------------------------------------- tuple keys


def _tuple_keys(n):
    d = {(1, "a"): 1.0}
    d[(2, "bé")] = 2.0
    s = {(1, "x")}
    s.add((n, "yy"))
    xs = [(1, "a")]
    xs.append((n, "b"))
    return d[(1, "a")] + d[(2, "bé")], len(s), xs, list(d.items())


def test_tuple_keys_with_string_constants_take_other_strings():
    assert njit(_tuple_keys)(3) == _tuple_keys(3)


# ---------------------------------------------------------------------------- Dict(pairs)


@njit
def _dict_of_zip(keys, values):
    return Dict(zip(keys, values))


@njit
def _dict_of_tuple():
    return Dict(((1, "a"), (2, "bc")))


@njit
def _dict_of_enumerate(text):
    return Dict(enumerate(text))


def test_dict_from_pairs_in_compiled_code():
    assert dict(_dict_of_zip(np.arange(3), np.ones(3))) == {0: 1.0, 1: 1.0, 2: 1.0}
    assert dict(_dict_of_tuple()) == {1: "a", 2: "bc"}
    assert dict(_dict_of_enumerate("hé")) == dict(enumerate("hé"))


@pytest.mark.parametrize(
    "source", ["Dict(3)", "Dict({1: 2, 3: 4})", "Dict(((1, 'a'), (2, 'b', 3)))"]
)
def test_dict_of_something_else_is_a_typing_error(source):
    compiled = njit(eval("lambda: " + source, {"Dict": Dict}))
    with pytest.raises(TypingError, match="No implementation"):
        compiled()


@pytest.mark.parametrize("bad", [((1, "a"), (2, "b", 3)), [1], [(1, 2), "abc"]])
def test_typed_dict_update_errors_match_cpython(bad):
    with pytest.raises(Exception) as expected:
        dict(bad)
    with pytest.raises(type(expected.value), match=str(expected.value)):
        Dict(bad)
    with pytest.raises(TypeError, match="expected at most 1 argument, got 2"):
        Dict([(1, 2)], [(3, 4)])
    made = Dict()
    made.update([(1, 2)])
    made.update({3: 4})
    assert dict(made) == {1: 2, 3: 4}


# ---------------------------------------------------------------------------- Optional sep


def _split_optional(s, t, n):
    return s.split(t or None, n), s.rsplit(t or None, n)


@settings(max_examples=25, deadline=None)
@given(TEXT, SEPARATORS, st.integers(-1, 4))
def test_split_with_an_optional_separator_matches_cpython(s, t, n):
    assert _compiled_split(s, t, n) == _split_optional(s, t, n)


_compiled_split = njit(_split_optional)


# ---------------------------------------------------------------------------- spelled types


@njit
def _spelled_container_types(n):
    pairs = Dict.empty(types.unicode_type, types.UniTuple(types.int64, 2))
    pairs["a"] = (1, n)
    mixed = Dict.empty(types.int64, types.Tuple((types.int64, types.unicode_type)))
    mixed[1] = (n, "x")
    groups = Dict.empty(types.int64, types.ListType(types.int64))
    for i in range(n):
        if i % 2 not in groups:
            groups[i % 2] = List.empty_list(types.int64)
        groups[i % 2].append(i)
    nested = Dict.empty(types.int64, types.DictType(types.int64, types.float64))
    return pairs["a"], mixed[1], list(groups[0]), list(groups[1]), len(nested)


def test_container_types_spelled_in_compiled_code():
    assert _spelled_container_types(5) == ((1, 5), (5, "x"), [0, 2, 4], [1, 3], 0)


# ---------------------------------------------------------------------------- errors


def test_a_display_of_mixed_values_is_reported_before_the_empty_dict_it_leaves():
    @njit
    def mixed():
        a = {0: "A", 1: "B", 2: 1j}
        return {3 + i: a[i] for i in range(3)}

    with pytest.raises(TypingError, match="Cannot cast complex128 to unicode_type"):
        mixed()


def test_a_key_that_does_not_fit_names_the_cast():
    @njit
    def bad_key():
        d = {1: 2.0}
        d[1.5] = 3.0
        return d

    with pytest.raises(TypingError, match="cannot safely cast float64 to int64"):
        bad_key()


# ---------------------------------------------------------------------------- number text


@njit
def _unsigned_texts(x):
    return str(x), f"{x}", f"{x:d}", f"{x:,}", f"{x:x}", f"{x:>25}", hex(x)


@pytest.mark.parametrize("value", [2**64 - 1, 2**63, 2**63 - 1, 2**63 + 12345, 0, 7])
def test_uint64_text_matches_cpython(value):
    x = np.uint64(value)
    expected = (str(x), f"{x}", f"{x:d}", f"{x:,}", f"{x:x}", f"{x:>25}", hex(value))
    assert _unsigned_texts(x) == expected


@njit
def _float32_texts(x):
    return str(x), f"{x}", f"{x:.3f}", f"{x:g}"


@settings(max_examples=25, deadline=None)
@given(st.floats(width=32, allow_nan=False))
def test_float32_text_matches_numpy(value):
    x = np.float32(value)
    assert _float32_texts(x) == (str(x), f"{x}", f"{x:.3f}", f"{x:g}")


@pytest.mark.parametrize("value", [0.1, 1e6, 999999.94, 1e-4, 1.5e-5, 123456789.0, 3.4e38, -2.5])
def test_float32_cutoffs_match_numpy(value):
    x = np.float32(value)
    assert _float32_texts(x) == (str(x), f"{x}", f"{x:.3f}", f"{x:g}")


def _radix_and_none(x):
    return hex(x), oct(x), bin(x), hex(-x), bin(0), str(None), repr(None), f"{None}"


_compiled_radix_and_none = njit(_radix_and_none)


@pytest.mark.parametrize("value", [0, 1, 255, 2**62])
def test_hex_oct_bin_and_none_text(value):
    assert _compiled_radix_and_none(value) == _radix_and_none(value)


# ---------------------------------------------------------------------------- join


def _joins(s, words):
    d = {w: len(w) for w in words}
    return (
        ",".join(str(len(w)) for w in words),
        "".join(map(str, [1, 2, 3])),
        s.join(d),
        s.join(d.keys()),
        "|".join(sorted(set(words))),
        "".join(iter(words)),
        s.join(reversed(words)),
        "".join(c.upper() for c in s if c != "a"),
    )


_compiled_joins = njit(_joins)


@settings(max_examples=25, deadline=None)
@given(TEXT, st.lists(TEXT, max_size=4))
def test_join_of_any_iterable_of_strings_matches_cpython(s, words):
    if not words:
        words = ["x"]
    assert _compiled_joins(s, List(words)) == _joins(s, list(words))


# ---------------------------------------------------------------------------- dict operators


def _dict_operators(n):
    a = {"x": 1, "y": 2}
    b = {"y": 3, "zé": n}
    c = a | b
    a |= b
    e = {1: 2.5}
    e |= {2: 1.0}
    return (
        sorted(c.items()),
        sorted(a.items()),
        3 in a.values(),
        9 in a.values(),
        ("y", 3) in a.items(),
        ("y", 4) in a.items(),
        sorted(e.items()),
        2.5 in e.values(),
        "zé" in a.keys(),
    )


_compiled_dict_operators = njit(_dict_operators)


@pytest.mark.parametrize("n", [0, 3, 9])
def test_dict_union_and_view_membership_match_cpython(n):
    assert _compiled_dict_operators(n) == _dict_operators(n)


# ---------------------------------------------------------------------------- ascii flag


@njit
def _ascii_flags(s):
    return s._is_ascii, s[::2]._is_ascii, (s + "é")._is_ascii


@settings(max_examples=25, deadline=None)
@given(TEXT)
def test_ascii_flag_follows_isascii(s):
    assert _ascii_flags(s) == (int(s.isascii()), int(s[::2].isascii()), 0)


# ---------------------------------------------------------------------------- leaks


def test_new_paths_do_not_leak():
    split = _compiled_split
    calls = [
        lambda: split("a b-c", "", 1),
        lambda: split("a b-c", "-", -1),
        lambda: _compiled_joins("é", List(["ab", "c"])),
        lambda: _dict_of_zip(np.arange(3), np.ones(3)),
        lambda: _dict_of_tuple(),
        lambda: _spelled_container_types(4),
        lambda: _unsigned_texts(np.uint64(2**64 - 1)),
        lambda: _float32_texts(np.float32(0.1)),
    ]
    for call in calls:
        call()
    before = _live_blocks()
    for _ in range(20):
        for call in calls:
            call()
    assert _live_blocks() == before


# ---------------------------------------------------------------------------- container text


def _container_texts(xs, pair, s):
    d = {"a": 1.5, s: -2.0}
    return (
        str(xs),
        repr(xs),
        str(pair),
        str((1,)),
        str(()),
        str(d),
        f"{xs}",
        str([s, "it's"]),
        str([[1, 2], [3]]),
        str((1, "a", 2.5, None, True)),
        str([(1, "x")]),
        repr({1: [1.0]}),
        str([1 + 2j]),
    )


_compiled_container_texts = njit(_container_texts)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=4), TEXT)
def test_str_and_repr_of_containers_match_cpython(xs, s):
    if not xs:
        xs = [0]
    expected = _container_texts(xs, (3, 4.5), s)
    assert _compiled_container_texts(xs, (3, 4.5), s) == expected


# ---------------------------------------------------------------------------- bytes


def _bytes_operations(a, b, n):
    return (
        a + b,
        a * n,
        n * b,
        97 in a,
        255 in a,
        b"bc" in a,
        b"" in b,
        list(a),
        a < b,
        a <= a,
        b > a,
        a >= b,
        a + b"\xff\x00",
    )


_compiled_bytes_operations = njit(_bytes_operations)


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=6), st.binary(max_size=3), st.integers(0, 3))
def test_bytes_operations_match_cpython(a, b, n):
    assert _compiled_bytes_operations(a, b, n) == _bytes_operations(a, b, n)


def test_a_byte_outside_0_255_is_cpythons_value_error():
    @njit
    def contains(b, x):
        return x in b

    with pytest.raises(ValueError, match="byte must be in range"):
        contains(b"a", 300)


def test_bytes_arguments_with_container_results_do_not_leak():
    @njit
    def split_bytes(a, b):
        return list(a + b), a * 2, (a, 1)

    assert split_bytes(b"abc", b"d") == ([97, 98, 99, 100], b"abcabc", (b"abc", 1))
    before = _live_blocks()
    for _ in range(50):
        split_bytes(b"abc", b"d")
    assert _live_blocks() == before


# ---------------------------------------------------------------------------- typed Dict


def test_typed_dict_union_reversed_and_copy_from_python():
    d = Dict.empty(types.unicode_type, types.int64)
    d["a"], d["bé"] = 1, 2
    plain = {"a": 1, "bé": 2}
    union = d | {"c": 3}
    assert isinstance(union, Dict) and dict(union) == plain | {"c": 3}
    d |= {"z": 0}
    plain |= {"z": 0}
    assert dict(d) == plain
    assert list(reversed(d)) == list(reversed(plain))
    assert dict(Dict().copy()) == {}


def _update_from_pairs(n):
    d = {}
    d.update([(1, "a")])
    d.update(((2, "b"), (n, "cd")))
    e = {}
    e.update(zip("ab", range(n)))
    return sorted(d.items()), sorted(e.items())


@pytest.mark.parametrize("n", [0, 2, 5])
def test_dict_update_from_pairs_matches_cpython(n):
    assert _compiled_update_from_pairs(n) == _update_from_pairs(n)


_compiled_update_from_pairs = njit(_update_from_pairs)


# ---------------------------------------------------------------------------- __str__/__repr__


def test_str_and_repr_call_a_jitclass_dunder_method():
    from ember.experimental import jitclass

    @jitclass([("x", types.int64)])
    class WithStr:
        def __init__(self, x):
            self.x = x

        def __str__(self):
            return "WithStr(" + str(self.x) + ")"

    @jitclass([("x", types.int64)])
    class WithRepr:
        def __init__(self, x):
            self.x = x

        def __repr__(self):
            return "WithRepr<" + str(self.x) + ">"

    @njit
    def texts(n):
        a, b = WithStr(n), WithRepr(n)
        return str(a), str(b), repr(b), f"{a}|{b}"

    assert texts(3) == ("WithStr(3)", "WithRepr<3>", "WithRepr<3>", "WithStr(3)|WithRepr<3>")
