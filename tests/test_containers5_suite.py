"""containers5: sets iterate in CPython's order (a set's table is laid out, probed, resized
and popped as CPython's setobject.c does), so `str(set)` is CPython's text; checked against
CPython running the same functions on many insertion/removal histories."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember
from tests.oracle import assert_frees_all

# Keys whose hashes collide in small tables (multiples of 8, 32, 1024), negatives (hash(-1)
# is -2, as hash(-2)), and values reduced modulo 2**61 - 1 by CPython's int hash.
_KEYS = st.one_of(
    st.integers(-20, 70),
    st.sampled_from([8, 16, 24, 32, 64, 1024, 2048, -8, -16, 2**61 - 1, 2**61, 2**62, -(2**63)]),
)
_N_OPS = 19


def _run(ops, values, others):
    """Interpret (op, value) pairs over one set; the log holds every pop and, after each
    operation, the set's items in iteration order."""
    s = set(others[:0])
    log = [0]
    log.pop()
    for step in range(len(ops)):
        op = ops[step]
        v = values[step]
        t = set(others[: abs(v) % (len(others) + 1)])
        if op == 0:
            s.add(v)
        elif op == 1:
            s.discard(v)
        elif op == 2:
            if len(s):
                log.append(s.pop())
        elif op == 3:
            s.clear()
        elif op == 4:
            s.update(others[: abs(v) % (len(others) + 1)])
        elif op == 5:
            s |= t
        elif op == 6:
            s &= t
        elif op == 7:
            s -= t
        elif op == 8:
            s ^= t
        elif op == 9:
            s = s | t
        elif op == 10:
            s = s & t
        elif op == 11:
            s = s - t
        elif op == 12:
            s = s ^ t
        elif op == 13:
            s = t - s
        elif op == 14:
            s = s.copy()
        elif op == 15:
            s = set(s)
        elif op == 16:
            s = t.intersection(s)
        elif op == 17:
            s.difference_update(t)
        else:
            if v in s:
                s.remove(v)
        log.append(-7777)
        for item in s:
            log.append(item)
    return log


_run_jit = ember.njit(_run)


def _operations(a, b):
    s, t = set(a), set(b)
    d = set(a)
    d -= t
    return [list(x) for x in (s | t, s & t, s - t, t - s, s ^ t, t ^ s, d, s.union(t))]


_operations_jit = ember.njit(_operations)


_SLOW_FIRST_CALL = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=150, **_SLOW_FIRST_CALL)
@given(
    st.lists(st.tuples(st.integers(0, _N_OPS - 1), _KEYS), max_size=40),
    st.lists(_KEYS, max_size=30),
)
def test_set_histories_iterate_in_cpythons_order(steps, others):
    ops = np.array([op for op, _ in steps], dtype=np.int64)
    values = np.array([v for _, v in steps], dtype=np.int64)
    other_items = np.array(others, dtype=np.int64)
    assert _run_jit(ops, values, other_items) == _run(ops, values, other_items)


@settings(max_examples=60, **_SLOW_FIRST_CALL)
@given(st.lists(_KEYS, max_size=60), st.lists(_KEYS, max_size=60))
def test_set_operators_of_many_items_in_cpythons_order(left, right):
    """Large operands reach the size-dependent branches (difference through a copy when the
    left is over 4 times larger, difference_update through the intersection)."""

    a = np.array(left, dtype=np.int64)
    b = np.array(right, dtype=np.int64)
    assert _operations_jit(a, b) == _operations(a, b)


def _many_adds_then_removes(n, step):
    s = set()
    for i in range(n):
        s.add(i * step)
    for i in range(0, n, 3):
        s.discard(i * step)
    out = [x for x in s]
    out.append(s.pop())
    out.append(s.pop())
    return out, len(s)


@pytest.mark.parametrize("n, step", [(3, 1), (5, 1), (100, 8), (1000, 1024), (200, -3)])
def test_growth_and_dummies_match_cpython(n, step):
    assert ember.njit(_many_adds_then_removes)(n, step) == _many_adds_then_removes(n, step)


