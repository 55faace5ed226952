"""Dicts in compiled code: each function runs jitted and as its own `py_func` (CPython is the
oracle), including random operation sequences from hypothesis, KeyError cases and leak checks."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit
from ember.errors import TypingError


def _outcome(func, *args):
    try:
        return ("ok", func(*args))
    except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
        return ("raised", type(error), error.args)


def _same(func, *args):
    jitted = njit(func)
    assert _outcome(jitted, *args) == _outcome(func, *args)


def _plain(value):
    """A returned typed.Dict as a plain dict (tuples and lists of them too)."""
    if isinstance(value, ember.typed.Dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


# ---------------------------------------------------------------------------- operations


def literal_sum():
    d = {1: 2.0, 3: 4}
    return d[1] + d[3], len(d)


def iterate(n):
    d = {i: i * i for i in range(n)}
    keys = 0
    for k in d:
        keys = keys * 3 + k
    values = 0
    for v in d.values():
        values = values * 3 + v
    items = 0
    for k, v in d.items():
        items += k * v
    return keys, values, items, len(d.keys()), len(d.values()), 3 in d.keys()


def get_pop_del(n):
    d = {i: float(i) for i in range(n)}
    a = d.get(3, -1.0)
    b = d.get(100, -1.0)
    c = d.pop(2)
    e = d.pop(200, 7.5)
    del d[4]
    x = d.get(5)
    y = -1.0 if x is None else x
    z = d.get(4)
    return a, b, c, e, len(d), 4 in d, 5 in d, 4 not in d, y, z is None


def missing_key(k):
    d = {1: 2}
    return d[k]


def missing_delete(k):
    d = {1: 2}
    del d[k]
    return len(d)


def missing_pop(k):
    d = {1: 2.5}
    return d.pop(k)


def missing_tuple_key():
    d = {(1, 2): 3}
    return d[(3, 4)]


def popitems():
    d = {1: 2, 3: 4, 5: 6}
    a = d.popitem()
    b = d.popitem()
    d[7] = 8
    c = d.popitem()
    return a, b, c, len(d)


def popitem_empty():
    d = {1: 2}
    d.popitem()
    return d.popitem()


def setdefaults():
    d = {1: 1.5}
    a = d.setdefault(1, 3.0)
    b = d.setdefault(2, 4.0)
    return a, b, len(d), d[2]


def update_copy_clear():
    d = {1: 1.0}
    e = {2: 2.0, 1: 5.0}
    d.update(e)
    f = d.copy()
    f[9] = 9.0
    g = dict(f)
    d.clear()
    d[4] = 4.0
    return len(d), len(f), f[1], d == f, f == f.copy(), f != d, bool(d), bool(f), g == f


def deletes_then_inserts(n):
    d = {}
    for i in range(n):
        d[i] = i
    for i in range(0, n, 2):
        del d[i]
    for i in range(n, 2 * n):
        d[i] = i
    order = 0
    for k, v in d.items():
        order = (order * 31 + k * 3 + v) % 1000003
    return order, len(d)


def tuple_keys():
    d = {(1, 2): 3, (4, 5): 6}
    d[(1, 2)] = 10
    return d[(1, 2)], (4, 5) in d, (7, 8) in d


def float_keys():
    d = {1.5: 1, 2.0: 2, -0.0: 7}
    return d[1.5], d[2], 2 in d, d[0.0], 0 in d


def bool_keys():
    d = {True: 1, False: 0}
    d[True] = 5
    return d[True], len(d)


def empty_is_false():
    d = {}
    if not d:
        d[1] = 1
    if d:
        d[2] = 2
    return len(d)


def typed_by_dict_builtin():
    d = dict()
    d[1] = 2.5
    return d[1]


def mixed_values():
    d = {1: 1, 2: 2.5}
    return d[1], d[2]


def comprehension_with_condition(n):
    d = {i: i * 0.5 for i in range(n) if i % 3}
    return len(d), sum([v for v in d.values()])


def negative_and_large_keys():
    d = {}
    keys = (-1, -2, 2**62, -(2**63), 2**61 - 1, 2**61, 0)
    for k in keys:
        d[k] = k % 7
    total = 0
    for k in keys:
        total += d[k]
    return total, len(d)


def colliding_keys(n):
    """Keys that share their low bits: the probe must spread them."""
    d = {}
    for i in range(n):
        d[i << 20] = i
    total = 0
    for i in range(n):
        total += d[i << 20]
    return total


def conversions_and_reductions():
    d = {3: 1.0, 1: 2.0, 2: 0.5}
    return (
        list(d), sorted(d), list(d.items()), list(d.values()), sum(d.values()),
        sorted(d.values(), reverse=True), min(d), max(d), min(d.values()), sum(d),
    )  # fmt: skip


def grows_while_iterating():
    d = {1: 1, 2: 2}
    for k in d:
        d[k + 10] = 1
    return len(d)


def shrinks_while_iterating():
    d = {1: 1, 2: 2}
    for _ in d.items():
        d.popitem()
    return len(d)


def same_size_while_iterating():
    d = {1: 1, 2: 2}
    for k in d:
        d[k] = 5
    return d[1] + d[2]


@njit
def _store(d, k):
    d[k] = 1


def passed_to_jitted_callee():
    d = {0: 0}
    _store(d, 5)
    return len(d), d[5]


def test_dict_passed_between_jitted_functions():
    assert njit(passed_to_jitted_callee)() == (2, 1)


@pytest.mark.parametrize(
    "func, args",
    [
        (conversions_and_reductions, ()),
        (grows_while_iterating, ()),
        (shrinks_while_iterating, ()),
        (same_size_while_iterating, ()),
        (literal_sum, ()),
        (iterate, (10,)),
        (iterate, (0,)),
        (get_pop_del, (10,)),
        (missing_key, (5,)),
        (missing_key, (1,)),
        (missing_delete, (3,)),
        (missing_pop, (3,)),
        (popitems, ()),
        (popitem_empty, ()),
        (setdefaults, ()),
        (update_copy_clear, ()),
        (deletes_then_inserts, (1000,)),
        (tuple_keys, ()),
        (float_keys, ()),
        (bool_keys, ()),
        (empty_is_false, ()),
        (typed_by_dict_builtin, ()),
        (mixed_values, ()),
        (comprehension_with_condition, (20,)),
        (negative_and_large_keys, ()),
        (colliding_keys, (2000,)),
    ],
)
def test_dict_operations_match_cpython(func, args):
    _same(func, *args)


def test_missing_tuple_key_is_a_key_error():
    with pytest.raises(KeyError):
        njit(missing_tuple_key)()


# ---------------------------------------------------------------------------- random programs

_OPS = st.lists(
    st.tuples(
        st.sampled_from(["set", "del", "get", "pop", "in", "setdefault", "popitem", "len"]),
        st.integers(-20, 20),
        st.floats(-1e6, 1e6, allow_nan=False),
    ),
    max_size=60,
)


def run_ops(kinds, keys, values):
    """Apply the coded operations to a dict; a running checksum of what they return."""
    d = {0: 0.0}
    del d[0]
    out = []
    for i in range(len(kinds)):
        kind, k, v = kinds[i], keys[i], values[i]
        if kind == 0:
            d[k] = v
        elif kind == 1:
            if k in d:
                del d[k]
        elif kind == 2:
            out.append(d.get(k, -1.5))
        elif kind == 3:
            out.append(d.pop(k, -2.5))
        elif kind == 4:
            out.append(1.0 if k in d else 0.0)
        elif kind == 5:
            out.append(d.setdefault(k, v))
        elif kind == 6:
            if len(d) > 0:
                key, value = d.popitem()
                out.append(key + value)
        else:
            out.append(float(len(d)))
    for k, v in d.items():
        out.append(k * 1000.0 + v)
    return out


run_ops_jitted = njit(run_ops)
_KINDS = {"set": 0, "del": 1, "get": 2, "pop": 3, "in": 4, "setdefault": 5, "popitem": 6}


@settings(max_examples=60, deadline=None)
@given(_OPS)
def test_random_operation_sequences_match_cpython(ops):
    kinds = np.array([_KINDS.get(op, 7) for op, _, _ in ops], dtype=np.int64)
    keys = np.array([k for _, k, _ in ops], dtype=np.int64)
    values = np.array([v for _, _, v in ops], dtype=np.float64)
    assert run_ops_jitted(kinds, keys, values) == run_ops(kinds, keys, values)


def build(keys, values):
    d = {}
    for i in range(len(keys)):
        d[keys[i]] = values[i]
    return d


build_jitted = njit(build)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(-5, 5)), max_size=80))
def test_random_int64_keys_keep_insertion_order(pairs):
    keys = np.array([k for k, _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs], dtype=np.int64)

    got = build_jitted(keys, values)
    assert dict(got.items()) == build(keys, values)
    assert list(got.keys()) == list(build(keys, values).keys())


# ---------------------------------------------------------------------------- values of any type


def dict_of_arrays(n):
    d = {}
    for i in range(n):
        d[i] = np.arange(i + 1) * 1.0
    d[0] = np.ones(3)
    total = 0.0
    for v in d.values():
        total += v.sum()
    del d[1]
    return total, len(d)


def dict_of_dicts(n):
    outer = {}
    for i in range(n):
        inner = {}
        for j in range(i):
            inner[j] = j * 2
        outer[i] = inner
    return outer


def dict_of_lists(n):
    d = {}
    for i in range(n):
        d[i] = [i, i + 1]
    d[0].append(5)
    return len(d[0]), d[n - 1][1]


def dict_of_tuples():
    d = {1: (1, 2.5)}
    d[2] = (3, 4.5)
    return d[1][1] + d[2][0]


def from_pairs():
    a = np.array([1, 2, 3])
    b = np.array([1.5, 2.5, 3.5])
    d = dict(zip(a, b))
    e = dict([(1, 2), (3, 4)])
    f = dict(d.items())
    return float(d[2]), e[3], len(f), float(dict(enumerate(b))[1])


def list_of_dicts():
    xs = [{1: 2}]
    xs.append({3: 4})
    xs[0][5] = 6
    return xs[1][3], len(xs[0])


def test_dicts_from_pairs_and_in_lists():
    _same(from_pairs)
    _same(list_of_dicts)
    returned = njit(lambda: [{1: 2.0}, {3: 4.0}])()
    assert [_plain(d) for d in returned] == [{1: 2.0}, {3: 4.0}]


def test_values_of_any_type():
    _same(dict_of_arrays, 5)
    _same(dict_of_lists, 4)
    _same(dict_of_tuples)
    assert _plain(njit(dict_of_dicts)(4)) == dict_of_dicts(4)


def test_no_leaks_over_many_calls():
    jitted = [njit(f) for f in (dict_of_arrays, dict_of_dicts, iterate, missing_key, missing_pop)]
    simple = njit(update_copy_clear)

    def run_all():
        jitted[0](6)
        jitted[1](5)
        jitted[2](9)
        simple()
        for raising in jitted[3:]:
            with pytest.raises(KeyError):
                raising(9)

    run_all()  # compiles
    gc.collect()
    before = ember.runtime.stats()
    for _ in range(300):
        run_all()
    gc.collect()
    after = ember.runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free


# ---------------------------------------------------------------------------- errors


def test_empty_dict_without_stores_is_a_typing_error():
    def f():
        d = {}
        return len(d)

    with pytest.raises(TypingError, match="empty dict 'd'"):
        njit(f)()


def test_value_of_another_type_is_a_typing_error():
    def f():
        d = {1: 1}
        d[2] = 2.5
        return d[2]

    with pytest.raises(TypingError, match="keeps the types it was made with"):
        njit(f)()


def test_array_keys_are_refused():
    def f(a):
        d = {a: 1}
        return len(d)

    with pytest.raises(TypingError, match="cannot be a dict key"):
        njit(f)(np.ones(2))


def test_python_dict_argument_suggests_typed_dict():
    @njit
    def f(d):
        return len(d)

    with pytest.raises(TypingError, match="ember.typed.Dict"):
        f({1: 2})


def test_dict_unpacking_display():
    def f(a):
        d = {1: 2}
        e = {**d, 3: 4, a: 5}
        return len(e), e[1], e[a]

    _same(f, 1)
    _same(f, 3)
