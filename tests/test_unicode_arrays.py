"""NumPy string arrays in compiled code ('<U' and 'S' dtypes, and string fields of records):
elements read as str / bytes with trailing NULs stripped, stores truncate and NUL-pad, each
checked against the same Python function run on the NumPy array."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ember import njit, typeof, types
from ember.errors import TypingError

WORDS = np.array(["ab", "cde", "", "héllo", "a\x00b", "日本", "x\U0001f600"])
LABELS = np.array(["pion", "kaon", "pion", "proton", "kaon", "pion"])
CODES = np.array([b"ab", b"cde", b"", b"a\x00b", b"\xff\x01"])


def elements(s):
    return [s[i] for i in range(s.shape[0])], [len(s[i]) for i in range(s.shape[0])]


def iterate(s):
    out = []
    for item in s:
        out.append(item)
    return out


def count_equal(s, key):
    n = 0
    for i in range(s.shape[0]):
        if s[i] == key:
            n += 1
    return n, s.shape


def group_sums(labels, values):
    totals = {}
    for i in range(labels.shape[0]):
        totals[labels[i]] = totals.get(labels[i], 0.0) + values[i]
    return totals


def string_methods(s):
    return [s[i].upper() + "!" for i in range(s.shape[0]) if s[i] < "d"]


def grid_corners(s):
    return s[0, 0] + s[-1, -1], s[1][0]


@pytest.mark.parametrize("func", [elements, iterate, string_methods])
@pytest.mark.parametrize("s", [WORDS, LABELS], ids=["words", "labels"])
def test_reads_match_python(func, s):
    assert njit(func)(s) == func(s)


def test_types():
    assert typeof(np.array(["ab", "c"])) == types.Array(types.UnicodeCharSeq(2), 1, "C")
    assert typeof(CODES) == types.Array(types.CharSeq(3), 1, "C")


def test_equality_and_grouping():
    assert njit(count_equal)(LABELS, "pion") == count_equal(LABELS, "pion")
    values = np.arange(6.0)
    assert njit(group_sums)(LABELS, values) == group_sums(LABELS, values)


def test_two_dimensions_and_strided_views():
    grid = np.array([["a", "bb", "c"], ["ccc", "d", "ee"]])
    assert njit(grid_corners)(grid) == grid_corners(grid)
    assert njit(elements)(grid[:, 1]) == elements(grid[:, 1])
    assert njit(elements)(WORDS[::-2]) == elements(WORDS[::-2])


def test_bytes_arrays():
    @njit
    def item(s, i):
        return s[i], len(s[i])

    assert [item(CODES, i) for i in range(len(CODES))] == [(b, len(b)) for b in CODES]
    assert njit(lambda s: [len(b) for b in s])(CODES) == [len(b) for b in CODES]


def store_all(s, values):
    for i in range(len(values)):
        s[i] = values[i]
    return s


@pytest.mark.parametrize(
    "values", [["xyzzzzz", "q", "", "日本語", "a\x00", "ab\x00\x00c"], ["long enough", "é"]]
)
def test_stores_truncate_and_pad_as_numpy(values):
    ours, theirs = WORDS.copy(), WORDS.copy()
    result = njit(store_all)(ours, values)
    store_all(theirs, values)
    np.testing.assert_array_equal(ours, theirs)
    assert result.dtype == theirs.dtype
    np.testing.assert_array_equal(result, theirs)
    assert ours.view(np.uint32).tolist() == theirs.view(np.uint32).tolist()  # NULs too


def test_ascii_text_stores_into_bytes_arrays():
    ours, theirs = CODES.copy(), CODES.copy()
    njit(store_all)(ours, ["wxyz", "", "é"[:0] + "k"])
    store_all(theirs, ["wxyz", "", "k"])
    assert ours.tobytes() == theirs.tobytes()

    with pytest.raises(UnicodeError):
        njit(store_all)(CODES.copy(), ["é"])


def find_bytes(s, key):
    return [i for i in range(s.shape[0]) if s[i] == key.encode() or s[i] == b"\xff\x01"]


def test_bytes_elements_compare_with_bytes_constants_and_encoded_text():
    assert njit(find_bytes)(CODES, "cde") == find_bytes(CODES, "cde")


def test_bytes_constants_store_into_bytes_arrays():
    def store(s):
        s[0] = b"wxyz"
        s[1] = b""
        s[2] = b"\x00q"
        return s[0], len(s[2])

    ours, theirs = CODES.copy(), CODES.copy()
    assert njit(store)(ours) == store(theirs)
    assert ours.tobytes() == theirs.tobytes()


compiled_store_all, compiled_elements = njit(store_all), njit(elements)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=6), min_size=1, max_size=5), st.integers(1, 4))
def test_any_text_round_trips_as_numpy_stores_it(texts, width):
    ours = np.zeros(len(texts), dtype=f"U{width}")
    theirs = ours.copy()
    compiled_store_all(ours, texts)
    store_all(theirs, texts)
    assert ours.tobytes() == theirs.tobytes()
    assert compiled_elements(theirs) == elements(theirs)


PARTICLE = np.dtype([("name", "U8"), ("mass", "f8"), ("code", "S4")])


def particles():
    table = np.zeros(3, PARTICLE)
    table["name"] = ["e-", "proton", "muon"]
    table["mass"] = [0.511, 938.3, 105.7]
    table["code"] = [b"E", b"P", b"MU"]
    return table


def rename_and_weigh(table):
    heavy = 0.0
    for i in range(table.shape[0]):
        if table[i]["name"] == "muon" or table[i].code == b"P":
            heavy += table[i].mass
    table[0].name = "electron-long-name"
    table[1]["code"] = "PROTON"
    return heavy, table[2].code, table[0].name, len(table[1].name)


def test_string_fields_of_records():
    ours, theirs = particles(), particles()
    assert njit(rename_and_weigh)(ours) == rename_and_weigh(theirs.view(np.recarray))
    assert ours.tobytes() == theirs.tobytes()


def test_unsupported_uses_name_the_feature():
    @njit
    def fill_slice(s):
        s[0:2] = "x"

    with pytest.raises(TypingError, match="one element at a time"):
        fill_slice(WORDS.copy())

    @njit
    def store_number(s):
        s[0] = 3

    with pytest.raises(TypingError, match="stores a str, not int64"):
        store_number(WORDS.copy())


def comparisons(s, t, key):
    return s == key, s != key, key == s, s == t, s != t, key in s, (key * 3) in s


def comparisons_with_cde(s, t):
    return s == b"cde", s != b"cde", b"cde" == s, s == t, s != t, b"cde" in s, b"cdecdecde" in s


@pytest.mark.parametrize(
    "s, t, key",
    [
        (LABELS, LABELS[::-1], "pion"),
        (LABELS.reshape(2, 3), LABELS[::-1].reshape(2, 3), "kaon"),
        (CODES, CODES[::-1], b"cde"),
    ],
    ids=["1d", "2d", "bytes"],
)
def test_whole_array_comparisons_match_numpy(s, t, key):
    if isinstance(key, bytes):  # bytes cannot be passed in: the key is a constant
        got = njit(comparisons_with_cde)(s, t)
    else:
        got = njit(comparisons)(s, t, key)
    expected = comparisons(s, t, key)
    assert len(got) == len(expected)
    for ours, theirs in zip(got, expected):
        np.testing.assert_array_equal(ours, theirs)


def test_masks_from_labels_select_values():
    @njit
    def mean_of(labels, values, key):
        return values[labels == key].mean(), np.where(labels != key)[0]

    values = np.arange(6.0)
    mean, others = mean_of(LABELS, values, "pion")
    assert mean == values[LABELS == "pion"].mean()
    np.testing.assert_array_equal(others, np.where(LABELS != "pion")[0])


def test_comparing_arrays_of_two_shapes_names_the_limit():
    with pytest.raises(TypingError, match="broadcasting string arrays"):
        njit(lambda s, t: s == t)(LABELS.reshape(2, 3), LABELS[:3])


def test_bytes_elements_hash_as_cpython_and_key_dicts():
    @njit
    def tally(s):
        counts = {}
        for i in range(s.shape[0]):
            counts[s[i]] = counts.get(s[i], 0) + 1
        return counts[b"ab"], counts[b"\xff\x01"], len(counts), hash(s[4])

    codes = np.concatenate((CODES, CODES[:2]))
    expected = {}
    for code in codes:
        expected[code] = expected.get(code, 0) + 1
    last = b"\xff\x01"
    assert tally(codes) == (expected[b"ab"], expected[last], len(expected), hash(last))


def test_an_element_passed_from_python_is_a_str():
    greet = njit(lambda name: name + "!")
    assert greet(WORDS[3]) == WORDS[3] + "!"
    assert typeof(WORDS[0]) == types.unicode_type


def test_ndenumerate_gives_strings():
    @njit
    def listing(s):
        return [(index[0], item) for index, item in np.ndenumerate(s)]

    assert listing(WORDS) == [(i, w) for i, w in enumerate(WORDS)]


@pytest.mark.parametrize(
    "func, match",
    [
        (lambda s: s + s, "np.add of a NumPy string array"),
        (lambda s: np.multiply(s, 2), "np.multiply of a NumPy string array"),
        (lambda s: s.astype(np.float64), "astype from UnicodeCharSeq"),
    ],
    ids=["add", "multiply", "astype"],
)
def test_numeric_operations_on_string_arrays_name_the_feature(func, match):
    with pytest.raises(TypingError, match=match):
        njit(func)(WORDS)


@pytest.mark.parametrize(
    "source",
    ["s.sum()", "s.mean()", "s.max()", "np.argmin(s)", "s.cumsum()", "np.ones_like(s)"],
)
def test_numeric_reductions_and_fills_of_strings_are_typing_errors(source):
    namespace = {"np": np}
    exec(f"def f(s):\n    return {source}\n", namespace)  # noqa: S102
    with pytest.raises(TypingError, match="numbers and booleans"):
        njit(namespace["f"])(np.array(["ab", "cde"]))