def test_float_and_tuple_sets_iterate_in_cpythons_order():
    def floats(n):
        s = {0.5, 8.0, 16.0, -0.0, 2.5}
        for i in range(n):
            s.add(i * 0.25)
            s.discard(i * 0.5)
        return [x for x in s]

    def pairs(n):
        s = set()
        for i in range(n):
            s.add((i % 7, i * 3))
        return [x for x in s]

    for n in (0, 3, 17, 60):
        assert ember.njit(floats)(n) == floats(n)
        assert ember.njit(pairs)(n) == pairs(n)


def test_str_and_repr_of_sets_are_cpythons():
    def texts(n):
        s = {3, 1, 2}
        t = set()
        for i in range(n):
            t.add(i * 7 % 11 - 4)
        e = {5}
        e.discard(5)
        return str(s), repr(t), str(e), repr({(1, 2), (3, 4)}), str({0, 8, 16, 24, 40})

    for n in (0, 1, 6, 30):
        assert ember.njit(texts)(n) == texts(n)


def test_constant_displays_iterate_in_cpythons_order():
    def displays():
        a = {0, 8, 16, 24, 32, 40, 5}
        b = {1, 9, 17}
        c = {-1, 7, 15, 3, 2}
        d = {1.5, 2.5, 0.5, 8.0, 16.0}
        return [x for x in a], [x for x in b], [x for x in c], [x for x in d]

    assert ember.njit(displays)() == displays()


def test_set_of_strings_frees_all_and_keeps_its_items():
    def churn(words):
        s = set(words)
        t = set(words[::2])
        u = (s - t) | (t & s) ^ {"x", "y"}
        u.discard("y")
        u &= s
        s.clear()
        return sorted(u | s)

    words = ["a", "bb", "ccc", "a", "dd", "x", "e"]
    assert ember.njit(churn)(words) == churn(words)
    assert_frees_all(ember.njit(churn), lambda: list(words))


def test_set_operations_free_all():
    def ops(a, b):
        s, t = set(a), set(b)
        s |= t
        s -= set(b[:2])
        s ^= t
        s &= set(a)
        x = s.pop() if s else 0
        return len(s | t) + len(s - t) + len(t ^ s) + x

    a = np.arange(50) * 8
    b = np.arange(0, 400, 3)
    assert ember.njit(ops)(a, b) == ops(a, b)
    assert_frees_all(ember.njit(ops), lambda: a, lambda: b)


# ---------------------------------------------------------------------------- complex format specs

_COMPLEX_SPECS = [
    "", ".2", ".2f", "10", ",", ",.1f", " .1f", "+", "<12", "^12g", ".0", "#.0f", "E", ".3e",
    ">20.4G", "*^30.3f", "_.2f", "-.1e", "g", "F",
]  # fmt: skip
_COMPLEX_VALUES = [
    1 + 2j, 1234.5 + 0j, complex(0, -2), complex(-0.0, 1), complex(float("nan"), float("inf")),
    1e20 + 1e-5j, -1.5 - 0.25j, 0j, complex(-0.0, -0.0), 123456789.125 - 987654.5j,
]  # fmt: skip


def _format(value, spec):
    return format(value, spec)


def _int_of(text, base):
    return int(text, base)


def _float_of(text):
    return float(text)


_format_jit = ember.njit(_format)
_int_of_jit = ember.njit(_int_of)
_float_of_jit = ember.njit(_float_of)


def test_complex_format_specs_are_cpythons():
    def constant_specs(z):
        return (
            format(z, ".2f"), format(z, ""), format(z, "10.3e"), format(z, "<30"),
            format(z, "g"), format(z, "+.1f"), format(z, "^40.2f"), f"{z:.3f}", f"{z:>14}",
            format(z, ",.2f"), format(z, "#.0f"), format(z, "E"),
        )  # fmt: skip

    constant = ember.njit(constant_specs)
    runtime = _format_jit
    for z in _COMPLEX_VALUES:
        assert constant(z) == constant_specs(z)
        for spec in _COMPLEX_SPECS:
            assert runtime(z, spec) == format(z, spec), (z, spec)
    single = np.complex64(1.5 - 2.25j)
    assert constant(single) == constant_specs(complex(single))


@pytest.mark.parametrize("spec", ["010", "0>10", "=10", "d", "%", "x"])
def test_complex_format_refusals_are_cpythons(spec):
    with pytest.raises(ValueError) as expected:
        format(1 + 2j, spec)
    with pytest.raises(ValueError) as got:
        _format_jit(1 + 2j, spec)
    assert str(got.value) == str(expected.value)


