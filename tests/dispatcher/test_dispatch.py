"""Issue 3: typeof, conversion ranking, explicit signatures, argument binding, failed-typing
memory, thread safety and the GIL, checked against hand-worked expectations."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import ember
from ember import config, njit, types
from ember.dispatcher import typeof as typeof_module
from ember.errors import TypingError
from ember.typing.conversions import Conversion, can_convert
from ember.typing.templates import rank

# ---------------------------------------------------------------------------- typeof


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, types.boolean),
        (3, types.int64),
        (2**63, types.uint64),
        (1.5, types.float64),
        (1j, types.complex128),
        (None, types.none),
        (np.int32(1), types.int32),
        (np.uint16(1), types.uint16),
        (np.float32(1), types.float32),
        (np.complex64(1), types.complex64),
        (np.bool_(True), types.boolean),
        ((1, 2), types.UniTuple(types.int64, 2)),
        ((1, (2.0, None)), types.Tuple((types.int64, types.Tuple((types.float64, types.none))))),
    ],
)
def test_typeof_scalars_and_tuples(value, expected):
    assert ember.typeof(value) is expected


def test_typeof_arrays_layout_and_readonly():
    c = np.zeros((3, 4))
    assert ember.typeof(c) is types.Array(types.float64, 2, "C")
    assert ember.typeof(np.asfortranarray(c)) is types.Array(types.float64, 2, "F")
    assert ember.typeof(c[:, ::2]) is types.Array(types.float64, 2, "A")
    frozen = np.arange(3, dtype=np.int32)
    frozen.setflags(write=False)
    assert ember.typeof(frozen) is types.Array(types.int32, 1, "C", readonly=True)


def test_typeof_rejects_unsupported_values():
    assert ember.typeof(b"text") is types.bytes_type
    with pytest.raises(ValueError, match="frozenset"):
        ember.typeof(frozenset({1}))
    with pytest.raises(ValueError):
        ember.typeof(np.zeros(2, dtype=object))


def test_class_attribute_declares_type():
    class Marked:
        _numba_type_ = types.float32

    class Preferred:
        _ember_type_ = types.int16

    assert ember.typeof(Marked()) is types.float32
    assert ember.typeof(Preferred()) is types.int16


def test_fingerprint_cache_serves_a_tuple_type_after_computing_it_once():
    value = (1, 2.5, (True, None), 7j)
    key = typeof_module.fingerprint(value)
    typeof_module._fingerprint_cache.pop(key, None)
    first = ember.typeof(value)
    assert typeof_module._fingerprint_cache[key] is first
    misses, hits = typeof_module.cache_info.misses, typeof_module.cache_info.hits
    second = ember.typeof((4, 0.5, (False, None), 1j))  # same fingerprint, other values
    assert second is first
    assert typeof_module.cache_info.hits == hits + 1
    assert typeof_module.cache_info.misses == misses


def test_types_are_interned_with_typecodes():
    a = types.UniTuple(types.int64, 3)
    b = types.UniTuple(types.int64, 3)
    assert a is b
    assert a.typecode == b.typecode
    assert types.type_from_typecode(a.typecode) is a
    assert len({t.typecode for t in types.number_domain}) == len(types.number_domain)


# ---------------------------------------------------------------------------- conversions


@pytest.mark.parametrize(
    ("source", "target", "kind"),
    [
        (types.int32, types.int32, Conversion.exact),
        (types.int32, types.int64, Conversion.promote),
        (types.float32, types.float64, Conversion.promote),
        (types.int32, types.float64, Conversion.safe),
        (types.float32, types.complex64, Conversion.safe),
        (types.uint32, types.int64, Conversion.safe),
        (types.int64, types.float64, Conversion.safe),  # Numba's table: safe, though lossy
        (types.float64, types.int64, Conversion.unsafe),
        (types.int64, types.int32, Conversion.unsafe),
        (types.complex128, types.float64, None),
    ],
)
def test_numeric_conversion_table(source, target, kind):
    assert can_convert(source, target) == kind


def test_array_conversions_c_to_any_but_never_c_to_f():
    c = types.Array(types.float64, 2, "C")
    f = types.Array(types.float64, 2, "F")
    a = types.Array(types.float64, 2, "A")
    assert can_convert(c, a) is not None
    assert can_convert(f, a) is not None
    assert can_convert(c, f) is None
    assert can_convert(f, c) is None
    assert can_convert(a, c) is None


def test_rank_counts_unsafe_safe_promote_exact():
    actual = (types.int32, types.float32, types.int64, types.int64)
    formal = (types.int64, types.complex64, types.int32, types.int64)
    assert rank(formal, actual) == (1, 1, 1, 1)


# ---------------------------------------------------------------------------- selection


def test_seed_example_float32_call_picks_float64_specialization():
    @njit(["float64(float64, float64)", "complex64(complex64, complex64)"])
    def add(a, b):
        return a + b

    result = add(np.float32(1.5), np.float32(2.25))
    assert result == 3.75 and isinstance(result, float)
    assert len(add.overloads) == 2


def test_mixed_numpy_scalars_rank_to_the_least_unsafe_candidate():
    @njit(
        ["float64(float64, float64)", "int64(int64, int64)", "complex128(complex128, complex128)"]
    )
    def mul(a, b):
        return a * b

    # int32, int32 -> int64 by promotion beats float64 (safe) and complex128 (safe)
    assert mul(np.int32(6), np.int32(7)) == 42 and isinstance(mul(np.int32(6), np.int32(7)), int)
    # float32 with int32 -> float64, float64 (promote + safe) beats complex (safe + safe)
    assert isinstance(mul(np.float32(0.5), np.int32(3)), float)
    assert mul(np.float32(0.5), np.int32(3)) == 1.5
    # complex64 cannot become float64: only complex128 accepts it
    assert mul(np.complex64(1j), np.float32(2)) == 2j


def test_ambiguous_candidates_raise_naming_only_the_best():
    @njit(
        ["float64(int32, float64)", "float64(float64, int32)", "complex128(complex128, complex128)"]
    )
    def f(a, b):
        return a + b

    with pytest.raises(TypeError) as caught:
        f(np.int32(1), np.int32(2))
    message = str(caught.value)
    assert message.startswith("Ambiguous overloading for <function ")  # repr(f), as Numba
    assert " (int32, int32):\n" in message
    assert "(int32, float64) -> float64" in message and "(float64, int32) -> float64" in message
    assert "complex128" not in message


def test_explicit_signatures_allow_unsafe_and_forbid_compilation():
    @njit("int64(int64, int64)")
    def f(a, b):
        return a + b

    assert f(2.7, 1.2) == 3  # unsafe float -> int64 conversion truncates, as Numba does
    assert len(f.overloads) == 1
    with pytest.raises(TypeError) as caught:
        f(1j, 2j)
    assert str(caught.value) == "No matching definition for argument type(s) complex128, complex128"
    with pytest.raises(RuntimeError, match="compilation disabled"):  # Numba's rule
        f.compile("(complex128, complex128)")


def test_lazy_dispatch_compiles_the_exact_types():
    @njit
    def f(x):
        return x

    assert f(1) == 1 and f(1) is not True
    assert f(True) is True  # bool -> int64 would convert safely, but types stay exact
    assert f(np.float32(1.5)) == 1.5
    assert set(f.signatures) == {(types.int64,), (types.boolean,), (types.float32,)}


# ---------------------------------------------------------------------------- binding


def test_keyword_default_and_varargs_share_one_specialization():
    @njit
    def f(x, y=2, z=3):
        return x * 100 + y * 10 + z

    assert f(1) == 123
    assert f(1, 2, 3) == 123
    assert f(1, z=3) == 123
    assert f(x=1, y=2) == 123
    assert len(f.overloads) == 1

    @njit
    def total(first, *rest):
        acc = first
        for i in range(len(rest)):
            acc += rest[i]
        return acc

    assert total(1, 2, 3, 4) == 10
    assert total(5, -5) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # Numba's wording first (programs and tests match it), then the detail
        (lambda f: f(1, 2), "f(): not enough arguments: expected 3, got 2 (missing argument 'z')"),
        (lambda f: f(1, 2, 3, 4), "f(): too many arguments: expected 3, got 4"),
        (lambda f: f(1, 2, 3, w=4), "f(): got an unexpected keyword argument 'w'"),
        (
            lambda f: f(1, 2, x=3),
            "f(): missing argument 'z' (got multiple values for argument 'x')",
        ),
    ],
)
def test_arity_errors_use_the_known_wording(call, message):
    @njit
    def f(x, y, z):
        return x + y + z

    with pytest.raises(TypeError) as caught:
        call(f)
    assert str(caught.value) == message


def test_none_and_false_defaults_and_tuples_on_the_fast_path():
    @njit
    def f(a, scale=None, flag=False, pair=(1, 2)):
        if scale is None and not flag:
            return a + pair[0] + pair[1]
        return -a

    assert f(10) == 13
    assert f(10, None, True) == -10
    assert f(10, None, False, (5, 5)) == 20


# ---------------------------------------------------------------------------- failures


@pytest.fixture
def compilations(monkeypatch):
    """The argument types of every compilation run while the test runs."""
    from ember.dispatcher import dispatcher as dispatcher_module

    seen = []
    original = dispatcher_module.run_pipeline

    def counting(state):
        seen.append(state.arg_types)
        return original(state)

    monkeypatch.setattr(dispatcher_module, "run_pipeline", counting)
    return seen


def test_failed_typing_is_remembered(compilations):
    @njit
    def bad(x):
        return x + "text"  # no int + str in nopython mode (nor in Python)

    for _ in range(3):
        with pytest.raises(TypingError):
            bad(1)
    assert compilations == [(types.int64,)]


def test_uncompilable_argument_names_argument_and_type():
    @njit
    def f(label, value):
        return value

    with pytest.raises(TypeError) as caught:
        f(frozenset({1}), 1)
    assert "'label'" in str(caught.value) and "frozenset" in str(caught.value)


# ---------------------------------------------------------------------------- threads


def test_concurrent_first_calls_compile_once(compilations):
    @njit
    def poly(x):
        return 3 * x * x + 2 * x + 1

    barrier = threading.Barrier(8)
    results = {}

    def worker(index):
        barrier.wait()
        results[index] = poly(index)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {i: 3 * i * i + 2 * i + 1 for i in range(8)}
    assert compilations == [(types.int64,)]


def _spin(n):
    acc = 0
    for i in range(n):
        acc = (acc * 31 + i) % 1000003
    return acc


@pytest.mark.parametrize("path", ["native entry", "Python path"])
@pytest.mark.parametrize("nogil", [True, False])
def test_nogil_lets_other_threads_run_during_the_call(nogil, path, monkeypatch):
    if path == "Python path":  # (no native entry however often it is called)
        monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 10**9)
    spin = njit(nogil=nogil)(_spin)
    spin(10)
    iterations = 1
    while True:  # find a call that lasts ~0.2 s on this machine
        started = time.perf_counter()
        spin(iterations)
        if time.perf_counter() - started > 0.2:
            break
        iterations *= 4
    ticks = []
    running = threading.Event()
    stop = threading.Event()

    def ticker():
        running.set()
        while not stop.is_set():
            ticks.append(time.perf_counter())

    thread = threading.Thread(target=ticker)
    thread.start()
    running.wait()
    started = time.perf_counter()
    spin(iterations)
    finished = time.perf_counter()
    stop.set()
    thread.join()
    # Ticks well inside the call can only happen if the call released the GIL.
    inside = [t for t in ticks if started + 0.05 < t < finished - 0.05]
    if nogil:
        assert inside
    else:
        assert not inside


# ---------------------------------------------------------------------------- arrays, natively


def test_array_results_on_the_native_path_keep_identity_views_and_memory():
    import gc
    import sys

    import ember.runtime as runtime

    identity = njit(lambda a: a)
    tail = njit(lambda a: a[1:])
    doubled = njit(lambda a: a * 2.0)
    values = np.arange(6.0)
    for function in (identity, tail, doubled):
        function(values)
        function(values)  # the second call installs the native entry
    assert identity(values) is values
    view = tail(values)
    np.testing.assert_array_equal(view, values[1:])
    assert np.shares_memory(view, values)
    references = sys.getrefcount(values)
    for _ in range(1000):
        view = tail(values)
    assert sys.getrefcount(values) == references
    del view
    gc.collect()
    before = runtime.stats()
    for _ in range(1000):
        result = doubled(values)
    np.testing.assert_array_equal(result, values * 2.0)
    assert result.flags.writeable and result.flags.c_contiguous
    del result
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == 1000
    assert after.free - before.free == 1000


@pytest.mark.parametrize("calls_before_entry", [0, 1_000])
def test_a_new_array_reports_its_memory_through_its_base(calls_before_entry, monkeypatch):
    """Numba's MemInfo API on `a.base`, whether the native entry or the Python path boxed it."""
    import gc

    import ember.runtime as runtime

    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", calls_before_entry)
    ramp = njit(lambda n, step: np.arange(n) * step)
    gc.collect()
    before = runtime.stats()
    for n in range(1, 40):
        result = ramp(n, 0.5)
        np.testing.assert_array_equal(result, np.arange(n) * 0.5)
        assert result.base.refcount == 1  # only this array holds the memory
        assert result.base.data == result.ctypes.data
        tail = result[1:]
        del result
        assert tail.base.base.refcount == 1
        del tail
    assert bool(ramp._entries) == (calls_before_entry == 0)
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free >= 39


