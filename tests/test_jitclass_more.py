"""@jitclass protocols beyond operators: truth (`__bool__`, `__len__`), `str`/`repr`/f-strings
through `__str__`/`__repr__`, iteration through `__iter__`, `__contains__`/`__getitem__`/
`__setitem__`, instances as dict keys and set items (`__eq__`/`__hash__`), and string, dict and
set fields. Each class body is also run by CPython (`class_def`), the oracle for every result."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit, typed, types
from ember.errors import UnsupportedError
from ember.experimental import jitclass


class Bag:
    """Numbers with a label: truth, text, iteration, membership and items."""

    def __init__(self, values, label):
        self.values = values
        self.label = label
        self.size = len(values)

    def __bool__(self):
        return self.size > 0

    def __len__(self):
        return self.size

    def __iter__(self):
        return iter(self.values[: self.size])

    def __str__(self):
        return "Bag(" + self.label + ": " + str(self.size) + ")"

    def __repr__(self):
        return f"<Bag {self.label}>"

    def __contains__(self, x):
        for v in self.values[: self.size]:
            if v == x:
                return True
        return False

    def __getitem__(self, i):
        return self.values[i]

    def __setitem__(self, i, v):
        self.values[i] = v


class Squares:
    """`__len__` alone gives truth; a generator `__iter__`."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __iter__(self):
        for i in range(self.n):
            yield i * i


class Key:
    """Equal by value, hashed by value: usable as a dict key and a set item."""

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __eq__(self, other):
        return self.a == other.a and self.b == other.b

    def __hash__(self):
        return hash((self.a, self.b))


class WordCounter:
    """A string field and a typed-dict field."""

    def __init__(self, name):
        self.name = name
        self.counts = typed.Dict.empty(types.unicode_type, types.int64)
        self.seen = {0}

    def add(self, word):
        self.counts[word] = self.counts.get(word, 0) + 1
        self.seen.add(len(word))

    def __len__(self):
        return len(self.counts)

    def __contains__(self, word):
        return word in self.counts

    def __getitem__(self, word):
        return self.counts[word]


JBag = jitclass(
    [("values", types.float64[:]), ("label", types.unicode_type), ("size", types.int64)]
)(Bag)
JSquares = jitclass([("n", types.int64)])(Squares)
JKey = jitclass([("a", types.int64), ("b", types.int64)])(Key)
JWordCounter = jitclass(
    [
        ("name", types.unicode_type),
        ("counts", types.DictType(types.unicode_type, types.int64)),
        ("seen", types.Set(types.int64)),
    ]
)(WordCounter)


def bag_scenario(make, values, label, probe):
    bag = make(values.copy(), label)
    total = 0.0
    for v in bag:
        total += v
    truth = (1 if bag else 0, bool(bag), not bag)
    text = (str(bag), repr(bag), f"[{bag}]")
    found = probe in bag
    if len(bag):
        bag[0] = bag[0] + 1.0
    return total, truth, text, found, len(bag)


def squares_scenario(make, n):
    squares = make(n)
    collected = [s for s in squares]
    last = collected[-1] if len(collected) else -1
    return len(collected), last, bool(squares), not squares, sum(collected)


def keys_scenario(make, firsts, seconds):
    counts = {make(-1, -1): 0}
    del counts[make(-1, -1)]
    items = {make(-1, -1)}
    items.discard(make(-1, -1))
    for a, b in zip(firsts, seconds):
        key = make(a % 3, b % 2)
        counts[key] = counts.get(key, 0) + 1
        items.add(make(b % 2, a % 3))
    probe = make(1, 1)
    return len(counts), counts.get(probe, -1), len(items), probe in items


def words_scenario(make, text):
    counter = make("words")
    for word in text.split():
        counter.add(word)
    first = text.split()[0] if text.split() else ""
    return len(counter), first in counter, counter[first] if first in counter else 0, counter.name


jit_bag_scenario = njit(bag_scenario)
jit_squares_scenario = njit(squares_scenario)
jit_keys_scenario = njit(keys_scenario)
jit_words_scenario = njit(words_scenario)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-5, 5, allow_nan=False), max_size=6),
    st.text(max_size=6),
    st.sampled_from([0.0, 1.0, -2.5]),
)
def test_bag_protocols(values, label, probe):
    values = np.array(values, dtype=np.float64)
    expected = bag_scenario(Bag, values, label, probe)
    assert jit_bag_scenario(JBag, values, label, probe) == expected