# ---------------------------------------------------------------------------- int()/float() errors


@pytest.mark.parametrize(
    "text, base", [("abc", 10), ("", 10), ("1.5", 10), (" 12x ", 10), ("012", 0), ("zz", 16)]
)
def test_int_of_bad_string_says_what_cpython_says(text, base):
    with pytest.raises(ValueError) as expected:
        int(text, base)
    with pytest.raises(ValueError) as got:
        _int_of_jit(text, base)
    assert str(got.value) == str(expected.value)


def test_int_of_long_bad_string_cuts_its_repr_as_cpython():
    text = "x" * 300 + "'\u00e9"
    with pytest.raises(ValueError) as expected:
        int(text)
    with pytest.raises(ValueError) as got:
        _int_of_jit(text, 10)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("text", ["abc", "", "1e", "1.5.2", " nan5 ", "1_"])
def test_float_of_bad_string_says_what_cpython_says(text):
    with pytest.raises(ValueError) as expected:
        float(text)
    with pytest.raises(ValueError) as got:
        _float_of_jit(text)
    assert str(got.value) == str(expected.value)


# ---------------------------------------------------------------------------- list typing errors


def _typing_error_of(func, *args) -> str:
    with pytest.raises(ember.core.errors.TypingError) as raised:
        ember.njit(func)(*args)
    return str(raised.value)


def test_list_misuse_is_named_in_cpythons_and_numbas_words():
    from ember.typed import List

    def getitem(i):
        return List.empty_list(ember.int32)[i]

    def setitem(i):
        xs = [1, 2]
        xs[i] = 3

    def assign_slice():
        xs = List.empty_list(ember.int32)
        xs[:] = 1

    def extend():
        xs = [1]
        xs.extend(1)

    def insert():
        xs = [1]
        xs.insert("a", 0)

    def pop(i):
        return [1, 2].pop(i)

    for bad in ("xyz", 1.0, 1j):
        assert "list indices must be integers or slices" in _typing_error_of(getitem, bad)
        assert "list indices must be integers or slices" in _typing_error_of(setitem, bad)
        assert "argument for pop must be an integer" in _typing_error_of(pop, bad)
    assert "can only assign an iterable when using a slice" in _typing_error_of(assign_slice)
    assert "extend argument must be iterable" in _typing_error_of(extend)
    assert "list insert indices must be integers" in _typing_error_of(insert)


# ---------------------------------------------------------------------------- constant frozensets


def test_membership_and_iteration_over_set_literals():
    """CPython compiles `x in {1, 2, 3}` and `for x in {...}` to a frozenset constant."""

    def vowel_count(text):
        return sum(1 for c in text if c in {"a", "e", "i", "o", "u"})

    def small(x):
        return x in {1, 2, 3}, x not in {2.5, -1.0}

    def walk():
        out = []
        for x in {9, 1, 17, 4, 33, 2}:
            out.append(x)
        return out

    for text in ("", "education", "rhythm", "aeiou" * 3):
        assert ember.njit(vowel_count)(text) == vowel_count(text)
    for x in (-1, 0, 1, 2, 3, 4):
        assert ember.njit(small)(x) == small(x)
    assert ember.njit(walk)() == walk()


# ---------------------------------------------------------------------------- char-array dict keys


def test_str_keys_into_a_dict_keyed_by_a_char_arrays_dtype():
    from ember.typed import Dict

    def store(d, x, i):
        d[x[i]] = 123
        d[x[i]] += 1

    for x, i in ((np.array(["123", "ab"]), 0), (np.array(["xy", "a"]), 1), (np.array([b"12"]), 0)):
        expected = {}
        store(expected, x, i)
        d = Dict.empty(ember.from_dtype(x.dtype), ember.int64)
        ember.njit(store)(d, x, i)
        assert dict(d) == expected


def test_list_index_bound_types_are_named_as_numba_names_them():
    from ember.typed import List

    def typed_start():
        xs = List.empty_list(ember.int32)
        xs.append(0)
        return xs.index(0, "a")

    def reflected_stop():
        return [0].index(0, 0, 1.5)

    assert "start argument for index must be an integer" in _typing_error_of(typed_start)
    assert 'arg "stop" must be an Integer.' in _typing_error_of(reflected_stop)