def _one_array_twice(a, n):
    made = a * 2.0
    other = a * 2.0  # equal values, its own memory: a second ndarray
    return (made, (made, n), made[1:], other, made.reshape(n, -1), a, a, made)


def test_an_array_returned_twice_in_a_tuple_is_one_ndarray_on_the_native_entry(monkeypatch):
    import gc

    import ember.runtime as runtime

    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_one_array_twice)
    a = np.arange(6.0)
    compiled(a, 2)
    slow = compiled._slow_calls
    before = runtime.stats()
    for n in (1, 2, 3):
        got, want = compiled(a, n), _one_array_twice(a, n)
        assert compiled._slow_calls == slow  # native: no Python-path call
        made = got[0]
        assert got[1][0] is made and got[7] is made and got[1][1] == n
        assert got[3] is not made and got[5] is a and got[6] is a
        assert np.shares_memory(got[2], made) and np.shares_memory(got[4], made)
        for value, expected in zip(
            [got[0], got[2], got[3], got[4]], [want[0], want[2], want[3], want[4]]
        ):
            np.testing.assert_array_equal(value, expected)
        made[0] = -1.0  # one ndarray: every place it was returned sees the write
        assert got[1][0][0] == -1.0 and got[7][0] == -1.0
        del got, made, value, expected
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 6


