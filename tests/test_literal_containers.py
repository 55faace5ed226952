"""Literal lists (`['a', 1, 2j]`) and literal str-keyed dicts (`{'a': 1, 'b': 'cat'}`):
results checked against CPython running the same function, refusals against their messages,
`literal_value` against the display, and runtime blocks against leaks."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember import literal_unroll, njit, types
from ember.errors import TypingError
from ember.extending import overload


def same(got, expected) -> bool:
    if isinstance(expected, np.ndarray):
        return isinstance(got, np.ndarray) and np.array_equal(got, expected)
    if isinstance(expected, (list, tuple)):
        return (
            type(got) is type(expected)
            and len(got) == len(expected)
            and all(same(g, e) for g, e in zip(got, expected))
        )
    if isinstance(expected, dict):
        return (
            isinstance(got, dict)
            and list(got) == list(expected)
            and all(same(got[k], expected[k]) for k in expected)
        )
    if isinstance(expected, np.floating):  # NumPy's sum in CPython, a float from ember
        return isinstance(got, float) and got == expected
    return type(got) is type(expected) and got == expected


def assert_like_python(func, *args):
    expected = func(*args)
    got = njit(func)(*args)
    assert same(got, expected), (got, expected)


# ---------------------------------------------------------------------------- literal lists


def list_reads(x):
    items = ["a", x, 2j, 2.5, "a"]
    return len(items), items[0], items[1], items[-1], items[-3]


def list_membership(x):
    items = ["a", 1, "a", 2, "b", 3.5]
    return x in items, items.count(x)


def list_unrolled(x):
    items = ["ab", x, 1.5, "cde"]
    total = 0.0
    for item in literal_unroll(items):
        total += len(str(item))
    return total


def list_copy_and_return(x):
    items = ["a", x, np.arange(3.0)]
    return items.copy(), items


def list_of_arrays_and_strings(n):
    items = [np.ones(n), "s" * n, np.arange(n), ["x", "y"]]
    return items[0].sum() + items[2].sum() + len(items[1]) + len(items[3])


def list_joined(x):
    first = ["a", x]
    second = [2.5, "c"]
    return first + second, first * 2, len(first + second)


def list_merged(x):
    if x > 3:
        items = ["a", 1]
    else:
        items = ["bc", 2]
    return items[0], items[1]


@pytest.mark.parametrize("x", [-4, 7])
def test_literal_list_reads_as_python(x):
    assert_like_python(list_reads, x)
    assert_like_python(list_unrolled, x)
    assert_like_python(list_copy_and_return, x)
    assert_like_python(list_merged, x)
    assert_like_python(list_joined, x)


@pytest.mark.parametrize("x", ["a", "b", "z", 1, 2, 3.5, 7])
def test_literal_list_membership_and_count_as_python(x):
    assert_like_python(list_membership, x)


def test_literal_list_holding_arrays_and_strings_does_not_leak():
    compiled = njit(list_of_arrays_and_strings)
    assert compiled(4) == list_of_arrays_and_strings(4)
    before = ember.runtime.stats().live
    for _ in range(500):
        compiled(4)
    assert ember.runtime.stats().live == before


def test_homogeneous_list_display_keeps_its_list_type():
    @njit
    def homogeneous(x):
        items = [1, x, 3]
        items.append(4)
        return items

    assert homogeneous(2) == [1, 2, 3, 4]
    assert isinstance(homogeneous.nopython_signatures[0].return_type, types.List)


def append():
    items = ["a", 1]
    items.append(2j)


def extend():
    items = ["a", 1]
    items.extend([1, 2])


def insert():
    items = ["a", 1]
    items.insert(0, 2)


def remove():
    items = ["a", 1]
    items.remove("a")


def pop():
    items = ["a", 1]
    items.pop()


def clear():
    items = ["a", 1]
    items.clear()


def sort():
    items = ["a", 1]
    items.sort()


def reverse():
    items = ["a", 1]
    items.reverse()


def setitem():
    items = ["a", 1]
    items[0] = "b"


def delitem():
    items = ["a", 1]
    del items[0]


@pytest.mark.parametrize(
    "mutation", [append, extend, insert, remove, pop, clear, sort, reverse, setitem, delitem]
)
def test_literal_list_mutation_is_a_typing_error(mutation):
    with pytest.raises(TypingError, match="Cannot mutate a literal list"):
        njit(mutation)()


def test_literal_list_joins_only_a_literal_list():
    def with_tuple(x):
        return ["a", x] + ("b", 1)

    with pytest.raises(TypeError):  # as CPython refuses it
        with_tuple(1)
    with pytest.raises(TypingError, match="joins only another literal list"):
        njit(with_tuple)(1)


def test_literal_list_refusals():
    def run_time_index(i):
        items = ["a", 1]
        return items[i]

    def sliced():
        items = ["a", "b", 1]
        return items[:2]

    def index():
        items = ["a", 1]
        return items.index("a")

    def not_merged(x):
        if x > 3:
            items = ["a", 1, 2j]
        else:
            items = ["b", 2]
        return items[0]

    message = "Cannot __getitem__ on a literal list, return type cannot be statically determined"
    with pytest.raises(TypingError, match=message.replace("_", r"\_")):
        njit(run_time_index)(0)
    with pytest.raises(TypingError, match="Cannot __getitem__ on a literal list"):
        njit(sliced)()
    with pytest.raises(TypingError, match="list.index is unsupported for literal lists"):
        njit(index)()
    with pytest.raises(TypingError, match="Cannot unify LiteralList"):
        njit(not_merged)(5)


def describe(x):
    pass


@overload(describe)
def describe_impl(x):
    """The member types an overload sees, as constant strings (specialized on them)."""
    if isinstance(x, types.LiteralList):
        spelled = tuple(str(t) for t in x.literal_value)
    else:
        spelled = tuple(f"{k.literal_value}={v}" for k, v in x.literal_value.items())
    return lambda x: spelled


def test_literal_values_seen_by_an_overload():
    @njit
    def of_list():
        return describe(["a", 10, 1j, np.zeros(2)])

    @njit
    def of_dict():
        return describe({"a": 1, "b": "cat", "c": np.zeros(2), "a": 2j})  # noqa: F601

    literal_str, literal_int = types.literal("a"), types.literal(10)
    array = str(ember.typeof(np.zeros(2)))
    assert of_list() == (str(literal_str), str(literal_int), "complex128", array)
    # a repeated key keeps its first place and takes its last value, as in CPython
    assert of_dict() == ("a=complex128", f"b={types.literal('cat')}", f"c={array}")


# ---------------------------------------------------------------------------- literal dicts


def dict_reads(x):
    table = {"a": 1, "b": 2j, "c": "cat", "flag": x > 2, "arr": np.arange(3.0), "a": "aaaa"}  # noqa: F601
    return (
        len(table),
        table["a"],
        table["b"],
        table["flag"],
        table["arr"].sum(),
        "b" in table,
        "zz" in table,
        table.get("c"),
        table.get("missing", 5),
    )


def dict_views(x):
    table = {"a": x, "b": "cat", "c": 2.5}
    keys = ""
    for key in literal_unroll(table.keys()):
        keys += key
    width = 0
    for value in literal_unroll(table.values()):
        width += len(str(value))
    pairs = 0
    for pair in literal_unroll(table.items()):
        pairs += len(pair[0]) + len(str(pair[1]))
    return keys, width, pairs, table == table.copy()


def dict_keys_looped(x):
    table = {"a": x, "bc": "cat"}
    joined = ""
    for key in table:
        joined += key
    return joined, [key for key in table.keys()]


def dict_sharing_a_list(x):
    shared = [1, 2, 3]
    table = {"a": 1, "shared": shared, "c": "z"}
    table["shared"].append(x)  # the member is the list itself, as in CPython
    return table["shared"], shared


def dict_in_closure_and_unrolled_loop(x):
    def inner(y):
        table = {"a": y, "b": "cat"}
        return table["a"], table["b"]

    total = 0.0
    for value in literal_unroll((1, 2.5)):
        per_member = {"k": value, "s": "x"}
        total += per_member["k"]
    return inner(x), total


def dict_key_membership(key):
    table = {"a": 1, "bc": "cat"}
    return key in table


def dict_returned(x):
    return {"a": x, "b": "cat", "c": np.ones(2)}


def dict_merged(x):
    if x > 3:
        table = {"a": 2j, "c": "dog", "e": np.zeros(4)}
    else:
        table = {"a": 5j, "c": "CAT", "e": np.zeros(5)}
    return table["c"], table["e"].size


@pytest.mark.parametrize("x", [-1, 10])
def test_literal_dict_reads_as_python(x):
    assert_like_python(dict_reads, x)
    assert_like_python(dict_views, x)
    assert_like_python(dict_returned, x)
    assert_like_python(dict_merged, x)
    assert_like_python(dict_keys_looped, x)
    assert_like_python(dict_sharing_a_list, x)
    assert_like_python(dict_in_closure_and_unrolled_loop, x)


@pytest.mark.parametrize("key", ["a", "bc", "b", ""])
def test_literal_dict_membership_of_a_run_time_key(key):
    assert_like_python(dict_key_membership, key)


def test_homogeneous_dict_display_keeps_its_dict_type():
    @njit
    def homogeneous(x):
        table = {"a": 1, "b": x}
        table["c"] = 3
        return table

    assert dict(homogeneous(2)) == {"a": 1, "b": 2, "c": 3}
    assert isinstance(homogeneous.nopython_signatures[0].return_type, types.DictType)


def test_literal_dict_holding_arrays_and_strings_does_not_leak():
    def build(n):
        table = {"arr": np.ones(n), "s": "x" * n, "n": n, "xs": [1, 2]}
        return table["arr"].sum() + len(table["s"]) + table["n"] + len(table["xs"])

    compiled = njit(build)
    assert compiled(3) == build(3)
    before = ember.runtime.stats().live
    for _ in range(500):
        compiled(3)
    assert ember.runtime.stats().live == before


def dict_setitem():
    table = {"a": 1, "b": "cat"}
    table["a"] = 2


def dict_delitem():
    table = {"a": 1, "b": "cat"}
    del table["a"]


def dict_pop():
    table = {"a": 1, "b": "cat"}
    table.pop("a")


def dict_popitem():
    table = {"a": 1, "b": "cat"}
    table.popitem()


def dict_clear():
    table = {"a": 1, "b": "cat"}
    table.clear()


def dict_setdefault():
    table = {"a": 1, "b": "cat"}
    table.setdefault("f", 1)


@pytest.mark.parametrize(
    "mutation",
    [dict_setitem, dict_delitem, dict_pop, dict_popitem, dict_clear, dict_setdefault],
)
def test_literal_dict_mutation_is_a_typing_error(mutation):
    with pytest.raises(TypingError, match="Cannot mutate a literal dictionary"):
        njit(mutation)()


def test_literal_dict_run_time_key_is_a_typing_error():
    def getitem(key):
        table = {"a": 2j, "c": "d"}
        return table[key]

    def get(key):
        table = {"a": 2j, "c": "d"}
        return table.get(key)

    for func in (getitem, get):
        with pytest.raises(TypingError, match=r"Cannot get(\{item\})?\(\) on a literal dict"):
            njit(func)("a")


def test_literal_dict_keys_must_all_be_constant_strings():
    def mixed(key):
        return {key: 1, "b": "cat"}

    with pytest.raises(TypingError, match="Cannot make a dict of values"):
        njit(mixed)("a")


# ---------------------------------------------------------------------------- initial values


def seen_initial_value(x):
    pass


@overload(seen_initial_value)
def seen_initial_value_impl(x):
    """Returns the container, after asking for it as a literal; records what it saw."""
    seen_initial_value.log.append(x.initial_value)
    if x.initial_value is None:
        return lambda x: ember.literally(x)
    return lambda x: x


def test_initial_value_of_a_list_display_of_constants():
    def build():
        items = [1, 2, 3]
        items[2] = 20  # later stores change the list, not its initial value
        items.append(30)
        return seen_initial_value(items)

    seen_initial_value.log = []
    assert njit(build)() == [1, 2, 20, 30]  # what CPython's list ends as (the overload is x)
    # asked first without it (typing may ask again), then with the display's values
    assert seen_initial_value.log[0] is None and [1, 2, 3] in seen_initial_value.log


def test_initial_value_of_a_dict_display_of_constants_does_not_leak():
    def build(n):
        table = {"a": 1, "b": 2}
        table["c"] = n
        return len(seen_initial_value(table))

    seen_initial_value.log = []
    compiled = njit(build)
    assert compiled(5) == 3
    assert seen_initial_value.log[0] is None and {"a": 1, "b": 2} in seen_initial_value.log
    before = ember.runtime.stats().live
    for _ in range(300):
        compiled(5)
    assert ember.runtime.stats().live == before


def test_a_list_display_of_run_time_values_has_no_initial_value():
    @njit
    def build(n):
        return seen_initial_value([n, 2])

    seen_initial_value.log = []
    with pytest.raises(TypingError, match="literal"):
        build(1)
    assert seen_initial_value.log and all(seen is None for seen in seen_initial_value.log)


def test_printed_as_python_prints_the_displays(capfd):
    def show(x):
        print(["a", x, 2.5], {"a": x, "b": "cat"})

    njit(show)(3)
    compiled = capfd.readouterr().out
    show(3)
    assert compiled == capfd.readouterr().out
