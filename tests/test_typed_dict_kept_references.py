"""Reading a typed.Dict from Python leaves the references its members hold untouched:
string, array and tuple-of-string keys and values made in compiled code stay valid."""

import numpy as np

import ember
from ember import njit, types
from ember.typed import Dict, List


@njit
def count_words(words):
    d = Dict.empty(key_type=types.unicode_type, value_type=types.int64)
    for w in words:
        d[w] = d.get(w, 0) + 1
    return d


PAIR = types.UniTuple(types.unicode_type, 2)
VECTOR = types.float64[:]


@njit
def pairs_to_arrays(words):
    d = Dict.empty(key_type=PAIR, value_type=VECTOR)
    for i in range(len(words) - 1):
        d[(words[i], words[i + 1])] = np.full(2, float(i))
    return d


def _typed_list(items):
    typed = List()
    for item in items:
        typed.append(item)
    return typed


def test_string_keys_survive_repeated_reads_from_python():
    text = "the cat and the dog and the bird".split()
    before = ember.runtime.stats().live
    counts = count_words(_typed_list(text))
    expected = {}
    for word in text:
        expected[word] = expected.get(word, 0) + 1
    for _ in range(20):  # each read used to release the keys' strings once more
        assert dict(counts.items()) == expected
        assert sorted(counts.keys()) == sorted(expected)
        assert counts["the"] == 3
    del counts
    assert ember.runtime.stats().live == before


def test_tuple_keys_and_array_values_survive_reads():
    words = "a b c".split()
    before = ember.runtime.stats().live
    table = pairs_to_arrays(_typed_list(words))
    for _ in range(10):
        items = dict(table.items())
        assert sorted(items) == [("a", "b"), ("b", "c")]
        np.testing.assert_array_equal(items[("b", "c")], [1.0, 1.0])
    del table, items
    assert ember.runtime.stats().live == before