def _arrays_in_tuples(a, b):
    return (a, a.astype(np.float32), (a[::2], b.T), 7, (b > 1).sum(), b > 1)


def test_tuples_holding_arrays_are_returned_by_the_native_entry(monkeypatch):
    import gc
    import sys

    import ember.runtime as runtime

    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_arrays_in_tuples)
    a, b = np.arange(5.0), np.arange(12).reshape(3, 4)
    references = sys.getrefcount(a), sys.getrefcount(b)
    got, want = compiled(a, b), _arrays_in_tuples(a, b)
    slow = compiled._slow_calls
    got = compiled(a, b)
    assert compiled._slow_calls == slow  # native: no Python-path call
    assert got[0] is a and np.shares_memory(got[2][0], a) and np.shares_memory(got[2][1], b)
    flat_got = [*got[:2], *got[2], *got[3:]]
    flat_want = [*want[:2], *want[2], *want[3:]]
    for value, expected in zip(flat_got, flat_want, strict=True):
        np.testing.assert_array_equal(value, expected)
        assert np.asarray(value).dtype == np.asarray(expected).dtype
        assert np.asarray(value).strides == np.asarray(expected).strides
    del got, want, flat_got, flat_want, value, expected
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(b)) == references
    before = runtime.stats()
    for _ in range(500):
        result = compiled(a, b)
    del result
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 1500
    assert (sys.getrefcount(a), sys.getrefcount(b)) == references


