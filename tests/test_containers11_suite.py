"""containers11: format() with a spec known only at run time (parsed into code points, numbers
written by the ASCII paths, a wide fill put in afterwards), and typed Dict / Set / List used from
Python (iteration by views of the native entries, membership, indexing); each checked against
CPython (or a Python dict / list holding the same items)."""

import random

import pytest

import ember
from ember import types
from ember.typed import Dict, List, Set

# ---------------------------------------------------------------------------- run-time specs

_FILLS = ["", "*", "0", " ", "\x00", "é", "€", "\U0001f600"]
_ALIGNS = ["", "<", ">", "^", "="]
_REST = [
    "", "+", "-", " ", "#", "0", "12", "+#012", "-#1", " 08", ",", "_", "10,", "+012_",
    ".0", ".3", ".12", "#.0", "12.3", "z", ".", "5.x", "1,_",
]  # fmt: skip
_INT_CODES = ["", "b", "c", "d", "o", "x", "X", "n", "e", "E", "f", "F", "g", "G", "%", "s"]
_FLOAT_CODES = ["", "e", "E", "f", "F", "g", "G", "%", "n", "d", "c"]


def _specs(codes, count, seed):
    """`count` specs drawn from every part of the mini-language, some CPython refuses."""
    pick = random.Random(seed).choice
    specs = []
    for _ in range(count):
        align = pick(_ALIGNS)
        fill = pick(_FILLS) if align else ""
        specs.append(fill + align + pick(_REST) + pick(codes))
    return specs


def _outcome(format_with, value, spec):
    """format_with(value, spec), or the type and message of the ValueError/OverflowError."""
    try:
        return format_with(value, spec)
    except (ValueError, OverflowError) as error:
        return type(error).__name__, str(error)


@ember.njit
def _format_at_run_time(value, spec):
    return format(value, spec)


def _check_specs(values, specs):
    for value in values:
        for spec in specs:
            want = _outcome(format, value, spec)
            assert _outcome(_format_at_run_time, value, spec) == want, (value, spec)


def test_an_ints_run_time_spec_matches_cpython():
    """Every part of the spec for ints (any fill, 'c', '#' prefixes, grouping by 3 and 4, the
    float types of an int), with CPython's ValueErrors and their messages."""
    values = [0, -7, 65, -1234567, -(2**63), 0x10FFFF + 1]
    specs = _specs(_INT_CODES, 100, 11) + ["#c", "-c", "+c", "=5c", "x<05", "\x00>4", "é=+#9_x"]
    _check_specs(values, specs)


@ember.njit
def _coerced_zeros(x):
    return format(x, "z.1f"), f"{x:z}", f"{-x:+z.2%}", f"{x:*^z9.0e}"


def test_a_floats_and_a_bools_run_time_spec_match_cpython():
    floats = [0.0, -0.0, 1.5, -2.5e-7, 1e16, 123456.789, float("nan"), float("-inf")]
    _check_specs(floats, _specs(_FLOAT_CODES, 70, 12) + ["é^+#015,.3f", "€<12%", "😀>9"])
    _check_specs([True, False], ["", ">6", "d", "x", "c", "^7", "+", "e", "é>4"])
    for x in (-0.01, -0.0, 0.00004, -0.6, float("nan")):  # 'z' in a constant spec too
        assert _coerced_zeros(x) == _coerced_zeros.py_func(x)


def test_a_strs_and_a_complexs_run_time_spec_match_cpython():
    """str: precision cuts, wide text and fills; complex: the repr of each part with no type
    ('#' keeps a point), 'n' read as 'g', parentheses only with no type."""
    _check_specs(["", "ab", "é€😀x"], _specs(["", "s", "d"], 60, 13))
    values = [0j, -0j, complex(-0.0, 1), 1 + 1j, 1e16 + 2j, complex(2.5, float("nan"))]
    specs = ["", "#", "n", "#n", ",n", "<12", "*^20.3", "+.2e", "#.3", "10", "%", "=8", "08"]
    _check_specs(values, specs + ["é>+16.4g", "_", "#g"])


# ---------------------------------------------------------------------------- typed containers


def _int_dict(pairs):
    d = Dict.empty(types.int64, types.float64)
    for key, value in pairs:
        d[key] = value
    return d


