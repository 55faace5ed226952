"""Containers as Numba programs use them (third round, found by running Numba's test modules
against ember): sets of strings and tuples passed from Python, typed List internals, literal
lists and string-keyed dict displays. Checked against CPython running the same function (or the
exception it raises) and ember's runtime allocation counters."""

import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember import njit
from ember.errors import TypingError
from tests.oracle import assert_frees_all

# ---------------------------------------------------------------------------- sets from Python


def _set_ops(a, b, moved):
    b.discard(moved)
    a.add(moved)
    return a | b, a & b, a - b, a ^ b, a <= b, len(a)


_set_ops_jitted = njit(_set_ops)
_words = st.sets(st.text(alphabet="abcé", max_size=3), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(_words, _words)
def test_sets_of_strings_passed_from_python_match_cpython(a, b):
    # the callee's changes (add, discard) are written back into the caller's sets
    moved = min(b)
    want_a, want_b = set(a), set(b)
    want = _set_ops(want_a, want_b, moved)
    got = _set_ops_jitted(a, b, moved)
    assert got == want
    assert (a, b) == (want_a, want_b)


def _add_pair(pairs, pair):
    pairs.add(pair)
    return pair in pairs, len(pairs)


def test_sets_of_tuples_passed_from_python_are_written_back():
    pairs, want_pairs = {(1, 2.5), (3, 4.0)}, {(1, 2.5), (3, 4.0)}
    assert njit(_add_pair)(pairs, (5, 6.0)) == _add_pair(want_pairs, (5, 6.0))
    assert pairs == want_pairs
    named = {("a", 1), ("b", 2)}
    assert njit(_add_pair)(named, ("c", 3)) == (True, 3)
    assert named == {("a", 1), ("b", 2), ("c", 3)}


def test_sets_of_strings_of_another_item_type_keep_numbas_words():
    with pytest.raises(TypingError, match="All Sets must be of the same type"):
        njit(lambda a, b: a | b)({"a"}, {1})


def test_sets_of_strings_passed_from_python_leak_nothing():
    assert_frees_all(njit(_add_pair), lambda: {"x", "yy" * 9}, lambda: "zz")


# ---------------------------------------------------------------------------- typed List internals


def test_typed_list_allocated_is_the_room_asked_for():
    from ember import types
    from ember.typed import List

    @njit
    def room(n):
        return List.empty_list(types.int32, allocated=n)._allocated()

    for n in (0, 1, 5, 13):
        assert room(n) == n
        assert List.empty_list(types.int32, n)._allocated() == n
    grown = List.empty_list(types.int64)
    for i in range(10):
        grown.append(i)
        assert grown._allocated() >= len(grown)  # room for every item held


@njit
def _frozen_list():
    made = ember.typed.List()
    made.append(1)
    was_mutable = made._is_mutable()
    made._make_immutable()
    return made, was_mutable, made._is_mutable(), len(made), made[0]


_MUTATIONS = {
    "append": lambda xs: xs.append(0),
    "setitem": lambda xs: operator.setitem(xs, 0, 0),
    "pop": lambda xs: xs.pop(),
    "delitem": lambda xs: operator.delitem(xs, 0),
    "extend": lambda xs: xs.extend((0,)),
    "insert": lambda xs: xs.insert(0, 0),
    "clear": lambda xs: xs.clear(),
    "reverse": lambda xs: xs.reverse(),
    "sort": lambda xs: xs.sort(),
}


def test_an_immutable_typed_list_reads_but_refuses_changes_from_python():
    made, was_mutable, is_mutable, size, first = _frozen_list()
    assert (was_mutable, is_mutable, size, first) == (True, False, 1, 1)
    assert not made._is_mutable()
    for name, mutate in _MUTATIONS.items():
        with pytest.raises(ValueError, match="list is immutable"):
            mutate(made)
        assert list(made) == [1], name


@pytest.mark.parametrize("name", ["append", "setitem", "delitem", "pop", "reverse", "sort"])
def test_an_immutable_typed_list_refuses_changes_in_compiled_code(name):
    made = _frozen_list()[0]
    with pytest.raises(ValueError, match="list is immutable"):
        njit(_MUTATIONS[name])(made)
    assert list(made) == [1]


def test_mutable_lists_still_change_and_leak_nothing():
    from ember.typed import List

    @njit
    def churn(xs):
        xs.append(3)
        xs.reverse()
        xs.sort()
        return xs.pop(0)

    made = List([5, 4])
    assert churn(made) == 3 and list(made) == [4, 5]
    assert_frees_all(churn, lambda: List([2, 1]))


def test_typed_list_refuses_keywords_in_compiled_code_as_numba():
    from ember.typed import List

    with pytest.raises(TypingError, match="List\\(\\) takes no keyword arguments"):
        njit(lambda: List(iterable=(0, 1, 2)))()
    assert list(njit(lambda: List((0, 1, 2)))()) == [0, 1, 2]


# ---------------------------------------------------------------------------- string-keyed displays


def _mixed_numbers_display():
    d = {"a": 1, "b": 2.0, "c": 3}
    return d["a"], d["b"], d["c"], len(d), "b" in d


def _numbers_the_first_value_holds():
    d = {"a": 1.0, "b": 2}  # Numba's rule: int fits the first value's float, a typed dict
    d["c"] = 3.5
    return d["b"], d["c"], len(d)


def test_a_display_of_mixed_numbers_keeps_each_values_type():
    got = njit(_mixed_numbers_display)()
    want = _mixed_numbers_display()
    assert got == want
    assert [type(item) for item in got] == [type(item) for item in want]  # d['a'] is an int


def test_a_display_whose_first_value_type_holds_the_others_is_a_typed_dict():
    assert njit(_numbers_the_first_value_holds)() == (2.0, 3.5, 3)


def test_a_literal_dict_of_mixed_numbers_refuses_mutation_as_numba():
    def mutate():
        d = {"a": 1, "b": 2.0}
        d["c"] = 3
        return len(d)

    with pytest.raises(TypingError):
        njit(mutate)()


def test_typed_list_dtype_in_compiled_code_is_numpys():
    import numpy as np

    from ember.typed import List

    @njit
    def dtypes():
        ints, floats = List(), List()
        ints.append(np.int32(1))
        floats.append(np.float32(1.0))
        return ints._dtype, floats._dtype

    assert dtypes() == (np.dtype("int32"), np.dtype("float32"))


def test_typed_list_extended_slice_of_another_length_keeps_both_wordings():
    from ember.typed import List

    made, want = List(range(10)), list(range(10))
    with pytest.raises(ValueError) as python_error:
        want[8:3:-1] = [1, 2, 3]
    with pytest.raises(ValueError, match="length mismatch for extended slice") as error:
        made[8:3:-1] = List([1, 2, 3])
    assert str(python_error.value) in str(error.value)
    assert list(made) == want  # unchanged


_GLOBAL_TYPED_LIST = ember.typed.List([1, 2, 3])


def _sum_of_global_typed_list():
    total = 0
    for item in _GLOBAL_TYPED_LIST:
        total += item
    return total


def test_a_typed_container_global_is_a_typing_error_with_numbas_words():
    with pytest.raises(TypingError, match="globals are considered compile-time constants"):
        njit(_sum_of_global_typed_list)()
    items = ember.typed.Dict.empty(ember.types.int64, ember.types.int64)
    with pytest.raises(TypingError, match="no known way to compile a DictType"):
        njit(lambda: len(items))()  # a closure variable: the same refusal


# ---------------------------------------------------------------------------- typed Dict


def test_dict_get_and_pop_defaults_the_values_cannot_hold_are_refused():
    from ember.typed import Dict

    def get_complex(n):
        d = Dict.empty(ember.types.int64, ember.types.float64)
        d[0] = 1.5
        return d.get(n, 1j)

    def pop_complex(n):
        d = Dict.empty(ember.types.int64, ember.types.float64)
        return d.pop(n, 2j)

    for func in (get_complex, pop_complex):
        with pytest.raises(TypingError, match="cannot safely cast complex128 to float64"):
            njit(func)(3)

    def defaults_that_fit(n):
        d = Dict.empty(ember.types.int64, ember.types.float64)
        d[1] = 2.5
        return d.get(n, 0), d.get(1, -1), d.pop(n, 5), d.pop(1, None)

    assert njit(defaults_that_fit)(7) == (0.0, 2.5, 5.0, 2.5)


def test_python_dict_constructor_errors_are_type_errors_with_numbas_words():
    from ember.typed import Dict

    with pytest.raises(TypeError, match="Dict expect at most 1 argument, got 2") as error:
        Dict(1, 2)
    assert isinstance(error.value, TypingError)
    with pytest.raises(TypeError, match="object is not iterable"):
        Dict(3)
    assert dict(Dict([(1, 2.0)])) == {1: 2.0}


# ---------------------------------------------------------------------------- list errors


def _set_extended_slice(xs):
    xs[::2] = [1, 2, 3]


@pytest.mark.parametrize(
    "func, args, numbas_words",
    [
        (_set_extended_slice, ([1, 2, 3, 4, 5, 6, 7, 8],), "cannot resize"),
    ],
)
def test_list_errors_keep_pythons_words_and_add_numbas(func, args, numbas_words):
    with pytest.raises(Exception) as python_error:
        func(*[list(a) if isinstance(a, list) else a for a in args])
    with pytest.raises(type(python_error.value)) as error:
        njit(func)(*args)
    # Python's opening words (its sizes are not in ember's constant message), then Numba's
    assert str(error.value).startswith(str(python_error.value)[:28])
    assert numbas_words in str(error.value)


# ---------------------------------------------------------------------------- mixed numbers


def _first(xs):
    return xs[0]


def test_ints_beside_floats_pass_as_floats_only_when_exact():
    assert njit(_first)([3, 2.5]) == 3  # (3.0: the list is typed float64, as a NumPy array)
    with pytest.raises(TypeError, match="can't unbox heterogeneous list"):
        njit(_first)([2**53 + 1, 0.5])  # as float64 it would read 2**53: a wrong number
    assert njit(_first)([2**53 + 1, 5]) == 2**53 + 1  # ints alone stay exact


def test_numbas_sentry_safe_cast_follows_the_store_rule():
    import warnings

    from ember import types
    from ember.errors import NumbaTypeSafetyWarning
    from ember.typed.typedobjectutils import _sentry_safe_cast

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for safe in [(types.int32, types.float64), (types.int8, types.complex64)]:
            _sentry_safe_cast(*safe)  # no warning
    for lossy in [(types.int64, types.int32), (types.complex128, types.complex64)]:
        with pytest.warns(NumbaTypeSafetyWarning, match="Precision may be lost"):
            _sentry_safe_cast(*lossy)
    for refused in [(types.int32, types.complex64), (types.float64, types.int64)]:
        with pytest.raises(TypingError, match=f"cannot safely cast {refused[0]} to"):
            _sentry_safe_cast(*refused)


def test_complex_values_stored_into_narrower_complex_slots_warn_as_numba():
    import numpy as np

    from ember import types
    from ember.errors import NumbaTypeSafetyWarning
    from ember.typed import Dict

    narrow = Dict.empty(types.int64, types.complex64)
    with pytest.warns(NumbaTypeSafetyWarning):
        narrow[1] = 1.5 + 2j
    assert narrow[1] == np.complex64(1.5 + 2j)


def test_literal_dict_unknown_key_keeps_numbas_words():
    def get(key):
        d = {"a": 2j, "c": "d"}
        return d.get(key)

    with pytest.raises(TypingError, match="Cannot get\\{item\\}\\(\\) on a literal dictionary"):
        njit(get)("a")


# ---------------------------------------------------------------------------- tuples holding lists


def _sum_and_grow(pairs):
    total = 0
    for number, items in pairs:
        total += number + len(items)
    pairs[0][1].append(99)
    pairs.append((7, [8, 9]))
    return total


def test_lists_of_tuples_holding_lists_pass_from_python_as_cpython_runs_them():
    pairs, want_pairs = [(1, [2]), (3, [4, 5])], [(1, [2]), (3, [4, 5])]
    assert njit(_sum_and_grow)(pairs) == _sum_and_grow(want_pairs)
    assert pairs == want_pairs  # the callee's changes, inner lists included, come back


def test_lists_of_tuples_holding_lists_keep_untouched_items_and_leak_nothing():
    def total(pairs):
        return sum(number + len(items) for number, items in pairs)

    pairs = [(1, [2]), (3, [4, 5])]
    inner = pairs[0][1]
    assert njit(total)(pairs) == 7
    assert pairs[0][1] is inner  # nothing changed: the caller's objects stay
    assert_frees_all(njit(_sum_and_grow), lambda: [(1, [2]), (3, [4, 5])])


def _compare_lists_of_none(n, m):
    xs = ember.typed.List()
    ys = ember.typed.List()
    for _ in range(n):
        xs.append(None)
    for _ in range(m):
        ys.append(None)
    return xs == ys, xs != ys, xs < ys, xs <= ys, xs > ys, xs >= ys


@pytest.mark.parametrize("sizes", [(1, 1), (1, 2), (3, 0)])
def test_typed_lists_of_none_compare_as_python_lists(sizes):
    n, m = sizes
    xs, ys = [None] * n, [None] * m
    want = (xs == ys, xs != ys, xs < ys, xs <= ys, xs > ys, xs >= ys)
    assert njit(_compare_lists_of_none)(n, m) == want


# ---------------------------------------------------------------------------- literal_unroll


def test_literal_unroll_of_two_arguments_is_refused_in_numbas_words():
    from ember import literal_unroll
    from ember.errors import UnsupportedError

    def two(x):
        total = 0
        for item in literal_unroll(x, x):
            total += item
        return total

    with pytest.raises(UnsupportedError, match="literal_unroll takes one argument, found 2"):
        njit(two)((1, 2))


def test_a_plain_loop_over_a_mixed_tuple_runs_as_cpython():
    def plain(x):
        total = 0.0
        for item in x:
            total += item
        return total

    for x in ((1, 2.5), (True, 2, -0.5), (3.5, 1j)):
        assert njit(plain)(x) == plain(x)


@pytest.mark.parametrize("display", [lambda: {None: 1}, lambda: {(1, None): 2}, lambda: {None}])
def test_none_as_a_key_is_refused_in_numbas_words(display):
    with pytest.raises(TypingError, match="Dict.key_type cannot be of type none"):
        njit(display)()


def test_maybe_literal_gives_the_literal_type_or_none():
    from ember import types

    assert types.maybe_literal(3) == types.literal(3)
    assert types.maybe_literal("a") == types.literal("a")
    assert types.maybe_literal(2j) is None