def _squares_less_three(n):
    return [i * i - 3 for i in range(n)]


def _halves(n):
    return [i * 0.5 for i in range(n)]


def _evens(n):
    return [i % 2 == 0 for i in range(n)]


def _bytes_of(n):
    return [np.uint8(i * 50) for i in range(n)]


def _top_of_uint64(n):
    return [np.uint64(2**64 - 1) - np.uint64(i) for i in range(n)]


def _conjugate_pairs(n):
    return [complex(i, -i) for i in range(n)]


def _flags_and_halves(n):
    return [(i % 2 == 0, (i, i * 0.5)) for i in range(n)]


def _list_and_length(n):
    return [-i for i in range(n)], n


@pytest.mark.parametrize(
    ("function", "item_type"),
    [
        (_squares_less_three, int),
        (_halves, float),
        (_evens, bool),
        (_bytes_of, int),
        (_top_of_uint64, int),
        (_conjugate_pairs, complex),
        (_flags_and_halves, tuple),
    ],
)
def test_lists_of_numbers_are_boxed_by_the_native_entry(function, item_type, monkeypatch):
    import gc

    import ember.runtime as runtime

    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(function)
    compiled(1)
    slow = compiled._slow_calls
    for n in (0, 1, 2, 5):
        got = compiled(n)
        assert type(got) is list and got == [item_type(x) for x in function(n)]
        assert all(type(item) is item_type for item in got)  # Python objects, as Numba's
    assert compiled._slow_calls == slow  # every call native
    gc.collect()
    before = runtime.stats()
    for _ in range(200):
        compiled(40)
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free > 0


def _chunks(a, k):
    out = []
    for i in range(0, len(a), k):
        out.append(a[i : i + k])
    return out


def _with_scaled(a, n):
    return [(a, i, a * i) for i in range(n)]