@pytest.mark.filterwarnings("ignore:unsafe cast")  # Python ints given as uint64 keys
def test_typed_dict_iteration_reads_the_entries_as_a_python_dict_would():
    """Keys, values, items, `in` and equality after insertions and deletions (deleted entries
    skipped), for number, str and list values; the List values are the dict's own lists."""
    rng = random.Random(5)
    reference = {}
    d = _int_dict([])
    for _ in range(400):
        key = rng.randrange(-50, 50)
        if rng.random() < 0.3 and key in reference:
            del reference[key]
            del d[key]
        else:
            reference[key] = key / 4
            d[key] = key / 4
    assert list(d) == list(reference)
    assert list(d.keys()) == list(reference) and list(d.values()) == list(reference.values())
    assert list(d.items()) == list(reference.items()) and d == reference
    assert d.keys() == reference.keys() and d.items() == reference.items()  # views, as Python's
    assert d.keys() & {1, 2, 1000} == reference.keys() & {1, 2, 1000}
    assert len(d.values()) == len(reference) and ((7, 7 / 4) in d.items()) == (7 in reference)
    assert [key in d for key in range(-60, 60)] == [key in reference for key in range(-60, 60)]
    assert "x" not in d and 1.5 not in d  # another type's key: in no such dict
    for key_type, keys in (
        (types.uint64, [2**64 - 1, 0, 5, 7]),
        (types.float64, [1.5, -0.0, float("inf"), 2.0]),
        (types.int32, [-(2**31), 4, 2**31 - 1, 9]),
    ):  # keys read as 64-bit words, or one at a time
        table = Dict.empty(key_type, types.int64)
        for key in keys:
            table[key] = 1
        del table[keys[1]]
        assert list(table) == keys[:1] + keys[2:]
    words = Dict.empty(types.unicode_type, types.ListType(types.int64))
    for word in ("bb", "é", "a"):
        words[word] = List([len(word)])
    assert list(words) == ["bb", "é", "a"]
    for _word, items in words.items():
        items.append(0)  # the dict's own list
    assert [list(words[word]) for word in words] == [[2, 0], [1, 0], [1, 0]]


def test_typed_dict_iteration_goes_on_while_the_dict_changes():
    """Values replaced during iteration are read as they are; keys added are reached (the
    table may grow and move), as Numba's typed dict does (Python's raises instead)."""
    d = _int_dict((key, 0.0) for key in range(6))
    seen = []
    for key in d:
        seen.append(key)
        d[key] = 1.0
        if key == 2:
            for extra in range(100, 140):  # grows (moves) the table
                d[extra] = 2.0
    assert seen == list(range(6)) + list(range(100, 140))
    assert list(d.values()) == [1.0] * 46
    names = Set.empty(types.unicode_type)
    for name in ("c", "é", "a", "c"):
        names.add(name)
    assert sorted(names) == ["a", "c", "é"]


def test_typed_dict_get_setdefault_and_pop_of_missing_keys_answer_as_a_dict():
    d, reference = _int_dict([(1, 0.5), (2, 0.0)]), {1: 0.5, 2: 0.0}
    for table in (d, reference):  # (a stored 0.0 is found, not taken for a missing key)
        got = [table.get(key) for key in (1, 2, 3)] + [table.get(3, "x"), table.get(2, "x")]
        got += [table.setdefault(4, 2), table.setdefault(4, 9), table.pop(5, None)]
        got += [table.pop(4), table.pop(4, "gone"), sorted(table.items())]
        assert got == [0.5, 0.0, None, "x", 0.0, 2, 2, None, 2, "gone", [(1, 0.5), (2, 0.0)]]
    lists = Dict.empty(types.int64, types.ListType(types.int64))
    assert lists.get(1) is None
    lists.setdefault(1, List.empty_list(types.int64)).append(7)  # the dict's own list
    assert list(lists.get(1)) == [7] and lists.get(2, "none") == "none"


def test_typed_list_indexing_from_python_matches_a_list():
    values = [5, -3, 8, 0, 2]
    typed, plain = List(values), list(values)
    for index in range(-7, 7):
        for container in (typed, plain):
            try:
                container[index] = container[index] * 10
            except IndexError:
                pass
    assert list(typed) == plain
    try:
        typed[9]
        raise AssertionError("no IndexError")
    except IndexError:
        pass
    typed.remove(plain[1])
    plain.remove(plain[1])
    assert list(typed) == plain
    try:
        typed.remove(12345)
        raise AssertionError("no ValueError")
    except ValueError as error:
        assert str(error) == "list.remove(x): x not in list"  # CPython's words


def test_numbas_max_unicode_name_is_the_largest_code_point():
    """Numba's tests and extensions import `numba.cpython.unicode._MAX_UNICODE`."""
    import sys

    from ember.cpython.unicode import _MAX_UNICODE

    assert _MAX_UNICODE == sys.maxunicode