@pytest.mark.parametrize("n", [0, 1, 5])
def test_length_truth_and_generator_iteration(n):
    assert jit_squares_scenario(JSquares, n) == squares_scenario(Squares, n)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=12))
def test_instances_as_dict_keys_and_set_items(pairs):
    firsts = np.array([a for a, _ in pairs], dtype=np.int64)
    seconds = np.array([b for _, b in pairs], dtype=np.int64)
    assert jit_keys_scenario(JKey, firsts, seconds) == keys_scenario(Key, firsts, seconds)


@settings(max_examples=30, deadline=None)
@given(st.text(st.sampled_from("ab cé"), max_size=20))
def test_string_and_dict_fields(text):
    assert jit_words_scenario(JWordCounter, text) == words_scenario(WordCounter, text)


def test_the_protocols_work_on_instances_from_python():
    bag = JBag(np.array([1.0, 2.0]), "xy")
    assert (str(bag), repr(bag), list(bag), bool(bag), 2.0 in bag, len(bag)) == (
        "Bag(xy: 2)",
        "<Bag xy>",
        [1.0, 2.0],
        True,
        True,
        2,
    )
    assert not JBag(np.zeros(0), "")
    assert list(JSquares(3)) == [0, 1, 4]
    counter = JWordCounter("w")
    counter.add("hi")
    assert (counter.name, dict(counter.counts), "hi" in counter) == ("w", {"hi": 1}, True)


def test_unsupported_iter_names_the_forms_it_takes():
    class Odd:
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            it = iter(range(self.n))
            return it

    odd = jitclass([("n", types.int64)])(Odd)

    @njit
    def walk(o):
        total = 0
        for x in o:
            total += x
        return total

    with pytest.raises(UnsupportedError, match=r"return iter\(<expression>\)"):
        walk(odd(3))


def test_protocols_leak_nothing():
    bag = JBag(np.arange(4.0), "leak")
    args = [(jit_bag_scenario, (JBag, np.arange(3.0), "q", 1.0))]
    args += [(jit_squares_scenario, (JSquares, 4)), (jit_words_scenario, (JWordCounter, "a b a"))]
    args += [(jit_keys_scenario, (JKey, np.arange(5), np.arange(5) % 2))]
    for func, call_args in args:
        func(*call_args)
    str(bag)
    gc.collect()  # arrays other tests left for the collector must not be freed mid-count
    before = ember.runtime.stats().live
    for _ in range(300):
        for func, call_args in args:
            func(*call_args)
        str(bag)
    gc.collect()
    assert ember.runtime.stats().live == before


@njit
def container_truth(xs, s, n):
    d = {n: 1.0}
    if n < 0:
        d.clear()
    return (1 if xs else 0, not xs, 1 if s else 0, bool(s), not s, not d, not {n}, bool(d))


@pytest.mark.parametrize(("xs", "s", "n"), [([], "", -1), ([1.0], "a", 3), ([0.0, 0.0], "é", 0)])
def test_truth_of_lists_strings_dicts_and_sets(xs, s, n):
    expected = container_truth.py_func(list(xs), s, n)
    passed = typed.List.empty_list(types.float64)
    for x in xs:
        passed.append(x)
    assert container_truth(passed, s, n) == expected


def test_boxes_dropped_from_python_release_natively_and_free_their_fields():
    from ember.jitclasses.box import JitClassBox, slot_offset

    @jitclass([("weights", types.float64[:]), ("scale", types.float64)])
    class Layer:
        def __init__(self, n, scale):
            self.weights = np.arange(n) * scale
            self.scale = scale

    @njit
    def make(n, scale):
        return Layer(n, scale)

    first = make(3, 2.0)
    np.testing.assert_array_equal(first.weights, np.arange(3) * 2.0)
    if slot_offset("_meminfo") is not None:  # the compiled release replaces the Python one
        assert type(JitClassBox.__dict__["__del__"]).__name__ == "method_descriptor"
    del first
    gc.collect()
    before = ember.runtime.stats()
    for n in range(50):
        assert make(n, 0.5).weights.sum() == sum(range(n)) * 0.5  # box and array dropped
        Layer(n, 1.0)  # made by Python's call of the class
    try:
        raise KeyError("kept")
    except KeyError as error:
        make(4, 1.0)  # a box released while an exception is being handled leaves it alone
        assert error.args == ("kept",)
    gc.collect()
    after = ember.runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free >= 200