def _ramps(n):
    return [np.arange(i) * 1.5 for i in range(n)]


def test_lists_of_arrays_are_boxed_by_the_native_entry(monkeypatch):
    import gc
    import sys

    import ember.runtime as runtime

    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    a = np.arange(10.0)
    references = sys.getrefcount(a)
    for function, args in [(_chunks, (a, 3)), (_with_scaled, (a, 3)), (_ramps, (4,))]:
        compiled = njit(function)
        compiled(*args)
        slow = compiled._slow_calls
        got, want = compiled(*args), function(*args)
        assert compiled._slow_calls == slow
        assert type(got) is list and len(got) == len(want)
        for item, expected in zip(got, want, strict=True):
            if isinstance(expected, tuple):
                assert item[0] is a and item[1] == expected[1]
                np.testing.assert_array_equal(item[2], expected[2])
            else:
                np.testing.assert_array_equal(item, expected)
                assert item.dtype == expected.dtype
        del got, want, item, expected
        gc.collect()
        before = runtime.stats()
        for _ in range(100):
            compiled(*args)
        gc.collect()
        after = runtime.stats()
        assert after.alloc - before.alloc == after.free - before.free > 0
    del args
    assert sys.getrefcount(a) == references
    pieces = njit(_chunks)(a, 4)
    pieces[0][0] = -1.0  # views of the argument, as Numba's
    assert a[0] == -1.0


def _triangle(n):
    return [[i * j for j in range(i)] for i in range(n)]


def _words(n):
    return [str(i) * (i % 3) + "é" * (i % 2) for i in range(n)]


def _named_lists(n):
    return [(str(i), [[float(i)] * 2, [1.5]], np.ones(i)) for i in range(n)]


def test_lists_of_lists_and_strings_are_boxed_by_the_native_entry(monkeypatch):
    import gc

    import ember.runtime as runtime

    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    for function in (_triangle, _words, _named_lists, lambda s: s.split(",")):
        compiled = njit(function)
        argument = "a,b,,ccc,日本" if function.__name__ == "<lambda>" else 5
        compiled(argument)
        slow = compiled._slow_calls
        for _ in range(2):
            assert repr(compiled(argument)) == repr(function(argument))
        assert compiled._slow_calls == slow
        gc.collect()
        before = runtime.stats()
        for _ in range(100):
            compiled(argument)
        gc.collect()
        after = runtime.stats()
        assert after.alloc - before.alloc == after.free - before.free > 0


def test_a_list_in_a_returned_tuple_is_boxed_natively(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_list_and_length)
    assert compiled(4) == _list_and_length(4)  # compiles (the Python path), then native
    slow = compiled._slow_calls
    assert compiled(0) == _list_and_length(0) and compiled(3) == _list_and_length(3)
    assert compiled._slow_calls == slow


def _none_argument_or_view_or_new(a, k):
    if k == 0:
        return None
    if k == 1:
        return a
    return a[1:] if k == 2 else a * 2.0


def test_an_optional_array_is_boxed_natively(monkeypatch):
    import gc
    import sys

    import ember.runtime as runtime

    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    compiled = njit(_none_argument_or_view_or_new)
    a = np.arange(5.0)
    references = sys.getrefcount(a)
    assert compiled(a, 0) is None
    slow = compiled._slow_calls
    assert compiled(a, 1) is a
    for k in (2, 3):
        np.testing.assert_array_equal(compiled(a, k), _none_argument_or_view_or_new(a, k))
    assert compiled._slow_calls == slow
    gc.collect()
    before = runtime.stats()
    for _ in range(100):
        for k in range(4):
            compiled(a, k)
    gc.collect()
    after = runtime.stats()
    assert after.alloc - before.alloc == after.free - before.free == 100
    assert sys.getrefcount(a) == references


def test_memory_owners_are_made_by_compiled_code_only(monkeypatch):
    monkeypatch.setattr(config, "CALLS_BEFORE_ENTRY", 0)
    owner = njit(lambda n: np.zeros(n))(3).base
    with pytest.raises(TypeError, match="cannot create"):
        type(owner)()


def test_tuples_with_none_members_come_back_from_every_call_path():
    """None takes no bytes in a compiled tuple; the native entry read the members after it at
    the wrong offsets (`(None, x, 2.5)` came back as `(None, <bits of 2.5>, <garbage>)`)."""

    def mixed(x):
        return (None, x, 2.5), (x * 1.5, None, None, -x), None

    jitted = njit(mixed)
    for call in range(20):  # the first calls and those through the installed entry
        x = call - 7
        assert jitted(x) == mixed(x)
